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
from typing import Any, cast

from a2wsgi import WSGIMiddleware
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler

from games.runtime import runtime

# Past what Django would parse of a form (DATA_UPLOAD_MAX_MEMORY_SIZE), a
# little more for a multipart form's framing: no page takes more.
SLACK = 64 * 1024


class Pages:
    def __init__(self, handler: WSGIHandler, *, threads: int) -> None:
        # a2wsgi's own types for WSGI and ASGI callables are stricter than
        # Django's and ours; the calls are the standard ones.
        self.wsgi: Any = WSGIMiddleware(cast(Any, handler), workers=threads)
        self.limit = (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0) + SLACK

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

        await self.wsgi(scope, replay, send)


async def _too_large(send: Any) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"text/plain; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": b"Request body too large.\n"})
