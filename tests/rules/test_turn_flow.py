"""Turns, errors, the end of the game, bonuses and Classic 13's forced joker."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

import pytest

from games.rules import (
    RULESETS,
    Action,
    GameError,
    Hold,
    Roll,
    Score,
    Scorecard,
    ScriptedDice,
    apply,
    get_ruleset,
    new_game,
    totals,
)
from games.rules.engine import GameState

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
NO_DICE = ScriptedDice([])


class CountingDice(ScriptedDice):
    """Scripted dice that also say how many dice were thrown."""

    def __init__(self, values: Iterable[int]) -> None:
        self.values = list(values)
        self.thrown = 0
        super().__init__(self.values)

    def randint(self, a: int, b: int) -> int:
        self.thrown += 1
        return super().randint(a, b)


def roll(state: GameState, *faces: int, hold: Iterable[int] = ()) -> GameState:
    dice = CountingDice(faces)
    after = apply(state, state.current, Roll(frozenset(hold)), dice)
    assert dice.thrown == len(faces), "the engine threw a different number of dice"
    return after


def turn(state: GameState, faces: Iterable[int], category: str | None = None) -> GameState:
    """The current seat throws ``faces`` once and scores them in ``category``
    (by default the first box it may use)."""
    rolled = roll(state, *faces)
    category = category or rolled.allowed_boxes()[0]
    return apply(rolled, state.current, Score(category), NO_DICE)


def error_of(state: GameState, seat: int, action: Roll | Score, dice=NO_DICE) -> str:
    with pytest.raises(GameError) as caught:
        apply(state, seat, action, dice)
    return caught.value.code


def solo(ruleset: str, boxes: Mapping[str, int], extra_bonus: int = 0) -> GameState:
    """A solitaire game whose card already holds ``boxes``."""
    return GameState(ruleset_key=ruleset, cards=(Scorecard(boxes, extra_bonus),))


def finish_in_order(state: GameState, faces: Iterable[int] = (1, 2, 3, 5, 6)) -> GameState:
    """Every seat fills its open boxes in the rule set's order with the same roll."""
    faces = tuple(faces)
    while not state.finished:
        state = turn(state, faces)
    return state


# --- a turn -----------------------------------------------------------------


def test_a_new_game_starts_with_seat_0_to_roll_and_nothing_to_score():
    state = new_game("yacht", 3)
    assert (state.current, state.rolls, state.dice, state.finished) == (0, 0, (), False)
    assert state.allowed_boxes() == ()
    assert state.preview() == {}
    assert all(card.boxes == {} and card.extra_bonus == 0 for card in state.cards)


@pytest.mark.parametrize("seats", [0, -1])
def test_a_game_needs_at_least_one_seat(seats):
    with pytest.raises(ValueError):
        new_game("yacht", seats)


def test_a_game_cannot_be_started_with_an_unknown_rule_set():
    with pytest.raises(ValueError):
        new_game("poker", 2)


def test_the_first_roll_throws_all_five_dice():
    state = roll(new_game("yacht", 1), 3, 1, 4, 1, 5)
    assert (state.dice, state.rolls, state.held) == ((3, 1, 4, 1, 5), 1, frozenset())


def test_held_dice_keep_their_faces_and_only_the_others_are_rerolled():
    state = roll(new_game("yacht", 1), 3, 1, 4, 1, 5)
    state = roll(state, 6, 6, 6, hold={0, 2})
    assert state.dice == (3, 6, 4, 6, 6)
    assert state.held == frozenset({0, 2})


def test_a_hold_between_rolls_is_kept_by_a_roll_that_names_none():
    state = roll(new_game("yacht", 1), 3, 1, 4, 1, 5)
    state = apply(state, 0, Hold(frozenset({1, 3})), NO_DICE)
    assert (state.dice, state.held, state.rolls) == ((3, 1, 4, 1, 5), frozenset({1, 3}), 1)
    state = apply(state, 0, Roll(None), ScriptedDice([6, 6, 6]))
    assert state.dice == (6, 1, 6, 1, 6) and state.held == frozenset({1, 3})


