"""Hints: what holding dice and scoring a box are worth, against the engine's own rules."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations_with_replacement
from math import factorial

import pytest

from games.rules import RULESETS, GameState, Scorecard, get_ruleset
from games.solver import Table, evaluate_boxes, evaluate_keeps, score_now

KEYS = list(RULESETS)


def random_card(key: str, rng: random.Random) -> Scorecard:
    """Some boxes filled with what some roll scores in them: a card play can reach.

    The ``yacht`` box, when filled, holds 50 or 0 with even odds so that the
    extra bonus and the forced joker come up often.
    """
    ruleset = get_ruleset(key)
    boxes = {}
    for category in ruleset.categories:
        if rng.random() < 0.5:
            continue
        if category.key == "yacht":
            boxes["yacht"] = rng.choice((0, 50))
        else:
            dice = tuple(rng.randint(1, 6) for _ in range(5))
            boxes[category.key] = category.scorer(dice)
    if len(boxes) == len(ruleset.categories):
        boxes.pop(rng.choice(ruleset.category_keys))
    return Scorecard(boxes)


def random_dice(rng: random.Random) -> tuple[int, ...]:
    if rng.random() < 0.2:
        return (rng.randint(1, 6),) * 5
    return tuple(rng.randint(1, 6) for _ in range(5))


@pytest.mark.parametrize("key", KEYS)
def test_scoring_now_is_worth_the_best_box_the_engine_allows(
    tables: dict[str, Table], key: str
) -> None:
    rng = random.Random(f"boxes-{key}")
    for _ in range(150):
        scorecard, dice = random_card(key, rng), random_dice(rng)
        boxes = evaluate_boxes(tables[key], scorecard, dice)
        assert max(boxes.values()) == pytest.approx(score_now(tables[key], scorecard, dice))


@pytest.mark.parametrize("key", KEYS)
def test_a_turn_recomputed_from_the_table_starts_at_the_tables_value(
    tables: dict[str, Table], key: str
) -> None:
    rng = random.Random(f"start-{key}")
    table = tables[key]
    for _ in range(50):
        state = table.state_of(random_card(key, rng))
        assert table.turn(state).start == pytest.approx(table.value(*state), abs=1e-9)


def outcomes(kept: tuple[int, ...]) -> list[tuple[tuple[int, ...], float]]:
    """Every result of rerolling the dice not kept, with its chance."""
    free = 5 - len(kept)
    result = []
    for rolled in combinations_with_replacement(range(1, 7), free):
        ways = factorial(free)
        for count in Counter(rolled).values():
            ways //= factorial(count)
        result.append(((*kept, *rolled), ways / 6**free))
    return result


@pytest.mark.parametrize("key", ["yacht_bonus", "yatzy", "classic13"])
def test_a_hold_before_the_last_roll_is_worth_the_average_of_its_outcomes(
    tables: dict[str, Table], key: str
) -> None:
    rng = random.Random(f"keeps-{key}")
    table = tables[key]
    for _ in range(4):
        scorecard, dice = random_card(key, rng), random_dice(rng)
        options = evaluate_keeps(table, scorecard, dice, 2)
        hold, value = rng.choice(options)
        kept = tuple(dice[i] for i in sorted(hold))
        by_engine = sum(
            p * max(evaluate_boxes(table, scorecard, after).values()) for after, p in outcomes(kept)
        )
        assert value == pytest.approx(by_engine, abs=1e-9)


def test_every_distinct_hold_is_offered_once_best_first(tables: dict[str, Table]) -> None:
    options = evaluate_keeps(tables["yatzy"], Scorecard(), (1, 3, 1, 2, 3), 1)
    held = [tuple(sorted((1, 3, 1, 2, 3)[i] for i in hold)) for hold, _ in options]
    assert len(held) == len(set(held)) == 3 * 2 * 3
    values = [value for _, value in options]
    assert values == sorted(values, reverse=True)


def test_holding_all_five_before_the_last_roll_is_worth_scoring_now(
    tables: dict[str, Table],
) -> None:
    table, dice = tables["classic13"], (2, 3, 4, 5, 5)
    options = dict(evaluate_keeps(table, Scorecard(), dice, 2))
    assert options[frozenset(range(5))] == pytest.approx(score_now(table, Scorecard(), dice))


def test_no_hold_is_offered_once_the_three_rolls_are_used(tables: dict[str, Table]) -> None:
    with pytest.raises(ValueError, match="no reroll"):
        evaluate_keeps(tables["yacht"], Scorecard(), (1, 2, 3, 4, 5), 3)


@pytest.mark.parametrize(
    "dice", [(1, 2, 3, 4), (0, 1, 2, 3, 4), (1, 2, 3, 4, 7), (1, 2, 3, 4, True)]
)
def test_dice_that_are_not_five_faces_are_refused(
    tables: dict[str, Table], dice: tuple[int, ...]
) -> None:
    with pytest.raises(ValueError, match="five whole numbers"):
        evaluate_boxes(tables["yacht"], Scorecard(), dice)


def test_a_five_alike_under_the_forced_joker_is_offered_only_its_own_upper_box(
    tables: dict[str, Table],
) -> None:
    table = tables["classic13"]
    scorecard = Scorecard({"yacht": 50, "choice": 20})
    boxes = evaluate_boxes(table, scorecard, (6, 6, 6, 6, 6))
    assert list(boxes) == ["sixes"]
    after = Scorecard({"yacht": 50, "choice": 20, "sixes": 30}, extra_bonus=100)
    assert boxes["sixes"] == pytest.approx(table.expected_final(after))


def test_the_engine_and_the_hints_agree_on_who_may_score_where(tables: dict[str, Table]) -> None:
    table = tables["classic13"]
    scorecard = Scorecard({"yacht": 0, "fours": 12})
    state = GameState("classic13", (scorecard,), dice=(4, 4, 4, 4, 4), rolls=1)
    assert tuple(evaluate_boxes(table, scorecard, state.dice)) == state.allowed_boxes()
