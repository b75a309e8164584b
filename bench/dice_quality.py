"""How good are the fair dice? Rolls a million dice through
``games.rules.fairness.FairDice`` (many seeds, many move versions, all five
positions) and runs chi-square tests of

- uniformity: the six faces, pooled and per position (5 degrees of freedom);
- independence: die at position i against die at position i+1 of the same
  roll, as a 6x6 contingency table (25 degrees of freedom).

For scale, the same digests are also read the naive way (first byte % 6 + 1,
no rejection), whose bias of 43 vs 42 byte values per face the uniformity test
should catch at this sample size: that is what rejection sampling avoids.

    .venv/bin/python -m bench.dice_quality [--seeds 200] [--versions 1000]

p-values come from the chi-square survival function in closed form (math
only), so the benchmark needs nothing beyond numpy.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import math
import time

import numpy as np

from games.rules.fairness import DICE, FACES, FairDice


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom.

    Closed forms of the regularized upper incomplete gamma for whole and half
    integer shapes: a Poisson tail for even ``df``, erfc plus a finite series
    for odd ``df``.
    """
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:
        term = total = math.exp(-half)
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(total, 1.0)
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(2 * x / math.pi) * math.exp(-half)
    for i in range(1, (df - 1) // 2 + 1):
        total += term
        term *= x / (2 * i + 1)
    return min(total, 1.0)


def uniformity(faces: np.ndarray) -> tuple[np.ndarray, float, float]:
    """(counts per face, chi-square, p) for values 1..6 expected equally often."""
    counts = np.bincount(faces.ravel(), minlength=FACES + 1)[1:]
    expected = counts.sum() / FACES
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    return counts, chi2, chi2_sf(chi2, FACES - 1)


def independence(first: np.ndarray, second: np.ndarray) -> tuple[float, float]:
    """(chi-square, p) of a 6x6 contingency table against the product of its margins."""
    table = np.zeros((FACES, FACES))
    np.add.at(table, (first - 1, second - 1), 1)
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    chi2 = float(((table - expected) ** 2 / expected).sum())
    return chi2, chi2_sf(chi2, (FACES - 1) ** 2)


def roll(seeds: int, versions: int) -> tuple[np.ndarray, np.ndarray]:
    """(fair dice, naive modulo dice) as arrays of shape (rolls, 5)."""
    fair = np.empty((seeds * versions, DICE), dtype=np.int64)
    naive = np.empty_like(fair)
    row = 0
    for s in range(seeds):
        # Fixed seeds make a run reproducible; the server's are random.
        seed = hashlib.sha256(f"dice-quality:{s}".encode()).digest()
        for version in range(1, versions + 1):
            dice = FairDice(seed, version)
            fair[row] = [dice.randint(1, FACES) for _ in range(DICE)]
            naive[row] = [
                hmac.new(seed, f"{version}:{p}:0".encode(), hashlib.sha256).digest()[0] % FACES + 1
                for p in range(DICE)
            ]
            row += 1
    return fair, naive


def verdict(p: float) -> str:
    return "consistent with fair" if p >= 0.001 else "REJECTED at 0.1%"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--versions", type=int, default=1000)
    args = parser.parse_args(argv)

    started = time.perf_counter()
    fair, naive = roll(args.seeds, args.versions)
    elapsed = time.perf_counter() - started
    print(
        f"{fair.size:,} dice ({args.seeds} seeds x {args.versions} versions x {DICE} positions)"
        f" in {elapsed:.1f} s, {fair.size / elapsed:,.0f} dice/s"
    )

    counts, chi2, p = uniformity(fair)
    print("\nUniformity of the fair dice (df = 5)")
    share = ", ".join(f"{face}: {c / counts.sum():.5f}" for face, c in enumerate(counts, 1))
    print(f"  shares    {share}  (1/6 = {1 / 6:.5f})")
    print(f"  pooled    chi2 = {chi2:8.2f}  p = {p:.4f}  {verdict(p)}")
    for position in range(DICE):
        _, chi2, p = uniformity(fair[:, position])
        print(f"  die {position + 1}     chi2 = {chi2:8.2f}  p = {p:.4f}  {verdict(p)}")

    print("\nIndependence of neighbouring dice in one roll (6x6, df = 25)")
    for position in range(DICE - 1):
        chi2, p = independence(fair[:, position], fair[:, position + 1])
        print(
            f"  die {position + 1} vs {position + 2}  chi2 = {chi2:8.2f}  p = {p:.4f}  {verdict(p)}"
        )

    counts, chi2, p = uniformity(naive)
    print("\nFor comparison, the same digests without rejection (first byte % 6 + 1)")
    share = ", ".join(f"{face}: {c / counts.sum():.5f}" for face, c in enumerate(counts, 1))
    print(f"  shares    {share}")
    print(f"  pooled    chi2 = {chi2:8.2f}  p = {p:.3g}  {verdict(p)}")


if __name__ == "__main__":
    main()
