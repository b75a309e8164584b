"""Pushing a committed change to everyone watching a game.

Only ever called after commit (``runtime.commits``): a push announces a state
that is already durable.

A commit made for a socket happens in the one worker thread that every
database call of the process shares, so the push is handed to the event loop
that serves the sockets instead of being awaited there: waiting out a Redis
round trip in that thread held up every other game's next query. Pushes leave
in the order they were committed, each after the one before of its game.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer
from redis.exceptions import RedisError

from games.runtime import runtime
from games.store.selectors import ChatLine, Snapshot

log = logging.getLogger(__name__)


def group_name(token: str) -> str:
    return f"game.{token}"


def push_snapshot(snapshot: Snapshot) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    if runtime.loop.call_soon(_start, layer, snapshot):
        return
    # No running socket loop in this process (a management command, a test
    # calling services directly, a server stopping): send it here and now.
    try:
        async_to_sync(layer.group_send)(group_name(snapshot["token"]), _event(snapshot))
    except (RedisError, OSError):
        _could_not_push(snapshot)
    else:
        runtime.counts["pushes_sent"] += 1


def _event(snapshot: Snapshot) -> dict[str, Any]:
    return {"type": "game.snapshot", "snapshot": snapshot}


def _start(layer: BaseChannelLayer, snapshot: Snapshot) -> None:
    async def send() -> None:
        try:
            await layer.group_send(group_name(snapshot["token"]), _event(snapshot))
        except Exception:
            _could_not_push(snapshot)
        else:
            runtime.counts["pushes_sent"] += 1

    runtime.loop.chain(snapshot["token"], send, what="push")


def push_chat(line: ChatLine) -> None:
    """A chat line to every socket of its game. Its own kind of message: it
    carries no version, and leaves in order with the game's pushes."""
    layer = get_channel_layer()
    if layer is None:
        return
    event = {"type": "game.chat", "line": line}
    group = group_name(line["token"])

    async def send() -> None:
        try:
            await layer.group_send(group, event)
        except Exception:
            runtime.counts["chats_failed"] += 1
            log.warning("could not push chat line %s", line["id"], exc_info=True)

    def start() -> None:
        runtime.loop.chain(line["token"], send, what="chat")

    if runtime.loop.call_soon(start):
        return
    try:
        async_to_sync(layer.group_send)(group, event)
    except (RedisError, OSError):
        runtime.counts["chats_failed"] += 1
        log.warning("could not push chat line %s", line["id"], exc_info=True)


def _could_not_push(snapshot: Snapshot) -> None:
    # The action is committed: a push that cannot leave must not make it
    # look failed. Sockets lose their channel layer too, are closed with
    # "try again", and resync when they reconnect.
    runtime.counts["pushes_failed"] += 1
    log.warning(
        "could not push version %s of game %s",
        snapshot["version"],
        snapshot["token"],
        exc_info=True,
    )
