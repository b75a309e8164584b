"""ASGI entry point: HTTP through Django, websockets through Channels."""

import gc
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

# Everything loaded so far lives as long as the process: out of the
# collector's sight, a full collection walks only what the games made since.
# Under 200 human-paced games those full collections (each one stops every
# socket) took up to 190 ms; with this, up to 110 ms (bench.live_play, gc
# callbacks timing each pass).
gc.collect()
gc.freeze()
