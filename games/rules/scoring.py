"""Scoring functions: each takes five dice and returns the points of one box.

They know nothing of rule sets; a rule set picks which function each of its
categories uses (see ``rulesets.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

Dice = Sequence[int]
Scorer = Callable[[Dice], int]

LITTLE_STRAIGHT = (1, 2, 3, 4, 5)
BIG_STRAIGHT = (2, 3, 4, 5, 6)
FOUR_RUNS = (frozenset({1, 2, 3, 4}), frozenset({2, 3, 4, 5}), frozenset({3, 4, 5, 6}))


def upper(face: int) -> Scorer:
    def score(dice: Dice) -> int:
        return face * sum(1 for d in dice if d == face)

    score.__name__ = f"upper_{face}"
    return score


def choice(dice: Dice) -> int:
    return sum(dice)


def _counts(dice: Dice) -> list[tuple[int, int]]:
    """(face, count) pairs, most frequent first, higher face first on ties."""
    return sorted(Counter(dice).items(), key=lambda fc: (fc[1], fc[0]), reverse=True)


def is_yacht(dice: Dice) -> bool:
    return len(set(dice)) == 1


def is_full_house(dice: Dice) -> bool:
    return sorted(Counter(dice).values()) == [2, 3]


def yacht(dice: Dice) -> int:
    return 50 if is_yacht(dice) else 0


def full_house_sum(dice: Dice) -> int:
    return sum(dice) if is_full_house(dice) else 0


def full_house_or_yacht_sum(dice: Dice) -> int:
    return sum(dice) if is_full_house(dice) or is_yacht(dice) else 0


def full_house_fixed(points: int) -> Scorer:
    def score(dice: Dice) -> int:
        return points if is_full_house(dice) else 0

    score.__name__ = f"full_house_{points}"
    return score


def _face_with_at_least(dice: Dice, n: int) -> int | None:
    face, count = _counts(dice)[0]
    return face if count >= n else None


def kind_of_those(n: int) -> Scorer:
    """At least n alike: n times that face (the other dice are not added)."""

    def score(dice: Dice) -> int:
        face = _face_with_at_least(dice, n)
        return n * face if face else 0

    score.__name__ = f"kind_{n}_those"
    return score


def kind_of_all(n: int) -> Scorer:
    """At least n alike: the sum of all five dice."""

    def score(dice: Dice) -> int:
        return sum(dice) if _face_with_at_least(dice, n) else 0

    score.__name__ = f"kind_{n}_all"
    return score


def one_pair(dice: Dice) -> int:
    pairs = [face for face, count in Counter(dice).items() if count >= 2]
    return 2 * max(pairs) if pairs else 0


def two_pairs(dice: Dice) -> int:
    pairs = [face for face, count in Counter(dice).items() if count >= 2]
    return 2 * sum(pairs) if len(pairs) == 2 else 0


def exact_run(run: tuple[int, ...], points: int) -> Scorer:
    def score(dice: Dice) -> int:
        return points if tuple(sorted(dice)) == run else 0

    score.__name__ = f"run_{''.join(map(str, run))}"
    return score


def any_four_run(points: int) -> Scorer:
    def score(dice: Dice) -> int:
        faces = set(dice)
        return points if any(run <= faces for run in FOUR_RUNS) else 0

    score.__name__ = f"four_run_{points}"
    return score


def any_five_run(points: int) -> Scorer:
    def score(dice: Dice) -> int:
        faces = set(dice)
        return points if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0

    score.__name__ = f"five_run_{points}"
    return score
