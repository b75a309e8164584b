"""Pushing a committed change to everyone watching a game.

Only ever called from ``transaction.on_commit``: a push announces a state
that is already durable.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer


def group_name(token: str) -> str:
    return f"game.{token}"


def push_snapshot(snapshot: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(
        group_name(snapshot["token"]), {"type": "game.snapshot", "snapshot": snapshot}
    )
