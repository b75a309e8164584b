"""When a dependency does not answer.

The database down: a page says so, in the reader's language, with 503 and a
hint to try again in a few seconds, instead of a 500 (the pool's wait for a
connection is short, ``YACHT_DB_TIMEOUT``). Redis down is survivable: the
limits count in the process and pages go on. ``/health/`` asks both.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import redis
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from redis.exceptions import RedisError

from games.runtime import runtime

log = logging.getLogger(__name__)

# Seconds a browser (or a crawler) is told to wait before asking again.
RETRY_AFTER = 5
# Errors of a database that is down or unreachable, not of a bad query: those
# stay 500s, to be fixed.
UNREACHABLE = (OperationalError, InterfaceError)


class DatabaseDownMiddleware:
    """Turns a view's "the database does not answer" into the 503 page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, UNREACHABLE):
            return None
        # One line per page, not a traceback each: an outage is loud enough.
        log.warning("database unavailable for %s: %s", request.path, exception)
        response = render(request, "503.html", status=503)
        response["Retry-After"] = str(RETRY_AFTER)
        return response


def database_answers() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except UNREACHABLE:
        return False
    return True


class _HealthClients(dict[str, redis.Redis]):
    """The health check's Redis client of each URL, kept by the runtime so
    that a check reuses the last one's connection."""


def _redis(url: str) -> redis.Redis:
    clients = runtime.part(_HealthClients)
    client = clients.get(url)
    if client is None:
        client = clients[url] = redis.Redis.from_url(
            url, socket_timeout=1, socket_connect_timeout=1, **settings.REDIS_CLIENT_OPTIONS
        )
    return client


def redis_answers() -> bool | None:
    """Whether Redis answers a ping within a second; None without Redis."""
    if not settings.REDIS_URL:
        return None
    try:
        _redis(settings.REDIS_URL).ping()
    except (RedisError, OSError):
        return False
    return True
