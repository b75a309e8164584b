"""The expected final score of optimal play: published figures and cases worked by hand."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import comb

import pytest

from games.rules import Scorecard, get_ruleset
from games.solver import Table, evaluate_keeps

PUBLISHED = {"classic13": 254.5877, "yatzy": 248.4400}
# Not published that we know of: pinned so that any change to them shows.
OURS = {"yacht": 166.9551, "yacht_sum": 169.7739, "yacht_bonus": 191.7744}

# A die kept when it shows a six, rerolled otherwise, shows a six after up to
# three rolls with chance 1 - (5/6)^3.
SIX_IN_THREE = 1 - Fraction(5, 6) ** 3


def card(
    ruleset_key: str, open_boxes: set[str], filled: Mapping[str, int] | None = None
) -> Scorecard:
    """A card with only ``open_boxes`` left; other boxes hold ``filled`` or 0."""
    keys = get_ruleset(ruleset_key).category_keys
    filled = filled or {}
    return Scorecard({k: filled.get(k, 0) for k in keys if k not in open_boxes})


def to_come(table: Table, scorecard: Scorecard) -> float:
    return table.value(*table.state_of(scorecard))


@pytest.mark.parametrize(("key", "expected"), PUBLISHED.items())
def test_optimal_play_from_an_empty_card_matches_the_published_figure(
    tables: dict[str, Table], key: str, expected: float
) -> None:
    assert round(tables[key].value(0, 0, False), 4) == expected


@pytest.mark.parametrize(("key", "expected"), OURS.items())
def test_optimal_play_from_an_empty_card_keeps_its_known_value(
    tables: dict[str, Table], key: str, expected: float
) -> None:
    assert round(tables[key].value(0, 0, False), 4) == expected


def test_the_last_turn_with_only_choice_open_is_worth_seventy_thirds(
    tables: dict[str, Table],
) -> None:
    # Each die alone: the last roll is worth 3.5; before it keep 4-6 (worth
    # 4.25); before that keep 5-6 (1/3 * 5.5 + 2/3 * 4.25 = 14/3). Five dice: 70/3.
    assert to_come(tables["yacht"], card("yacht", {"choice"})) == pytest.approx(70 / 3, abs=1e-9)


def test_the_last_turn_with_only_sixes_open_is_worth_five_dice_chasing_six(
    tables: dict[str, Table],
) -> None:
    expected = 5 * 6 * SIX_IN_THREE  # 455/36
    assert to_come(tables["yacht"], card("yacht", {"sixes"})) == pytest.approx(float(expected))


def test_the_upper_bonus_is_worth_its_chance_when_three_sixes_would_reach_it(
    tables: dict[str, Table],
) -> None:
    # 45 banked in the upper section: three sixes (18) make 63 and earn 35.
    scorecard = card("yacht_bonus", {"sixes"}, {"fours": 20, "fives": 25})
    p = SIX_IN_THREE
    at_least_three = sum(comb(5, k) * p**k * (1 - p) ** (5 - k) for k in range(3, 6))
    expected = 5 * 6 * p + 35 * at_least_three
    assert to_come(tables["yacht_bonus"], scorecard) == pytest.approx(float(expected))


def test_an_upper_total_too_low_for_the_bonus_is_worth_the_same_as_none(
    tables: dict[str, Table],
) -> None:
    # 10 + at most 30 from sixes cannot reach 63: the bonus is out of play.
    scorecard = card("yacht_bonus", {"sixes"}, {"fives": 10})
    assert to_come(tables["yacht_bonus"], scorecard) == pytest.approx(float(5 * 6 * SIX_IN_THREE))


def test_with_one_roll_left_choice_keeps_its_high_dice_and_rerolls_the_rest(
    tables: dict[str, Table],
) -> None:
    best, *_ = evaluate_keeps(tables["yacht"], card("yacht", {"choice"}), (6, 2, 5, 1, 6), 2)
    # Hold 6, 5, 6 (17) and reroll two dice worth 3.5 each.
    assert best == (frozenset({0, 2, 4}), pytest.approx(24.0))


def test_with_two_rolls_left_choice_keeps_its_fives_and_sixes(tables: dict[str, Table]) -> None:
    best, *_ = evaluate_keeps(tables["yacht"], card("yacht", {"choice"}), (6, 2, 5, 1, 6), 1)
    # Hold 6, 5, 6 (17) and reroll two dice worth 4.25 each.
    assert best == (frozenset({0, 2, 4}), pytest.approx(25.5))


@pytest.mark.parametrize("key", [*PUBLISHED, *OURS])
def test_a_full_card_expects_exactly_what_it_holds(tables: dict[str, Table], key: str) -> None:
    scorecard = card(key, set(), {"sixes": 30, "fives": 25, "fours": 20, "choice": 22})
    table = tables[key]
    assert table.value(*table.state_of(scorecard)) == 0
    assert table.expected_final(scorecard) == 97 + (
        table.ruleset.upper_bonus if table.ruleset.upper_bonus_threshold else 0
    )


def test_a_state_no_play_reaches_has_no_value(tables: dict[str, Table]) -> None:
    # No upper box filled, yet an upper total of 5.
    with pytest.raises(ValueError, match="no play reaches"):
        tables["yacht_bonus"].value(0, 5, False)
