"""The perfect player's game on a duplicate game's dice.

A duplicate game's dice depend only on its seed, the round, the roll and
the position, so the optimal strategy can play them after the fact, as if
it had sat at the table: nothing about it has to be stored while the game
is on, and anyone holding the revealed seed can replay it.
"""

from __future__ import annotations

from games.rules import Roll, apply, new_game, totals
from games.rules.fairness import DuplicateDice

from .advice import best_action
from .table import get_table


def perfect_score(ruleset: str, seed: bytes) -> int:
    """What the perfect player scores on ``seed``'s duplicate dice."""
    table = get_table(ruleset)
    state = new_game(ruleset, 1)
    while not state.finished:
        action = best_action(table, state)
        hold = (action.hold or frozenset()) if isinstance(action, Roll) else frozenset()
        state = apply(state, 0, action, DuplicateDice(seed, state.turn, state.rolls + 1, hold))
    return totals(state.ruleset, state.cards[0]).total
