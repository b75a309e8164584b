"""The statistics of bench/dice_quality.py: its p-values must be right for
its verdicts on the dice to mean anything."""

from __future__ import annotations

import numpy as np
import pytest

from bench import dice_quality


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [
        # Textbook critical values.
        (3.841459, 1, 0.05),
        (5.991465, 2, 0.05),
        (11.070498, 5, 0.05),
        (15.086272, 5, 0.01),
        (37.652484, 25, 0.05),
        (44.314105, 25, 0.01),
        (4.351460, 5, 0.5),
    ],
)
def test_the_chi_square_tail_matches_published_critical_values(x: float, df: int, p: float):
    assert dice_quality.chi2_sf(x, df) == pytest.approx(p, abs=1e-6)


def test_the_chi_square_tail_is_one_at_zero_and_falls_with_x():
    assert dice_quality.chi2_sf(0, 5) == 1.0
    tail = [dice_quality.chi2_sf(x, 25) for x in range(0, 120, 5)]
    assert tail == sorted(tail, reverse=True)


def test_uniformity_rejects_dice_that_favour_a_face_and_accepts_even_ones():
    even = np.tile(np.arange(1, 7), 1000)
    assert dice_quality.uniformity(even)[2] == pytest.approx(1.0)
    loaded = np.concatenate([even, np.full(300, 6)])
    assert dice_quality.uniformity(loaded)[2] < 0.001


def test_independence_rejects_a_second_die_that_copies_the_first():
    first = np.tile(np.arange(1, 7), 500)
    rng = np.random.default_rng(1)
    assert dice_quality.independence(first, rng.permutation(first))[1] > 0.001
    assert dice_quality.independence(first, first)[1] < 0.001


def test_a_small_run_reports_both_tests_and_the_naive_comparison(
    capsys: pytest.CaptureFixture[str],
):
    dice_quality.main(["--seeds", "2", "--versions", "30"])
    out = capsys.readouterr().out
    assert "300 dice" in out
    assert "Uniformity" in out and "Independence" in out and "without rejection" in out
