"""The home page's three ways in, the name a guest gave last time, the join
form's place on a game page, and every page's description."""

from __future__ import annotations

import re

import pytest
from django.core.cache import caches
from django.test import Client

from games.edge.guests import GUEST_KEY
from games.models import DailyEntry, Game, Player
from games.play import daily
from tests import factories

pytestmark = pytest.mark.django_db

# What a browser sends from the untouched home page, besides the button pressed.
UNTOUCHED = {
    "name": "",
    "seats": "2",
    "ruleset": "yacht",
    "turn_seconds": "0",
    "people_count": "2",
}


def home_post(client, lang: str = "en", **fields: str):
    return client.post(f"/{lang}/", {**UNTOUCHED, **fields})


def token_of(response) -> str:
    assert response.status_code == 302, response.content[:500]
    return response["Location"].rstrip("/").rsplit("/", 1)[-1]


def name_field(html: str) -> str:
    found = re.search(r'<input type="text" name="name"[^>]*>', html)
    assert found, "no name field"
    return found.group(0)


def offered_name(client, path: str = "/en/") -> str:
    """The name the page's name field comes filled with."""
    found = re.search(r'value="([^"]*)"', name_field(client.get(path).content.decode()))
    return found.group(1) if found else ""


def test_each_bot_level_is_a_button_that_starts_a_game_against_that_bot_at_once(client):
    html = client.get("/en/").content.decode()
    for level in ("beginner", "solid", "perfect"):
        assert f'name="opponents" value="{level}"' in html
        game = Game.objects.get(token=token_of(home_post(client, opponents=level)))
        assert game.status == Game.Status.PLAYING
        assert [p.bot for p in Player.objects.filter(game=game).order_by("order")] == ["", level]


def test_the_friends_button_opens_a_lobby_with_today_s_defaults(client):
    # The button sends no setting of its own: the form's defaults decide.
    game = Game.objects.get(token=token_of(home_post(client, name="Ana")))
    assert game.status == Game.Status.LOBBY
    assert (game.seat_count, game.ruleset, game.turn_seconds) == (2, "yacht", 0)
    assert (game.hints, game.duplicate, game.perfect_reference) == (False, False, False)


def test_the_daily_button_enters_today_s_challenge_from_the_home_page_form(client):
    html = client.get("/en/").content.decode()
    assert 'formaction="/en/daily/"' in html
    entry = DailyEntry.objects.get(game__token=token_of(client.post("/en/daily/", {"name": ""})))
    assert entry.challenge.day == daily.today()


@pytest.mark.parametrize(("lang", "default"), [("en", "Player"), ("es", "Jugador")])
def test_a_guest_who_gives_no_name_plays_under_the_default_one_of_their_language(
    client, lang, default
):
    game = Game.objects.get(token=token_of(home_post(client, lang, name=" ")))
    assert Player.objects.get(game=game, order=0).name == default
    daily_game = token_of(client.post(f"/{lang}/daily/", {"name": ""}))
    assert Player.objects.get(game__token=daily_game).name == default
    # Nothing was given, so nothing is remembered: the field stays empty.
    assert offered_name(client, f"/{lang}/") == ""


def test_guests_from_other_networks_who_give_no_name_all_enter_the_daily_in_one_tap():
    # A day's board holds each name once, so the default name is numbered.
    names = []
    for n in range(1, 4):
        browser = Client(REMOTE_ADDR=f"198.51.100.{n}")
        token = token_of(browser.post("/en/daily/", {"name": ""}))
        names.append(Player.objects.get(game__token=token).name)
    assert names == ["Player", "Player 2", "Player 3"]


def test_the_name_a_guest_gave_is_offered_again_on_every_form(client):
    home_post(client, name="  Zoë   Q ", opponents="solid")
    assert offered_name(client) == "Zoë Q"
    assert "remembered from last time" in client.get("/en/").content.decode()
    assert offered_name(client, "/en/daily/") == "Zoë Q"
    other = factories.lobby_game(2, joined=1)
    assert offered_name(client, f"/en/g/{other.token}/") == "Zoë Q"


def test_a_name_given_when_joining_or_entering_the_daily_replaces_the_one_remembered(client):
    home_post(client, name="Ana")
    other = factories.lobby_game(2, joined=1)
    client.post(f"/en/g/{other.token}/join/", {"name": "Anita"})
    assert offered_name(client) == "Anita"
    client.post("/en/daily/", {"name": "Ana D"})
    assert offered_name(client) == "Ana D"
    # A blank name keeps the one remembered.
    home_post(client, name="")
    assert offered_name(client) == "Ana D"


def test_a_refused_creation_remembers_no_name(client):
    home_post(client, name="Ana", watch="on")
    assert GUEST_KEY not in client.session
    assert offered_name(client) == ""