@pytest.mark.parametrize(
    ("rolls", "positions", "code"),
    [(0, {0}, "must_roll_first"), (3, {0}, "no_rolls_left"), (1, {5}, "bad_hold")],
)
def test_a_hold_is_refused_before_the_first_roll_after_the_last_or_off_the_dice(
    rolls, positions, code
):
    state = new_game("yacht", 1)
    for _ in range(rolls):
        state = roll(state, 1, 2, 3, 4, 5)
    with pytest.raises(GameError) as refused:
        apply(state, 0, Hold(frozenset(positions)), NO_DICE)
    assert refused.value.code == code


def test_holds_may_change_freely_between_rolls():
    state = roll(new_game("yacht", 1), 3, 1, 4, 1, 5)
    state = roll(state, 2, 2, hold={0, 2, 4})
    assert state.dice == (3, 2, 4, 2, 5)
    state = roll(state, 6, 6, 6, hold={1, 3})
    assert state.dice == (6, 2, 6, 2, 6)
    assert state.rolls == 3


def test_rerolling_all_five_dice_is_legal_on_a_later_roll():
    state = roll(new_game("yacht", 1), 1, 1, 1, 1, 1)
    state = roll(state, 2, 3, 4, 5, 6)
    assert state.dice == (2, 3, 4, 5, 6)


def test_holding_all_five_dice_keeps_them_and_uses_up_a_roll():
    state = roll(new_game("yacht", 1), 1, 2, 3, 4, 5)
    state = roll(state, hold=range(5))
    assert (state.dice, state.rolls) == ((1, 2, 3, 4, 5), 2)


def test_a_turn_has_at_most_three_rolls():
    state = roll(new_game("yacht", 1), 1, 1, 2, 2, 3)
    state = roll(roll(state, 4, hold={0, 1, 2, 3}), 5, hold={0, 1, 2, 3})
    assert state.rolls == 3
    assert error_of(state, 0, Roll(), ScriptedDice([6] * 5)) == "no_rolls_left"
    assert error_of(state, 0, Roll(frozenset({0, 1, 2, 3})), ScriptedDice([6])) == "no_rolls_left"


def test_after_the_third_roll_the_player_can_still_score():
    state = roll(new_game("yacht", 1), 1, 1, 2, 2, 3)
    state = roll(roll(state, 4, 4, 4, hold={0, 1}), 6, 6, hold={2, 3, 4})
    assert (state.dice, state.rolls) == ((6, 6, 4, 4, 4), 3)
    state = apply(state, 0, Score("sixes"), NO_DICE)
    assert state.cards[0].boxes == {"sixes": 12}


def test_the_player_may_stop_and_score_after_the_first_roll():
    state = turn(new_game("yacht", 1), (5, 5, 5, 2, 1), "fives")
    assert state.cards[0].boxes == {"fives": 15}


def test_dice_that_miss_the_requirement_score_0_and_still_fill_the_box():
    state = turn(new_game("yacht", 1), (1, 2, 3, 4, 6), "yacht")
    assert state.cards[0].boxes == {"yacht": 0}
    assert "yacht" not in roll(state, 2, 2, 2, 2, 2).allowed_boxes()


def test_scoring_ends_the_turn_and_clears_the_dice():
    state = turn(new_game("yacht", 2), (1, 2, 3, 4, 5), "little_straight")
    assert (state.current, state.rolls, state.dice, state.held) == (1, 0, (), frozenset())
    assert state.allowed_boxes() == ()


