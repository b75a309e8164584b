"""The site's edges: requests that match nothing the site serves get a plain
4xx or a 4404 close, never a 500 with a traceback in the log."""

from __future__ import annotations

from collections.abc import Callable

from channels.generic.websocket import AsyncWebsocketConsumer
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest

from games.consumers import CLOSE_NO_SUCH_GAME


class NoSuchSocket(AsyncWebsocketConsumer):
    """Every websocket path the router does not know.

    Channels' router raises on an unknown path, which daphne logs as a
    traceback and answers with a 500: a cheap way to fill the logs. This is
    routed last and closes like an unknown game does.
    """

    async def connect(self) -> None:
        # A close before accepting reaches the client as a bare HTTP 403;
        # accepting first lets it read the same 4404 an unknown game gives.
        await self.accept()
        await self.close(code=CLOSE_NO_SUCH_GAME)


class RefuseNulMiddleware:
    """A NUL byte in the query string is refused with 400 before any view runs.

    PostgreSQL cannot store or compare text holding NUL and raises, so a
    search or lookup fed one answered 500. No page of the site takes one. (In
    a path, a NUL matches no route: a plain 404.)
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in query or "%00" in query:
            return HttpResponseBadRequest()
        return self.get_response(request)
