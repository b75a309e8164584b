"""Names at a table are visible and tell players apart; a seat gets a fresh
session id; looking at a page writes no session; the site will not run on a
public secret key; a socket's Origin must be this site's, scheme and port
included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from django.utils.html import escape

from games.edge.guests import GUEST_KEY
from games.models import Game, Player
from games.play import services
from games.present.messages import error_message
from games.rules import GameError
from yachtsite.asgi import application

ROOT = Path(__file__).resolve().parents[2]

BLANK_LOOKING = [
    "\u3164",  # Hangul filler: a letter that draws nothing
    "\u3164\u3164 \u3164",
    "\u2800",  # Braille blank
    "\u200b",  # zero-width space
    "An\u200ba",
    "\ufeffAna",  # byte order mark
    "An\u00ada",  # soft hyphen
    "Ana\u2060",  # word joiner
    "\u200d",
    "\u0301\u0301",  # accents on nothing
]


@pytest.mark.django_db
@pytest.mark.parametrize("name", BLANK_LOOKING)
def test_blank_looking_or_invisible_names_are_refused(name):
    with pytest.raises(GameError) as refused:
        services.game_create(guest_id="g", name=name)
    assert refused.value.code == "bad_name_invisible"
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_a_letter_may_carry_a_few_accents_but_not_a_pile_of_them():
    with pytest.raises(GameError) as refused:
        services.game_create(guest_id="g", name="Z" + "\u0301" * 23)
    assert refused.value.code == "bad_name_marks"
    for name in ("Nguyễn", "ไก่", "Ana 👨\u200d👩\u200d👧", "e\u0301\u0302\u0303"):
        assert services.game_create(guest_id="g", name=name).players.get().name


@pytest.mark.django_db
@pytest.mark.parametrize(
    "second",
    # The same, in case, with a Cyrillic A, in fullwidth letters, with an accent, spaced.
    ["Ana", "ana", "ANA", "\u0410na", "\uff21\uff4e\uff41", "Aná", " Ana  "],
)
def test_a_second_player_cannot_take_a_name_that_repeats_or_imitates_one_at_the_table(second):
    game = services.game_create(guest_id="ana", name="Ana", seat_count=3)
    with pytest.raises(GameError) as refused:
        services.game_join(token=game.token, guest_id="bo", name=second)
    assert refused.value.code == "name_taken"
    assert game.players.count() == 1
    services.game_join(token=game.token, guest_id="bo", name="Anna")
    assert game.players.count() == 2


@pytest.mark.django_db
def test_bots_never_take_the_name_of_a_person_at_the_table():
    game = services.game_create(guest_id="g", name="Blaise", seat_count=6, bot_level="solid")
    names = list(game.players.order_by("order").values_list("name", flat=True))
    assert len({n.casefold() for n in names}) == 6, names
    lobby = services.game_create(guest_id="h", name="Ada", seat_count=3)
    services.game_add_bot(token=lobby.token, guest_id="h", level="beginner")
    services.game_join(token=lobby.token, guest_id="i", name="Carl")
    with pytest.raises(GameError):
        services.game_join(token=lobby.token, guest_id="j", name="Blaise")


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "es", "it", "ca"])
def test_the_join_form_says_why_a_look_alike_name_was_refused(language):
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2)
    client = Client()
    page = client.post(f"/{language}/g/{game.token}/join/", {"name": "\u0410na"}, follow=True)
    with translation.override(language):
        assert escape(error_message("name_taken")) in page.content.decode()
    assert game.players.count() == 1


def planted(client: Client) -> str:
    """A session whose id someone else knows, already in the browser."""
    store = SessionStore()
    store[GUEST_KEY] = "planted-guest"
    store.create()
    key = store.session_key
    assert key is not None
    client.cookies[settings.SESSION_COOKIE_NAME] = key
    return key


@pytest.mark.django_db
def test_taking_a_seat_by_joining_gives_the_session_a_new_id():
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2)
    client = Client()
    known = planted(client)
    client.post(f"/en/g/{game.token}/join/", {"name": "Bo"})
    fresh = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert fresh != known
    seat = Player.objects.get(game=game, order=1)
    assert SessionStore(fresh).load()[GUEST_KEY] == seat.guest_id
    # The id someone else knew now opens nothing.
    assert not Session.objects.filter(session_key=known).exists()


@pytest.mark.django_db
def test_taking_a_seat_by_creating_a_game_gives_the_session_a_new_id():
    client = Client()
    known = planted(client)
    client.post("/en/", {"name": "Ana", "seats": 2, "ruleset": "yacht"})
    assert Game.objects.count() == 1
    assert client.cookies[settings.SESSION_COOKIE_NAME].value != known
    assert not Session.objects.filter(session_key=known).exists()


@pytest.mark.django_db
def test_a_first_seat_writes_the_new_session_once():
    client = Client()
    with CaptureQueriesContext(connection) as queries:
        client.post("/en/", {"name": "Ana", "seats": 2, "ruleset": "yacht"})
    writes = [
        q["sql"]
        for q in queries.captured_queries
        if "django_session" in q["sql"] and q["sql"].startswith(("INSERT", "UPDATE", "DELETE"))
    ]
    assert [sql.split()[0] for sql in writes] == ["INSERT"]
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    seat = Player.objects.get(order=0)
    assert SessionStore(key).load()[GUEST_KEY] == seat.guest_id


@pytest.mark.django_db
def test_looking_at_pages_without_a_cookie_writes_no_session():
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2)
    for path in ("/en/", f"/en/g/{game.token}/", "/en/rules/"):
        assert Client().get(path).status_code == 200
    assert Session.objects.count() == 0


def settings_probe(**env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in __import__("os").environ.items() if not k.startswith("DJANGO_")}
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); print('started')"],
        cwd=ROOT,
        env={**environment, "DJANGO_SETTINGS_MODULE": "yachtsite.settings", **env},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    "key",
    [
        None,
        "",
        "insecure-local-only-key-change-me-in-production",
        "change-me-to-50-random-characters",
    ],
)
def test_without_debug_the_site_refuses_to_start_on_a_missing_or_public_secret_key(key):
    env = {"DJANGO_DEBUG": "0"}
    if key is not None:
        env["DJANGO_SECRET_KEY"] = key
    done = settings_probe(**env)
    assert done.returncode != 0
    assert "DJANGO_SECRET_KEY" in done.stderr


def test_the_default_secret_key_is_for_debug_only():
    assert settings_probe(DJANGO_DEBUG="1").stdout.strip() == "started"
    assert settings_probe(DJANGO_DEBUG="0", DJANGO_SECRET_KEY="k" * 50).stdout.strip() == "started"


async def socket_opens(origin: bytes, host: bytes) -> bool:
    communicator = WebsocketCommunicator(
        application, "/ws/g/nope/", headers=[(b"origin", origin), (b"host", host)]
    )
    connected, _ = await communicator.connect()
    await communicator.disconnect()
    return connected


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("origin", "host", "opens"),
    [
        (b"http://localhost", b"localhost", True),
        (b"http://localhost:8000", b"localhost:8000", True),
        (b"http://localhost:80", b"localhost", True),
        (b"https://localhost", b"localhost", False),  # another scheme
        (b"http://localhost:8001", b"localhost:8000", False),  # another port
        (b"http://localhost:8001", b"localhost", False),
        (b"http://127.0.0.1", b"localhost", False),  # another host, both allowed
        (b"http://localhost", b"evil.example", False),
        (b"http://localhost", b"", False),
    ],
)
async def test_a_socket_opens_only_for_an_origin_of_the_same_scheme_host_and_port(
    origin, host, opens
):
    assert await socket_opens(origin, host) is opens


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_origin_listed_as_trusted_may_open_a_socket(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example"]
    assert await socket_opens(b"https://play.example", b"localhost")
    assert not await socket_opens(b"http://play.example", b"localhost")


def test_the_example_environment_does_not_allow_localhost_in_production():
    example = (ROOT / ".env.example").read_text()
    hosts = next(
        line.split("=", 1)[1]
        for line in example.splitlines()
        if line.startswith("DJANGO_ALLOWED_HOSTS=")
    )
    assert not {"localhost", "127.0.0.1", "[::1]"} & set(hosts.split(","))
