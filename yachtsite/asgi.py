"""ASGI entry point: pages through Django's WSGI handler on threads of
their own (``yachtsite.pages``), websockets through Channels."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yachtsite.settings")
# Django must be set up before the consumers (and their models) are imported.
django_wsgi_app = get_wsgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import re_path  # noqa: E402

# The solver (numpy, the tables' code, the review) loads now, not when the
# first game to end is reviewed on a game's thread: that load held the
# interpreter's lock about 0.3 s while every socket of the process waited.
import games.solver.review  # noqa: E402, F401
from games.live.routing import websocket_urlpatterns  # noqa: E402
from yachtsite.edges import NoSuchSocket, SameOriginValidator  # noqa: E402
from yachtsite.pages import Pages  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": Pages(django_wsgi_app, threads=settings.YACHT_PAGE_THREADS),
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
# A move of a game under way leaves no cycles behind (with the collector
# saving all it found, 300 human-paced games left none in 10 s), so a pass
# during play walks only live objects. Over a bench run of 300 human-paced
# games (about 55 s of the process's CPU), the stock thresholds (700, 10, 10)
# made about 1,300 young passes and 11-12 full ones (80 ms each on average,
# up to 200 ms): the collector took 2.3-3.2 s in five runs. These made about
# 140 young passes and one full one: 1.05 s, the longest pause 61 ms.
# But a closed connection is garbage in cycles (daphne's, Twisted's and
# autobahn's protocol objects with their buffers: 489 websockets' and 409
# HTTP requests' worth in 4.5 minutes of a soak), and it lived long enough
# to reach the oldest generation, which only a full pass empties. With a
# full pass due every 100 middle ones (about 4 a minute under a soak), none
# came for about 25 minutes, and daphne's RSS grew 50-60 MB in a 30-minute
# soak on every profile (bench.soak); a full collection 4 minutes in freed
# 44,000 objects (106 ms) and the RSS then held flat. Every 10 middle ones
# makes a full pass every few minutes.
gc.set_threshold(5000, 5, 10)
