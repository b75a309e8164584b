"""Why the advisor's choice is good, read from the advisor's own figures.

``reason`` picks one of a few kinds of reason for the optimal action in a
turn and fills it with numbers the solver computed, so the sentence a player
reads can never argue for anything but the advice:

- a keep is explained by the boxes it serves: for each open box, the keep
  that plays best *if the turn ends in that box* is worked out with the same
  averaging the solver uses; the boxes whose best keep is the advised one
  "want" those dice, ranked by the expected final score of aiming at them;
- rerolling everything, or scoring with rolls left, by how much the other
  course loses on average;
- scoring by what the next best box loses, and a zero by being the cheapest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from games.rules import MAX_ROLLS, GameState, Roll, Score, Scorecard, box_value
from games.rules.rulesets import UPPER_KEYS

from .advice import best_action, evaluate_boxes, evaluate_keeps, score_now
from .dice import LEVELS, ROLLS, best_within, expect, sub_keeps
from .state import card_state, upper_cap
from .table import Table

Kind = Literal[
    "keep_boxes",  # keep dice: one or two boxes want exactly them
    "keep_bonus",  # keep dice for an upper box, with the upper bonus still open
    "keep_best",  # keep dice: no box wants exactly them; they aim best at a box
    "reroll_all",  # nothing here is worth keeping
    "score_stop",  # score now: another roll is worth less
    "score_best",  # score in this box: the next best loses this much
    "score_zero",  # a zero in the box where it costs least
    "score_only",  # the only box this roll may go in
]

# Figures within this of each other are the same choice to a player.
SAME = 0.005


@dataclass(frozen=True)
class Reason:
    kind: Kind
    # The box (or boxes) the reason names, in the rule set's keys.
    boxes: tuple[str, ...] = ()
    # The dice to keep (face values), for a keep.
    keep: tuple[int, ...] = ()
    # The points the advised box scores, for a score.
    points: int = 0
    # Expected final points the alternative named by the reason gives up.
    loss: float = 0.0


def _aim_values(table: Table, card: Scorecard, key: str, rolls_used: int) -> list[np.ndarray]:
    """Every keep's expected final score if the turn must end in box ``key``."""
    cache: dict[tuple[int, int], float] = {}
    top = np.empty(len(ROLLS))
    for r, roll in enumerate(ROLLS):
        got = box_value(table.ruleset, card, key, roll)
        if got not in cache:
            cache[got] = table.expected_final(card.with_box(key, *got))
        top[r] = cache[got]
    levels = expect(top)
    if rolls_used == 1:
        levels = expect(best_within(levels))
    return levels


def _keep_value(levels: list[np.ndarray], keep: tuple[int, ...]) -> float:
    return float(levels[len(keep)][LEVELS[len(keep)].index[keep]])


def _best_keep(levels: list[np.ndarray], roll: tuple[int, ...]) -> float:
    return max(_keep_value(levels, k) for k in sub_keeps(roll))


def reason(table: Table, state: GameState) -> Reason | None:
    """Why the optimal action for the seat to move is best; None before a roll."""
    if state.rolls == 0:
        return None
    card = state.cards[state.current]
    dice = state.dice
    action = best_action(table, state)
    boxes = evaluate_boxes(table, card, dice)
    if isinstance(action, Roll):
        keep = tuple(sorted(dice[i] for i in action.hold or ()))
        keeps = evaluate_keeps(table, card, dice, state.rolls)
        kept = keeps[0][1]
        if not keep:
            return Reason("reroll_all", loss=kept - score_now(table, card, dice))
        return _keep_reason(table, card, tuple(sorted(dice)), keep, state.rolls)
    assert isinstance(action, Score)
    box = action.category
    points = state.preview()[box]
    if len(boxes) == 1:
        return Reason("score_only", boxes=(box,), points=points)
    if state.rolls < MAX_ROLLS:
        # Holding all five is scoring with a roll to spare: a reroll holds fewer.
        kept = max(v for hold, v in evaluate_keeps(table, card, dice, state.rolls) if len(hold) < 5)
        loss = boxes[box] - kept
        if loss > SAME:
            return Reason("score_stop", boxes=(box,), points=points, loss=loss)
    runner = max((k for k in boxes if k != box), key=boxes.__getitem__)
    loss = boxes[box] - boxes[runner]
    kind: Kind = "score_zero" if points == 0 else "score_best"
    return Reason(kind, boxes=(box, runner), points=points, loss=loss)


def _keep_reason(
    table: Table, card: Scorecard, roll: tuple[int, ...], keep: tuple[int, ...], rolls_used: int
) -> Reason:
    open_boxes = [k for k in table.ruleset.category_keys if not card.filled(k)]
    wanting: list[tuple[float, str]] = []
    aiming: list[tuple[float, str]] = []
    for key in open_boxes:
        levels = _aim_values(table, card, key, rolls_used)
        value = _keep_value(levels, keep)
        aiming.append((value, key))
        if value >= _best_keep(levels, roll) - SAME:
            wanting.append((value, key))
    wanting.sort(key=lambda pair: -pair[0])
    aiming.sort(key=lambda pair: -pair[0])
    if wanting:
        top = wanting[0][1]
        if len(wanting) == 1 and top in UPPER_KEYS and _bonus_open(table, card):
            return Reason("keep_bonus", boxes=(top,), keep=keep)
        return Reason("keep_boxes", boxes=tuple(key for _v, key in wanting[:2]), keep=keep)
    return Reason("keep_best", boxes=(aiming[0][1],), keep=keep)


def _bonus_open(table: Table, card: Scorecard) -> bool:
    """The upper bonus is not yet earned and some upper box is still open."""
    cap = upper_cap(table.ruleset)
    if not cap:
        return False
    return card_state(table.ruleset, card).upper < cap and any(
        not card.filled(k) for k in UPPER_KEYS if k in table.ruleset.category_keys
    )
