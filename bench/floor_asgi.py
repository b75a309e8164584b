"""ASGI app of the floor consumer, on Yacht's settings (so the same channel
layer) but its own routing: the product's routes stay untouched.

    daphne bench.floor_asgi:application
"""

import os
import secrets

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yachtsite.settings")
# Without DEBUG the settings refuse a missing secret key: any will do here.
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
django.setup()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from bench.floor import FloorConsumer  # noqa: E402

application = ProtocolTypeRouter(
    {"websocket": URLRouter([path("ws/g/<str:token>/", FloorConsumer.as_asgi())])}
)
