"""A move on the row this process remembers, settled on the sockets' loop.

Where ``YACHT_MOVES_ON_LOOP`` is on (the default), a socket's roll, hold or
score against the version this process committed is decided and written on
the loop (``games.live.loopmoves``: SQLite's statements as they are, never
waiting for its write lock; PostgreSQL's through its asynchronous driver),
without the hand-off to the game's thread; every other move, and any
refusal, still goes there.
"""

import asyncio
import sqlite3
import threading

import psycopg
import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import SynchronousOnlyOperation
from django.db import connection

from games.live import consumers, loopmoves
from games.models import Game, Move
from games.play import services
from games.store import dbthreads
from tests import factories

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


MOVE_VERBS = {verb.__name__ for verb in services.MOVES}


@pytest.fixture
def calls(monkeypatch):
    """Each move's service call a socket makes: tried on the remembered row
    (on the loop's thread), or handed to a game's thread, with the thread it
    ran on."""
    seen: list[tuple[str, str, str]] = []
    settle, run = loopmoves.settle, dbthreads.run

    async def spied_settle(verb, /, **fields):
        seen.append(("loop", verb.__name__, threading.current_thread().name))
        return await settle(verb, **fields)

    async def spied_run(token, work, /, *args, **kwargs):
        def recorded(*a, **k):
            if work.__name__ in MOVE_VERBS:
                seen.append(("run", work.__name__, threading.current_thread().name))
            return work(*a, **k)

        return await run(token, recorded, *args, **kwargs)

    monkeypatch.setattr(loopmoves, "settle", spied_settle)
    monkeypatch.setattr(dbthreads, "run", spied_run)
    monkeypatch.setattr(consumers, "MOVES_ON_LOOP", True)
    return seen


@sync_to_async
def logged_moves(game: Game) -> list[tuple[str, int]]:
    return list(Move.objects.filter(game=game).order_by("version").values_list("kind", "version"))


async def started(connect):
    game = await sync_to_async(factories.lobby_game)()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    version = (await ana.table())["version"]
    await bo.table()
    return game, ana, bo, version


async def test_a_move_on_the_remembered_version_is_written_on_the_loop(connect, calls):
    game, ana, bo, version = await started(connect)
    loop_thread = threading.current_thread().name
    calls.clear()
    await ana.send({"action": "roll", "version": version, "hold": []})
    rolled = await ana.table()
    assert rolled["version"] == (await bo.table())["version"] == version + 1
    await ana.send({"action": "hold", "version": version + 1, "dice": [0, 2]})
    held = await ana.table()
    assert (await bo.table())["version"] == version + 2
    assert held["state"]["held"] == [0, 2]
    # Both moves were settled on the loop's thread, and none went to a game's thread.
    assert calls == [
        ("loop", "game_roll", loop_thread),
        ("loop", "game_hold", loop_thread),
    ]
    moves = await logged_moves(game)
    assert moves[-2:] == [("roll", version + 1), ("hold", version + 2)]
    # Django's guard against blocking the loop is back once the move is done.
    with pytest.raises(SynchronousOnlyOperation):
        Game.objects.count()


async def test_a_move_the_remembered_row_does_not_settle_goes_to_the_games_thread(connect, calls):
    game, ana, bo, version = await started(connect)
    await ana.send({"action": "roll", "version": version, "hold": []})
    await ana.table()
    await bo.table()
    calls.clear()
    # A second click on the version already played: refused, named by the locked path.
    await ana.send({"action": "roll", "version": version, "hold": []})
    assert (await ana.error())["code"] == "stale_version"
    assert (await ana.table())["version"] == version + 1
    # Out of turn: refused the same way, with nothing written.
    await bo.send({"action": "roll", "version": version + 1, "hold": []})
    assert (await bo.error())["code"] == "not_your_turn"
    # Each was tried on the remembered row first, then decided on the game's thread.
    assert [(how, verb) for how, verb, _ in calls] == [
        ("loop", "game_roll"),
        ("run", "game_roll"),
        ("loop", "game_roll"),
        ("run", "game_roll"),
    ]
    assert all(thread.startswith("game-db-") for how, _, thread in calls if how == "run")
    game_now = await sync_to_async(Game.objects.get)(pk=game.pk)
    assert game_now.version == version + 1


async def test_without_the_setting_every_move_goes_to_the_games_thread(connect, calls, monkeypatch):
    monkeypatch.setattr(consumers, "MOVES_ON_LOOP", False)
    _game, ana, bo, version = await started(connect)
    calls.clear()
    await ana.send({"action": "roll", "version": version, "hold": []})
    await ana.table()
    await bo.table()
    assert [(how, verb) for how, verb, _ in calls] == [("run", "game_roll")]


def postgres() -> bool:
    return connection.vendor == "postgresql"


