"""Pushing a committed change to everyone watching a game.

Only ever called from ``transaction.on_commit``: a push announces a state
that is already durable.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


def group_name(token: str) -> str:
    return f"game.{token}"


def push_snapshot(snapshot: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            group_name(snapshot["token"]), {"type": "game.snapshot", "snapshot": snapshot}
        )
    except (RedisError, OSError):
        # The action is committed: a push that cannot leave must not make it
        # look failed. Sockets lose their channel layer too, are closed with
        # "try again", and resync when they reconnect.
        log.warning(
            "could not push version %s of game %s",
            snapshot["version"],
            snapshot["token"],
            exc_info=True,
        )
