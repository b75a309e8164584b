from django.urls import path

from games.consumers import GameConsumer

websocket_urlpatterns = [
    path("ws/g/<str:token>/", GameConsumer.as_asgi()),
]
