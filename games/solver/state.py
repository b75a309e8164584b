"""The one place where an engine scorecard becomes a solver state, and back.

A turn-start state keeps only what the future can depend on:

- ``filled``: bit ``i`` set when the rule set's ``categories[i]`` is filled;
- ``upper``: the upper-section total, capped at the bonus threshold (0 when
  the rule set has no upper bonus, since it then changes nothing);
- ``yacht50``: whether the ``yacht`` box holds 50 (always False unless the
  rule set pays an extra yacht bonus). Whether the box is filled at all, which
  the forced joker needs, is already in ``filled``.
"""

from __future__ import annotations

from typing import NamedTuple

from games.rules import RuleSet, Scorecard, totals

# The engine's extra bonus and forced joker are keyed on this box (see
# ``games.rules.engine.box_value``), and "holds 50" is its test for the bonus.
YACHT_KEY = "yacht"
YACHT_POINTS = 50


class CardState(NamedTuple):
    filled: int
    upper: int
    yacht50: bool


def upper_cap(ruleset: RuleSet) -> int:
    return ruleset.upper_bonus_threshold or 0


def tracks_yacht50(ruleset: RuleSet) -> bool:
    return ruleset.extra_yacht_bonus > 0


def card_state(ruleset: RuleSet, card: Scorecard) -> CardState:
    filled = 0
    for bit, category in enumerate(ruleset.categories):
        if card.filled(category.key):
            filled |= 1 << bit
    upper = min(totals(ruleset, card).upper, upper_cap(ruleset))
    yacht50 = tracks_yacht50(ruleset) and card.boxes.get(YACHT_KEY) == YACHT_POINTS
    return CardState(filled, upper, yacht50)


def banked(ruleset: RuleSet, card: Scorecard) -> int:
    """Points the card already holds, bonuses included."""
    return totals(ruleset, card).total
