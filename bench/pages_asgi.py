"""The ASGI applications ``bench.pages`` puts side by side, on Yacht's settings.

    daphne bench.pages_asgi:stock   # Django's own ASGI handler
    daphne bench.pages_asgi:floor   # no Django at all: a fixed page

The site's own (Django's WSGI handler on page threads) is
``yachtsite.asgi:application``.
"""

import os
import secrets
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yachtsite.settings")
# Without DEBUG the settings refuse a missing secret key: any will do here.
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))

stock = get_asgi_application()

FLOOR_PAGE = b"<!doctype html><title>floor</title><p>floor</p>\n"


async def floor(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """What daphne costs for a page on its own: the request read, a fixed
    page written."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body", False):
        pass
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/html; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": FLOOR_PAGE})
