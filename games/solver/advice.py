"""What each choice within a turn is worth, read from a rule set's table.

Every figure is an expected final score: the points the card already holds
plus what optimal play is expected to add from that choice on.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.rules import DICE, MAX_ROLLS, Action, GameState, Roll, Score, Scorecard, box_value

from .dice import LEVELS, ROLL_INDEX, hold_positions, sub_keeps
from .state import banked
from .table import Table

# Keep values and scoring values are computed along different paths; a keep
# must beat scoring by more than rounding noise to be worth another roll.
TOLERANCE = 1e-9


def _checked(dice: Sequence[int]) -> tuple[int, ...]:
    values = tuple(dice)
    if len(values) != DICE or any(
        isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in values
    ):
        raise ValueError(f"dice must be five whole numbers from 1 to 6, got {values!r}")
    return values


def keep_values(
    table: Table, card: Scorecard, dice: Sequence[int], rolls_used: int
) -> dict[tuple[int, ...], float]:
    """Every distinct hold for the next roll, by the dice it keeps (sorted
    values), with its expected final score."""
    values = _checked(dice)
    if not 1 <= rolls_used < MAX_ROLLS:
        raise ValueError(f"no reroll can be held for after {rolls_used} rolls")
    turn = table.turn(table.state_of(card))
    levels = turn.before_second if rolls_used == 1 else turn.before_third
    base = banked(table.ruleset, card)
    return {
        keep: base + float(levels[len(keep)][LEVELS[len(keep)].index[keep]])
        for keep in sub_keeps(tuple(sorted(values)))
    }


def evaluate_keeps(
    table: Table, card: Scorecard, dice: Sequence[int], rolls_used: int
) -> list[tuple[frozenset[int], float]]:
    """Every distinct hold for the next roll, best first: (die positions, expected final score).

    Holding all five is included (it is worth the same as the best play
    from these dice with one roll fewer left).
    """
    values = _checked(dice)
    options = [
        (hold_positions(values, keep), value)
        for keep, value in keep_values(table, card, values, rolls_used).items()
    ]
    options.sort(key=lambda option: (-option[1], -len(option[0])))
    return options


def _allowed(table: Table, card: Scorecard, dice: tuple[int, ...]) -> tuple[str, ...]:
    """The engine's own answer, forced joker included."""
    return GameState(table.ruleset.key, (card,), dice=dice, rolls=1).allowed_boxes()


def evaluate_boxes(table: Table, card: Scorecard, dice: Sequence[int]) -> dict[str, float]:
    """Each box these dice may be scored in now, with the expected final score after it."""
    values = _checked(dice)
    result = {}
    for key in _allowed(table, card, values):
        after = card.with_box(key, *box_value(table.ruleset, card, key, values))
        result[key] = table.expected_final(after)
    return result


def score_now(table: Table, card: Scorecard, dice: Sequence[int]) -> float:
    """Expected final score of scoring these dice in their best box now."""
    turn = table.turn(table.state_of(card))
    return banked(table.ruleset, card) + float(
        turn.score[ROLL_INDEX[tuple(sorted(_checked(dice)))]]
    )


def best_action(table: Table, state: GameState) -> Action:
    """The optimal action for the current seat (ties go to scoring, then to
    the earlier box in the rule set's order)."""
    if state.rolls == 0:
        return Roll()
    card = state.cards[state.current]
    if state.rolls < MAX_ROLLS:
        turn = table.turn(table.state_of(card))
        levels = turn.before_second if state.rolls == 1 else turn.before_third
        roll = tuple(sorted(state.dice))
        keep = max(sub_keeps(roll), key=lambda k: levels[len(k)][LEVELS[len(k)].index[k]])
        kept = float(levels[len(keep)][LEVELS[len(keep)].index[keep]])
        if kept > float(turn.score[ROLL_INDEX[roll]]) + TOLERANCE:
            return Roll(hold_positions(state.dice, keep))
    boxes = evaluate_boxes(table, card, state.dice)
    return Score(max(boxes, key=boxes.__getitem__))
