"""Browser-facing defences that Django 5.2 does not ship: a Content Security
Policy header, and the page a throttled admin sign-in sees (django-axes
does the counting, in the database)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import ngettext

# Every script and style comes from our own static files: no inline <script>,
# no on*= handlers, no style attributes, so an injected name cannot run.
CSP_DIRECTIVES = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = content_security_policy(request)
        return response


def content_security_policy(request: HttpRequest) -> str:
    # 'self' covers ws:/wss: to the same host only in newer browsers: name
    # the game socket's origin outright.
    host = request.get_host()
    scheme = "wss" if request.is_secure() else "ws"
    directives = {**CSP_DIRECTIVES, "connect-src": f"'self' {scheme}://{host}"}
    return "; ".join(f"{name} {value}" for name, value in directives.items())


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
        status=settings.AXES_HTTP_RESPONSE_CODE,
    )
