"""Bots take their turns on the server, one step at a time, with a pause a
person can follow.

Each committed change that leaves a bot to move schedules that bot's next
step on the server's event loop (the step itself runs in a worker thread,
like every database call of a socket). The step names the version it was
scheduled for, so a step that lost a race, or that two processes both
scheduled, changes nothing. A process that restarts picks a waiting bot up
again as soon as any socket of that game connects.

A game of bots alone plays only while someone watches it: each process
with a socket of the game schedules its steps (from the pushes it
receives), and a step finds no socket of the game in its process is not
taken. The game waits at that version, and the next socket to connect
starts it again.
"""

from __future__ import annotations

import asyncio
import logging
import random

from django.conf import settings
from django.db import DatabaseError

from games import dbthreads, limits
from games.live import live
from games.rules import GameError
from games.selectors import Snapshot

log = logging.getLogger(__name__)


def bot_to_move(snap: Snapshot) -> bool:
    if snap["status"] != "playing":
        return False
    dup = snap["duplicate"]
    if dup is not None:
        # In a duplicate round every bot that has not played it yet may move.
        bots = {s["order"] for s in snap["seats"] if s.get("bot")}
        return any(h["order"] in bots and not h["scored"] for h in dup["hands"])
    if snap["current_seat"] is None:
        return False
    return bool(snap["seats"][snap["current_seat"]].get("bot"))


def schedule(snap: Snapshot) -> None:
    """If a bot is to move in ``snap``, make it move after a pause. Any thread.

    Without a running socket loop nothing is scheduled: the next socket of
    the game to connect schedules the step.
    """
    if bot_to_move(snap):
        bots_only = not any(seat.get("person") for seat in snap["seats"])
        live.call_soon(_start, snap["token"], snap["version"], bots_only)


# Steps this process has waiting, so that every socket of a game relaying
# the same push schedules one step, not one each.
_pending: set[tuple[str, int]] = set()


def _start(token: str, version: int, bots_only: bool) -> None:
    if (token, version) in _pending:
        return
    _pending.add((token, version))
    task = live.spawn(_step(token, version, bots_only), what="bot_step")
    task.add_done_callback(lambda _: _pending.discard((token, version)))


def pause() -> float:
    low, high = settings.YACHT_BOT_PAUSE
    return random.uniform(low, high)


async def _step(token: str, version: int, bots_only: bool) -> None:
    from games import services

    await asyncio.sleep(pause())
    if bots_only and not limits.sockets.watching(token):
        # Nobody here is watching: the game waits for the next socket.
        return
    try:
        await dbthreads.run(token, services.game_bot_step, token=token, version=version)
    except GameError:
        # Someone (a person, or this bot scheduled twice) moved first.
        pass
    except DatabaseError:
        live.counts["bot_steps_failed"] += 1
        log.warning(
            "bot step for game %s failed; it resumes on the next connect", token, exc_info=True
        )
