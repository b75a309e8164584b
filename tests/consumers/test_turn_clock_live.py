"""The turn clock through the socket: it runs out under a live socket (a
timer of this process acts), and with nobody connected (the next socket,
or the next page load, acts)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client as PageClient
from django.utils import timezone

from games.models import Game, Player
from games.play import services
from tests import factories

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def quick_bots(settings):
    settings.YACHT_BOT_PAUSE = (0.0, 0.01)


def clocked_lobby() -> Game:
    """A two-seat lobby whose turn clock is 30 seconds: far longer than a
    socket's wait for a table, so a timer that waited on the event loop's
    own clock instead of the test's could not act in time."""
    game = factories.lobby_game(2)
    Game.objects.filter(pk=game.pk).update(turn_seconds=30)
    return game


async def test_the_clock_runs_out_under_a_live_socket_and_the_stand_in_bot_plays_the_turn(
    connect, travel
):
    game = await sync_to_async(clocked_lobby)()
    ana = await connect(game.token, "ana")
    watcher = await connect(game.token, None, lang="it")
    await ana.table()
    await watcher.table()
    await ana.send({"action": "start", "version": ana.version})
    started = await watcher.table()
    assert started["state"]["deadline"] is not None
    assert 'role="timer"' in started["html"]
    # Nobody acts, and the 30 seconds pass: the timer of this process acts.
    travel.shift(31)
    ran_out = await watcher.table(timeout=4)
    assert ran_out["state"]["last"]["kind"] == "clock"
    assert ran_out["state"]["last"]["seat"] == 0
    assert ran_out["state"]["seats"][0]["bot"] == services.STAND_IN_LEVEL
    assert ran_out["state"]["deadline"] is None
    assert "scaduto" in ran_out["announce"], "each socket hears it in its own language"
    # The stand-in rolls and scores Ana's turn, a step at the end of each
    # pause; then it is Bo's, on his clock.
    while True:
        await travel.wake_next()
        table = await watcher.table(timeout=5)
        if table["state"]["current_seat"] == 1:
            break
    assert table["state"]["last"]["kind"] == "score" and table["state"]["last"]["seat"] == 0
    assert table["state"]["deadline"] is not None
    # Having played that turn, the bot leaves Ana her seat for her next.
    assert table["state"]["seats"][0]["bot"] == ""


async def test_a_clock_that_ran_out_with_nobody_connected_is_honoured_when_someone_connects(
    connect, travel
):
    game = await sync_to_async(clocked_lobby)()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    started = await sync_to_async(Game.objects.get)(pk=game.pk)
    # No socket, no timer: the deadline passes and nothing happens...
    travel.shift(31)
    still = await sync_to_async(Game.objects.get)(pk=game.pk)
    assert still.version == started.version
    assert (await sync_to_async(Player.objects.get)(game=game, order=0)).bot == ""
    # ...until a socket of the game connects: its first table shows it done.
    bo = await connect(game.token, "bo")
    table = await bo.table()
    assert table["version"] == started.version + 1
    assert table["state"]["last"] is None or table["state"]["last"]["kind"] != "roll"
    assert table["state"]["seats"][0]["bot"] == services.STAND_IN_LEVEL
    # and the stand-in bot goes on to play the turn.
    while table["state"]["current_seat"] != 1:
        await travel.wake_next()
        table = await bo.table(timeout=5)


def _load_page(token: str) -> int:
    return PageClient().get(f"/en/g/{token}/").status_code


async def test_a_clock_that_ran_out_unwatched_is_honoured_by_the_games_page_too(travel):
    game = await sync_to_async(clocked_lobby)()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    travel.shift(31)
    assert await sync_to_async(_load_page)(game.token) == 200
    ana = await sync_to_async(Player.objects.get)(game=game, order=0)
    assert ana.bot == services.STAND_IN_LEVEL


async def test_a_sync_from_a_page_whose_clock_reached_zero_honours_a_deadline_no_timer_kept(
    connect, quick_bots
):
    game = await sync_to_async(factories.started_game)(2)
    ana = await connect(game.token, "ana")
    await ana.table()
    # As if the process holding the deadline's timer had died with it: the
    # deadline is in the past and no timer here knows of it.
    await sync_to_async(
        lambda: Game.objects.filter(pk=game.pk).update(
            turn_seconds=30, turn_deadline=timezone.now() - timedelta(seconds=1)
        )
    )()
    await ana.send({"action": "sync", "version": ana.version})
    table = await ana.table()
    assert table["state"]["last"]["kind"] == "clock"
    assert table["state"]["seats"][0]["bot"] == services.STAND_IN_LEVEL


def clocked_two_seats() -> Game:
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, turn_seconds=30)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    return services.game_start(token=game.token, guest_id="ana")


async def error_after(client: Any) -> dict[str, Any]:
    """The next error the socket hears (the tables pushed meanwhile read past)."""
    while True:
        message = await client.receive()
        if message["type"] == "error":
            return message


async def test_once_the_clock_ran_out_the_seats_moves_are_time_up_and_the_bot_plays_the_turn(
    connect, time_machine, travel
):
    # The bot's pauses end only when the test moves the time: Ana's messages
    # are all answered while her turn is still the bot's to play.
    time_machine.move_to(datetime(2026, 12, 5, 18, 0, tzinfo=UTC), tick=False)
    game = await sync_to_async(clocked_two_seats)()
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    await ana.table()
    await bo.table()
    await ana.send({"action": "roll", "version": ana.version})
    rolled = await bo.table()
    made_before_the_clock = rolled["version"]
    # The time passes the deadline without waking this process's timer
    # (``travel.shift`` would): Bo's page reached zero and asks, and the
    # clock acts, as its timer would.
    time_machine.shift(timedelta(seconds=31))
    await bo.send({"action": "sync", "version": bo.version})
    ran_out = await bo.table()
    assert ran_out["state"]["last"]["kind"] == "clock" and ran_out["state"]["deadline"] is None
    # Ana's roll made just before it, then whatever she sends, is told time_up:
    # nothing takes the turn back or starts a fresh period.
    await ana.send({"action": "roll", "version": made_before_the_clock})
    assert (await error_after(ana))["code"] == "time_up"
    for message in (
        {"action": "take_back"},
        {"action": "hold", "version": ran_out["version"], "dice": [0]},
        {"action": "score", "version": ran_out["version"], "category": "choice"},
    ):
        await ana.send(message)
        assert (await error_after(ana))["code"] == "time_up", message
    # The stand-in plays Ana's turn to its end, with no clock running for it;
    # then the seat is hers again and Bo's turn runs on a full period.
    seen = [ran_out]
    while seen[-1]["state"]["current_seat"] != 1:
        await travel.wake_next()
        seen.append(await bo.table(timeout=5))
    assert all(t["state"]["deadline"] is None for t in seen[:-1])
    assert {t["state"]["last"]["kind"] for t in seen[1:]} <= {"roll", "hold", "score"}
    assert seen[-1]["state"]["last"]["kind"] == "score"
    assert seen[-1]["state"]["seats"][0]["bot"] == ""
    assert seen[-1]["state"]["deadline"] == (timezone.now() + timedelta(seconds=30)).timestamp()
