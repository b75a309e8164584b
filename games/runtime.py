"""The process's one runtime object: everything a server process keeps
between one request or message and the next, and the clock it reads.

Each layer's state is a part of it, made on first use from the part's class
(``runtime.part(CommittedSeats)``) and reached through a function of the
module that owns it (``known.committed_seats()``), so no module holds
process state of its own and a test can swap one part or the clock for the
length of a test (``runtime.swap``). It imports nothing of the project, so
every layer may use it.

Three parts every layer shares are its own: the sockets' event loop and the
work handed to it (``runtime.loop``), who hears of each commit
(``runtime.commits``: the push, a bot's next step, the turn clock, wired
once in the app's ``ready()``), and the counts of what the process could
not do or deliver (``runtime.counts``, shown by ``/health/``). So a verb
announces its commit, and a bot or a clock hands its step to the loop,
without knowing the sockets that will hear of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

T = TypeVar("T")

log = logging.getLogger(__name__)


class Clock:
    """The time as the process reads it: wall time for what is stored and
    shown, the monotonic clock for intervals."""

    def now(self) -> datetime:
        return datetime.now(tz=UTC)

    def time(self) -> float:
        """Wall time in seconds: what processes share (counts' windows in
        Redis, presence's entries, deadlines)."""
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep_until(self, wall: float) -> None:
        """Wait until the wall time (``time()``) reaches ``wall``. Timers for
        deadlines that processes share wait through here rather than on the
        event loop's own clock, so a test that moves the time ends them."""
        await asyncio.sleep(max(0.0, wall - self.time()))

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds`` that a person is meant to see pass (a bot's pause
        between steps): on this clock, so a test moves the time through it
        instead of waiting it out."""
        await asyncio.sleep(seconds)


class Counts(Counter[str]):
    """What this process could not do or deliver, for operators (/health/)."""


class Loop:
    """The event loop that serves this process's sockets, learnt from the
    first socket or page served, and the work handed to it: pushes, bots'
    steps, turn clocks. Commits happen in worker threads; what must follow
    one runs here."""

    def __init__(self, counts: Callable[[], Counts]) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._counts = counts
        self._tasks: set[asyncio.Task[Any]] = set()  # the loop keeps only weak references
        # Work left pending on a loop that closed (tests: see settle). Held, not
        # dropped: asyncio warns of a pending task whenever the collector frees
        # one, which would be in whatever test runs then. A server's loop closes
        # only as its process ends, so this stays empty there.
        self._stranded: list[asyncio.Task[Any]] = []
        self._chains: dict[str, asyncio.Task[Any]] = {}

    def remember(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def running(self) -> asyncio.AbstractEventLoop | None:
        """The sockets' loop, if one is running in this process now."""
        loop = self.loop
        if loop is None or loop.is_closed() or not loop.is_running():
            return None
        return loop

    def call_soon(self, callback: Callable[..., Any], *args: Any) -> bool:
        """Run ``callback(*args)`` on the sockets' loop, from any thread.

        False when there is no such loop (a management command, a test calling
        services directly, a server shutting down): the caller decides what then.
        """
        loop = self.running()
        if loop is None:
            return False
        try:
            # A fresh context: the committing thread's one says it is inside
            # sync_to_async, and a task inheriting that would refuse to call back out.
            loop.call_soon_threadsafe(callback, *args, context=contextvars.Context())
        except RuntimeError:  # closed since we looked
            return False
        return True

    def spawn(self, work: Coroutine[Any, Any, Any], *, what: str) -> asyncio.Task[Any]:
        """Run ``work`` as a task of the running loop. Nobody awaits it, so a
        failure is logged here with its traceback, never lost."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)

        def done(task: asyncio.Task[Any]) -> None:
            self._tasks.discard(task)
            if not task.cancelled() and task.exception() is not None:
                self._counts()[f"{what}_crashed"] += 1
                log.error("%s failed", what, exc_info=task.exception())

        task.add_done_callback(done)
        return task

    def chain(self, key: str, work: Callable[[], Coroutine[Any, Any, Any]], *, what: str) -> None:
        """Spawn ``work()`` after the last work chained under ``key`` has
        finished, so two pushes of one game leave in the order they were
        committed while other games' go ahead. On the running loop."""
        loop = asyncio.get_running_loop()
        previous = self._chains.get(key)
        if previous is not None and previous.get_loop() is not loop:
            previous = None  # left over from a loop that is gone (tests)

        async def in_turn() -> None:
            if previous is not None and not previous.done():
                # Only its order matters here: its failure is its own, logged there.
                await asyncio.wait({previous})
            await work()

        task = self.spawn(in_turn(), what=what)
        self._chains[key] = task

        def unchain(task: asyncio.Task[Any]) -> None:
            if self._chains.get(key) is task:
                del self._chains[key]

        task.add_done_callback(unchain)

    def pending(self) -> set[asyncio.Task[Any]]:
        """The work handed over and not finished yet."""
        return set(self._tasks)

    async def settle(self) -> None:
        """Wait until no work handed over to the running loop is left (tests).

        Work left pending on a loop that has since closed can never finish:
        it is set aside, not waited for. (A thread that commits while a
        test's loop is shutting down hands it a push still waiting on Redis,
        or a bot's step still in its pause, when the loop closes.) Other
        loops' work is not this one's to wait for."""
        loop = asyncio.get_running_loop()
        while True:
            for task in [t for t in self._tasks if t.get_loop().is_closed()]:
                self._tasks.discard(task)
                self._stranded.append(task)
            ours = {t for t in self._tasks if t.get_loop() is loop}
            if not ours:
                return
            await asyncio.wait(ours)


class Commits:
    """Who hears of each committed version of a game and each stored chat
    line, in order: wired once, in the app's ``ready()``.

    Called from ``transaction.on_commit``: the change is committed whatever
    happens here, so no listener's failure may escape to make it look failed.
    """

    def __init__(self, counts: Callable[[], Counts]) -> None:
        # Called in order with each committed snapshot, in the committing thread.
        self.after_commit: list[Callable[[Any], None]] = []
        # Called with each committed chat line, in the committing thread.
        self.after_chat: list[Callable[[Any], None]] = []
        self._counts = counts

    def committed(self, snap: Any) -> None:
        """A new version of a game is durable: tell whoever must know."""
        for listener in self.after_commit:
            try:
                listener(snap)
            except Exception:
                self._counts()["after_commit_failed"] += 1
                log.exception("after-commit %s failed for version %s", listener, snap["version"])

    def chatted(self, line: Any) -> None:
        """A chat line is stored: tell the game's sockets."""
        for listener in self.after_chat:
            try:
                listener(line)
            except Exception:
                self._counts()["after_chat_failed"] += 1
                log.exception("after-chat %s failed for line %s", listener, line["id"])


class Runtime:
    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock or Clock()
        self._parts: dict[type[Any], Any] = {}
        self._making = threading.Lock()

    @property
    def counts(self) -> Counts:
        return self.part(Counts)

    @property
    def loop(self) -> Loop:
        return self.part(Loop, lambda: Loop(lambda: self.counts))

    @property
    def commits(self) -> Commits:
        return self.part(Commits, lambda: Commits(lambda: self.counts))

    def part(self, kind: type[T], make: Callable[[], T] | None = None) -> T:
        """This process's ``kind``, made now (by ``make``, else ``kind()``)
        if it is the first to be asked for."""
        try:
            return cast(T, self._parts[kind])
        except KeyError:
            with self._making:
                if kind not in self._parts:
                    self._parts[kind] = (make or kind)()
                return cast(T, self._parts[kind])

    def made(self, kind: type[T]) -> T | None:
        """This process's ``kind`` if one was made, without making one."""
        return cast("T | None", self._parts.get(kind))

    @contextlib.contextmanager
    def swap(self, kind: type[T], part: T) -> Iterator[T]:
        """``part`` in place of this process's ``kind`` while the block runs
        (tests: a fresh count, a fake)."""
        with self._making:
            before = self._parts.get(kind)
            self._parts[kind] = part
        try:
            yield part
        finally:
            with self._making:
                if before is None:
                    self._parts.pop(kind, None)
                else:
                    self._parts[kind] = before

    def drop(self, kind: type[Any]) -> None:
        """Forget this process's ``kind``: the next to ask gets a new one."""
        with self._making:
            self._parts.pop(kind, None)


runtime = Runtime()
