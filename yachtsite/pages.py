"""Pages, served by Django's WSGI handler on a few threads of their own.

Every page of the site is a synchronous view behind synchronous middleware.
Under Django's ASGI handler each one paid for running as if it might not
be: a thread made for the request and another to wait for that one to end,
then a hand-off to it and back for the middleware chain, the view, CSRF's
check and each request signal. Here the WSGI handler runs the whole request
in one go on one of ``threads`` threads kept for pages (a2wsgi carries it
between ASGI and WSGI), and the event loop only reads the request and
writes the response. Measured against Django's ASGI handler with
``bench.pages`` (8 clients, two rounds, a shared 2-core machine at load
average 10-14): the home page cost daphne 6.3 ms of CPU here and 8.9 ms
there, served 85-113 pages a second against 49-64; a game's page cost
about the same both ways (8.9 and 9.1 ms), served 76-88 against 59-61. A
fixed page with no Django cost 0.35-0.54 ms.

The request's body is read on the loop, whole, before a thread takes the
request: a client that sends its body slowly holds no page thread, and a
body larger than a page can accept is refused with 413 unread. Each
request also tells ``live`` which loop serves the sockets, so a view's
commit pushes through it even before any socket has opened.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from typing import Any, cast

from a2wsgi import WSGIMiddleware
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler

from games.runtime import runtime
from yachtsite.clientaddr import address_group, scope_address

# Past what Django would parse of a form (DATA_UPLOAD_MAX_MEMORY_SIZE), a
# little more for a multipart form's framing: no page takes more.
SLACK = 64 * 1024


class Pages:
    def __init__(self, handler: WSGIHandler, *, threads: int) -> None:
        # a2wsgi's own types for WSGI and ASGI callables are stricter than
        # Django's and ours; the calls are the standard ones.
        self.wsgi: Any = WSGIMiddleware(cast(Any, handler), workers=threads)
        self.limit = (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0) + SLACK
        self.turns = FairTurns(threads)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"pages serve HTTP, not {scope['type']}")
        runtime.loop.remember(asyncio.get_running_loop())
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.limit:
                await _too_large(send)
                return
            if not message.get("more_body", False):
                break
        request = {"type": "http.request", "body": bytes(body), "more_body": False}
        given = False

        async def replay() -> dict[str, Any]:
            nonlocal given
            if given:
                # Asked again once the body is read: what a server says when
                # the client is gone, and the page is done with it anyway.
                return {"type": "http.disconnect"}
            given = True
            return request

        await self.turns.enter(address_group(scope_address(scope)))
        try:
            await self.wsgi(scope, replay, send)
        finally:
            self.turns.leave()


class FairTurns:
    """A page thread for each request in turn, the client address group
    served least lately first.

    The threads' own queue served requests in the order they came: fifty
    addresses posting the home form as fast as they were answered (each
    within its own pace) kept a queue of pages ahead of everyone, and a
    visitor from a fresh address waited 2-3 s to start a game
    (``bench.abuse --attack creation``). Here a request waits on the loop
    in its group's line until a thread is free, and a free thread goes to
    the waiting group served least over the last ``MEMORY`` seconds (each
    page counted, fading with its age), so a visitor's few pages go ahead
    of a crowd's many, however long its lines.
    """

    # Seconds over which a page served to a group fades from its count.
    MEMORY = 10.0
    # Groups remembered; past this many the half served longest ago is
    # forgotten (they count as never served).
    REMEMBERED = 10_000

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.busy = 0
        self.lines: dict[str, deque[asyncio.Future[None]]] = {}
        # Each group's count of pages served, as of the time beside it.
        self.served: dict[str, tuple[float, float]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    async def enter(self, group: str) -> None:
        """Return once this request has a page thread of its own."""
        loop = asyncio.get_running_loop()
        if loop is not self.loop:
            # A new loop (a test's): what waited on another is not ours.
            self.loop, self.busy, self.lines = loop, 0, {}
        if self.busy < self.threads and not self.lines:
            self.busy += 1
            self._serve(group)
            return
        turn: asyncio.Future[None] = loop.create_future()
        self.lines.setdefault(group, deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.leave()  # handed a thread just as it gave up: pass it on
            raise

    def leave(self) -> None:
        """A request is done with its thread: the next one in turn gets it."""
        while self.lines:
            now = runtime.clock.monotonic()
            group = min(self.lines, key=lambda waiting: self._count(waiting, now))
            line = self.lines[group]
            turn = line.popleft()
            if not line:
                del self.lines[group]
            if not turn.done():  # a client gone while it waited is skipped
                turn.set_result(None)
                self._serve(group)
                return
        self.busy -= 1

    def _count(self, group: str, now: float) -> float:
        count, then = self.served.get(group, (0.0, now))
        return count * math.exp((then - now) / self.MEMORY)

    def _serve(self, group: str) -> None:
        now = runtime.clock.monotonic()
        count = self._count(group, now) + 1
        self.served.pop(group, None)
        self.served[group] = (count, now)
        if len(self.served) > self.REMEMBERED:
            for old in list(self.served)[: self.REMEMBERED // 2]:
                del self.served[old]


async def _too_large(send: Any) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"text/plain; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": b"Request body too large.\n"})