def test_a_state_is_immutable():
    state = roll(new_game("yacht", 1), 1, 2, 3, 4, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.rolls = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        state.cards[0].boxes["ones"] = 1  # type: ignore[index]


# --- error codes ------------------------------------------------------------


def test_another_seat_acting_out_of_turn_gets_not_your_turn():
    state = new_game("yacht", 3)
    assert error_of(state, 1, Roll(), ScriptedDice([1] * 5)) == "not_your_turn"
    state = roll(state, 1, 2, 3, 4, 5)
    assert error_of(state, 2, Score("choice")) == "not_your_turn"
    assert error_of(state, 3, Score("choice")) == "not_your_turn"
    state = apply(state, 0, Score("choice"), NO_DICE)
    assert error_of(state, 0, Roll(), ScriptedDice([1] * 5)) == "not_your_turn"


def test_scoring_before_the_first_roll_gets_must_roll_first():
    assert error_of(new_game("yacht", 1), 0, Score("choice")) == "must_roll_first"
    after_a_turn = turn(new_game("yacht", 1), (1, 2, 3, 4, 5), "choice")
    assert error_of(after_a_turn, 0, Score("ones")) == "must_roll_first"


@pytest.mark.parametrize("points_in_box", [(1, 1, 2, 3, 4), (2, 3, 4, 5, 6)])
def test_a_filled_box_gets_category_filled_whether_it_holds_points_or_0(points_in_box):
    state = turn(new_game("yacht", 1), points_in_box, "ones")
    state = roll(state, 1, 1, 1, 1, 1)
    assert error_of(state, 0, Score("ones")) == "category_filled"


def test_a_filled_box_stays_filled_for_the_rest_of_the_game():
    state = turn(new_game("yacht", 2), (6, 6, 6, 6, 6), "yacht")
    state = turn(state, (6, 6, 6, 6, 6), "yacht")
    for _ in range(6):
        state = turn(state, (1, 2, 3, 5, 6))
    assert state.current == 0
    state = roll(state, 6, 6, 6, 6, 6)
    assert error_of(state, state.current, Score("yacht")) == "category_filled"
    assert "yacht" not in state.allowed_boxes()


@pytest.mark.parametrize(
    ("ruleset", "category"),
    [("yacht", "one_pair"), ("yacht", "three_of_a_kind"), ("yatzy", "bogus"), ("classic13", "")],
)
def test_a_category_the_rule_set_lacks_gets_unknown_category(ruleset, category):
    state = roll(new_game(ruleset, 1), 1, 1, 2, 2, 3)
    assert error_of(state, 0, Score(category)) == "unknown_category"


@pytest.mark.parametrize("hold", [{0}, {0, 1, 2, 3, 4}])
def test_holding_dice_on_the_first_roll_gets_bad_hold(hold):
    assert error_of(new_game("yacht", 1), 0, Roll(frozenset(hold)), ScriptedDice([1] * 5)) == (
        "bad_hold"
    )


@pytest.mark.parametrize("hold", [{5}, {-1}, {0, 7}, {"0"}, {True}, {1.0}])
def test_holding_a_die_that_is_not_position_0_to_4_gets_bad_hold(hold):
    state = roll(new_game("yacht", 1), 1, 2, 3, 4, 5)
    assert error_of(state, 0, Roll(frozenset(hold)), ScriptedDice([1] * 5)) == "bad_hold"


def test_a_rejected_action_leaves_the_state_usable_and_unchanged():
    state = roll(new_game("yacht", 2), 1, 2, 3, 4, 5)
    before = (state.dice, state.rolls, state.current, dict(state.cards[0].boxes))
    refused: list[tuple[int, Action]] = [
        (1, Score("choice")),
        (0, Score("bogus")),
        (0, Roll(frozenset({9}))),
    ]
    for seat, action in refused:
        with pytest.raises(GameError):
            apply(state, seat, action, ScriptedDice([6] * 5))
    assert (state.dice, state.rolls, state.current, dict(state.cards[0].boxes)) == before
    assert apply(state, 0, Score("choice"), NO_DICE).cards[0].boxes == {"choice": 15}


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_any_action_after_the_last_score_gets_game_over(ruleset):
    state = finish_in_order(new_game(ruleset, 2))
    assert state.finished
    for seat in (0, 1):
        assert error_of(state, seat, Roll(), ScriptedDice([1] * 5)) == "game_over"
        assert error_of(state, seat, Score("choice")) == "game_over"


def test_scoring_a_five_alike_away_from_the_forced_joker_box_gets_joker_required():
    state = roll(solo("classic13", {"yacht": 50}), 4, 4, 4, 4, 4)
    for category in ("choice", "full_house", "ones", "sixes"):
        assert error_of(state, 0, Score(category)) == "joker_required"
    assert "fours" not in state.cards[0].boxes


# --- seats and the end of the game ------------------------------------------


def test_the_turn_passes_in_seat_order_and_wraps_round():
    state = new_game("yacht", 3)
    seen = []
    for _ in range(7):
        seen.append(state.current)
        state = roll(state, 1, 2, 3, 4, 6)
        assert state.current == seen[-1], "rolling never passes the turn"
        state = apply(state, state.current, Score(state.allowed_boxes()[0]), NO_DICE)
    assert seen == [0, 1, 2, 0, 1, 2, 0]


def test_each_seat_scores_on_its_own_card():
    state = turn(new_game("yacht", 2), (6, 6, 6, 6, 6), "yacht")
    state = turn(state, (1, 1, 1, 1, 1), "ones")
    assert [dict(c.boxes) for c in state.cards] == [{"yacht": 50}, {"ones": 5}]


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_the_game_ends_after_exactly_categories_times_seats_scores(ruleset, seats):
    n = len(get_ruleset(ruleset).categories)
    state = new_game(ruleset, seats)
    for scored in range(n * seats):
        assert not state.finished, f"finished after only {scored} scores"
        state = turn(state, (1, 2, 3, 5, 6))
    assert state.finished
    assert all(len(card.boxes) == n for card in state.cards)


def test_a_solitaire_game_is_played_to_the_end_and_its_player_wins():
    state = finish_in_order(new_game("yatzy", 1))
    assert state.finished and state.winners() == (0,)


def test_the_highest_total_wins_alone():
    state = new_game("yacht", 3)
    for faces in [(1, 1, 1, 1, 1), (6, 6, 6, 6, 6), (2, 2, 2, 2, 2)]:
        state = turn(state, faces, "choice")
    state = finish_in_order(state)
    assert state.winners() == (1,)


def test_equal_highest_totals_share_first_place():
    state = new_game("yacht", 3)
    for faces in [(6, 6, 6, 6, 6), (1, 2, 3, 4, 6), (2, 2, 2, 2, 2)]:
        state = turn(state, faces, "yacht")
    state = finish_in_order(state)
    ts = [totals(state.ruleset, c).total for c in state.cards]
    assert ts[0] == ts[2] > ts[1]
    assert state.winners() == (0, 2)


def test_a_game_where_everyone_ties_is_a_draw_among_all_seats():
    state = finish_in_order(new_game("classic13", 4))
    assert state.winners() == (0, 1, 2, 3)


# --- upper bonus ------------------------------------------------------------

UPPER_BONUS = {"yacht": 0, "yacht_sum": 0, "yacht_bonus": 35, "yatzy": 50, "classic13": 35}
THREE_OF_EACH = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}


