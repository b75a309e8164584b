"""The turn clock's timer: when the seat to move runs out of time, the
stand-in bot takes its turn.

The deadline is stored with the game, so no process owns it. Every process
that commits a version with a deadline, or relays one to a socket of the
game, arms a timer for that version; whichever fires first acts, and the
service's version check makes every other attempt a no-op. A game nobody
is connected to needs no process awake for it: the deadline is honoured
when anyone next asks for the game (its page, a socket connecting, a
socket's sync), and an action that arrives after the deadline is refused
while the bot takes the turn.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError

from games.runtime import runtime
from games.store import dbthreads
from games.store.selectors import Snapshot

log = logging.getLogger(__name__)

# A timer fires this long after the deadline, so that the server's check
# (which reads the clock again) never finds it a hair early.
LATE_BY = 0.05


class _Armed(set[tuple[str, int]]):
    """Timers this process has armed, so that every socket of a game
    relaying the same push arms one, not one each."""


def schedule(snap: Snapshot) -> None:
    """Arm a timer for the deadline of ``snap``, if it has one. Any thread.

    Without a running socket loop nothing is armed: the next request for
    the game honours a deadline that has passed.
    """
    if snap["status"] == "playing" and snap["deadline"] is not None:
        runtime.loop.call_soon(_arm, snap["token"], snap["version"], snap["deadline"])


def _arm(token: str, version: int, deadline: float) -> None:
    armed = runtime.part(_Armed)
    if (token, version) in armed:
        return
    armed.add((token, version))
    task = runtime.loop.spawn(_at_deadline(token, version, deadline), what="turn_clock")
    task.add_done_callback(lambda _: armed.discard((token, version)))


async def _at_deadline(token: str, version: int, deadline: float) -> None:
    from games.play import services

    await runtime.clock.sleep_until(deadline + LATE_BY)
    try:
        await dbthreads.run(token, services.game_clock_expire, token=token, version=version)
    except DatabaseError:
        runtime.counts["turn_clock_failed"] += 1
        log.warning(
            "turn clock of game %s could not act; the next request for it does",
            token,
            exc_info=True,
        )
    except Exception:
        # A game deleted meanwhile (GameError) or anything else: logged, and
        # the deadline stays for the next request to honour.
        runtime.counts["turn_clock_failed"] += 1
        log.warning("turn clock of game %s failed", token, exc_info=True)
