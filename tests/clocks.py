"""Clocks for the runtime (``runtime.clock``) that tests move by hand."""

from __future__ import annotations

import asyncio
from typing import Any

from games.runtime import Clock


class HandClock(Clock):
    """Wall time where the test puts it (``wall``). Intervals stay the
    machine's, so the event loop's own timers run as ever, unless the test
    moves them too (``intervals_too``: the monotonic clock reads ``wall``)."""

    def __init__(self, wall: float, *, intervals_too: bool = False) -> None:
        self.wall = wall
        self.intervals_too = intervals_too

    def time(self) -> float:
        return self.wall

    def monotonic(self) -> float:
        return self.wall if self.intervals_too else super().monotonic()


class TravelClock(Clock):
    """The machine's wall time as time-machine's ``traveller`` (the
    ``time_machine`` fixture, after its ``move_to``) sets it, so the rows a
    service dates and the deadlines a timer waits on agree; and timers
    (``sleep_until``) that end when the test moves the time past them
    (``shift``), never on the event loop's own clock."""

    def __init__(self, traveller: Any) -> None:
        self.traveller = traveller
        self.sleepers: list[tuple[float, asyncio.Future[None]]] = []

    async def sleep_until(self, wall: float) -> None:
        if self.time() >= wall:
            return
        woken = asyncio.get_running_loop().create_future()
        sleeper = (wall, woken)
        self.sleepers.append(sleeper)
        try:
            await woken
        finally:
            self.sleepers.remove(sleeper)

    def shift(self, seconds: float) -> None:
        """Move the time on by ``seconds``: every timer due by then ends."""
        self.traveller.shift(seconds)
        now = self.time()
        for wall, woken in self.sleepers:
            if wall <= now and not woken.done():
                woken.set_result(None)