@pytest.mark.parametrize(("ruleset", "bonus"), UPPER_BONUS.items())
def test_the_upper_bonus_is_earned_at_exactly_63(ruleset, bonus):
    card = Scorecard(THREE_OF_EACH)
    result = totals(get_ruleset(ruleset), card)
    assert (result.upper, result.upper_bonus, result.total) == (63, bonus, 63 + bonus)


@pytest.mark.parametrize("ruleset", list(UPPER_BONUS))
def test_the_upper_bonus_is_not_earned_at_62(ruleset):
    card = Scorecard({**THREE_OF_EACH, "ones": 2})
    result = totals(get_ruleset(ruleset), card)
    assert (result.upper, result.upper_bonus, result.total) == (62, 0, 62)


@pytest.mark.parametrize(("ruleset", "bonus"), UPPER_BONUS.items())
def test_the_upper_bonus_is_earned_above_63_and_only_once(ruleset, bonus):
    card = Scorecard({"ones": 5, "twos": 10, "threes": 15, "fours": 20, "fives": 25, "sixes": 30})
    assert totals(get_ruleset(ruleset), card).upper_bonus == bonus


def test_lower_boxes_do_not_count_towards_the_upper_bonus():
    card = Scorecard({**THREE_OF_EACH, "ones": 2, "choice": 30, "yacht": 50})
    result = totals(get_ruleset("yacht_bonus"), card)
    assert (result.upper, result.upper_bonus, result.total) == (62, 0, 142)


@pytest.mark.parametrize(("ruleset", "bonus"), UPPER_BONUS.items())
def test_a_game_played_to_63_in_the_upper_boxes_ends_with_the_bonus_in_the_total(ruleset, bonus):
    state = new_game(ruleset, 1)
    for face, key in enumerate(UPPER, 1):
        state = turn(state, (face, face, face, 1 if face != 1 else 2, 2 if face != 2 else 3), key)
    assert totals(state.ruleset, state.cards[0]).upper == 63
    state = finish_in_order(state, (1, 1, 2, 2, 4))
    card = state.cards[0]
    assert totals(state.ruleset, card).total == sum(card.boxes.values()) + bonus


