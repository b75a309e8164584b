"""Charts drawn as SVG: My stats' chart of scores over time, and the top of
a chart's value axis, a round number, so that the axis's marks (zero,
half-way, the top) are round numbers too, as on a chart drawn by hand
(shared with the review's chart of points given away)."""

from __future__ import annotations

import math
from typing import Any

# Each power of ten's round tops: their halves are round too.
ROUND_TOPS = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def round_top(value: float, *, least: float = 1.0) -> float:
    """The smallest round number at or above ``value``, and at least ``least``."""
    if value <= least:
        return least
    scale = 10.0 ** math.floor(math.log10(value))
    return next(step * scale for step in ROUND_TOPS if step * scale >= value - 1e-9)


CHART_WIDTH = 320
CHART_HEIGHT = 120
CHART_PAD = 8
# Room on the left for the score axis's numbers (up to three digits).
CHART_GUTTER = 30
# The axis is marked at 0, half-way and the top: the best score rounded up
# to a round number (``round_top``), and never less than this.
CHART_LEAST_TOP = 50


def score_chart(scores: list[int]) -> dict[str, Any]:
    """Points of a line chart of ``scores`` (oldest first), in SVG units, and
    the marks of its score axis."""
    # Whole at this size (round tops of 50 and more are whole numbers).
    top = int(round_top(max(scores, default=0), least=CHART_LEAST_TOP))
    span = max(len(scores) - 1, 1)
    left = CHART_PAD + CHART_GUTTER
    inner_w = CHART_WIDTH - left - CHART_PAD
    inner_h = CHART_HEIGHT - 2 * CHART_PAD

    def height_of(score: float) -> float:
        return CHART_PAD + inner_h - score * inner_h / top

    points = [
        (left + (i * inner_w / span if len(scores) > 1 else inner_w / 2), height_of(score))
        for i, score in enumerate(scores)
    ]
    return {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "left": left,
        "right": CHART_WIDTH - CHART_PAD,
        # The axis's numbers end just left of it.
        "label_x": left - 5,
        "line": " ".join(f"{x:.1f},{y:.1f}" for x, y in points),
        "dots": [
            {"x": f"{x:.1f}", "y": f"{y:.1f}", "score": s}
            for (x, y), s in zip(points, scores, strict=True)
        ],
        "ticks": [{"y": f"{height_of(value):.1f}", "label": value} for value in (0, top // 2, top)],
        "top": top,
    }
