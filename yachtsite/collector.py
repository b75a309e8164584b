"""Full garbage collections on a clock instead of on the allocator's count.

CPython starts a full collection once enough objects have outlived the two
young generations, and a full collection walks every tracked object while
holding the GIL: every socket of the process waits. Under 300 human-paced
games on one daphne (bench.live_play, timed with gc callbacks) they came
three times in 20 s of play, 130-210 ms each, and found almost nothing: a
move leaves no cyclic garbage, and what set them off (snapshots and messages
that live a player's few seconds) is freed by reference counting. Young
collections still run as they did and find most of what page views leave.

Here full collections run every ``every`` seconds from a thread of their
own: one pause a minute instead of one every few seconds. The price is
memory and, after a rush of page views, a longer pause: a garbage cycle that
reached the oldest generation waits for the clock (after 300 games started
in 15 s, the next one freed 153,000 objects in 510 ms, on a host losing a
third of its time to steal).
"""

from __future__ import annotations

import gc
import threading

# CPython's gc.set_threshold takes a C int; counted collections of the oldest
# generation need this many young collections first: never, in practice.
_NEVER = 2**31 - 1


class ClockedCollector:
    def __init__(self, every: float) -> None:
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="full-gc", daemon=True)
        self._threshold = gc.get_threshold()

    def start(self) -> ClockedCollector:
        young, middle, _ = self._threshold
        gc.set_threshold(young, middle, _NEVER)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the clock and give counted full collections back to CPython."""
        self._stop.set()
        self._thread.join()
        gc.set_threshold(*self._threshold)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            gc.collect()


_running: ClockedCollector | None = None


def collect_on_a_clock(every: float) -> None:
    """Make full collections timed, once per process; ``every`` 0 leaves CPython's."""
    global _running
    if every > 0 and _running is None:
        _running = ClockedCollector(every).start()
