"""Browser-facing defences that Django 5.2 does not ship: the game socket's
origin in the Content Security Policy (django-csp sends the rest, from
settings), and the page a throttled admin sign-in sees (django-axes does the
counting, in the database)."""

from __future__ import annotations

from typing import Any

from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.utils.translation import ngettext


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's policy (``CONTENT_SECURITY_POLICY``), plus the game socket.

    'self' covers ws:/wss: to the same host only in newer browsers, so the
    socket's origin is named outright; it is the host of each request, which
    a fixed setting cannot say.
    """

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        scheme = "wss" if request.is_secure() else "ws"
        parts.update = {**(parts.update or {}), "connect-src": f"{scheme}://{request.get_host()}"}
        return parts


def admin_sign_in_throttled(
    request: HttpRequest, response: HttpResponse | None, credentials: dict[str, Any] | None
) -> HttpResponse:
    """What django-axes shows a client that keeps failing to sign in as one
    account: when to try again, in the page's language."""
    minutes = max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))
    message = ngettext(
        "Too many failed sign-ins for this account from your address. "
        "Please try again in %(minutes)s minute.",
        "Too many failed sign-ins for this account from your address. "
        "Please try again in %(minutes)s minutes.",
        minutes,
    ) % {"minutes": minutes}
    return render(
        request,
        "admin_sign_in_throttled.html",
        {"message": message},
        status=getattr(settings, "AXES_HTTP_RESPONSE_CODE", 429),
    )
