"""Which language a page is in: its URL prefix, else the browser's
Accept-Language, else English; and the switcher keeps you where you are."""

import re

import pytest
from django.conf import settings
from django.test import Client

from games.models import Game
from games.play import services

pytestmark = pytest.mark.django_db


def html_lang(content: bytes) -> str:
    found = re.search(rb'<html lang="([^"]+)"', content)
    assert found, "the page has no <html lang>"
    return found.group(1).decode()


@pytest.mark.parametrize(
    ("code", "heading"),
    [
        ("en", "More options"),
        ("es", "Más opciones"),
        ("it", "Altre opzioni"),
        ("ca", "Més opcions"),
    ],
)
def test_the_url_prefix_sets_the_language_of_the_page(client: Client, code: str, heading: str):
    # A browser asking for another language must not override the prefix.
    response = client.get(f"/{code}/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,fr;q=0.5")
    assert response.status_code == 200
    assert html_lang(response.content) == code
    assert heading in response.content.decode()


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("es-ES,es;q=0.9,en;q=0.8", "/es/"),
        ("it-IT,it;q=0.9", "/it/"),
        ("ca-ES,ca;q=0.9,es;q=0.8", "/ca/"),
        ("fr-FR,de;q=0.9,it;q=0.5", "/it/"),
        ("en-US,en;q=0.9", "/en/"),
    ],
)
def test_without_a_prefix_the_browsers_accept_language_picks_the_language(
    client: Client, accept: str, expected: str
):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=accept)
    assert response.status_code == 302
    assert response["Location"] == expected
    assert html_lang(client.get(expected).content) == expected.strip("/")


def test_with_no_language_the_browser_can_use_the_site_is_in_english(client: Client):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="ja-JP,de;q=0.8")
    assert response["Location"] == "/en/"
    assert client.get("/").headers["Location"] == "/en/"


def test_the_switcher_posts_the_current_page_as_where_to_come_back(client: Client):
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2)
    page = client.get(f"/ca/g/{game.token}/").content.decode()
    form = re.search(r'<form class="language-switcher" action="([^"]+)".*?</form>', page, re.S)
    assert form, "the page has no language switcher"
    assert form.group(1) == "/i18n/setlang/"
    assert f'name="next" type="hidden" value="/ca/g/{game.token}/"' in form.group(0)
    for code, _name in settings.LANGUAGES:
        assert f'<option value="{code}"' in form.group(0)


def seated_client(accept: str) -> tuple[Client, Game]:
    """A guest who created a game in Spanish, in a browser that prefers ``accept``."""
    client = Client(HTTP_ACCEPT_LANGUAGE=accept)
    response = client.post("/es/", {"name": "Ana", "seats": "2", "ruleset": "yacht"})
    assert response.status_code == 302
    token = response["Location"].rstrip("/").rsplit("/", 1)[1]
    assert response["Location"] == f"/es/g/{token}/"
    return client, Game.objects.get(token=token)


@pytest.mark.parametrize("accept", ["en-US,en;q=0.9", "es-ES,es;q=0.9", "ca,es;q=0.5"])
@pytest.mark.parametrize("target", ["it", "ca", "en"])
def test_switching_language_keeps_the_guest_on_the_same_table_and_seat(accept: str, target: str):
    client, game = seated_client(accept)
    response = client.post("/i18n/setlang/", {"language": target, "next": f"/es/g/{game.token}/"})
    assert response.status_code == 302
    assert response["Location"] == f"/{target}/g/{game.token}/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == target

    page = client.get(response["Location"])
    assert html_lang(page.content) == target
    html = page.content.decode()
    # Still the host's seat: the table is rendered for seat 0, with its start button.
    assert 'data-seat="0"' in html
    assert 'data-action="start"' in html
    assert f'data-lang="{target}"' in html


def test_the_chosen_language_then_applies_where_no_prefix_says_otherwise():
    client, game = seated_client("en-US,en;q=0.9")
    client.post("/i18n/setlang/", {"language": "ca", "next": f"/es/g/{game.token}/"})
    assert client.get("/")["Location"] == "/ca/"


def test_the_switcher_refuses_to_send_anyone_to_another_site(client: Client):
    response = client.post(
        "/i18n/setlang/", {"language": "it", "next": "https://elsewhere.example/it/"}
    )
    assert response.status_code == 302
    assert not response["Location"].startswith("https://elsewhere.example")
