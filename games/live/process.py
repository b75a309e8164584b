"""The sockets open in this process, closed with a frame at shutdown.

Daphne is meant to cancel every consumer on SIGTERM, but its shutdown hook
fails with a KeyError whenever some connection never became an application
(a health check that only opened a TCP connection is enough), and then every
socket is dropped without a close frame. So open sockets are tracked here
and, when Twisted's reactor begins to shut down, each is sent a close frame
("going away": the client reconnects, to this server's replacement).

The loop the sockets run on, and the work handed to it after commits, are
the runtime's (``runtime.loop``).
"""

from __future__ import annotations

import asyncio
import sys
import weakref
from typing import Any, Protocol

from games.runtime import runtime

# How long the reactor waits after the close frames for them to be written out.
FLUSH_SECONDS = 0.2


class Closable(Protocol):
    async def close(self, code: int | None = None, reason: str | None = None) -> None: ...


class OpenSockets:
    def __init__(self) -> None:
        self._sockets: weakref.WeakSet[Any] = weakref.WeakSet()
        self._hooked = False

    def __len__(self) -> int:
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


def open_sockets() -> OpenSockets:
    """This process's ``OpenSockets``."""
    return runtime.part(OpenSockets)
