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

Games of bots alone take turns for a slot: a process plays at most
``YACHT_BOT_GAMES_PER_PROCESS`` of them at once (``BotSlots``), and the
others wait, in the order they asked, for one to finish or lose its last
watcher. Six hundred watched games of bots alone made the pushes of games
with people in them 18 times slower. A game with a person in it needs no
slot, and is never held back by these.

The bots' moves are decided and written by play (``services.game_bot_step``);
when to ask for one, and whether anyone here still watches, is this
process's live side.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError

from games.live import limits
from games.play import services
from games.rules import GameError
from games.runtime import runtime
from games.store import dbthreads
from games.store.selectors import Snapshot

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
    bots_only = not any(seat.get("person") for seat in snap["seats"])
    if bot_to_move(snap):
        runtime.loop.call_soon(_start, snap["token"], snap["version"], bots_only, snap["bot_pace"])
    elif bots_only and snap["status"] == "finished":
        # Over: its slot goes to a game waiting for one.
        runtime.loop.call_soon(slots().release, snap["token"])


# A game holding a slot whose steps stopped coming (its last step lost a race
# to another process, whose push never came) gives it up after this long.
SLOT_LEASE_SECONDS = 30.0


class BotSlots:
    """Which games of bots alone this process plays now, and which wait.

    Used on the sockets' loop only. A game holds its slot from its first step
    until it ends, or a step finds nobody here watching it; one whose steps
    stopped for ``SLOT_LEASE_SECONDS`` is taken to have ended.
    """

    def __init__(self) -> None:
        # Token -> when its last step was asked for (monotonic).
        self.playing: dict[str, float] = {}
        # Token -> the latest version seen and its bots' pace, in the order
        # they began to wait.
        self.waiting: dict[str, tuple[int, str]] = {}

    def admit(self, token: str, version: int, pace: str = "normal") -> bool:
        """Whether this game may take its step now; if not, it waits."""
        now = runtime.clock.monotonic()
        if token not in self.playing:
            for stale in [t for t, at in self.playing.items() if now - at > SLOT_LEASE_SECONDS]:
                del self.playing[stale]
            if len(self.playing) >= settings.YACHT_BOT_GAMES_PER_PROCESS:
                self.waiting[token] = (version, pace)
                return False
        self.waiting.pop(token, None)
        self.playing[token] = now
        return True

    def release(self, token: str) -> None:
        self.waiting.pop(token, None)
        if self.playing.pop(token, None) is None:
            return
        while self.waiting and len(self.playing) < settings.YACHT_BOT_GAMES_PER_PROCESS:
            token = next(iter(self.waiting))
            version, pace = self.waiting.pop(token)
            # One nobody here watches any more has nothing to wait for: the
            # next socket to connect schedules it again.
            if limits.sockets().watching(token):
                _start(token, version, True, pace)


def slots() -> BotSlots:
    """This process's ``BotSlots``."""
    return runtime.part(BotSlots)


class _Pending(set[tuple[str, int]]):
    """Steps this process has waiting, so that every socket of a game
    relaying the same push schedules one step, not one each."""


def _pending() -> _Pending:
    return runtime.part(_Pending)


def _start(token: str, version: int, bots_only: bool, pace: str) -> None:
    pending = _pending()
    if (token, version) in pending:
        return
    if bots_only and not slots().admit(token, version, pace):
        return
    pending.add((token, version))
    task = runtime.loop.spawn(_step(token, version, bots_only, pause(pace)), what="bot_step")
    task.add_done_callback(lambda _: pending.discard((token, version)))


def pause(pace: str, draw: Callable[[float, float], float] = random.uniform) -> float:
    """Seconds a bot waits before its next step at ``pace``.

    At the fast pace every pause is ``YACHT_BOT_FAST_SHARE`` of the normal
    one, so whatever slows or speeds the normal pace (a test's, a
    deployment's) moves the fast one with it.
    """
    low, high = settings.YACHT_BOT_PAUSE
    share = settings.YACHT_BOT_FAST_SHARE if pace == "fast" else 1.0
    return draw(low * share, high * share)


async def _step(token: str, version: int, bots_only: bool, delay: float) -> None:
    await runtime.clock.pause(delay)
    if bots_only and not limits.sockets().watching(token):
        # Nobody here is watching: the game waits for the next socket.
        slots().release(token)
        return
    try:
        await dbthreads.run(token, services.game_bot_step, token=token, version=version)
    except GameError:
        # Someone (a person, or this bot scheduled twice) moved first.
        pass
    except DatabaseError:
        if bots_only:
            slots().release(token)
        runtime.counts["bot_steps_failed"] += 1
        log.warning(
            "bot step for game %s failed; it resumes on the next connect", token, exc_info=True
        )
