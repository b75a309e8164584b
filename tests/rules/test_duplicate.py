"""Duplicate play in the pure engine: simultaneous rounds on shared dice."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import RULESETS, GameError, Roll, Score, get_ruleset, new_duplicate
from games.rules import duplicate as dup
from games.rules.fairness import DuplicateDice, duplicate_die


def roll(state: dup.DuplicateState, seat: int, seed: bytes, hold: frozenset[int] = frozenset()):
    dice = DuplicateDice(seed, state.round, state.roll_number(seat), hold)
    return dup.apply(state, seat, Roll(hold), dice)


holds = st.lists(st.frozensets(st.integers(0, 4)), min_size=2, max_size=2)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    ruleset=st.sampled_from(sorted(RULESETS)),
    plan=st.lists(holds, min_size=1, max_size=15),
    choice=st.randoms(use_true_random=False),
)
def test_two_seats_that_hold_the_same_dice_see_the_same_faces_in_every_round_and_roll(
    seed: bytes, ruleset: str, plan: list[list[frozenset[int]]], choice: random.Random
) -> None:
    state = new_duplicate(ruleset, 2)
    rounds = len(get_ruleset(ruleset).categories)
    for holds_of_round in plan[:rounds]:
        # Both seats roll three times holding the same positions, seat 1
        # sometimes first, then score different boxes.
        order = [0, 1] if choice.random() < 0.5 else [1, 0]
        for number, hold in enumerate([frozenset(), *holds_of_round]):
            for seat in order:
                state = roll(state, seat, seed, hold if number else frozenset())
            assert state.hands[0].dice == state.hands[1].dice
            assert state.hands[0].dice == tuple(
                state.hands[0].dice[p]
                if p in hold and number
                else duplicate_die(seed, state.round, number + 1, p)
                for p in range(5)
            )
        for seat in order:
            boxes = state.view(seat).allowed_boxes()  # type: ignore[union-attr]
            state = dup.apply(state, seat, Score(choice.choice(boxes)), random.Random())


def test_a_round_ends_only_when_every_seat_has_scored() -> None:
    seed = bytes(32)
    state = new_duplicate("yacht", 3)
    for seat in range(3):
        state = roll(state, seat, seed)
    state = dup.apply(state, 0, Score("choice"), random.Random())
    state = dup.apply(state, 2, Score("choice"), random.Random())
    assert state.round == 1
    assert state.has_scored(0) and not state.has_scored(1) and state.has_scored(2)
    with pytest.raises(GameError) as refused:
        roll(state, 0, seed)
    assert refused.value.code == "round_wait"
    state = dup.apply(state, 1, Score("yacht"), random.Random())
    assert state.round == 2
    assert not any(state.has_scored(seat) for seat in range(3))
    assert all(hand == dup.Hand() for hand in state.hands)


def test_seats_keep_their_own_rolls_and_holds_within_a_round() -> None:
    seed = bytes(range(32))
    state = roll(new_duplicate("yatzy", 2), 0, seed)
    state = roll(state, 0, seed, frozenset({0, 1}))
    assert state.hands[0].rolls == 2 and state.hands[1].rolls == 0
    with pytest.raises(GameError) as refused:
        dup.apply(state, 1, Score("choice"), random.Random())
    assert refused.value.code == "must_roll_first"


def test_the_game_is_over_when_every_seat_has_filled_every_box() -> None:
    seed = bytes(32)
    state = new_duplicate("yacht", 2)
    for key in get_ruleset("yacht").category_keys:
        for seat in (0, 1):
            state = roll(state, seat, seed)
            state = dup.apply(state, seat, Score(key), random.Random())
    assert state.finished
    assert state.scores().winners() == (0, 1)
    with pytest.raises(GameError) as refused:
        roll(state, 0, seed)
    assert refused.value.code == "game_over"
