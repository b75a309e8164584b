"""The sockets' database work runs one game per thread: a game's calls in the
order they were made, one at a time, and another game's beside them."""

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.models import Game
from games.play import services
from games.store import dbthreads
from games.store.dbthreads import GameThreads
from tests import factories


def tokens_on_different_threads(threads: GameThreads) -> tuple[str, str]:
    first = "game-a"
    other = next(
        f"game-{n}"
        for n in range(1000)
        if threads.executor_for(f"game-{n}") is not threads.executor_for(first)
    )
    return first, other


async def test_one_games_calls_run_in_order_on_one_thread() -> None:
    threads = GameThreads(4)
    ran: list[tuple[int, str]] = []
    inside = 0
    overlapped = False

    def call(n: int) -> None:
        nonlocal inside, overlapped
        inside += 1
        overlapped = overlapped or inside > 1
        threading.Event().wait(0.01)
        ran.append((n, threading.current_thread().name))
        inside -= 1

    await asyncio.gather(*(threads.run("one-game", call, n) for n in range(8)))
    assert [n for n, _ in ran] == list(range(8))
    assert len({name for _, name in ran}) == 1
    assert not overlapped


async def test_a_game_whose_call_is_stuck_does_not_hold_up_another_games() -> None:
    threads = GameThreads(4)
    stuck, other = tokens_on_different_threads(threads)
    release = threading.Event()
    try:
        held = asyncio.ensure_future(threads.run(stuck, release.wait, 10))
        # The other game's call finishes while the first is still inside its own.
        assert await asyncio.wait_for(threads.run(other, lambda: "done"), timeout=3) == "done"
        assert not held.done()
    finally:
        release.set()
    assert await held is True


async def test_a_single_thread_serves_every_game_when_so_configured() -> None:
    # SQLite's setting: one writer at a time, so one thread for all.
    threads = GameThreads(1)
    names = {
        await threads.run(token, lambda: threading.current_thread().name)
        for token in ("a", "b", "c", "d")
    }
    assert len(names) == 1


@pytest.mark.django_db(transaction=True)
async def test_a_call_reads_the_database_off_the_event_loops_thread() -> None:

    def read() -> tuple[int, str]:
        return Game.objects.count(), threading.current_thread().name

    games, thread = await dbthreads.run("any", read)
    assert games == 0
    assert thread.startswith("game-db-")
    assert thread != threading.current_thread().name


@pytest.mark.django_db(transaction=True)
async def test_a_busy_shared_thread_holds_up_no_socket(connect) -> None:
    # Django runs every page view of the process on one shared thread. A
    # slow page there must not delay a move or its push: a socket's messages
    # never wait for that thread.
    game = await sync_to_async(factories.lobby_game)()
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    for client in (ana, bo):
        await client.table()
    release = threading.Event()
    busy = asyncio.ensure_future(sync_to_async(release.wait, thread_sensitive=True)(10))
    try:
        await ana.send({"action": "start", "version": 2})
        assert (await ana.table())["version"] == 3
        assert (await bo.table())["version"] == 3
        assert not busy.done()
    finally:
        release.set()
    assert await busy is True


@pytest.mark.django_db(transaction=True)
async def test_a_socket_opening_makes_two_trips_to_its_games_thread(connect, monkeypatch) -> None:
    # Each trip is a hand-off to a thread and back: the session first (the
    # guest it names is what the socket limits count), then, once the socket
    # is in the game's group, its table and chat in one go.
    game = await sync_to_async(factories.lobby_game)()
    await sync_to_async(services.game_chat)(token=game.token, guest_id="ana", text="hello")
    trips: list[str] = []
    run = dbthreads.run

    async def counted(token: str, work: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(work.__name__)
        return await run(token, work, *args, **kwargs)

    monkeypatch.setattr(dbthreads, "run", counted)
    ana = await connect(game.token, "ana")
    table = await ana.table()
    assert table["state"]["seats"][0]["name"] == "Ana"
    chat = await ana.receive()
    assert chat["type"] == "chat_log" and "hello" in chat["html"]
    assert trips == ["guest_id_of", "_opening"]


@pytest.fixture
def opened() -> Iterator[list[str]]:
    """The thread of each database connection opened (or taken from the pool)."""
    from django.db.backends.signals import connection_created

    names: list[str] = []

    def note(**_: object) -> None:
        names.append(threading.current_thread().name)

    connection_created.connect(note, weak=False)
    yield names
    connection_created.disconnect(note)


def _read() -> int:
    return Game.objects.count()


@pytest.mark.django_db(transaction=True)
async def test_a_games_thread_keeps_its_connection_from_one_call_to_the_next(opened) -> None:
    # channels opens and closes one around every call: on PostgreSQL's pool
    # that was a check of the connection and its set-up for every move.
    threads = GameThreads(1)
    try:
        for token in ("a", "b", "a"):
            await threads.run(token, _read)
        assert len([name for name in opened if name.startswith("game-db-")]) == 1
    finally:
        threads.close_connections()


@pytest.mark.django_db(transaction=True)
async def test_a_call_that_fails_in_the_database_gives_its_connection_back(opened) -> None:
    from django.db import DatabaseError, connection

    def fail() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM no_such_table")

    threads = GameThreads(1)
    try:
        await threads.run("a", _read)
        with pytest.raises(DatabaseError):
            await threads.run("a", fail)
        assert await threads.run("a", lambda: connection.connection) is None
        assert await threads.run("a", _read) == 0
        assert len(opened) == 2
    finally:
        threads.close_connections()


@pytest.mark.django_db(transaction=True)
async def test_a_connection_idle_too_long_is_given_back_before_the_next_call(
    monkeypatch,
) -> None:
    from django.db import connection

    threads = GameThreads(1)
    try:
        await threads.run("a", _read)
        assert await threads.run("a", lambda: connection.connection) is not None
        monkeypatch.setattr(dbthreads, "IDLE_SECONDS", -1.0)
        assert await threads.run("a", lambda: connection.connection) is None
    finally:
        threads.close_connections()
