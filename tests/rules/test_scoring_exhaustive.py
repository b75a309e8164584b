"""Every distinct roll against an oracle written apart from the engine.

The engine scores with Counter and sets; the oracle below works from a roll's
count vector (how many 1s, 2s, ... 6s), its shape (the non-zero counts, largest
first: (3, 2) is a full house) and a picture of the faces present ("xxxx" in
it is a four-run), so a slip in one is unlikely to be repeated in the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations_with_replacement, permutations
from math import factorial, prod

import pytest

from games.rules import get_ruleset, score
from tests.rules.test_scoring import EXAMPLES, dice

ROLLS = list(combinations_with_replacement(range(1, 7), 5))


@dataclass(frozen=True)
class Hand:
    counts: tuple[int, ...]  # counts[0] is how many 1s
    shape: tuple[int, ...]
    present: str
    total: int

    @classmethod
    def of(cls, roll: tuple[int, ...]) -> Hand:
        counts = tuple(roll.count(face) for face in range(1, 7))
        shape = tuple(sorted((c for c in counts if c), reverse=True))
        present = "".join("x" if c else "." for c in counts)
        return cls(counts, shape, present, sum(roll))

    def faces_with(self, at_least: int) -> list[int]:
        return [i + 1 for i, c in enumerate(self.counts) if c >= at_least]


Oracle = Callable[[Hand], int]


def face_total(face: int) -> Oracle:
    return lambda h: face * h.counts[face - 1]


def n_alike_of_those(n: int) -> Oracle:
    return lambda h: n * max(h.faces_with(n), default=0)


def n_alike_of_all(n: int) -> Oracle:
    return lambda h: h.total if h.shape[0] >= n else 0


def shapes(points_of: Callable[[Hand], int], *wanted: tuple[int, ...]) -> Oracle:
    return lambda h: points_of(h) if h.shape in wanted else 0


def pattern(points: int, *pictures: str) -> Oracle:
    return lambda h: points if h.present in pictures else 0


def run_of(length: int, points: int) -> Oracle:
    return lambda h: points if "x" * length in h.present else 0


def total(h: Hand) -> int:
    return h.total


UPPERS: dict[str, Oracle] = {
    name: face_total(face)
    for face, name in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), 1)
}
COMMON: dict[str, Oracle] = {
    **UPPERS,
    "choice": total,
    "yacht": shapes(lambda h: 50, (5,)),
}
EXACT_LITTLE = "xxxxx."
EXACT_BIG = ".xxxxx"

ORACLES: dict[str, dict[str, Oracle]] = {
    "yacht": {
        **COMMON,
        "full_house": shapes(total, (3, 2)),
        "four_of_a_kind": n_alike_of_those(4),
        "little_straight": pattern(30, EXACT_LITTLE),
        "big_straight": pattern(30, EXACT_BIG),
    },
    "yacht_sum": {
        **COMMON,
        "full_house": shapes(total, (3, 2)),
        "four_of_a_kind": n_alike_of_all(4),
        "little_straight": pattern(30, EXACT_LITTLE),
        "big_straight": pattern(30, EXACT_BIG),
    },
    "yacht_bonus": {
        **COMMON,
        "full_house": shapes(total, (3, 2), (5,)),
        "four_of_a_kind": n_alike_of_all(4),
        "little_straight": run_of(4, 15),
        "big_straight": run_of(5, 30),
    },
    "yatzy": {
        **COMMON,
        "one_pair": n_alike_of_those(2),
        "two_pairs": shapes(lambda h: 2 * sum(h.faces_with(2)), (2, 2, 1), (3, 2)),
        "three_of_a_kind": n_alike_of_those(3),
        "four_of_a_kind": n_alike_of_those(4),
        "little_straight": pattern(15, EXACT_LITTLE),
        "big_straight": pattern(20, EXACT_BIG),
        "full_house": shapes(total, (3, 2)),
    },
    "classic13": {
        **COMMON,
        "three_of_a_kind": n_alike_of_all(3),
        "four_of_a_kind": n_alike_of_all(4),
        "full_house": shapes(lambda h: 25, (3, 2)),
        "little_straight": run_of(4, 30),
        "big_straight": run_of(5, 40),
    },
}

PAIRS = [(rs, cat) for rs, cats in ORACLES.items() for cat in cats]


def test_there_are_252_distinct_rolls_covering_all_7776_ordered_throws():
    assert len(ROLLS) == len(set(ROLLS)) == 252
    arrangements = sum(factorial(5) // prod(factorial(c) for c in Hand.of(r).counts) for r in ROLLS)
    assert arrangements == 6**5


@pytest.mark.parametrize("ruleset", list(ORACLES))
def test_the_oracle_knows_exactly_the_categories_of_the_rule_set(ruleset):
    assert set(ORACLES[ruleset]) == set(get_ruleset(ruleset).category_keys)


@pytest.mark.parametrize(("ruleset", "category"), PAIRS)
def test_the_oracle_agrees_with_every_hand_worked_example(ruleset, category):
    oracle = ORACLES[ruleset][category]
    for roll, points in EXAMPLES[ruleset][category]:
        assert oracle(Hand.of(dice(roll))) == points, roll


@pytest.mark.parametrize(("ruleset", "category"), PAIRS)
def test_the_engine_and_the_oracle_agree_on_every_distinct_roll(ruleset, category):
    oracle = ORACLES[ruleset][category]
    disagreements = [
        (roll, score(ruleset, category, roll), oracle(Hand.of(roll)))
        for roll in ROLLS
        if score(ruleset, category, roll) != oracle(Hand.of(roll))
    ]
    assert disagreements == []


@pytest.mark.parametrize("ruleset", list(ORACLES))
def test_the_order_of_the_dice_never_changes_a_score(ruleset):
    categories = get_ruleset(ruleset).category_keys
    for roll in ROLLS:
        expected = [score(ruleset, c, roll) for c in categories]
        for arrangement in set(permutations(roll)):
            assert [score(ruleset, c, arrangement) for c in categories] == expected, arrangement
