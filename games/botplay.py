"""Bots take their turns on the server, one step at a time, with a pause a
person can follow.

Each committed change that leaves a bot to move schedules that bot's next
step on the server's event loop (the step itself runs in a worker thread,
like every database call of a socket). The step names the version it was
scheduled for, so a step that lost a race, or that two processes both
scheduled, changes nothing. A process that restarts picks a waiting bot up
again as soon as any socket of that game connects.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import DatabaseError

from games.rules import GameError

log = logging.getLogger(__name__)

_loop: asyncio.AbstractEventLoop | None = None
# Strong references: the event loop keeps only weak ones to its tasks.
_tasks: set[asyncio.Task[None]] = set()


def remember_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Called from the event loop that serves sockets, so commits made in
    worker threads know where to schedule bot steps and send pushes."""
    global _loop
    _loop = loop


def socket_loop() -> asyncio.AbstractEventLoop | None:
    """The loop that serves this process's sockets, if one is running now."""
    loop = _loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def bot_to_move(snap: dict[str, Any]) -> bool:
    if snap["status"] != "playing" or snap["current_seat"] is None:
        return False
    return bool(snap["seats"][snap["current_seat"]].get("bot"))


def schedule(snap: dict[str, Any]) -> None:
    """If a bot is to move in ``snap``, make it move after a pause. Any thread."""
    loop = _loop
    if not bot_to_move(snap) or loop is None or loop.is_closed():
        return
    # A fresh context: the committing thread's one says it is inside
    # sync_to_async, and a task inheriting that would refuse to call back out.
    loop.call_soon_threadsafe(_start, snap["token"], snap["version"], context=contextvars.Context())


def _start(token: str, version: int) -> None:
    task = asyncio.get_running_loop().create_task(_step(token, version))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


def pause() -> float:
    low, high = settings.YACHT_BOT_PAUSE
    return random.uniform(low, high)


async def _step(token: str, version: int) -> None:
    from games import services

    await asyncio.sleep(pause())
    try:
        await database_sync_to_async(services.game_bot_step)(token=token, version=version)
    except GameError:
        # Someone (a person, or this bot scheduled twice) moved first.
        pass
    except DatabaseError:
        log.warning("bot step for game %s failed; it resumes on the next connect", token)
