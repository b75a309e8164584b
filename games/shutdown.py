"""Saying goodbye to every open game socket when the server is stopped.

Daphne is meant to cancel every consumer on SIGTERM, but its shutdown hook
fails with a KeyError whenever some connection never became an application
(a health check that only opened a TCP connection is enough), and then every
socket is dropped without a close frame: browsers sit on a dead line until
their own timeout. So open sockets are tracked here and, when Twisted's
reactor begins to shut down, each is sent a close frame (4001, "going away":
the client reconnects, to this server's replacement) before the process ends.
"""

from __future__ import annotations

import asyncio
import sys
import weakref
from typing import Any, Protocol

# How long the reactor waits after the close frames for them to be written out.
FLUSH_SECONDS = 0.2


class Closable(Protocol):
    async def close(self, code: int | None = None, reason: str | None = None) -> None: ...


_open: weakref.WeakSet[Any] = weakref.WeakSet()
_hooked = False


def track(socket: Closable, *, code: int) -> None:
    """Remember an accepted socket, to be closed with ``code`` at shutdown."""
    _open.add(socket)
    _hook_reactor(code)


def untrack(socket: Closable) -> None:
    _open.discard(socket)


def _hook_reactor(code: int) -> None:
    global _hooked
    if _hooked:
        return
    # Only under daphne: tests drive consumers without any reactor running.
    reactor = sys.modules.get("twisted.internet.reactor")
    if reactor is None or not getattr(reactor, "running", False):
        return
    from twisted.internet.defer import Deferred

    loop = asyncio.get_running_loop()

    def close_all() -> Deferred[Any]:
        async def goodbye() -> None:
            await asyncio.gather(*(s.close(code=code) for s in list(_open)), return_exceptions=True)
            await asyncio.sleep(FLUSH_SECONDS)

        return Deferred.fromFuture(asyncio.ensure_future(goodbye(), loop=loop))

    reactor.addSystemEventTrigger("before", "shutdown", close_all)
    _hooked = True