@pytest.mark.skipif("postgres()", reason="SQLite's write lock")
async def test_the_loop_never_waits_for_sqlites_write_lock(connect, calls):
    """Another thread holds SQLite's write lock (a page's transaction, a
    bot's step): a move on the remembered row must not sleep out the busy
    timeout on the loop, holding every socket of the process. It goes to
    the game's thread, which waits, while the loop goes on answering."""
    game, ana, bo, version = await started(connect)
    calls.clear()
    writer = sqlite3.connect(connection.settings_dict["NAME"], timeout=0, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        await ana.send({"action": "roll", "version": version, "hold": []})
        # Tried on the loop, then handed to the game's thread while the lock
        # is still held: the loop did not wait for it.
        async with asyncio.timeout(10):
            while [how for how, _, _ in calls] != ["loop", "run"]:
                await asyncio.sleep(0.01)
        assert (await logged_moves(game))[-1][1] == version
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    # Once the lock is free the game's thread writes the roll.
    assert (await ana.table())["version"] == (await bo.table())["version"] == version + 1
    assert (await logged_moves(game))[-1] == ("roll", version + 1)


@pytest.mark.skipif("not postgres()", reason="PostgreSQL's asynchronous write")
async def test_a_failed_write_on_the_loop_is_unavailable_and_the_next_move_goes_through(
    connect, calls, monkeypatch
):
    game, ana, bo, version = await started(connect)
    execute = psycopg.AsyncConnection.execute

    async def lost(self, *args, **kwargs):
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(psycopg.AsyncConnection, "execute", lost)
    await ana.send({"action": "roll", "version": version, "hold": []})
    assert (await ana.error())["code"] == "unavailable"
    assert (await logged_moves(game))[-1][1] == version
    assert await bo.nothing_new()
    # The database is back: the same move goes through, on a fresh connection.
    monkeypatch.setattr(psycopg.AsyncConnection, "execute", execute)
    await ana.send({"action": "roll", "version": version, "hold": []})
    assert (await ana.table())["version"] == (await bo.table())["version"] == version + 1
    assert [(how, verb) for how, verb, _ in calls][-2:] == [("loop", "game_roll")] * 2


async def test_two_tabs_moving_on_one_version_at_once_apply_one_move(connect, calls):
    game, ana, _bo, version = await started(connect)
    tab = await connect(game.token, "ana")
    await tab.table()
    # Both tabs of the same seat roll on the same version in the same instant:
    # both are tried on the remembered row, and the write's version check (or,
    # on SQLite, the loop taking them one at a time) lets one through; the
    # other is refused on the game's thread.
    await asyncio.gather(
        ana.send({"action": "roll", "version": version, "hold": []}),
        tab.send({"action": "roll", "version": version, "hold": []}),
    )
    errors = []
    for client in (ana, tab):
        while True:
            message = await client.receive()
            if message["type"] == "error":
                errors.append(message["code"])
            elif message["version"] == version + 1:
                break
    assert errors == ["stale_version"]
    assert [kind for kind, at in await logged_moves(game) if at > version] == ["roll"]
    assert sorted(how for how, _, _ in calls) == ["loop", "loop", "run"]


@pytest.mark.skipif("not postgres()", reason="PostgreSQL's asynchronous write")
async def test_a_retry_after_a_lost_answer_is_refused_with_the_table_it_missed(
    connect, calls, monkeypatch
):
    """docs/protocol.md: after "unavailable" the same action may be sent again.
    Here the write commits but its answer is lost on the way back: the retry
    meets the move already made, is refused, and the current table follows."""
    game, ana, _bo, version = await started(connect)
    execute = psycopg.AsyncConnection.execute

    async def answer_lost(self, *args, **kwargs):
        await execute(self, *args, **kwargs)
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(psycopg.AsyncConnection, "execute", answer_lost)
    await ana.send({"action": "roll", "version": version, "hold": []})
    assert (await ana.error())["code"] == "unavailable"
    monkeypatch.setattr(psycopg.AsyncConnection, "execute", execute)
    assert (await logged_moves(game))[-1] == ("roll", version + 1)
    await ana.send({"action": "roll", "version": version, "hold": []})
    assert (await ana.error())["code"] == "stale_version"
    assert (await ana.table())["version"] == version + 1
    assert (await logged_moves(game))[-1] == ("roll", version + 1)


@pytest.mark.skipif("not postgres()", reason="PostgreSQL's connection settings")
async def test_the_loops_connections_bind_values_as_the_settings_ask():
    from games.live.loopmoves import _connection_params

    options = connection.settings_dict["OPTIONS"]
    assert "cursor_factory" not in _connection_params()  # server-side: psycopg's default
    client_side = {k: v for k, v in options.items() if k != "server_side_binding"}
    connection.settings_dict["OPTIONS"] = client_side
    try:
        assert _connection_params()["cursor_factory"] is psycopg.AsyncClientCursor
    finally:
        connection.settings_dict["OPTIONS"] = options


@pytest.mark.skipif("not postgres()", reason="PostgreSQL's asynchronous driver")
async def test_the_connections_of_a_loop_that_closed_are_closed_when_another_loop_opens_one():
    from games.live.loopmoves import LoopConnections

    here = LoopConnections(1)
    # Another loop (another thread's, as in a test before this one) opens
    # its connection and closes.
    answers: list[int] = []

    def on_another_loop() -> None:
        other = asyncio.new_event_loop()
        try:
            answers.append(other.run_until_complete(here.execute("game", "SELECT 1", [])))
        finally:
            other.close()

    await asyncio.to_thread(on_another_loop)
    assert answers == [1]
    (left,) = here._open.values()
    assert not left.closed
    assert await here.execute("game", "SELECT 2", []) == 2
    assert left.closed
    assert [key[0] for key in here._open] == [asyncio.get_running_loop()]
    here.close_all()
