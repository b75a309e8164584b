"""The health endpoint, for an operator's monitoring of one process: the
database and Redis, and this process's live side (its open sockets and what
it could not do or deliver)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from games.live.process import open_sockets
from games.runtime import runtime
from yachtsite import outage


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """For an operator's monitoring (nginx does not serve it to the public):
    whether the database and Redis answer, this process's open sockets and
    what it could not deliver (pushes that failed to leave, messages dropped
    from a full inbox, work that crashed).

    503 with the database down: no page can be served. Redis down is
    "degraded": pages and games on one process go on, the limits count in
    each process, pushes no longer cross processes."""
    database = outage.database_answers()
    redis = outage.redis_answers()
    status = "down" if not database else "degraded" if redis is False else "ok"
    return JsonResponse(
        {
            "status": status,
            "database": "up" if database else "down",
            "redis": "not used" if redis is None else "up" if redis else "down",
            "sockets": len(open_sockets()),
            "counts": dict(runtime.counts),
        },
        status=200 if database else 503,
    )
