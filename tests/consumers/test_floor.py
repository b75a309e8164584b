"""The benchmark's floor (bench/floor.py) is transport only: a move is one
message in, one push through the channel layer, one message out to each
socket of the game, with no hop to a thread that the product does not make."""

from __future__ import annotations

import json

from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import path

from bench import floor
from bench.floor import FloorConsumer

application = URLRouter([path("ws/g/<str:token>/", FloorConsumer.as_asgi())])


async def test_a_floor_move_reaches_both_players_without_a_hop_to_a_thread(monkeypatch):
    hops: list[str] = []

    async def close_old_connections() -> None:
        hops.append("close")

    # What channels' stock dispatch awaits before every message and push.
    monkeypatch.setattr("channels.consumer.aclose_old_connections", close_old_connections)
    players = [WebsocketCommunicator(application, "/ws/g/floortest/") for _ in range(2)]
    for player in players:
        connected, _ = await player.connect()
        assert connected
        lobby = json.loads(await player.receive_from())
        assert lobby["version"] == floor.LOBBY_VERSION

    await players[0].send_to(text_data=json.dumps({"version": floor.LOBBY_VERSION}))
    for player in players:
        pushed = json.loads(await player.receive_from())
        assert pushed["version"] == floor.LOBBY_VERSION + 1
        assert pushed["state"]["status"] == "playing"
    assert hops == []
    for player in players:
        await player.disconnect()
