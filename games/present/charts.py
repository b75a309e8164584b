"""The top of a chart's value axis: a round number, so that the axis's
marks (zero, half-way, the top) are round numbers too, as on a chart drawn
by hand. Shared by the score chart of my stats and the review's chart of
points given away."""

from __future__ import annotations

import math

# Each power of ten's round tops: their halves are round too.
ROUND_TOPS = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def round_top(value: float, *, least: float = 1.0) -> float:
    """The smallest round number at or above ``value``, and at least ``least``."""
    if value <= least:
        return least
    scale = 10.0 ** math.floor(math.log10(value))
    return next(step * scale for step in ROUND_TOPS if step * scale >= value - 1e-9)
