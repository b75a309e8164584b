"""Turn flow: an immutable game state and ``apply``, the only way it changes.

The engine holds no randomness of its own: ``apply`` takes an object with a
``randint(a, b)`` method (``secrets.SystemRandom()`` on the server, a seeded
generator in tests and the solver's simulations).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Protocol

from .errors import GameError
from .rulesets import RuleSet, get_ruleset
from .scoring import is_yacht

DICE = 5
MAX_ROLLS = 3


class DiceRoller(Protocol):
    def randint(self, a: int, b: int) -> int: ...


@dataclass(frozen=True)
class Scorecard:
    """One seat's filled boxes and the extra bonuses earned so far."""

    boxes: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    extra_bonus: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "boxes", MappingProxyType(dict(self.boxes)))

    def filled(self, key: str) -> bool:
        return key in self.boxes

    def with_box(self, key: str, points: int, bonus: int) -> Scorecard:
        return Scorecard({**self.boxes, key: points}, self.extra_bonus + bonus)


@dataclass(frozen=True)
class Totals:
    upper: int
    upper_bonus: int
    extra_bonus: int
    total: int


def totals(ruleset: RuleSet, card: Scorecard) -> Totals:
    upper = sum(card.boxes.get(key, 0) for key in ruleset.upper_keys)
    threshold = ruleset.upper_bonus_threshold
    upper_bonus = ruleset.upper_bonus if threshold is not None and upper >= threshold else 0
    total = sum(card.boxes.values()) + upper_bonus + card.extra_bonus
    return Totals(upper, upper_bonus, card.extra_bonus, total)


def joker_boxes(ruleset: RuleSet, card: Scorecard, dice: tuple[int, ...]) -> tuple[str, ...] | None:
    """The boxes a five-alike may go in under the forced joker, or None if it is not in force."""
    if not (ruleset.forced_joker and is_yacht(dice) and card.filled("yacht")):
        return None
    own = next(c.key for c in ruleset.categories if c.upper_face == dice[0])
    if not card.filled(own):
        return (own,)
    lower = tuple(c.key for c in ruleset.categories if not c.is_upper and not card.filled(c.key))
    if lower:
        return lower
    return tuple(c.key for c in ruleset.categories if c.is_upper and not card.filled(c.key))


def box_value(
    ruleset: RuleSet, card: Scorecard, key: str, dice: tuple[int, ...]
) -> tuple[int, int]:
    """(points for the box, extra bonus) that scoring ``dice`` in ``key`` would earn."""
    category = ruleset.category(key)
    joker = joker_boxes(ruleset, card, dice) is not None
    if joker and category.joker_points is not None:
        points = category.joker_points
    else:
        points = category.scorer(dice)
    bonus = 0
    if ruleset.extra_yacht_bonus and is_yacht(dice) and card.boxes.get("yacht") == 50:
        bonus = ruleset.extra_yacht_bonus
    return points, bonus


@dataclass(frozen=True)
class Roll:
    """Roll the dice that are not held. ``hold`` are die positions 0-4; None
    keeps the dice the seat holds now (``GameState.held``, set by ``Hold``)."""

    hold: frozenset[int] | None = frozenset()


@dataclass(frozen=True)
class Hold:
    """Between rolls, keep the dice at these positions (0-4) for the next roll.

    It names the whole set rather than one die to flip, so a message that
    arrives twice leaves the same dice held.
    """

    hold: frozenset[int]


@dataclass(frozen=True)
class Enter:
    """A companion game's roll: the faces the player threw with real dice.

    It counts as a roll (three a turn at most); ``hold`` are the positions
    kept from the last roll, which must show the same faces as before, and
    None keeps the dice held now, as for ``Roll``."""

    dice: tuple[int, ...]
    hold: frozenset[int] | None = frozenset()


@dataclass(frozen=True)
class Score:
    category: str


Action = Roll | Hold | Enter | Score


