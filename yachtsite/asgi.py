"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yachtsite.settings")
# Django must be set up before the consumers (and their models) are imported.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402
from django.urls import re_path  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402
from yachtsite.edges import NoSuchSocket, SameOriginValidator  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(
            SessionMiddlewareStack(
                URLRouter([*websocket_urlpatterns, re_path(r"", NoSuchSocket.as_asgi())])
            )
        ),
    }
)
