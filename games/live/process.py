"""This process's live side, in one object: the event loop that serves its
sockets, the work handed to that loop after commits (pushes, bots' steps),
the sockets open on it, and counts of what it could not deliver.

Commits happen in worker threads; what must follow a commit runs on the
sockets' loop, learnt from the first socket that connects. Services only say
"this snapshot is committed" (``live.committed``); what then happens (a push,
a bot's step) is wired once, in the app's ``ready()``.

Daphne is meant to cancel every consumer on SIGTERM, but its shutdown hook
fails with a KeyError whenever some connection never became an application
(a health check that only opened a TCP connection is enough), and then every
socket is dropped without a close frame. So open sockets are tracked here
and, when Twisted's reactor begins to shut down, each is sent a close frame
("going away": the client reconnects, to this server's replacement).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import sys
import weakref
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

log = logging.getLogger(__name__)

# How long the reactor waits after the close frames for them to be written out.
FLUSH_SECONDS = 0.2


class Closable(Protocol):
    async def close(self, code: int | None = None, reason: str | None = None) -> None: ...


class LiveProcess:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        # Called in order with each committed snapshot, in the committing thread.
        self.after_commit: list[Callable[[Any], None]] = []
        # Called with each committed chat line, in the committing thread.
        self.after_chat: list[Callable[[Any], None]] = []
        # What this process could not do or deliver, for operators (/health/).
        self.counts: Counter[str] = Counter()
        self._tasks: set[asyncio.Task[Any]] = set()  # the loop keeps only weak references
        self._chains: dict[str, asyncio.Task[Any]] = {}
        self._sockets: weakref.WeakSet[Any] = weakref.WeakSet()
        self._hooked = False

    # -- the sockets' loop --------------------------------------------------

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
                self.counts[f"{what}_crashed"] += 1
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

    async def settle(self) -> None:
        """Wait until no work handed over to the running loop is left (tests).

        Work left pending on a loop that has since closed can never finish:
        it is forgotten, not waited for. (A thread that commits while a
        test's loop is shutting down hands it a push that is still waiting
        on Redis when the loop closes.) Other loops' work is not this one's
        to wait for."""
        loop = asyncio.get_running_loop()
        while True:
            for task in [t for t in self._tasks if t.get_loop().is_closed()]:
                self._tasks.discard(task)
            ours = {t for t in self._tasks if t.get_loop() is loop}
            if not ours:
                return
            await asyncio.wait(ours)

    # -- commits --------------------------------------------------------------

    def committed(self, snap: Any) -> None:
        """A new version of a game is durable: tell whoever must know.

        Runs from ``transaction.on_commit``: the action is committed whatever
        happens here, so no failure may escape to make it look failed.
        """
        for listener in self.after_commit:
            try:
                listener(snap)
            except Exception:
                self.counts["after_commit_failed"] += 1
                log.exception("after-commit %s failed for version %s", listener, snap["version"])

    def chatted(self, line: Any) -> None:
        """A chat line is stored: tell the game's sockets. Like ``committed``,
        nothing may escape from here."""
        for listener in self.after_chat:
            try:
                listener(line)
            except Exception:
                self.counts["after_chat_failed"] += 1
                log.exception("after-chat %s failed for line %s", listener, line["id"])

    # -- sockets --------------------------------------------------------------

    @property
    def sockets(self) -> int:
        return len(self._sockets)

    def track(self, socket: Closable, *, close_code: int) -> None:
        """Remember an accepted socket, to be closed with ``close_code`` at shutdown."""
        self._sockets.add(socket)
        self._hook_reactor(close_code)

    def untrack(self, socket: Closable) -> None:
        self._sockets.discard(socket)

    async def close_all(self, code: int) -> None:
        """Send every open socket a close frame with ``code`` (at shutdown)."""
        await asyncio.gather(
            *(socket.close(code=code) for socket in list(self._sockets)), return_exceptions=True
        )

    def _hook_reactor(self, code: int) -> None:
        if self._hooked:
            return
        # Only under daphne: tests drive consumers without any reactor running.
        reactor = sys.modules.get("twisted.internet.reactor")
        if reactor is None or not getattr(reactor, "running", False):
            return
        from twisted.internet.defer import Deferred

        loop = asyncio.get_running_loop()

        def at_shutdown() -> Deferred[Any]:
            async def goodbye() -> None:
                await self.close_all(code)
                await asyncio.sleep(FLUSH_SECONDS)

            return Deferred.fromFuture(asyncio.ensure_future(goodbye(), loop=loop))

        reactor.addSystemEventTrigger("before", "shutdown", at_shutdown)
        self._hooked = True


live = LiveProcess()
