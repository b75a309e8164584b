"""The coaching line's reason, against the advisor it explains."""

from __future__ import annotations

import random
from itertools import product

import pytest

from games.rules import RULESETS, GameState, Roll, Score, Scorecard, box_value
from games.solver import Table, best_action, evaluate_boxes, evaluate_keeps, score_now
from games.solver.coach import SAME, reason
from games.solver.dice import ROLLS, sub_keeps

from .test_advice import random_card, random_dice


def state(ruleset: str, dice: tuple[int, ...], rolls: int, boxes: dict[str, int] | None = None):
    return GameState(ruleset, (Scorecard(boxes or {}),), dice=dice, rolls=rolls)


def test_two_fives_on_a_fresh_card_are_kept_for_the_fives_box(tables: dict[str, Table]) -> None:
    why = reason(tables["yacht"], state("yacht", (5, 2, 5, 3, 6), 1))
    assert why is not None
    assert why.kind == "keep_boxes"
    assert why.keep == (5, 5)
    assert "fives" in why.boxes


def test_nothing_is_said_before_the_first_roll(tables: dict[str, Table]) -> None:
    assert reason(tables["yacht"], state("yacht", (1, 1, 1, 1, 1), 0)) is None


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_every_reason_argues_for_the_advisors_own_choice(
    tables: dict[str, Table], ruleset: str
) -> None:
    table = tables[ruleset]
    rng = random.Random(f"coach-{ruleset}")
    for _ in range(25):
        card = random_card(ruleset, rng)
        dice = random_dice(rng)
        rolls = rng.randint(1, 3)
        game = GameState(ruleset, (card,), dice=dice, rolls=rolls)
        why = reason(table, game)
        action = best_action(table, game)
        assert why is not None
        if isinstance(action, Roll):
            kept = tuple(sorted(dice[i] for i in action.hold or ()))
            assert why.keep == kept
            assert why.kind == ("reroll_all" if not kept else why.kind)
            assert why.kind in ("reroll_all", "keep_boxes", "keep_bonus", "keep_best")
            assert all(not card.filled(box) for box in why.boxes)
        else:
            assert isinstance(action, Score)
            assert why.boxes[0] == action.category
            assert why.kind.startswith("score_")
            assert why.loss >= -1e-9


def _aim(table: Table, card: Scorecard, box: str, dice: tuple[int, ...]) -> dict:
    """Brute force, from the engine and the table alone: each keep's expected
    final score when one roll is left and the turn ends in ``box``."""
    worth = {
        roll: table.expected_final(card.with_box(box, *box_value(table.ruleset, card, box, roll)))
        for roll in ROLLS
    }
    result = {}
    for keep in sub_keeps(tuple(sorted(dice))):
        outcomes = [
            worth[tuple(sorted((*keep, *rest)))]
            for rest in product(range(1, 7), repeat=5 - len(keep))
        ]
        result[keep] = sum(outcomes) / len(outcomes)
    return result


@pytest.mark.parametrize(
    ("dice", "boxes"),
    [
        ((5, 2, 5, 3, 6), {}),
        ((2, 2, 2, 4, 6), {}),
        ((6, 6, 3, 1, 2), {}),
        ((3, 4, 5, 1, 1), {"yacht": 0}),
    ],
)
def test_the_box_a_keep_is_said_to_serve_plays_best_with_that_keep(
    tables: dict[str, Table], dice: tuple[int, ...], boxes: dict[str, int]
) -> None:
    table = tables["yacht"]
    card = Scorecard(boxes)
    why = reason(table, state("yacht", dice, 2, boxes))
    assert why is not None and why.kind in ("keep_boxes", "keep_bonus")
    for box in why.boxes:
        values = _aim(table, card, box, dice)
        assert values[why.keep] >= max(values.values()) - SAME


def test_a_keep_no_box_wants_exactly_names_the_box_it_aims_best_at(
    tables: dict[str, Table],
) -> None:
    table = tables["yacht"]
    boxes = {"choice": 20, "sixes": 18}
    card = Scorecard(boxes)
    dice = (1, 1, 2, 4, 6)
    why = reason(table, state("yacht", dice, 2, boxes))
    assert why is not None and why.kind == "keep_best"
    aims = {
        box: _aim(table, card, box, dice)[why.keep]
        for box in RULESETS["yacht"].category_keys
        if box not in boxes
    }
    assert aims[why.boxes[0]] == pytest.approx(max(aims.values()))


def test_a_score_names_the_next_best_box_and_what_it_loses(tables: dict[str, Table]) -> None:
    table = tables["yacht"]
    why = reason(table, state("yacht", (1, 2, 3, 4, 5), 3))
    assert why is not None and why.kind == "score_best"
    values = evaluate_boxes(table, Scorecard({}), (1, 2, 3, 4, 5))
    first, second = sorted(values, key=values.__getitem__, reverse=True)[:2]
    assert why.boxes == (first, second) == ("little_straight", why.boxes[1])
    assert why.points == 30
    assert why.loss == pytest.approx(values[first] - values[second])


def test_scoring_with_rolls_left_says_what_another_roll_would_lose(
    tables: dict[str, Table],
) -> None:
    table = tables["yacht"]
    why = reason(table, state("yacht", (1, 2, 3, 4, 5), 1))
    assert why is not None and why.kind == "score_stop"
    rerolls = [
        v for hold, v in evaluate_keeps(table, Scorecard({}), (1, 2, 3, 4, 5), 1) if len(hold) < 5
    ]
    best = evaluate_boxes(table, Scorecard({}), (1, 2, 3, 4, 5))["little_straight"]
    assert why.loss == pytest.approx(best - max(rerolls))
    assert why.loss > 0


def test_a_zero_goes_where_it_costs_least(tables: dict[str, Table]) -> None:
    table = tables["yacht"]
    full = {key: 0 for key in RULESETS["yacht"].category_keys}
    del full["yacht"], full["big_straight"]
    game = state("yacht", (1, 1, 2, 3, 4), 3, full)
    why = reason(table, game)
    assert why is not None and why.kind == "score_zero" and why.points == 0
    assert why.boxes[0] == best_action(table, game).category  # type: ignore[union-attr]


def test_rerolling_everything_says_what_scoring_now_would_lose(tables: dict[str, Table]) -> None:
    table = tables["yacht"]
    card = Scorecard({})
    for roll in ROLLS:
        game = state("yacht", roll, 1)
        action = best_action(table, game)
        if isinstance(action, Roll) and not action.hold:
            break
    else:
        pytest.fail("no roll of a fresh card is best rerolled whole")
    why = reason(table, game)
    assert why is not None and why.kind == "reroll_all" and why.keep == ()
    best = evaluate_keeps(table, card, roll, 1)[0][1]
    assert why.loss == pytest.approx(best - score_now(table, card, roll))
    assert why.loss > 0
