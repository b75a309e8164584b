"""A player's move written from the sockets' loop, without the hand-off to
the game's database thread: the store's guarded write
(``games.store.writes.write_guarded``) run by the loop itself.

Most moves are made against the version this process committed last, and
are decided on the row it remembers (``services.game_plan_remembered``):
pure Python, then one write that checks the version itself. Handing that
to a game's thread and back (the thread woken, the loop woken, the GIL
passed back and forth at each of the thread's statements) cost more CPU
than the move: about a millisecond a move on SQLite in bench.live_play at
50 games, against a move of a few hundred microseconds. So here:

- on PostgreSQL, the write's one statement goes through psycopg's
  asynchronous driver on a connection of the loop's own, so a slow commit
  holds up only the moves waiting on that connection, never the loop;
- on SQLite, in-process and without an fsync per commit in WAL mode, the
  write runs on the loop's own thread, but never waits for the write lock:
  if another thread holds it, nothing is written and the move goes to the
  game's thread, which may wait (``Written.BUSY``).

What follows the commit (the push, the remembered row) runs once the write
has returned. A move this path does not settle (a version not held here, a
refusal, a game moved on by another process, SQLite busy) returns None,
having written nothing, and the caller hands it to the game's thread.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Callable
from typing import Any

import psycopg
from django.conf import settings
from django.db import DatabaseError, connections, router

from games.models import Game
from games.play import moves, services
from games.runtime import runtime
from games.store import dbthreads, writes


async def settle(
    verb: Callable[..., Game], /, *, token: str, guest_id: str, version: int, **fields: Any
) -> Game | None:
    """The move ``verb`` (one of ``services.MOVES``) with ``fields``, if the
    remembered row settles it (see the module's docstring); else None, with
    nothing written."""
    plan = services.game_plan_remembered(
        token=token, guest_id=guest_id, version=version, action=services.MOVES[verb](**fields)
    )
    if plan is None:
        return None
    if connections[router.db_for_write(Game)].vendor != "postgresql":
        written = dbthreads.here(writes.write_guarded, plan.rows, wait=False)
        if written is not writes.Written.DONE:
            return None
        services.game_publisher(plan)()
        return plan.rows.game
    # A socket closed mid-write must not leave a committed move unannounced:
    # the write and what follows it run to their end whatever the caller does.
    task = asyncio.get_running_loop().create_task(_write(token, plan))
    writing = runtime.part(_Writing)
    writing.add(task)
    task.add_done_callback(writing.discard)
    task.add_done_callback(_written)
    return plan.rows.game if await asyncio.shield(task) else None


class _Writing(set[asyncio.Task[bool]]):
    """The writes under way: the loop keeps only weak references to its tasks."""


def _written(task: asyncio.Task[bool]) -> None:
    # Counted for /health/. The socket that asked, if still there, answers
    # "unavailable" and logs the failure itself.
    if not task.cancelled() and task.exception() is not None:
        runtime.counts["move_writes_failed"] += 1


async def _write(token: str, plan: moves.Plan) -> bool:
    """The plan's guarded statement; once it commits, its publishing. False
    when the game had moved on (nothing written)."""
    sql, params = writes.guarded_statement(plan.rows)
    if await connections_here().execute(token, sql, params) != 1:
        return False
    services.game_publisher(plan)()
    return True


class LoopConnections:
    """Asynchronous PostgreSQL connections of one process, ``count`` of them
    per event loop, a game always on the same one (as a game's calls keep
    to one thread): each game's statements run in order, and one slow
    commit holds up only the games that share its connection."""

    def __init__(self, count: int) -> None:
        self.count = max(1, count)
        self._open: dict[tuple[asyncio.AbstractEventLoop, int], psycopg.AsyncConnection[Any]] = {}
        self._opening: dict[tuple[asyncio.AbstractEventLoop, int], asyncio.Lock] = {}

    async def execute(self, token: str, sql: str, params: list[Any]) -> int:
        """``sql`` with ``params`` in autocommit on game ``token``'s
        connection; its one row's one value. A failure is Django's
        ``DatabaseError`` (the consumer answers "unavailable"), and the
        connection is dropped for the next statement to open another."""
        key = (asyncio.get_running_loop(), zlib.crc32(token.encode()) % self.count)
        try:
            connection = await self._connection(key)
            cursor = await connection.execute(sql, params)
            row = await cursor.fetchone()
        except psycopg.Error as failure:
            await self._drop(key)
            raise DatabaseError(str(failure)) from failure
        assert row is not None
        value: int = row[0]
        return value

    async def _connection(
        self, key: tuple[asyncio.AbstractEventLoop, int]
    ) -> psycopg.AsyncConnection[Any]:
        connection = self._open.get(key)
        if connection is not None and not connection.closed:
            return connection
        self._forget_closed_loops()
        async with self._opening.setdefault(key, asyncio.Lock()):
            connection = self._open.get(key)
            if connection is None or connection.closed:
                connection = self._open[key] = await psycopg.AsyncConnection.connect(
                    **_connection_params(), autocommit=True
                )
        return connection

    async def _drop(self, key: tuple[asyncio.AbstractEventLoop, int]) -> None:
        connection = self._open.pop(key, None)
        if connection is not None:
            await connection.close()

    def _forget_closed_loops(self) -> None:
        """Close the connections of loops that have closed: nothing can use
        them again. A server has one loop for its life; a process that runs
        loop after loop (a test run of many examples) ran PostgreSQL out of
        connections without this."""
        for key in [key for key in self._open if key[0].is_closed()]:
            self._opening.pop(key, None)
            self._open.pop(key).pgconn.finish()

    def close_all(self) -> None:
        """Close every connection at once, from any thread, whatever loop it
        belonged to (tests: a test database with connections left open
        cannot be dropped, and each test's loop is gone by then)."""
        self._opening.clear()
        while self._open:
            _key, connection = self._open.popitem()
            connection.pgconn.finish()


def _connection_params() -> dict[str, Any]:
    """The project's database settings as psycopg's connect takes them:
    Django's own (adapters, prepared statements), with the asynchronous
    twin of its cursor class: values bound server-side, or quoted by the
    client where ``YACHT_DB_SERVER_SIDE_BINDING=0`` asked for that."""
    params = connections[router.db_for_write(Game)].get_connection_params()
    synchronous = params.pop("cursor_factory", None)
    if synchronous is not None and issubclass(synchronous, psycopg.ClientCursor):
        params["cursor_factory"] = psycopg.AsyncClientCursor
    return params


def connections_here() -> LoopConnections:
    """This process's ``LoopConnections``."""
    return runtime.part(LoopConnections, lambda: LoopConnections(settings.YACHT_DB_THREADS))


def close_connections() -> None:
    """``LoopConnections.close_all`` for this process's, if any were opened."""
    opened = runtime.made(LoopConnections)
    if opened is not None:
        opened.close_all()
