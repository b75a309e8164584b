"""Games created are limited per client address, not only per session, and
a busy site holds back the address groups creating the most, never a fresh
one; games of bots alone pause while nobody watches; stale lobbies and
expired sessions are cleaned by a command."""

from __future__ import annotations

import asyncio
import html
import time
from datetime import timedelta
from io import StringIO

import pytest
import redis
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.test import Client
from django.utils import timezone, translation

from games.models import Game
from games.play import services
from games.present.messages import error_message
from games.runtime import runtime
from games.store import quotas
from tests.clocks import HandClock

FORM = {"name": "Ana", "seats": 1, "ruleset": "yacht"}


@pytest.fixture(autouse=True)
def hourly_shares_alone(settings):
    """These tests spend hourly shares in a moment: the pace of a group's
    games in a row is tested on its own, below."""
    settings.YACHT_GAMES_PACE_PER_ADDRESS = 100_000


def create(address: str, language: str = "en") -> int:
    """A game from a fresh browser with no cookie, as a script would."""
    return Client(REMOTE_ADDR=address).post(f"/{language}/", FORM).status_code


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "ca"])
def test_fresh_sessions_from_one_address_are_held_to_the_addresss_hourly_limit(settings, language):
    settings.YACHT_GAMES_PER_HOUR_PER_ADDRESS = 5
    assert [create("192.0.2.1", language) for _ in range(7)] == [302] * 5 + [429] * 2
    refused = Client(REMOTE_ADDR="192.0.2.1").post(f"/{language}/", FORM)
    with translation.override(language):
        # As the reader sees it: how the page escapes an apostrophe is its own.
        assert error_message("too_many_games") in html.unescape(refused.content.decode())
    assert Game.objects.count() == 5
    assert create("192.0.2.2", language) == 302


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["/en/", "/en/daily/"])
def test_a_crowd_of_address_groups_within_their_limits_cannot_stop_a_fresh_one_starting_a_game(
    settings, page
):
    settings.YACHT_GAMES_PER_HOUR_PER_ADDRESS = 3
    settings.YACHT_GAMES_PER_HOUR_SITE = 60
    settings.YACHT_GAMES_PER_HOUR_FAIR_FLOOR = 1
    # Fifty groups, each keeping within its own three games an hour, take
    # turns: far past the site's busy level of sixty between them.
    crowd = [create(f"198.51.100.{n}") for _ in range(3) for n in range(50)]
    assert crowd.count(302) == 60 and crowd.count(429) == 90
    assert Game.objects.count() == 60
    # A fresh IPv4 address and a fresh IPv6 /64 still start theirs.
    # (Two names: a day's daily board holds each name once.)
    for address, name in (("203.0.113.9", "Fresh"), ("2001:db8:7::1", "Newcomer")):
        started = Client(REMOTE_ADDR=address).post(page, {**FORM, "name": name})
        assert started.status_code == 302, html.unescape(started.content.decode())
        assert started["Location"].startswith("/en/g/")
    assert Game.objects.count() == 62


