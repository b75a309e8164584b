"""The floor: what daphne and the channel layer cost on their own.

A consumer that does only the transport part of a Yacht move: take the
client's message, fan one push out to the game's group, forward it to each
socket. No database, no rendering, no rules. Its pushes carry a game state of
the same shape the scripted players read (whose turn, rolls used) and are
padded to the size of the product's pushes (``FLOOR_MESSAGE_CHARS``), so the
same clients can play it and the same bytes cross the same layer.
"""

from __future__ import annotations

import json
import os
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

from games.live.socketloop import InTurnConsumer
from games.rules import get_ruleset

CATEGORIES = list(get_ruleset("yacht").category_keys)
SEATS = 2
# A game whose two players have joined: the version a real lobby is at then.
LOBBY_VERSION = 2
ACTIONS = 2 * SEATS * len(CATEGORIES)  # one roll and one score per box per seat


def floor_state(version: int) -> dict[str, Any]:
    """The state the product would show at ``version`` when every turn is one
    roll then one score, computed instead of stored."""
    seats = [{"order": n, "name": f"P{n}", "boxes": {}} for n in range(SEATS)]
    done = version - LOBBY_VERSION - 1
    if version <= LOBBY_VERSION:
        status, current, rolls = "lobby", None, 0
    elif done >= ACTIONS:
        status, current, rolls = "finished", None, 0
    else:
        status, current, rolls = "playing", (done // 2) % SEATS, done % 2
    return {
        "version": version,
        "status": status,
        "seats": seats,
        "current_seat": current,
        "rolls_used": rolls,
        "categories": CATEGORIES,
        "preview": {"choice": 20} if rolls else {},
    }


def floor_message(version: int, size: int) -> str:
    message = {"type": "table", "version": version, "html": "", "state": floor_state(version)}
    bare = len(json.dumps(message))
    message["html"] = "x" * max(0, size - bare)
    return json.dumps(message)


# Served as the product's socket is (games/live/socketloop.py): one task per
# source for the socket's life, and without channels' hop to a thread before
# each message and push (database upkeep, not transport). With that hop the
# floor spent about a fifth of its CPU on it, and every ratio to it looked
# better than it was.
class FloorConsumer(InTurnConsumer, AsyncWebsocketConsumer):
    size = int(os.environ.get("FLOOR_MESSAGE_CHARS", "4000"))

    async def connect(self) -> None:
        self.group = f"floor.{self.scope['url_route']['kwargs']['token']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=floor_message(LOBBY_VERSION, self.size))

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        version = json.loads(text_data or "{}").get("version", 0)
        await self.channel_layer.group_send(
            self.group, {"type": "floor.push", "text": floor_message(version + 1, self.size)}
        )

    async def floor_push(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])