@dataclass(frozen=True)
class GameState:
    ruleset_key: str
    cards: tuple[Scorecard, ...]
    current: int = 0
    dice: tuple[int, ...] = ()
    held: frozenset[int] = frozenset()
    rolls: int = 0

    @property
    def ruleset(self) -> RuleSet:
        return get_ruleset(self.ruleset_key)

    @property
    def seats(self) -> int:
        return len(self.cards)

    @property
    def finished(self) -> bool:
        n = len(self.ruleset.categories)
        return all(len(card.boxes) == n for card in self.cards)

    @property
    def turn(self) -> int:
        """Round number, from 1: the boxes the current seat has filled, plus one."""
        return len(self.cards[self.current].boxes) + 1

    def allowed_boxes(self) -> tuple[str, ...]:
        """The boxes the current seat may score the current dice in (empty before a roll)."""
        if self.rolls == 0 or self.finished:
            return ()
        card = self.cards[self.current]
        forced = joker_boxes(self.ruleset, card, self.dice)
        if forced is not None:
            return forced
        return tuple(k for k in self.ruleset.category_keys if not card.filled(k))

    def preview(self) -> dict[str, int]:
        """What each allowed box would score now (extra bonus included)."""
        card = self.cards[self.current]
        return {k: sum(box_value(self.ruleset, card, k, self.dice)) for k in self.allowed_boxes()}

    def winners(self) -> tuple[int, ...]:
        """Seats sharing the highest total (a draw when there are several)."""
        ts = [totals(self.ruleset, card).total for card in self.cards]
        best = max(ts)
        return tuple(i for i, t in enumerate(ts) if t == best)


def new_game(ruleset_key: str, seats: int) -> GameState:
    get_ruleset(ruleset_key)
    if seats < 1:
        raise ValueError("a game needs at least one seat")
    return GameState(ruleset_key=ruleset_key, cards=tuple(Scorecard() for _ in range(seats)))


def apply(state: GameState, seat: int, action: Action, rng: DiceRoller) -> GameState:
    if state.finished:
        raise GameError("game_over")
    if seat != state.current:
        raise GameError("not_your_turn")
    if isinstance(action, Roll):
        return _roll(state, state.held if action.hold is None else action.hold, rng)
    if isinstance(action, Hold):
        return _hold(state, action.hold)
    if isinstance(action, Enter):
        return _enter(state, state.held if action.hold is None else action.hold, action.dice)
    if isinstance(action, Score):
        return _score(state, action.category)
    raise GameError("unknown_action")


def _positions(hold: Iterable[int]) -> frozenset[int]:
    hold = frozenset(hold)
    if any(not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < DICE for i in hold):
        raise GameError("bad_hold")
    return hold


def _hold(state: GameState, hold: Iterable[int]) -> GameState:
    if state.rolls == 0:
        raise GameError("must_roll_first")
    if state.rolls >= MAX_ROLLS:
        raise GameError("no_rolls_left")
    return replace(state, held=_positions(hold))


def _roll(state: GameState, hold: Iterable[int], rng: DiceRoller) -> GameState:
    if state.rolls >= MAX_ROLLS:
        raise GameError("no_rolls_left")
    hold = _positions(hold)
    if state.rolls == 0 and hold:
        raise GameError("bad_hold")
    dice = tuple(state.dice[i] if i in hold else rng.randint(1, 6) for i in range(DICE))
    return replace(state, dice=dice, held=hold, rolls=state.rolls + 1)


def _faces(dice: Iterable[int]) -> tuple[int, ...]:
    faces = tuple(dice)
    if len(faces) != DICE or any(
        not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 6 for d in faces
    ):
        raise GameError("bad_faces")
    return faces


def _enter(state: GameState, hold: Iterable[int], dice: Iterable[int]) -> GameState:
    if state.rolls >= MAX_ROLLS:
        raise GameError("no_rolls_left")
    hold = _positions(hold)
    faces = _faces(dice)
    if state.rolls == 0 and hold:
        raise GameError("bad_hold")
    if any(faces[i] != state.dice[i] for i in hold):
        # A kept die is not thrown again: its face cannot change.
        raise GameError("held_changed")
    return replace(state, dice=faces, held=hold, rolls=state.rolls + 1)


def _score(state: GameState, key: str) -> GameState:
    ruleset = state.ruleset
    if not ruleset.has_category(key):
        raise GameError("unknown_category")
    if state.rolls == 0:
        raise GameError("must_roll_first")
    card = state.cards[state.current]
    if card.filled(key):
        raise GameError("category_filled")
    if key not in state.allowed_boxes():
        raise GameError("joker_required")
    points, bonus = box_value(ruleset, card, key, state.dice)
    cards = list(state.cards)
    cards[state.current] = card.with_box(key, points, bonus)
    return GameState(
        ruleset_key=state.ruleset_key,
        cards=tuple(cards),
        current=(state.current + 1) % state.seats,
    )


class ScriptedDice:
    """Dice that come up in a given order: replays a logged game, drives tests."""

    def __init__(self, values: Iterable[int]) -> None:
        self._values = iter(values)

    def randint(self, a: int, b: int) -> int:
        value = next(self._values)
        if not a <= value <= b:
            raise ValueError(f"scripted die {value} outside {a}..{b}")
        return value