def test_just_watch_with_a_level_fills_every_seat_and_without_one_asks_for_it(client):
    refused = home_post(client, watch="on")
    assert refused.status_code == 200
    assert "Choose which bots should play." in refused.content.decode()
    game = Game.objects.get(token=token_of(home_post(client, watch="on", opponents="perfect")))
    assert game.status == Game.Status.PLAYING
    assert set(Player.objects.filter(game=game).values_list("bot", flat=True)) == {"perfect"}


def test_a_setting_refused_opens_more_options_to_show_why(client):
    html = client.get("/en/").content.decode()
    assert '<details class="more-options">' in html
    refused = home_post(client, seats="1", duplicate="on").content.decode()
    assert '<details class="more-options" open>' in refused
    assert "A duplicate game needs 2 to 6 seats." in refused


def without_csrf(html: str) -> str:
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)


@pytest.mark.parametrize("lang", ["en", "es", "it", "ca"])
def test_a_visitor_s_options_come_from_the_process_s_copy_just_as_rendered(client, lang):
    caches["template_fragments"].clear()
    rendered = without_csrf(client.get(f"/{lang}/").content.decode())
    caches["template_fragments"].clear()
    for other in {"en", "es", "it", "ca"} - {lang}:
        client.get(f"/{other}/")  # the other languages' copies stored first
    client.get(f"/{lang}/")
    kept = without_csrf(client.get(f"/{lang}/").content.decode())
    assert kept == rendered
    # Each language has its own copy: the rules link inside the options is
    # the reader's language's.
    assert f'<a href="/{lang}/rules/">' in kept


def test_a_form_sent_back_shows_its_own_choices_not_the_visitor_s_copy(client):
    client.get("/en/")  # the visitor's copy, stored
    refused = home_post(client, seats="4", ruleset="yatzy", watch="on").content.decode()
    assert '<option value="4" selected>' in refused
    assert re.search(r'<input type="radio" name="ruleset" value="yatzy" checked>', refused)
    assert re.search(r'<input type="checkbox" name="watch"[^>]* checked', refused)
    fresh = client.get("/en/").content.decode()
    assert '<option value="4" selected>' not in fresh
    assert re.search(r'<input type="radio" name="ruleset" value="yacht" checked>', fresh)


def test_a_guest_s_own_door_is_never_the_visitor_s_copy(client):
    Client().get("/en/")  # a fresh visitor's copy, stored
    token_of(client.post("/en/daily/", {"name": "Dora"}))
    html = client.get("/en/").content.decode()
    assert "Your game of today's challenge is waiting for you." in html
    assert "Play today's challenge" not in html


def test_the_daily_choice_leads_back_to_today_s_game_once_entered(client):
    token = token_of(client.post("/en/daily/", {"name": "Dora"}))
    home = client.get("/en/").content.decode()
    assert "Your game of today's challenge is waiting for you." in home
    assert f'href="/en/g/{token}/"' in home
    assert 'formaction="/en/daily/"' not in home


def test_a_newcomer_on_a_game_page_meets_the_join_button_before_the_link_and_the_table(client):
    game = factories.lobby_game(2, joined=1)
    html = client.get(f"/en/g/{game.token}/").content.decode()
    join = html.index("Join as this name")
    assert join < html.index('id="invite-link"')
    assert join < html.index("You are watching this game.")


def description(html: str) -> str:
    found = re.search(r'<meta name="description" content="([^"]+)">', html)
    assert found, "the page has no description"
    return found.group(1)


def test_every_page_has_a_description_in_its_language(client):
    host = Client()
    lobby = Game.objects.get(token=token_of(home_post(host, name="Ana")))
    guest = host.session[GUEST_KEY]
    finished = factories.started_game(1, guests=(guest,))
    factories.play_turns(finished, guests=(guest,))
    client.get("/en/daily/")
    pages = [
        "/{}/",
        f"/{{}}/g/{lobby.token}/",
        f"/{{}}/g/{finished.token}/review/",
        f"/{{}}/g/{finished.token}/verify/",
        "/{}/daily/",
        f"/{{}}/daily/{daily.today().isoformat()}/",
        "/{}/rules/",
        "/{}/rules/yatzy/",
        "/{}/my/games/",
        "/{}/my/stats/",
        "/{}/g/no-such-game-at-all-here/",
    ]
    for page in pages:
        english = description(host.get(page.format("en")).content.decode())
        assert len(english) > 50, page
        for lang in ("es", "it", "ca"):
            translated = description(host.get(page.format(lang)).content.decode())
            assert translated != english, (page, lang)
    rules = description(host.get("/en/rules/yatzy/").content.decode())
    assert rules.startswith("How to play Yatzy")
