"""Pushing a committed change to everyone watching a game.

Only ever called from ``transaction.on_commit``: a push announces a state
that is already durable.

A commit made for a socket happens in the one worker thread that every
database call of the process shares, so the push is handed to the event loop
that serves the sockets instead of being awaited there: waiting out a Redis
round trip in that thread held up every other game's next query. Pushes leave
in the order they were committed, each after the one before of its game.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer
from redis.exceptions import RedisError

from games import socketloop
from games.selectors import Snapshot

log = logging.getLogger(__name__)

# Per game, the push sent last on the sockets' loop: the next one of that game
# waits for it, so two quick versions cannot overtake each other on the way
# out, while other games' pushes go ahead.
_last: dict[str, asyncio.Task[None]] = {}
# Strong references: the event loop keeps only weak ones to its tasks.
_tasks: set[asyncio.Task[None]] = set()


def group_name(token: str) -> str:
    return f"game.{token}"


def push_snapshot(snapshot: Snapshot) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    if socketloop.call_soon(_start, layer, snapshot):
        return
    # No running socket loop in this process (a management command, a test
    # calling services directly, a server stopping): send it here and now.
    try:
        async_to_sync(layer.group_send)(group_name(snapshot["token"]), _event(snapshot))
    except (RedisError, OSError):
        _could_not_push(snapshot)


def _event(snapshot: Snapshot) -> dict[str, Any]:
    return {"type": "game.snapshot", "snapshot": snapshot}


def _start(layer: BaseChannelLayer, snapshot: Snapshot) -> None:
    loop = asyncio.get_running_loop()
    token = snapshot["token"]
    previous = _last.get(token)
    if previous is not None and previous.get_loop() is not loop:
        previous = None  # left over from a loop that is gone (tests)
    task = loop.create_task(_send(layer, snapshot, previous))
    _last[token] = task
    _tasks.add(task)
    task.add_done_callback(functools.partial(_forget, token))


def _forget(token: str, task: asyncio.Task[None]) -> None:
    _tasks.discard(task)
    if _last.get(token) is task:
        del _last[token]


async def _send(
    layer: BaseChannelLayer, snapshot: Snapshot, previous: asyncio.Task[None] | None
) -> None:
    if previous is not None and not previous.done():
        # Only its order matters here: its failure is its own, logged there.
        await asyncio.wait({previous})
    try:
        await layer.group_send(group_name(snapshot["token"]), _event(snapshot))
    except Exception:
        # Nobody awaits this task, so whatever went wrong is said here or
        # never. The action is committed either way; see _could_not_push.
        _could_not_push(snapshot)


def _could_not_push(snapshot: Snapshot) -> None:
    # The action is committed: a push that cannot leave must not make it
    # look failed. Sockets lose their channel layer too, are closed with
    # "try again", and resync when they reconnect.
    log.warning(
        "could not push version %s of game %s",
        snapshot["version"],
        snapshot["token"],
        exc_info=True,
    )