@pytest.mark.parametrize("ruleset", list(UPPER_BONUS))
def test_a_game_played_to_62_in_the_upper_boxes_ends_without_a_bonus(ruleset):
    state = new_game(ruleset, 1)
    state = turn(state, (1, 1, 2, 3, 3), "ones")
    for face, key in enumerate(UPPER[1:], 2):
        state = turn(state, (face, face, face, 1, 1), key)
    assert totals(state.ruleset, state.cards[0]).upper == 62
    state = finish_in_order(state, (1, 1, 2, 2, 4))
    card = state.cards[0]
    assert totals(state.ruleset, card).total == sum(card.boxes.values())


# --- a second yacht outside Classic 13 --------------------------------------


@pytest.mark.parametrize("ruleset", ["yacht", "yacht_sum", "yacht_bonus", "yatzy"])
def test_a_further_five_alike_earns_no_extra_bonus_and_may_go_in_any_open_box(ruleset):
    state = turn(solo(ruleset, {}), (3, 3, 3, 3, 3), "yacht")
    state = roll(state, 3, 3, 3, 3, 3)
    open_boxes = tuple(k for k in get_ruleset(ruleset).category_keys if k != "yacht")
    assert state.allowed_boxes() == open_boxes
    state = apply(state, 0, Score("choice"), NO_DICE)
    card = state.cards[0]
    assert card.extra_bonus == 0
    assert dict(card.boxes) == {"yacht": 50, "choice": 15}
    assert totals(state.ruleset, card).total == 65


# --- Classic 13: extra yacht bonus ------------------------------------------


def test_classic13_a_yacht_box_of_50_makes_a_further_five_alike_worth_100_more():
    state = turn(solo("classic13", {}), (5, 5, 5, 5, 5), "yacht")
    assert state.cards[0].extra_bonus == 0
    state = turn(state, (5, 5, 5, 5, 5), "fives")
    card = state.cards[0]
    assert dict(card.boxes) == {"yacht": 50, "fives": 25}
    assert card.extra_bonus == 100
    assert totals(state.ruleset, card).total == 175


def test_classic13_every_further_five_alike_adds_another_100():
    state = turn(solo("classic13", {}), (2, 2, 2, 2, 2), "yacht")
    state = turn(state, (2, 2, 2, 2, 2), "twos")
    state = turn(state, (6, 6, 6, 6, 6), "sixes")
    state = turn(state, (6, 6, 6, 6, 6), "choice")
    card = state.cards[0]
    assert card.extra_bonus == 300
    assert totals(state.ruleset, card).total == 50 + 10 + 30 + 30 + 300


def test_classic13_a_yacht_box_of_0_earns_no_extra_bonus():
    state = turn(solo("classic13", {}), (1, 2, 3, 4, 6), "yacht")
    state = turn(state, (5, 5, 5, 5, 5), "fives")
    card = state.cards[0]
    assert dict(card.boxes) == {"yacht": 0, "fives": 25}
    assert card.extra_bonus == 0
    assert totals(state.ruleset, card).total == 25


def test_classic13_a_five_alike_before_the_yacht_box_is_filled_earns_no_extra_bonus():
    state = turn(solo("classic13", {}), (4, 4, 4, 4, 4), "fours")
    state = turn(state, (4, 4, 4, 4, 4), "yacht")
    card = state.cards[0]
    assert dict(card.boxes) == {"fours": 20, "yacht": 50}
    assert card.extra_bonus == 0


def test_classic13_a_roll_that_is_not_five_alike_earns_no_extra_bonus():
    state = turn(solo("classic13", {"yacht": 50}), (4, 4, 4, 4, 3), "fours")
    assert state.cards[0].extra_bonus == 0


def test_classic13_the_extra_bonus_is_shown_in_the_preview_of_every_allowed_box():
    state = roll(solo("classic13", {"yacht": 50, "threes": 9}), 3, 3, 3, 3, 3)
    assert state.preview() == {
        "three_of_a_kind": 115,
        "four_of_a_kind": 115,
        "full_house": 125,
        "little_straight": 130,
        "big_straight": 140,
        "choice": 115,
    }


# --- Classic 13: forced joker -----------------------------------------------


def test_classic13_without_a_filled_yacht_box_a_five_alike_is_free_and_no_joker():
    state = roll(solo("classic13", {}), 4, 4, 4, 4, 4)
    assert state.allowed_boxes() == get_ruleset("classic13").category_keys
    preview = state.preview()
    assert (preview["full_house"], preview["little_straight"], preview["big_straight"]) == (
        0,
        0,
        0,
    )
    assert (preview["fours"], preview["yacht"], preview["choice"]) == (20, 50, 20)
    state = apply(state, 0, Score("full_house"), NO_DICE)
    assert dict(state.cards[0].boxes) == {"full_house": 0}


