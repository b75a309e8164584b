"""Three computer players, from a careless human to optimal play.

Each is a function ``(state, rng) -> Roll | Score`` for the current seat. They
only ever choose among the moves the engine offers (``allowed_boxes``,
``preview``, die positions 0-4, rolls left), so ``apply`` accepts whatever
they return.

- ``beginner``: plays the dice in front of it. Keeps its most common face,
  stops as soon as something scores well, scores the box paying most right
  now, and sometimes slips.
- ``solid``: no table. Within the turn it plays exactly (every keep weighed
  by its odds), but judges a box by a rule of thumb: points now, minus what a
  whole turn spent on that box would be expected to make, plus progress
  towards the upper bonus.
- ``perfect``: the optimal strategy, read from the rule set's table.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from functools import cache, lru_cache

import numpy as np

from games.rules import MAX_ROLLS, Action, GameState, Roll, Score, Scorecard, get_ruleset, totals

from .advice import TOLERANCE, best_action
from .dice import (
    FIRST_ROLL,
    LEVELS,
    ROLL_INDEX,
    ROLLS,
    best_within,
    expect,
    hold_positions,
    sub_keeps,
)
from .model import Model, model_for
from .table import get_table

Bot = Callable[[GameState, random.Random], Action]

# The beginner's habits: a score it is happy to stop at, and how often it
# stops early anyway, keeps chasing a straight, or picks a worse box.
CONTENT_WITH = 25
STOPS_EARLY = 0.1
CHASES_STRAIGHT = 0.5
SLIPS = 0.15


def beginner(state: GameState, rng: random.Random) -> Action:
    if state.rolls == 0:
        return Roll()
    preview = state.preview()
    best = max(preview.values())
    if state.rolls < MAX_ROLLS and best < CONTENT_WITH and rng.random() >= STOPS_EARLY:
        return Roll(_beginner_hold(state.dice, rng))
    ranked = sorted(preview, key=lambda k: (-preview[k], rng.random()))
    if len(ranked) > 1 and rng.random() < SLIPS:
        return Score(rng.choice(ranked[1:3]))
    return Score(ranked[0])


def _beginner_hold(dice: tuple[int, ...], rng: random.Random) -> frozenset[int]:
    faces = set(dice)
    runs = [run for run in ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}) if run <= faces]
    if runs and rng.random() < CHASES_STRAIGHT:
        return hold_positions(dice, tuple(sorted(runs[0])))
    counts = Counter(dice)
    face, count = max(counts.items(), key=lambda fc: (fc[1], fc[0]))
    if count == 1:
        return frozenset()
    return frozenset(i for i, d in enumerate(dice) if d == face)


@cache
def _rule_of_thumb(ruleset_key: str) -> tuple[Model, np.ndarray]:
    """The rule set's model, and per box the points a turn spent only on it
    is expected to make (its "par")."""
    model = model_for(get_ruleset(ruleset_key))
    keep = expect(model.points.T.copy())
    keep = expect(best_within(keep))
    return model, FIRST_ROLL @ best_within(keep)


def _card_key(card: Scorecard) -> tuple[tuple[tuple[str, int], ...], int]:
    return tuple(sorted(card.boxes.items())), card.extra_bonus


# An entry is about 34 KB and takes 0.44 ms to work out; a card is asked
# for again on each roll of its turn. 4,096 of them could hold 140 MB.
@lru_cache(maxsize=256)
def _solid_turn(
    ruleset_key: str, key: tuple[tuple[tuple[str, int], ...], int]
) -> tuple[np.ndarray, tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """(box, roll) utilities, and keep values with one and with two rolls left."""
    utilities = _utilities(ruleset_key, Scorecard(dict(key[0]), key[1]))
    third = expect(utilities.max(axis=0))
    before_third = tuple(k.copy() for k in third)
    before_second = tuple(expect(best_within(third)))
    return utilities, before_third, before_second


def _utilities(ruleset_key: str, card: Scorecard) -> np.ndarray:
    """(box, roll) utilities by the rule of thumb; -inf where a box may not be used."""
    model, par = _rule_of_thumb(ruleset_key)
    ruleset = model.ruleset
    keys = ruleset.category_keys
    utility: np.ndarray = model.points - par[:, None]
    threshold = ruleset.upper_bonus_threshold
    if threshold is not None:
        upper = totals(ruleset, card).upper
        reachable = upper + sum(
            int(model.points[b].max()) for b in model.upper_boxes if not card.filled(keys[b])
        )
        if upper < threshold <= reachable:
            weight = ruleset.upper_bonus / threshold
            for b in model.upper_boxes:
                face = ruleset.categories[b].upper_face or 0
                # Three of each face is exactly the threshold's pace.
                utility[b] += weight * (model.points[b] - 3 * face)
    for b, key in enumerate(keys):
        if card.filled(key):
            utility[b] = -np.inf
    for row in model.five_alikes.rows:
        dice = ROLLS[row]
        probe = GameState(ruleset.key, (card,), dice=dice, rolls=1)
        preview = probe.preview()
        shift = utility[:, row] - model.points[:, row]
        utility[:, row] = -np.inf
        for key, points in preview.items():
            b = keys.index(key)
            utility[b, row] = points + shift[b]
    return utility


def solid(state: GameState, rng: random.Random) -> Action:
    if state.rolls == 0:
        return Roll()
    card = state.cards[state.current]
    roll = ROLL_INDEX[tuple(sorted(state.dice))]
    utilities, before_third, before_second = _solid_turn(state.ruleset_key, _card_key(card))
    if state.rolls < MAX_ROLLS:
        levels = before_second if state.rolls == 1 else before_third
        keep = max(sub_keeps(ROLLS[roll]), key=lambda k: levels[len(k)][LEVELS[len(k)].index[k]])
        if levels[len(keep)][LEVELS[len(keep)].index[keep]] > before_third[-1][roll] + TOLERANCE:
            return Roll(hold_positions(state.dice, keep))
    keys = state.ruleset.category_keys
    return Score(max(state.allowed_boxes(), key=lambda k: utilities[keys.index(k), roll]))


def perfect(state: GameState, rng: random.Random) -> Action:
    return best_action(get_table(state.ruleset_key), state)


BOTS: dict[str, Bot] = {"beginner": beginner, "solid": solid, "perfect": perfect}
# The levels that read a rule set's strategy table (built on first use).
TABLE_LEVELS = frozenset({"perfect"})


def prepare(level: str, ruleset_key: str) -> None:
    """Load (or, the first time, build) what ``level`` needs to decide in
    ``ruleset_key``, so that deciding later takes no time."""
    if level in TABLE_LEVELS:
        get_table(ruleset_key)


def decide(level: str, state: GameState, rng: random.Random) -> Action:
    try:
        bot = BOTS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}") from None
    return bot(state, rng)
