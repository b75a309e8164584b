"""Optimal play for every rule set, and the bots and hints built on it.

Pure Python and numpy, no Django. ``get_table(ruleset_key)`` loads (or builds
and caches) the expected final score of every turn-start state under optimal
play; ``evaluate_keeps`` and ``evaluate_boxes`` price the choices within a
turn; ``games.solver.bots`` plays at three levels.
"""

from .advice import best_action, evaluate_boxes, evaluate_keeps, score_now
from .state import CardState, card_state
from .table import VERSION, Table, build_all, build_values, default_directory, get_table

__all__ = [
    "VERSION",
    "CardState",
    "Table",
    "best_action",
    "build_all",
    "build_values",
    "card_state",
    "default_directory",
    "evaluate_boxes",
    "evaluate_keeps",
    "get_table",
    "score_now",
]
