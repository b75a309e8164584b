"""Django's database sessions, refusing a session key that no session could have.

Keys Django makes are lowercase letters and digits; a cookie carrying
anything else (a NUL byte made PostgreSQL raise, a 500) is treated as no
session at all instead of being looked up.
"""

from __future__ import annotations

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore


class SessionStore(DatabaseSessionStore):
    def _validate_session_key(self, key: str | None) -> bool:
        if not key or not (key.isascii() and key.isalnum()):
            return False
        valid: bool = super()._validate_session_key(key)  # type: ignore[misc]
        return valid
