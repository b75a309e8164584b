from django.urls import path

import games.edge.converters  # noqa: F401  (registers the <token:...> converter)
from games.live.consumers import GameConsumer

websocket_urlpatterns = [
    path("ws/g/<token:token>/", GameConsumer.as_asgi()),
]
