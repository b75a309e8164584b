"""A companion game's roll: the player enters the faces of real dice, and
the engine scores them as it scores its own."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import rules
from games.rules import (
    Enter,
    GameError,
    Roll,
    Score,
    ScriptedDice,
    Seat,
    Table,
    allowed_actions,
    apply,
    new_game,
    refusal,
    totals,
)

NO_DICE = ScriptedDice([])
faces = st.lists(st.integers(1, 6), min_size=5, max_size=5).map(tuple)


def entered(state: rules.GameState, dice: tuple[int, ...], hold: set[int] | None = None):
    return apply(state, state.current, Enter(dice, frozenset(hold or ())), NO_DICE)


def test_entered_dice_are_the_dice_and_count_as_a_roll_without_touching_the_rng() -> None:
    state = entered(new_game("yacht", 1), (3, 3, 3, 5, 5))
    assert (state.dice, state.rolls, state.held) == ((3, 3, 3, 5, 5), 1, frozenset())
    assert state.preview()["full_house"] == 19


def test_a_fourth_entry_in_a_turn_is_refused_as_a_fourth_roll_would_be() -> None:
    state = new_game("yacht", 1)
    for dice in [(1, 2, 3, 4, 5), (1, 2, 3, 4, 6), (1, 2, 3, 4, 4)]:
        state = entered(state, dice)
    with pytest.raises(GameError) as refused:
        entered(state, (6, 6, 6, 6, 6))
    assert refused.value.code == "no_rolls_left"


@pytest.mark.parametrize(
    "dice", [(0, 1, 2, 3, 4), (1, 2, 3, 4, 7), (1, 2, 3, 4), (1, 2, 3, 4, 5, 6), (1, 2, True, 4, 5)]
)
def test_anything_but_five_faces_from_1_to_6_is_refused_as_bad_faces(dice: tuple) -> None:
    with pytest.raises(GameError) as refused:
        entered(new_game("yacht", 1), dice)
    assert refused.value.code == "bad_faces"


def test_a_kept_die_must_show_the_same_face_in_the_next_entry() -> None:
    state = entered(new_game("yacht", 1), (6, 6, 2, 3, 1))
    with pytest.raises(GameError) as refused:
        entered(state, (6, 5, 4, 4, 4), hold={0, 1})
    assert refused.value.code == "held_changed"
    again = entered(state, (6, 6, 6, 4, 4), hold={0, 1})
    assert (again.dice, again.held, again.rolls) == ((6, 6, 6, 4, 4), frozenset({0, 1}), 2)


def test_holds_on_the_first_entry_of_a_turn_are_refused_as_on_a_first_roll() -> None:
    with pytest.raises(GameError) as refused:
        entered(new_game("yacht", 1), (1, 1, 1, 1, 1), hold={0})
    assert refused.value.code == "bad_hold"


def test_an_entry_without_holds_keeps_the_dice_held_now() -> None:
    state = entered(new_game("yacht", 1), (4, 4, 1, 2, 3))
    state = apply(state, 0, rules.Hold(frozenset({0, 1})), NO_DICE)
    with pytest.raises(GameError):
        apply(state, 0, Enter((5, 4, 1, 1, 1), None), NO_DICE)
    state = apply(state, 0, Enter((4, 4, 4, 1, 4), None), NO_DICE)
    assert state.held == frozenset({0, 1})


def test_classic13_entered_dice_earn_the_yacht_then_the_extra_bonus_and_the_forced_joker() -> None:
    state = entered(new_game("classic13", 1), (5, 5, 5, 5, 5))
    state = apply(state, 0, Score("yacht"), NO_DICE)
    state = entered(state, (5, 5, 5, 5, 5))
    # The joker: fives is open, so the five-alike must go there.
    assert state.allowed_boxes() == ("fives",)
    with pytest.raises(GameError) as refused:
        apply(state, 0, Score("full_house"), NO_DICE)
    assert refused.value.code == "joker_required"
    state = apply(state, 0, Score("fives"), NO_DICE)
    state = entered(state, (5, 5, 5, 5, 5))
    # Fives filled: any open lower box, full house at its joker value.
    assert state.preview()["full_house"] == 25 + 100
    state = apply(state, 0, Score("full_house"), NO_DICE)
    card = state.cards[0]
    assert dict(card.boxes) == {"yacht": 50, "fives": 25, "full_house": 25}
    assert totals(state.ruleset, card).total == 50 + 25 + 25 + 200


@settings(max_examples=60, derandomize=True, deadline=None)
@given(first=faces, second=faces, keep=st.sets(st.integers(0, 4)))
def test_an_entry_scores_exactly_as_a_roll_that_came_up_with_the_same_faces(
    first: tuple[int, ...], second: tuple[int, ...], keep: set[int]
) -> None:
    second = tuple(first[i] if i in keep else second[i] for i in range(5))
    for ruleset in rules.RULESETS:
        by_hand = entered(entered(new_game(ruleset, 2), first), second, hold=keep)
        rolled = apply(new_game(ruleset, 2), 0, Roll(), ScriptedDice(first))
        free = [second[i] for i in range(5) if i not in keep]
        rolled = apply(rolled, 0, Roll(frozenset(keep)), ScriptedDice(free))
        assert by_hand == rolled
        for box in by_hand.allowed_boxes():
            assert apply(by_hand, 0, Score(box), NO_DICE) == apply(rolled, 0, Score(box), NO_DICE)


def _table(entered: bool, rolls: int = 0) -> Table:
    state = new_game("yacht", 2)
    for _ in range(rolls):
        state = apply(state, 0, Enter((2, 3, 4, 5, 6), None), NO_DICE)
    people = (Seat(person=True), Seat(person=True))
    return Table(
        status="playing", version=3, seat_count=2, seats=people, game=state, entered=entered
    )


def test_a_game_of_real_dice_offers_enter_in_place_of_roll_and_the_others_refuse_each() -> None:
    companion = _table(True)
    assert {"enter"} <= allowed_actions(companion, 0)
    assert "roll" not in allowed_actions(companion, 0)
    assert refusal(companion, 0, "roll") == "dice_are_entered"
    assert refusal(_table(False), 0, "enter") == "dice_are_rolled"
    assert refusal(_table(True, rolls=3), 0, "enter") == "no_rolls_left"
    assert refusal(companion, 1, "enter") == "not_your_turn"


def test_no_bot_may_join_or_stand_in_at_a_table_of_real_dice() -> None:
    lobby = Table(status="lobby", version=2, seat_count=3, seats=(Seat(person=True),), entered=True)
    assert refusal(lobby, 0, "add_bot") == "dice_are_entered"
    idle = replace(_table(True), absent=True)
    assert refusal(idle, 1, "hand_to_bot") == "dice_are_entered"
