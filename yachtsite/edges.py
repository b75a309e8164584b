"""The site's edges: requests that match nothing the site serves get a plain
4xx or a 4404 close, never a 500 with a traceback in the log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from channels.generic.websocket import AsyncWebsocketConsumer
from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.http.request import split_domain_port, validate_host

from games.live.consumers import CLOSE_NO_SUCH_GAME


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


DEFAULT_PORTS = {"http": "80", "https": "443"}


def _origin(scheme: str, netloc: str) -> str:
    """``scheme://host[:port]``, lowercased, without the scheme's default port."""
    host = netloc.lower()
    default = DEFAULT_PORTS.get(scheme)
    if default and host.endswith(f":{default}"):
        host = host[: -len(default) - 1]
    return f"{scheme}://{host}"


class SameOriginValidator:
    """Only a page of this very site may open a game socket.

    A socket rides on the player's cookie, so a page elsewhere must not open
    one. Channels' own validator compares only the Origin's host name with
    ALLOWED_HOSTS; this one wants the whole origin, scheme and port
    included, to be the one the socket was asked for (the Host it names,
    over https when the site or the socket is secure), or one listed in
    ``CSRF_TRUSTED_ORIGINS``, as Django checks its forms.
    """

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not self.allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)

    @staticmethod
    def allowed(scope: dict[str, Any]) -> bool:
        headers = dict(scope.get("headers", []))
        origin = headers.get(b"origin", b"").decode("latin-1")
        host = headers.get(b"host", b"").decode("latin-1")
        if not origin or not host:
            return False
        domain, _port = split_domain_port(host)
        if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
            return False
        parts = urlsplit(origin)
        if not parts.scheme or not parts.netloc:
            return False
        given = _origin(parts.scheme.lower(), parts.netloc)
        trusted = {
            _origin(*o.lower().split("://", 1)) for o in settings.CSRF_TRUSTED_ORIGINS if "://" in o
        }
        if given in trusted:
            return True
        secure = settings.HTTPS or scope.get("scheme") == "wss"
        return given == _origin("https" if secure else "http", host)
