"""The threads that do the sockets' database work, one game per thread.

A socket's message, a bot's step and a turn clock all end in a blocking
service call. Channels runs every such call of the process on one shared
thread, so each move waits out every other game's round trips to the
database before its own: with the database on another host, that latency,
not the process's CPU, caps its moves per second. (On one machine with
PostgreSQL beside daphne, bench.live_play showed no difference either way:
see issue 13's notes.)

Here each game's calls go to one of ``settings.YACHT_DB_THREADS`` threads,
picked by its token. One game's calls still run one at a time, in the order
they were made, on one thread: its transactions commit, and their pushes are
handed to the sockets' loop, in version order, as before. Other games' calls
run beside them on the other threads, each with a connection of its own from
the pool. SQLite takes one writer at a time whatever the threads, and a
writer that finds the lock taken sleeps before trying again, so the embedded
profile keeps a single thread.

Each thread keeps its connection from one call to the next, where channels
closes it around every call: with PostgreSQL's pool, that close and the
next call's open cost a round trip (the pool checks a connection it hands
out) and the connection's set-up, on every move. A connection is given
back when a call leaves it unusable (an error, a transaction left open) or
when it has lain idle for ``IDLE_SECONDS``, so the pool checks it again
before a game uses it after a quiet spell.

The commonest move, on the row this process remembers, is cheaper settled
on the loop than handed over (``games.live.loopmoves``); on SQLite it runs there
through ``here``.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from django.conf import settings
from django.db import connections

from games.runtime import runtime

T = TypeVar("T")

IDLE_SECONDS = 30.0


class _LastCall(threading.local):
    """When this thread's last call ended."""

    ended = 0.0


def _before_call() -> None:
    if runtime.clock.monotonic() - runtime.part(_LastCall).ended > IDLE_SECONDS:
        connections.close_all()


def _after_call() -> None:
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and (
            connection.errors_occurred
            or connection.in_atomic_block
            or connection.get_autocommit() != connection.settings_dict["AUTOCOMMIT"]
        ):
            connection.close()
    runtime.part(_LastCall).ended = runtime.clock.monotonic()


def _on_thread(work: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    """``work`` on a game's thread, keeping the thread's connection."""
    _before_call()
    try:
        return work(*args, **kwargs)
    finally:
        _after_call()


class GameThreads:
    """``count`` single-thread executors; a game's token always picks the same one."""

    def __init__(self, count: int) -> None:
        self.executors = [
            ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"game-db-{n}")
            for n in range(max(1, count))
        ]

    def executor_for(self, token: str) -> ThreadPoolExecutor:
        return self.executors[zlib.crc32(token.encode()) % len(self.executors)]

    async def run(self, token: str, work: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``work(*args, **kwargs)`` on game ``token``'s thread, in a copy of
        the caller's context (its language, for one).

        Straight through the loop's executor hand-off: asgiref's
        ``SyncToAsync`` around the same call cost about 40 us more CPU a
        call (5,000 empty calls, the two ways alternating, three runs), and
        every move makes one. What it added is not needed here: nothing on
        these threads calls back into async code, and no call's context
        changes are wanted back. As with it, a caller cancelled mid-call
        stops waiting while the call runs to its end on its thread (its
        transaction commits or rolls back), and the next call of the game
        waits for it.
        """
        loop = asyncio.get_running_loop()
        call = functools.partial(contextvars.copy_context().run, _on_thread, work, args, kwargs)
        result: T = await loop.run_in_executor(self.executor_for(token), call)
        return result

    def close_connections(self) -> None:
        """Close the connection each thread holds, waiting for any call in
        progress first (tests: channels' test communicator turns off the
        closing after each call, and a test database with connections left
        open cannot be dropped)."""
        for executor in self.executors:
            executor.submit(connections.close_all).result(timeout=30)


def here(work: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``work(*args, **kwargs)`` now, on the sockets' loop's own thread, in a
    copy of the caller's context (as ``run``).

    For database work that takes less time than the hand-off to a game's
    thread and back: on SQLite (in-process, its writes without an fsync in
    WAL mode), a move on the remembered row is a few statements of tens of
    microseconds, where the hand-off (the thread woken, the loop woken, the
    GIL passed back and forth at each statement) cost about a millisecond
    of CPU a move under load (bench.live_play, the two ways alternating;
    ``games.live.loopmoves``).
    Django refuses database calls on a thread that runs an event loop,
    since they would block it: the caller vouches that this one is short
    and never waits for a lock (``writes.write_guarded(wait=False)``), and
    the guard is lifted for it alone. A connection the call left
    unusable is closed; the thread's next call opens another.
    """
    loop = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        return contextvars.copy_context().run(work, *args, **kwargs)
    finally:
        asyncio.events._set_running_loop(loop)
        for connection in connections.all(initialized_only=True):
            if connection.errors_occurred and not connection.is_usable():
                connection.close()


def _threads() -> GameThreads:
    return runtime.part(GameThreads, lambda: GameThreads(settings.YACHT_DB_THREADS))


async def run(token: str, work: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``work(*args, **kwargs)`` on the database thread of game ``token``."""
    return await _threads().run(token, work, *args, **kwargs)


def close_connections() -> None:
    """``GameThreads.close_connections`` for this process's threads, if any started."""
    threads = runtime.made(GameThreads)
    if threads is not None:
        threads.close_connections()
