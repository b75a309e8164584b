"""Browser-facing defences that Django 5.2 does not ship: a Content Security
Policy header, and throttled admin logins."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
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


class ThrottledAdminLoginForm(AdminAuthenticationForm):
    """The admin login form, refusing a client that keeps guessing one account.

    Failures are counted per client address and username in Django's cache
    (shared through Redis when the site runs several processes); past the
    limit, even the right password is refused until the window has passed.
    """

    def throttled_message(self, minutes: int) -> str:
        return ngettext(
            "Too many failed sign-ins for this account from your address. "
            "Please try again in %(minutes)s minute.",
            "Too many failed sign-ins for this account from your address. "
            "Please try again in %(minutes)s minutes.",
            minutes,
        )

    def clean(self) -> dict[str, Any]:
        key = self._throttle_key()
        limit = settings.YACHT_ADMIN_LOGIN_ATTEMPTS
        window = settings.YACHT_ADMIN_LOGIN_WINDOW
        if key and cache.get(key, 0) >= limit:
            raise ValidationError(
                self.throttled_message(window // 60),
                code="throttled",
                params={"minutes": window // 60},
            )
        try:
            cleaned = super().clean()
        except ValidationError:
            if key:
                # add() starts the window at the first failure; later ones only count.
                cache.add(key, 0, timeout=window)
                try:
                    cache.incr(key)
                except ValueError:
                    cache.set(key, 1, timeout=window)
            raise
        if key:
            cache.delete(key)
        return cleaned

    def _throttle_key(self) -> str | None:
        username = self.cleaned_data.get("username")
        if not username or self.request is None:
            return None
        address = self.request.META.get("REMOTE_ADDR", "")
        # Usernames are free text: hash them into a key any cache accepts.
        digest = hashlib.sha256(f"{address}\n{username}".encode()).hexdigest()
        return f"admin-login-failures:{digest}"