@pytest.mark.django_db
def test_past_the_busy_level_the_heaviest_address_group_is_refused_first(settings):
    settings.YACHT_GAMES_PER_HOUR_PER_ADDRESS = 100
    settings.YACHT_GAMES_PER_HOUR_SITE = 10
    settings.YACHT_GAMES_PER_HOUR_FAIR_FLOOR = 1
    assert [create("192.0.2.1") for _ in range(8)] == [302] * 8
    assert [create("192.0.2.2") for _ in range(2)] == [302] * 2
    # Busy now: a fair share is 10 split between the two groups, 5 each.
    refused = Client(REMOTE_ADDR="192.0.2.1").post("/en/", FORM)
    assert refused.status_code == 429
    assert error_message("site_busy") in html.unescape(refused.content.decode())
    # The lighter group goes on up to its share, and is then refused too.
    assert [create("192.0.2.2") for _ in range(4)] == [302, 302, 302, 429]
    assert Game.objects.count() == 13
    if django_settings.REDIS_URL:
        # Counted where every process sees it: one sorted set of groups an hour.
        client = redis.Redis.from_url(django_settings.REDIS_URL, decode_responses=True)
        hour = int(runtime.clock.time() // quotas.CREATE_WINDOW)
        groups = client.zrange(f"yacht:limit:create-groups:{hour}", 0, -1, withscores=True)
        client.close()
        assert groups == [("192.0.2.2", 5.0), ("192.0.2.1", 8.0)]


@pytest.mark.django_db
def test_a_refused_creation_writes_no_session(settings):
    settings.YACHT_GAMES_PER_HOUR_PER_ADDRESS = 1
    assert create("192.0.2.5") == 302
    assert Session.objects.count() == 1
    for page in ("/en/", "/en/daily/"):
        refused = Client(REMOTE_ADDR="192.0.2.5").post(page, FORM)
        assert refused.status_code == 429
        assert error_message("too_many_games") in html.unescape(refused.content.decode())
        assert settings.SESSION_COOKIE_NAME not in refused.cookies
    assert Session.objects.count() == 1


@pytest.mark.django_db
def test_only_games_made_count_against_an_address_not_creations_that_failed(settings):
    settings.YACHT_GAMES_PER_HOUR_PER_ADDRESS = 2
    client = Client(REMOTE_ADDR="192.0.2.6")
    for _ in range(3):
        failed = client.post("/en/", {**FORM, "name": "Ana\u202eevil"})
        assert failed.status_code == 200
        assert error_message("bad_name_characters") in html.unescape(failed.content.decode())
    assert [create("192.0.2.6") for _ in range(3)] == [302, 302, 429]


@pytest.mark.django_db
def test_games_can_still_be_created_when_redis_is_down(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.YACHT_GAMES_PER_HOUR_PER_ADDRESS = 2
    # Counted in the process instead: the limit still holds.
    assert [create("192.0.2.7") for _ in range(3)] == [302, 302, 429]


@pytest.fixture
def quick_bots(settings):
    settings.YACHT_BOT_PAUSE = (0.01, 0.02)


def version_of(game: Game) -> int:
    game.refresh_from_db()
    return game.version


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_game_of_bots_alone_pauses_while_nobody_watches_and_resumes_on_connect(
    connect, travel
):
    # Each bot's pause ends when the test moves the time through it.
    game = await sync_to_async(services.game_create)(
        guest_id="ana", name="Ana", seat_count=2, bot_level="solid", watch=True
    )
    watcher = await connect(game.token, None)
    start = (await watcher.table())["version"]
    for step in range(1, 5):
        await travel.wake_next()
        assert (await watcher.table(timeout=5))["version"] == start + step
    # The last watcher leaves while the next step waits out its pause: at
    # its end the step finds nobody watching, and is not taken. (Had it been,
    # the step after it would be waiting for the time to move, unsettled.)
    await watcher.ws.disconnect()
    await travel.wake_next()
    settled = asyncio.ensure_future(runtime.loop.settle())
    await asyncio.wait({settled}, timeout=5)
    settled.cancel()
    assert await sync_to_async(version_of)(game) == start + 4, "a step with nobody watching"
    assert travel.waiting() == [], "no step is waiting to be taken"
    travel.shift(60)
    await runtime.loop.settle()
    assert await sync_to_async(version_of)(game) == start + 4
    again = await connect(game.token, None)
    assert (await again.table())["version"] == start + 4
    await travel.wake_next()
    assert (await again.table(timeout=5))["version"] == start + 5


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_many_sockets_watching_a_game_of_bots_make_one_step_per_version(connect, quick_bots):
    game = await sync_to_async(services.game_create)(
        guest_id="ana", name="Ana", seat_count=2, bot_level="solid", watch=True
    )
    watchers = [await connect(game.token, None) for _ in range(5)]
    for watcher in watchers:
        await watcher.table()
    seen = [(await watchers[0].table(timeout=5))["version"] for _ in range(6)]
    assert seen == list(range(seen[0], seen[0] + 6))


@pytest.mark.django_db
def test_clean_stale_deletes_old_lobbies_and_expired_sessions_and_nothing_else():
    old_lobby = services.game_create(guest_id="a", name="Ana", seat_count=2)
    new_lobby = services.game_create(guest_id="b", name="Bo", seat_count=2)
    old_game = services.game_create(guest_id="c", name="Cy", seat_count=1)
    services.game_start(token=old_game.token, guest_id="c")
    long_ago = timezone.now() - timedelta(days=2)
    Game.objects.filter(pk__in=[old_lobby.pk, old_game.pk]).update(acted_at=long_ago)
    expired, live = SessionStore(), SessionStore()
    expired.set_expiry(-60)
    for store in (expired, live):
        store["x"] = 1
        store.create()
    out = StringIO()
    call_command("clean_stale", stdout=out)
    assert set(Game.objects.values_list("pk", flat=True)) == {new_lobby.pk, old_game.pk}
    assert list(Session.objects.values_list("session_key", flat=True)) == [live.session_key]
    assert (
        "deleted 1 stale lobbies, 0 abandoned games, 0 old chat lines, 0 stale queue tickets "
        "and 1 expired sessions" in (out.getvalue())
    )


@pytest.mark.django_db
def test_a_group_starting_games_in_a_row_is_paced_while_a_fresh_group_starts_at_once(
    settings, monkeypatch
):
    settings.YACHT_GAMES_PACE_PER_ADDRESS = 3
    settings.YACHT_GAMES_PACE_SECONDS = 20
    start = time.time()
    clock = HandClock(start)
    monkeypatch.setattr(runtime, "clock", clock)
    assert [create("198.51.100.7") for _ in range(5)] == [302] * 3 + [429] * 2
    page = Client(REMOTE_ADDR="198.51.100.7").post("/en/", FORM)
    assert error_message("creating_too_fast") in html.unescape(page.content.decode())
    assert create("2001:db8:9::1") == 302, "another group is not held back by this one"
    clock.wall = start + 45  # two windows on, the group's tries have aged out
    assert create("198.51.100.7") == 302
