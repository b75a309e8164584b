"""The rules of Yacht and its cousins: pure Python, no Django.

``score`` is the stable public entry point for the points of one box::

    >>> score("yacht", "full_house", [3, 3, 3, 5, 5])
    19
"""

from collections.abc import Iterable

from .duplicate import DuplicateState, Hand, new_duplicate
from .engine import (
    DICE,
    MAX_ROLLS,
    Action,
    Enter,
    GameState,
    Hold,
    Roll,
    Score,
    Scorecard,
    ScriptedDice,
    Totals,
    apply,
    box_value,
    joker_boxes,
    new_game,
    totals,
)
from .errors import GameError
from .permissions import (
    ACTION_NAMES,
    ActionName,
    Seat,
    Status,
    Table,
    allowed_actions,
    coachable,
    refusal,
    require,
    seat_acting,
)
from .rulesets import DEFAULT_RULESET, RULESETS, UPPER_KEYS, Category, RuleSet, get_ruleset


def score(ruleset: str, category: str, dice: Iterable[int]) -> int:
    """Points of ``category`` alone for five dice in any order (no bonus, no joker)."""
    values = tuple(dice)
    if len(values) != DICE or any(
        isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in values
    ):
        raise ValueError(f"dice must be five whole numbers from 1 to 6, got {values!r}")
    return get_ruleset(ruleset).category(category).scorer(values)


__all__ = [
    "ACTION_NAMES",
    "DEFAULT_RULESET",
    "DICE",
    "MAX_ROLLS",
    "RULESETS",
    "UPPER_KEYS",
    "Action",
    "ActionName",
    "Category",
    "DuplicateState",
    "Enter",
    "GameError",
    "GameState",
    "Hand",
    "Hold",
    "Roll",
    "RuleSet",
    "Score",
    "Scorecard",
    "ScriptedDice",
    "Seat",
    "Status",
    "Table",
    "Totals",
    "allowed_actions",
    "apply",
    "box_value",
    "coachable",
    "get_ruleset",
    "joker_boxes",
    "new_duplicate",
    "new_game",
    "refusal",
    "require",
    "score",
    "seat_acting",
    "totals",
]
