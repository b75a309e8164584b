"""A process has ceilings of its own, beyond every client's fair share: open
sockets (seated players first, spectators only below a share of it), games
of bots alone played at once, chat (a pace per game, a budget of
deliveries to spectators) and the messages it reads from spectators. Fifty
addresses each within its own limits must not slow the games of people
playing. Small ceilings here, through the real routing."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.live import botplay, limits
from games.models import ChatMessage, Game
from games.play import services
from games.runtime import runtime
from games.store import quotas
from tests.clocks import HandClock
from tests.consumers.conftest import Client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def fresh_counts() -> Iterator[None]:
    # The process's counts start empty, whatever earlier tests left open.
    with (
        runtime.swap(limits.SocketCounts, limits.SocketCounts()),
        runtime.swap(limits.ChatDeliveries, limits.ChatDeliveries()),
        runtime.swap(limits.SpectatorMessages, limits.SpectatorMessages()),
        runtime.swap(botplay.BotSlots, botplay.BotSlots()),
        runtime.swap(quotas.ChatHolds, quotas.ChatHolds()),
    ):
        yield


@sync_to_async
def started(*, seats: int = 2, bot_level: str = "") -> Game:
    game = services.game_create(guest_id="ana", name="Ana", seat_count=seats, bot_level=bot_level)
    if not bot_level:
        services.game_join(token=game.token, guest_id="bo", name="Bo")
    services.game_start(token=game.token, guest_id="ana")
    game.refresh_from_db()
    return game


@sync_to_async
def bots_alone() -> Game:
    return services.game_create(
        guest_id="ana", name="Ana", seat_count=2, bot_level="beginner", watch=True
    )


@pytest.fixture
def still_clock(monkeypatch) -> HandClock:
    """The process budgets' clock, standing still: nothing is earned back
    mid-test unless the test moves it."""
    clock = HandClock(time.time(), intervals_too=True)
    monkeypatch.setattr(runtime, "clock", clock)
    return clock


async def watched(
    connect: Any, *, players: tuple[str, ...] = ("ana",), spectators: int = 2
) -> tuple[Game, list[Client], list[Client]]:
    """A started game with sockets of ``players`` and of ``spectators``
    watchers, each past its first table."""
    game = await started()
    seated = [await connect(game.token, guest) for guest in players]
    watchers = [await connect(game.token, None) for _ in range(spectators)]
    for client in (*seated, *watchers):
        await client.table()
    return game, seated, watchers


async def told_busy(client: Client) -> dict[str, Any]:
    """The error a refused socket is sent, after checking the close that follows."""
    error = await client.error()
    assert error["code"] == "server_busy"
    closing = await client.ws.receive_output(timeout=3)
    assert closing == {"type": "websocket.close", "code": limits.CLOSE_SERVER_BUSY}
    return error


# -- open sockets ----------------------------------------------------------------


async def test_past_the_spectators_share_a_spectator_is_refused_and_a_seated_player_still_gets_in(
    connect, settings
):
    settings.YACHT_SOCKETS_PER_PROCESS = 5
    settings.YACHT_SPECTATOR_SOCKET_SHARE = 0.6
    game = await started()
    for _ in range(3):
        watcher = await connect(game.token, None)
        assert (await watcher.table())["seat"] is None
    # A fourth spectator, with a session or without, would leave less than
    # the rest of the ceiling for people playing.
    for guest in (None, "zed"):
        error = await told_busy(await connect(game.token, guest))
        assert error["message"]
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    assert (await ana.table())["seat"] == 0
    assert (await bo.table())["seat"] == 1
    await ana.send({"action": "roll", "version": game.version, "hold": []})
    assert (await bo.table())["version"] == game.version + 1


async def test_past_the_spectators_cap_a_spectator_is_refused_and_players_still_get_in(
    connect, settings
):
    # The ceiling and its share have room; the spectators' own cap does not.
    settings.YACHT_SOCKETS_PER_PROCESS = 50
    settings.YACHT_SPECTATORS_PER_PROCESS = 2
    game = await started()
    watchers = [await connect(game.token, guest) for guest in (None, "zed")]
    for watcher in watchers:
        assert (await watcher.table())["seat"] is None
    assert limits.sockets().spectators == 2
    for guest in (None, "yan"):
        await told_busy(await connect(game.token, guest))
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    assert (await ana.table())["seat"] == 0
    assert (await bo.table())["seat"] == 1
    # Seated players never hold a spectator's place, and a spectator who
    # leaves gives theirs back at once.
    assert limits.sockets().spectators == 2
    await watchers[1].ws.disconnect()
    assert limits.sockets().spectators == 1
    again = await connect(game.token, "yan")
    assert (await again.table())["seat"] is None
    assert limits.sockets().spectators == 2


async def test_at_the_ceiling_even_a_seated_player_is_refused_and_told_why_in_their_language(
    connect, settings
):
    settings.YACHT_SOCKETS_PER_PROCESS = 2
    settings.YACHT_SPECTATOR_SOCKET_SHARE = 0.5
    game = await started()
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    await ana.table()
    await bo.table()
    english = await told_busy(await connect(game.token, "ana"))
    catalan = await told_busy(await connect(game.token, "bo", lang="ca"))
    assert catalan["message"] != english["message"]
    assert "servidor" in catalan["message"]


async def test_a_socket_that_closes_gives_its_place_under_the_ceiling_back(connect, settings):
    settings.YACHT_SOCKETS_PER_PROCESS = 2
    settings.YACHT_SPECTATOR_SOCKET_SHARE = 0.5
    game = await started()
    watcher = await connect(game.token, None)
    await watcher.table()
    await told_busy(await connect(game.token, None))
    await watcher.ws.disconnect()
    again = await connect(game.token, None)
    assert (await again.table())["seat"] is None


# -- games of bots alone -------------------------------------------------------------


async def table_after(client: Client, version: int) -> dict[str, Any]:
    while True:
        table = await client.table(timeout=10)
        if table["version"] > version:
            return table


async def test_a_game_of_bots_alone_waits_for_a_slot_while_a_game_with_a_person_plays_on(
    connect, settings
):
    settings.YACHT_BOT_GAMES_PER_PROCESS = 1
    settings.YACHT_BOT_PAUSE = (0.0, 0.01)
    first, second = await bots_alone(), await bots_alone()
    people = await started(bot_level="beginner")
    first_watcher = await connect(first.token, None)
    seen = (await first_watcher.table())["version"]
    seen = (await table_after(first_watcher, seen))["version"]
    second_watcher = await connect(second.token, None)
    waiting_at = (await second_watcher.table())["version"]
    # A person's game is never held back: Ana plays a turn and her bot
    # answers with a whole turn of its own.
    ana = await connect(people.token, "ana")
    table = await ana.table()
    await ana.send({"action": "roll", "version": table["version"], "hold": []})
    table = await ana.table()
    await ana.send({"action": "score", "version": table["version"], "category": "choice"})
    while table["state"]["current_seat"] != 0 or table["state"]["last"]["seat"] != 1:
        table = await ana.table(timeout=10)
    assert table["state"]["last"]["kind"] == "score"
    # Meanwhile the first game of bots went on, and the second waited.
    for _ in range(3):
        seen = (await table_after(first_watcher, seen))["version"]
    assert second.token in botplay.slots().waiting
    assert await second_watcher.nothing_new()
    assert second_watcher.version == waiting_at
    # Nobody watches the first any more: the second takes its slot and plays.
    await first_watcher.ws.disconnect()
    await table_after(second_watcher, waiting_at)


async def test_a_game_of_bots_alone_that_ends_gives_its_slot_to_one_waiting(monkeypatch, settings):
    settings.YACHT_BOT_GAMES_PER_PROCESS = 1
    started_steps: list[tuple[str, int, str]] = []
    monkeypatch.setattr(
        botplay,
        "_start",
        lambda token, version, bots_only, pace: started_steps.append((token, version, pace)),
    )
    monkeypatch.setattr(limits.sockets(), "watching", lambda token: 1)
    slots = botplay.slots()
    assert slots.admit("first", 3)
    assert not slots.admit("second", 7)
    assert not slots.admit("second", 8, "fast")
    assert slots.admit("first", 4)
    slots.release("first")
    assert started_steps == [("second", 8, "fast")]
    assert "second" not in slots.waiting


# -- chat ------------------------------------------------------------------------------


async def chat_or_table(client: Client) -> dict[str, Any]:
    while True:
        message = await client.receive()
        if message["type"] in ("chat", "table"):
            return message


async def test_chat_past_the_games_pace_is_refused_and_moves_are_still_pushed(connect, settings):
    settings.YACHT_CHAT_LINES_PER_GAME = 3
    game = await started()
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo", lang="it")
    watcher = await connect(game.token, None)
    for client in (ana, bo, watcher):
        await client.table()
    for n, speaker in enumerate((ana, bo, watcher)):
        await speaker.send({"action": "chat", "text": f"line {n}"})
        for client in (ana, bo, watcher):
            assert (await chat_or_table(client))["type"] == "chat"
    await bo.send({"action": "chat", "phrase": "good_game"})
    refused = await bo.error()
    assert refused["code"] == "chat_busy"
    assert "chat" in refused["message"] and "busy" not in refused["message"]
    # The refused line reached nobody, and the next move reaches everyone.
    await ana.send({"action": "roll", "version": game.version, "hold": []})
    for client in (ana, bo, watcher):
        pushed = await chat_or_table(client)
        assert pushed["type"] == "table" and pushed["version"] == game.version + 1


async def test_the_chat_pace_is_per_game_so_other_tables_chat_on(connect, settings):
    settings.YACHT_CHAT_LINES_PER_GAME = 1
    busy, other = await started(), await started()
    ana = await connect(busy.token, "ana")
    await ana.table()
    await ana.send({"action": "chat", "text": "one"})
    await chat_or_table(ana)
    await ana.send({"action": "chat", "text": "two"})
    assert (await ana.error())["code"] == "chat_busy"
    elsewhere = await connect(other.token, "ana")
    await elsewhere.table()
    await elsewhere.send({"action": "chat", "text": "hello"})
    assert "hello" in (await chat_or_table(elsewhere))["html"]


async def test_lines_into_a_chat_found_past_its_pace_are_refused_before_the_game_is_read(
    connect, settings, monkeypatch
):
    settings.YACHT_CHAT_LINES_PER_GAME = 1
    clock = HandClock(datetime(2026, 12, 6, 12, 0, 4, tzinfo=UTC).timestamp())
    monkeypatch.setattr(runtime, "clock", clock)
    game = await started()
    ana = await connect(game.token, "ana")
    await ana.table()
    await ana.send({"action": "chat", "text": "one"})
    await chat_or_table(ana)
    await ana.send({"action": "chat", "text": "two"})
    assert (await ana.error())["code"] == "chat_busy"
    said = []
    real_chat = services.game_chat

    def counted_chat(**line: Any) -> None:
        said.append(line)
        real_chat(**line)

    monkeypatch.setattr(services, "game_chat", counted_chat)
    await ana.send({"action": "chat", "text": "three"})
    refused = await ana.error()
    assert refused["code"] == "chat_busy" and refused["message"]
    assert said == []
    # Once the table's count has room again, lines are read and said.
    clock.wall += 20
    await ana.send({"action": "chat", "text": "four"})
    assert "four" in (await chat_or_table(ana))["html"]
    assert [line["text"] for line in said] == ["four"]


@pytest.mark.parametrize(("after_the_hold", "line_fits"), [(-0.05, False), (0.001, True)])
async def test_a_chat_is_held_exactly_as_long_as_its_shared_count_has_no_room_for_a_line(
    settings, monkeypatch, after_the_hold, line_fits
):
    settings.YACHT_CHAT_LINES_PER_GAME = 3
    clock = HandClock(datetime(2026, 12, 6, 12, 0, 4, tzinfo=UTC).timestamp())
    monkeypatch.setattr(runtime, "clock", clock)
    token = f"held-{secrets.token_hex(4)}"
    said = [quotas.chat_allowed(token=token) for _ in range(5)]
    assert said == [True, True, True, False, False]
    until = quotas.chat_holds().until[token]
    clock.wall = until + after_the_hold
    assert quotas.chat_held(token=token) is not line_fits
    assert quotas.chat_allowed(token=token) is line_fits


async def test_past_the_delivery_budget_spectators_miss_a_line_but_players_and_moves_do_not(
    connect, settings, still_clock
):
    # 20 a second, a tenth of a second's worth (2) at once.
    settings.YACHT_CHAT_DELIVERIES_PER_SECOND = 20
    game, (ana, bo), watchers = await watched(connect, players=("ana", "bo"), spectators=4)
    skipped = runtime.counts["chat_deliveries_skipped"]
    await ana.send({"action": "chat", "text": "hello all"})
    for player in (ana, bo):
        assert (await chat_or_table(player))["type"] == "chat"
    await ana.send({"action": "roll", "version": game.version, "hold": []})
    heard = 0
    for watcher in watchers:
        first = await chat_or_table(watcher)
        if first["type"] == "chat":
            heard += 1
            first = await chat_or_table(watcher)
        assert first["type"] == "table" and first["version"] == game.version + 1
    assert heard == 2
    assert runtime.counts["chat_deliveries_skipped"] == skipped + 2
    assert (await chat_or_table(bo))["version"] == game.version + 1


async def test_past_the_spectators_budget_a_spectator_is_told_busy_unread_while_players_play_on(
    connect, settings, still_clock
):
    # 30 a second, a tenth of a second's worth (3) at once.
    settings.YACHT_SPECTATOR_MESSAGES_PER_SECOND = 30
    game, (ana,), watchers = await watched(connect)
    refused = runtime.counts["spectator_messages_refused"]
    # Three asks fit the process's budget, whichever spectator sends them.
    for watcher in (*watchers, watchers[0]):
        await watcher.send({"action": "sync", "version": game.version})
        assert (await watcher.receive())["type"] == "current"
    await watchers[1].send({"action": "sync", "version": game.version})
    busy = await watchers[1].error()
    assert busy["code"] == "spectators_busy"
    assert runtime.counts["spectator_messages_refused"] == refused + 1
    # The player's move is read and pushed to everyone, spectators included.
    for _ in range(4):
        await ana.send({"action": "sync", "version": game.version})
        assert (await ana.receive())["type"] == "current"
    await ana.send({"action": "roll", "version": game.version, "hold": []})
    for client in (ana, *watchers):
        assert (await client.table())["version"] == game.version + 1
    # A tenth of a second later the budget has room again.
    still_clock.wall += 0.1
    await watchers[1].send({"action": "sync", "version": game.version + 1})
    assert (await watchers[1].receive())["type"] == "current"


async def test_past_the_spectators_chat_budget_their_lines_are_refused_unread_and_players_talk_on(
    connect, settings, still_clock
):
    # Two a second, and a second's worth (2) at once.
    settings.YACHT_SPECTATOR_CHAT_LINES_PER_SECOND = 2
    game, (ana,), watchers = await watched(connect)
    # Two lines fit the process's budget, whichever spectator says them.
    for watcher, text in zip(watchers, ("one", "two"), strict=True):
        await watcher.send({"action": "chat", "text": text})
        assert text in (await chat_or_table(ana))["html"]
    for watcher in watchers:
        assert [(await chat_or_table(watcher))["type"] for _ in range(2)] == ["chat", "chat"]
    await watchers[0].send({"action": "chat", "text": "three"})
    assert (await watchers[0].error())["code"] == "chat_busy"
    assert await sync_to_async(ChatMessage.objects.filter(game=game).count)() == 2
    # A player's line never counts against it.
    await ana.send({"action": "chat", "text": "mine"})
    for client in (ana, *watchers):
        assert "mine" in (await chat_or_table(client))["html"]
    # Half a second later the budget has room again.
    still_clock.wall += 0.5
    await watchers[1].send({"action": "chat", "text": "four"})
    assert "four" in (await chat_or_table(ana))["html"]
