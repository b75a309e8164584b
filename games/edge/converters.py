"""URL converters shared by the pages and the game socket's routing."""

from __future__ import annotations

from django.urls import register_converter


class TokenConverter:
    """An invite token: URL-safe base64 (``secrets.token_urlsafe``), at most
    the column's 32 characters.

    Anything else never reaches the database: a NUL byte made PostgreSQL
    raise (a 500 on pages, "unavailable" on the socket) where the answer is
    simply "no such game".
    """

    regex = "[A-Za-z0-9_-]{1,32}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(TokenConverter, "token")
