"""Browser-facing defences that Django 5.2 does not ship: the game socket's
origin in the Content Security Policy (django-csp sends the rest, from
settings), and throttled admin logins."""

from __future__ import annotations

import hashlib
from typing import Any

from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponseBase
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
