"""A clock for the runtime (``runtime.clock``) that tests move by hand."""

from __future__ import annotations

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