@pytest.mark.parametrize("yacht_box", [50, 0])
@pytest.mark.parametrize("face", range(1, 7))
def test_classic13_joker_goes_to_its_own_upper_box_when_that_is_open(yacht_box, face):
    own = UPPER[face - 1]
    state = roll(solo("classic13", {"yacht": yacht_box}), *[face] * 5)
    assert state.allowed_boxes() == (own,)
    bonus = 100 if yacht_box == 50 else 0
    assert state.preview() == {own: 5 * face + bonus}
    for other in get_ruleset("classic13").category_keys:
        if other not in (own, "yacht"):
            assert error_of(state, 0, Score(other)) == "joker_required", other
    card = apply(state, 0, Score(own), NO_DICE).cards[0]
    assert (card.boxes[own], card.extra_bonus) == (5 * face, bonus)


LOWER_OPEN: tuple[str, ...] = ("three_of_a_kind", "four_of_a_kind", "full_house")
LOWER_OPEN += ("little_straight", "big_straight", "choice")


@pytest.mark.parametrize(
    ("category", "points"),
    [
        ("full_house", 25),
        ("little_straight", 30),
        ("big_straight", 40),
        ("three_of_a_kind", 30),
        ("four_of_a_kind", 30),
        ("choice", 30),
    ],
)
@pytest.mark.parametrize(("yacht_box", "bonus"), [(50, 100), (0, 0)])
def test_classic13_joker_with_its_upper_box_filled_goes_to_any_open_lower_box(
    yacht_box, bonus, category, points
):
    state = roll(solo("classic13", {"yacht": yacht_box, "sixes": 18}), 6, 6, 6, 6, 6)
    assert state.allowed_boxes() == LOWER_OPEN
    assert state.preview()[category] == points + bonus
    for upper in UPPER[:5]:
        assert error_of(state, 0, Score(upper)) == "joker_required"
    card = apply(state, 0, Score(category), NO_DICE).cards[0]
    assert (card.boxes[category], card.extra_bonus) == (points, bonus)


def test_classic13_joker_only_offers_the_lower_boxes_still_open():
    boxes = {"yacht": 0, "twos": 4, "full_house": 25, "choice": 20, "three_of_a_kind": 0}
    state = roll(solo("classic13", boxes), 2, 2, 2, 2, 2)
    assert state.allowed_boxes() == ("four_of_a_kind", "little_straight", "big_straight")
    assert state.preview() == {"four_of_a_kind": 10, "little_straight": 30, "big_straight": 40}


@pytest.mark.parametrize(("yacht_box", "bonus"), [(50, 100), (0, 0)])
def test_classic13_joker_with_every_lower_box_filled_scores_0_in_an_open_upper_box(
    yacht_box, bonus
):
    lower = dict.fromkeys(LOWER_OPEN, 0)
    state = roll(solo("classic13", {**lower, "yacht": yacht_box, "fives": 15}), 5, 5, 5, 5, 5)
    assert state.allowed_boxes() == ("ones", "twos", "threes", "fours", "sixes")
    assert state.preview() == dict.fromkeys(state.allowed_boxes(), bonus)
    card = apply(state, 0, Score("twos"), NO_DICE).cards[0]
    assert (card.boxes["twos"], card.extra_bonus) == (0, bonus)


def test_classic13_joker_applies_to_each_further_five_alike_in_turn():
    state = turn(solo("classic13", {}), (3, 3, 3, 3, 3), "yacht")
    state = turn(state, (3, 3, 3, 3, 3), "threes")
    state = roll(state, 3, 3, 3, 3, 3)
    assert state.allowed_boxes() == LOWER_OPEN
    state = apply(state, 0, Score("big_straight"), NO_DICE)
    card = state.cards[0]
    assert dict(card.boxes) == {"yacht": 50, "threes": 15, "big_straight": 40}
    assert card.extra_bonus == 200


def test_classic13_joker_is_judged_on_the_dice_of_the_last_roll():
    state = roll(solo("classic13", {"yacht": 50}), 4, 4, 4, 4, 1)
    assert "choice" in state.allowed_boxes()
    state = roll(state, 4, hold={0, 1, 2, 3})
    assert state.allowed_boxes() == ("fours",)
