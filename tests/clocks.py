"""Clocks for the runtime (``runtime.clock``) that tests move by hand."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime
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


class ThreadClock(Clock):
    """Wall time as each thread was told it (``tell``), the machine's for a
    thread told nothing: two threads racing at one instant can each read
    their own side of a deadline, as two processes' clocks would."""

    def __init__(self) -> None:
        self._told = threading.local()

    def tell(self, wall: float) -> None:
        """From now on this thread reads ``wall``."""
        self._told.wall = wall

    def time(self) -> float:
        wall: float | None = getattr(self._told, "wall", None)
        return super().time() if wall is None else wall

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.time(), tz=UTC)


class TravelClock(Clock):
    """The machine's wall time as time-machine's ``traveller`` (the
    ``time_machine`` fixture, after its ``move_to``) sets it, so the rows a
    service dates and the deadlines a timer waits on agree; and timers
    (``sleep_until``, and a bot's ``pause``) that end when the test moves
    the time past them (``shift``, ``wake_next``), never on the event
    loop's own clock."""

    def __init__(self, traveller: Any) -> None:
        self.traveller = traveller
        self.sleepers: list[tuple[float, asyncio.Future[None]]] = []
        self._arrived: asyncio.Future[None] | None = None

    async def sleep_until(self, wall: float) -> None:
        if self.time() >= wall:
            return
        woken = asyncio.get_running_loop().create_future()
        sleeper = (wall, woken)
        self.sleepers.append(sleeper)
        if self._arrived is not None and not self._arrived.done():
            self._arrived.set_result(None)
        try:
            await woken
        finally:
            self.sleepers.remove(sleeper)

    async def pause(self, seconds: float) -> None:
        await self.sleep_until(self.time() + seconds)

    def shift(self, seconds: float) -> None:
        """Move the time on by ``seconds``: every timer due by then ends."""
        self.traveller.shift(seconds)
        now = self.time()
        for wall, woken in self.sleepers:
            if wall <= now and not woken.done():
                woken.set_result(None)

    def waiting(self) -> list[float]:
        """When each timer still waiting for the time to move will end."""
        now = self.time()
        return sorted(wall for wall, woken in self.sleepers if wall > now and not woken.done())

    async def wake_next(self, timeout: float = 5) -> float:
        """Wait (up to ``timeout`` real seconds) for a timer that waits for
        the time to move (a bot's next step, a turn's deadline), then move the
        time to its end, ending it and any other due by then: the seconds
        moved. (A millisecond more: time-machine keeps microseconds.)"""
        async with asyncio.timeout(timeout):
            while not self.waiting():
                self._arrived = asyncio.get_running_loop().create_future()
                await self._arrived
        seconds = self.waiting()[0] - self.time() + 0.001
        self.shift(seconds)
        return seconds
