"""Whole random games, per rule set: what must hold in every legal game.

Hypothesis picks the seats, a loaded die (a set of faces it can show: a single
face makes every roll five alike, so Classic 13's joker and extra bonus come
up often) and a seed for the dice and the player's choices (a plain seed
rather than st.randoms(), which made each game some fifty times slower). The game is played to
the end and every step is recorded; each test then checks one property of the
record.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import (
    RULESETS,
    GameError,
    Roll,
    Score,
    apply,
    get_ruleset,
    new_game,
    score,
    totals,
)
from games.rules.engine import GameState

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
UPPER_BONUS = {"yacht": 0, "yacht_sum": 0, "yacht_bonus": 35, "yatzy": 50, "classic13": 35}
JOKER_POINTS = {"full_house": 25, "little_straight": 30, "big_straight": 40}


class LoadedDice:
    def __init__(self, faces: list[int], rng: random.Random) -> None:
        self.faces = faces
        self.rng = rng

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6)
        return self.rng.choice(self.faces)


def frozen(state: GameState) -> tuple:
    """Everything a state holds, as plain values, to spot any mutation."""
    cards = tuple((tuple(sorted(c.boxes.items())), c.extra_bonus) for c in state.cards)
    return (state.ruleset_key, state.current, state.dice, state.held, state.rolls, cards)


@dataclass(frozen=True)
class Step:
    before: GameState
    before_frozen: tuple
    action: Roll | Score
    after: GameState
    allowed: tuple[str, ...]
    preview: dict[str, int]


@dataclass
class Record:
    ruleset: str
    seats: int
    steps: list[Step] = field(default_factory=list)
    # (state, its values before apply, the action, error code) for each illegal try
    rejected: list[tuple[GameState, tuple, Roll | Score, str]] = field(default_factory=list)

    @property
    def final(self) -> GameState:
        return self.steps[-1].after

    @property
    def scores(self) -> list[Step]:
        return [s for s in self.steps if isinstance(s.action, Score)]


def play(ruleset: str, seats: int, faces: list[int], rng: random.Random) -> Record:
    record = Record(ruleset, seats)
    dice = LoadedDice(faces, rng)
    state = new_game(ruleset, seats)

    def act(action: Roll | Score) -> GameState:
        before = frozen(state)
        allowed, preview = state.allowed_boxes(), state.preview()
        after = apply(state, state.current, action, dice)
        record.steps.append(Step(state, before, action, after, allowed, preview))
        return after

    def try_illegal(action: Roll | Score) -> None:
        before = frozen(state)
        try:
            apply(state, state.current, action, dice)
        except GameError as e:
            record.rejected.append((state, before, action, e.code))
        else:
            raise AssertionError(f"{action} was accepted in {state}")

    guard = 0
    while not state.finished:
        guard += 1
        assert guard < 1000, "the game does not end"
        state = act(Roll())
        while rng.random() < 0.7:
            if state.rolls == 3:
                try_illegal(Roll(frozenset(range(5))))
                break
            state = act(Roll(frozenset(i for i in range(5) if rng.random() < 0.5)))
        card = state.cards[state.current]
        if card.boxes and rng.random() < 0.3:
            try_illegal(Score(rng.choice(sorted(card.boxes))))
        open_but_not_allowed = [
            k
            for k in get_ruleset(ruleset).category_keys
            if k not in card.boxes and k not in state.allowed_boxes()
        ]
        if open_but_not_allowed:
            try_illegal(Score(rng.choice(open_but_not_allowed)))
        state = act(Score(rng.choice(state.allowed_boxes())))
    return record


games = given(
    seats=st.integers(1, 4),
    faces=st.lists(st.integers(1, 6), min_size=1, max_size=6, unique=True),
    seed=st.integers(0, 2**32 - 1),
)
modest = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
per_ruleset = pytest.mark.parametrize("ruleset", list(RULESETS))


def is_five_alike(dice: tuple[int, ...]) -> bool:
    return len(dice) == 5 and dice.count(dice[0]) == 5


def joker_in_force(ruleset: str, state: GameState) -> bool:
    card = state.cards[state.current]
    return ruleset == "classic13" and is_five_alike(state.dice) and "yacht" in card.boxes


def expected_allowed(ruleset: str, state: GameState) -> list[str]:
    """The boxes the rulebook lets the current dice go in, worked out afresh."""
    keys = get_ruleset(ruleset).category_keys
    open_boxes = [k for k in keys if k not in state.cards[state.current].boxes]
    if not joker_in_force(ruleset, state):
        return open_boxes
    own = UPPER[state.dice[0] - 1]
    if own in open_boxes:
        return [own]
    lower = [k for k in open_boxes if k not in UPPER]
    return lower or [k for k in open_boxes if k in UPPER]


def expected_points(ruleset: str, state: GameState, key: str) -> tuple[int, int]:
    """(box points, extra bonus) for scoring the current dice in ``key``, afresh."""
    card = state.cards[state.current]
    if joker_in_force(ruleset, state) and key in JOKER_POINTS:
        points = JOKER_POINTS[key]
    else:
        points = score(ruleset, key, state.dice)
    extra = 0
    if ruleset == "classic13" and is_five_alike(state.dice) and card.boxes.get("yacht") == 50:
        extra = 100
    return points, extra


@per_ruleset
@games
@modest
def test_a_random_game_ends_after_exactly_categories_times_seats_scores(
    ruleset, seats, faces, seed
):
    record = play(ruleset, seats, faces, random.Random(seed))
    n = len(get_ruleset(ruleset).categories)
    assert len(record.scores) == n * seats
    assert record.final.finished
    assert not any(s.after.finished for s in record.steps[:-1])
    assert all(len(card.boxes) == n for card in record.final.cards)


@per_ruleset
@games
@modest
def test_no_box_is_ever_filled_twice_and_only_the_scoring_seat_changes(ruleset, seats, faces, seed):
    record = play(ruleset, seats, faces, random.Random(seed))
    for step in record.scores:
        seat = step.before.current
        assert isinstance(step.action, Score)
        key = step.action.category
        old, new = step.before.cards[seat].boxes, step.after.cards[seat].boxes
        assert key not in old
        assert dict(new) == {**old, key: new[key]}
        others = [i for i in range(seats) if i != seat]
        assert all(step.after.cards[i] == step.before.cards[i] for i in others)
        assert step.after.current == (seat + 1) % seats
    assert {code for *_, code in record.rejected} <= {
        "category_filled",
        "joker_required",
        "no_rolls_left",
    }


@per_ruleset
@games
@modest
def test_the_total_is_the_sum_of_the_boxes_plus_the_bonuses(ruleset, seats, faces, seed):
    record = play(ruleset, seats, faces, random.Random(seed))
    extra = [0] * seats
    for step in record.scores:
        seat = step.before.current
        if (
            ruleset == "classic13"
            and is_five_alike(step.before.dice)
            and step.before.cards[seat].boxes.get("yacht") == 50
        ):
            extra[seat] += 100
    rs = get_ruleset(ruleset)
    for seat, card in enumerate(record.final.cards):
        upper = sum(card.boxes[k] for k in UPPER)
        bonus = UPPER_BONUS[ruleset] if upper >= 63 else 0
        assert totals(rs, card).total == sum(card.boxes.values()) + bonus + extra[seat]
    best = max(totals(rs, c).total for c in record.final.cards)
    assert record.final.winners() == tuple(
        i for i, c in enumerate(record.final.cards) if totals(rs, c).total == best
    )


@per_ruleset
@games
@modest
def test_a_turn_never_has_more_than_three_rolls(ruleset, seats, faces, seed):
    record = play(ruleset, seats, faces, random.Random(seed))
    rolls_this_turn = 0
    for step in record.steps:
        if isinstance(step.action, Roll):
            rolls_this_turn += 1
            assert step.after.rolls == rolls_this_turn <= 3
        else:
            assert 1 <= rolls_this_turn <= 3
            rolls_this_turn = 0
            assert step.after.rolls == 0
    fourth_rolls = [code for _, _, action, code in record.rejected if isinstance(action, Roll)]
    assert set(fourth_rolls) <= {"no_rolls_left"}


@per_ruleset
@games
@modest
def test_held_dice_never_change_on_a_roll(ruleset, seats, faces, seed):
    record = play(ruleset, seats, faces, random.Random(seed))
    for step in record.steps:
        if isinstance(step.action, Roll):
            assert len(step.after.dice) == 5
            assert all(1 <= d <= 6 for d in step.after.dice)
            assert step.after.held == step.action.hold
            for i in step.action.hold:
                assert step.after.dice[i] == step.before.dice[i]
            assert step.after.cards == step.before.cards
            assert step.after.current == step.before.current


@per_ruleset
@games
@modest
def test_the_preview_is_exactly_what_scoring_then_gives(ruleset, seats, faces, seed):
    record = play(ruleset, seats, faces, random.Random(seed))
    for step in record.scores:
        assert isinstance(step.action, Score)
        seat, key = step.before.current, step.action.category
        assert list(step.allowed) == expected_allowed(ruleset, step.before)
        assert list(step.preview) == list(step.allowed)
        old, new = step.before.cards[seat], step.after.cards[seat]
        gained = new.boxes[key], new.extra_bonus - old.extra_bonus
        assert step.preview[key] == sum(gained)
        assert gained == expected_points(ruleset, step.before, key)
        for other in step.allowed:
            assert step.preview[other] == sum(expected_points(ruleset, step.before, other))


@per_ruleset
@games
@modest
def test_apply_never_mutates_the_state_it_is_given(ruleset, seats, faces, seed):
    record = play(ruleset, seats, faces, random.Random(seed))
    for step in record.steps:
        assert frozen(step.before) == step.before_frozen
    for state, before, *_ in record.rejected:
        assert frozen(state) == before
