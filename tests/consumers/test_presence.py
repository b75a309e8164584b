"""Presence through the real routing: each person's seat is online while a
socket of it is open with its page in view, away while its pages say they
are hidden, and gone once none has been open for the grace period; a
reconnect within the grace never shows it gone, and the seats of a process
that stopped renewing them run out."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games.live.presence import Entry, Presence, presence
from games.runtime import runtime
from tests import factories
from tests.clocks import HandClock

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

GRACE = 5.0


@pytest.fixture
def clock(monkeypatch, settings):
    """The wall clock presence dates its entries by, moved by hand; what the
    process knew under earlier tests' clocks starts afresh."""
    settings.YACHT_PRESENCE_GRACE_SECONDS = GRACE
    settings.YACHT_PRESENCE_TTL_SECONDS = 15.0
    fake = HandClock(1_000_000.0)
    monkeypatch.setattr(runtime, "clock", fake)
    with runtime.swap(Presence, Presence()):
        yield fake


async def presence_until(client, wanted: dict[str, str]) -> list[dict[str, str]]:
    """Every presence message the client gets up to the first showing
    ``wanted``, that one included."""
    seen = []
    while True:
        seats = await client.presence()
        seen.append(seats)
        if seats == wanted:
            return seen


async def a_table(connect):
    game = await sync_to_async(factories.started_game)(2)
    ana = await connect(game.token, "ana")
    await ana.table()
    bo = await connect(game.token, "bo")
    await bo.table()
    await presence_until(bo, {"0": "online", "1": "online"})
    return game, ana, bo


async def test_the_others_see_a_seat_go_from_online_to_gone_once_its_grace_is_over(connect, clock):
    game, ana, bo = await a_table(connect)
    await ana.ws.disconnect()
    clock.wall += GRACE - 1
    await presence().tick()
    assert await presence().states(game.token) == {0: "online", 1: "online"}
    clock.wall += 2
    await presence().tick()
    assert await presence_until(bo, {"1": "online"})


async def test_a_reconnect_within_the_grace_never_shows_the_seat_gone(connect, clock):
    game, ana, bo = await a_table(connect)
    await ana.ws.disconnect()
    clock.wall += GRACE - 2
    await presence().tick()
    again = await connect(game.token, "ana")
    await again.table()
    clock.wall += GRACE * 3
    await presence().tick()
    # Bo's own page going out of view is pushed after anything the ticks
    # pushed: every presence Bo heard before it is in ``seen``.
    await bo.send({"action": "presence", "away": 1})
    seen = await presence_until(bo, {"0": "online", "1": "away"})
    assert all(seats.get("0") == "online" for seats in seen)


async def test_a_hidden_page_shows_its_seat_away_and_back_online_when_it_is_in_view(connect, clock):
    _game, ana, bo = await a_table(connect)
    await ana.send({"action": "presence", "away": 1})
    assert await presence_until(bo, {"0": "away", "1": "online"})
    await ana.send({"action": "presence", "away": 0})
    assert await presence_until(bo, {"0": "online", "1": "online"})


async def test_a_seat_is_online_while_any_of_its_pages_is_in_view(connect, clock):
    game, ana, bo = await a_table(connect)
    second = await connect(game.token, "ana")
    await second.table()
    await second.send({"action": "presence", "away": 1})
    await ana.send({"action": "presence", "away": 1})
    assert await presence_until(bo, {"0": "away", "1": "online"})
    await second.ws.disconnect()
    await ana.send({"action": "presence", "away": 0})
    assert await presence_until(bo, {"0": "online", "1": "online"})


async def test_the_seats_of_a_process_that_stopped_renewing_them_run_out(connect, clock):
    game = await sync_to_async(factories.started_game)(2)
    bo = await connect(game.token, "bo")
    await bo.table()
    # Ana's socket on another process, which then died: its entry is never
    # renewed nor shortened.
    await presence()._put(game.token, {"elsewhere": Entry(0, "online", clock.wall + 15)})
    await presence().look(game.token)
    await presence_until(bo, {"0": "online", "1": "online"})
    clock.wall += 16
    await presence().tick()
    assert await presence_until(bo, {"1": "online"})


async def test_spectators_have_no_presence_and_see_the_players(connect, clock):
    game, _ana, _bo = await a_table(connect)
    watcher = await connect(game.token, "someone-else")
    table = await watcher.table()
    assert table["seat"] is None
    assert await watcher.presence() == {"0": "online", "1": "online"}
    await watcher.send({"action": "presence", "away": 1})
    assert (await watcher.error())["code"] == "not_seated"


async def test_a_bots_seat_has_no_presence_mark_and_a_persons_has(connect, clock):
    game = await sync_to_async(factories.started_game)(2, bot_level="solid")
    ana = await connect(game.token, "ana")
    html = (await ana.table())["html"]
    assert html.count('data-presence="') == 1
    assert 'data-presence="0"' in html
