"""Who may take which action now: the pure checks every layer reads."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from games import rules
from games.rules import ScriptedDice, Seat, Table, allowed_actions, refusal

PEOPLE = (Seat(person=True), Seat(person=True))
# Talking at the table, a player's presence and the host's pace for the bots
# are allowed apart from the game's own actions (see their own tests below):
# the tests of play leave them out.
TALK = {"chat", "spectator_chat", "bot_pace", "presence"}


def lobby(*seats: Seat, seat_count: int = 3) -> Table:
    return Table(status="lobby", version=4, seat_count=seat_count, seats=seats or PEOPLE)


def playing(rolls: int = 0, current: int = 0, **changes: Any) -> Table:
    state = rules.new_game("yacht", 2)
    state = replace(state, current=current)
    for _ in range(rolls):
        state = rules.apply(state, current, rules.Roll(), ScriptedDice([2, 3, 4, 5, 6]))
    table = Table(status="playing", version=9, seat_count=2, seats=PEOPLE, game=state)
    return replace(table, **changes)


def test_in_the_lobby_the_host_may_start_and_add_bots_and_the_others_only_sync() -> None:
    table = lobby()
    assert allowed_actions(table, 0) - TALK == {"start", "add_bot", "sync"}
    assert allowed_actions(table, 1) - TALK == {"sync"}
    assert allowed_actions(table, None) - TALK == {"sync"}


def test_the_host_may_remove_a_bot_only_when_one_is_seated_and_add_one_only_to_a_free_seat() -> (
    None
):
    full = lobby(Seat(person=True), Seat(person=False, bot="solid"), seat_count=2)
    assert allowed_actions(full, 0) - TALK == {"start", "remove_bot", "sync"}
    assert refusal(full, 0, "add_bot") == "game_full"
    assert refusal(lobby(), 0, "remove_bot") == "not_a_bot"


def test_a_game_watched_by_bots_alone_has_no_host() -> None:
    bots = lobby(Seat(person=False, bot="perfect"), Seat(person=False, bot="perfect"))
    assert refusal(bots, 0, "start") == "not_host"


def test_the_player_to_move_may_roll_then_also_hold_score_and_ask_for_a_hint() -> None:
    assert allowed_actions(playing(hints=True), 0) - TALK == {"roll", "sync"}
    assert allowed_actions(playing(rolls=1, hints=True), 0) - TALK == {
        "roll",
        "hold",
        "score",
        "hint",
        "coach",
        "sync",
    }
    assert allowed_actions(playing(rolls=3, hints=True), 0) - TALK == {
        "score",
        "hint",
        "coach",
        "sync",
    }
    assert allowed_actions(playing(rolls=1), 1) - TALK == {"sync"}


@pytest.mark.parametrize(
    ("table", "seat", "action", "version", "code"),
    [
        (lobby(), 0, "roll", 4, "not_started"),
        (playing(), None, "roll", 9, "not_seated"),
        (playing(), 1, "roll", 8, "stale_version"),
        (playing(), 1, "roll", 9, "not_your_turn"),
        (playing(rolls=3), 0, "roll", 9, "no_rolls_left"),
        (playing(), 0, "score", 9, "must_roll_first"),
        (playing(), 0, "hold", 9, "must_roll_first"),
        (playing(rolls=3), 0, "hold", 9, "no_rolls_left"),
        (playing(rolls=1), 1, "hold", 9, "not_your_turn"),
        (playing(rolls=1), None, "hold", 9, "not_seated"),
        (playing(), 0, "start", 9, "already_started"),
        (lobby(), 1, "start", 4, "not_host"),
        (lobby(), 0, "start", 3, "stale_version"),
        (playing(), 0, "rematch", None, "not_finished"),
        (playing(rolls=1), 0, "hint", None, "hints_off"),
        (playing(hints=True), 0, "hint", None, "must_roll_first"),
        (playing(), 0, "take_back", None, "not_absent"),
        (playing(), None, "take_back", None, "not_seated"),
    ],
)
def test_each_refusal_names_its_first_reason(
    table: Table, seat: int | None, action: rules.ActionName, version: int | None, code: str
) -> None:
    assert refusal(table, seat, action, version=version) == code
    with pytest.raises(rules.GameError, match=code):
        rules.require(table, seat, action, version=version)


def test_the_advisor_coaches_only_where_it_helps_no_one_against_another_person() -> None:
    alone = playing(rolls=1, seats=(Seat(person=True), Seat(person=False, bot="solid")))
    assert refusal(alone, 0, "coach") is None
    assert refusal(playing(rolls=1, seat_count=1, seats=(Seat(person=True),)), 0, "coach") is None
    # Another person at the table, hints off: coaching would be a hint they cannot ask for.
    assert refusal(playing(rolls=1), 0, "coach") == "hints_off"
    assert refusal(playing(rolls=1, hints=True), 0, "coach") is None
    # A duplicate game is a contest on the same dice: no coaching, hints or not.
    duplicate = replace(alone, hints=True, turns=(alone.game, None))
    assert refusal(duplicate, 0, "coach") == "hints_off"
    # Only the player to move, after a roll; never a spectator.
    assert refusal(replace(alone, game=playing().game), 0, "coach") == "must_roll_first"
    assert refusal(playing(rolls=1, hints=True), 1, "coach") == "not_your_turn"
    assert refusal(playing(rolls=1, hints=True), None, "coach") == "hints_off"
    assert not rules.coachable(playing(rolls=1, hints=True), None)


def test_a_spectator_hears_it_is_watching_before_it_hears_the_version_is_old() -> None:
    assert refusal(playing(), None, "score", version=1) == "not_seated"


def test_the_others_may_hand_an_idle_persons_turn_to_a_bot_and_the_person_may_take_it_back() -> (
    None
):
    assert refusal(playing(current=1), 0, "hand_to_bot") == "not_absent"
    idle = playing(current=1, absent=True)
    assert "hand_to_bot" in allowed_actions(idle, 0)
    assert refusal(idle, 1, "hand_to_bot") == "not_absent"
    assert refusal(idle, None, "hand_to_bot") == "not_seated"
    stood_in = replace(idle, seats=(Seat(person=True), Seat(person=True, bot="solid")))
    assert refusal(stood_in, 0, "hand_to_bot") == "not_absent"
    assert "take_back" in allowed_actions(stood_in, 1)
    # The person may also just play: acting takes the seat back.
    assert "roll" in allowed_actions(stood_in, 1)


def test_after_the_end_any_player_may_ask_for_a_rematch() -> None:
    table = replace(playing(), status="finished")
    assert allowed_actions(table, 1) - TALK == {"rematch", "sync"}
    assert allowed_actions(table, None) - TALK == {"sync"}


def test_every_action_has_a_check() -> None:
    assert set(rules.permissions.CHECKS) == set(rules.ACTION_NAMES)


@pytest.mark.parametrize("table", [lobby(), playing(rolls=1), playing(status="finished")])
def test_players_may_always_chat_spectators_while_the_host_lets_them_and_only_the_host_decides(
    table: Table,
) -> None:
    assert {"chat", "spectator_chat"} <= allowed_actions(table, 0)
    assert "chat" in allowed_actions(table, 1) and "spectator_chat" not in allowed_actions(table, 1)
    assert "chat" in allowed_actions(table, None)
    closed = replace(table, spectator_chat=False)
    assert refusal(closed, None, "chat") == "chat_closed"
    assert refusal(closed, 1, "chat") is None
    assert refusal(closed, None, "spectator_chat") == "not_host"


def test_only_the_host_sets_the_bots_pace_until_the_game_is_over() -> None:
    for table in (lobby(), playing()):
        assert refusal(table, 0, "bot_pace", version=table.version) is None
        assert refusal(table, 0, "bot_pace", version=table.version - 1) == "stale_version"
        assert refusal(table, 1, "bot_pace", version=table.version) == "not_host"
        assert refusal(table, None, "bot_pace", version=table.version) == "not_host"
    over = replace(playing(), status="finished")
    assert refusal(over, 0, "bot_pace", version=over.version) == "game_over"


@pytest.mark.parametrize(
    ("owned", "to_move", "acting"),
    [
        ((0, 1, 2), 1, 1),  # pass and play: the device acts for the person to move...
        ((0, 1, 2), 2, 2),
        ((0, 1), 2, 0),  # ...and for its first seat while a bot moves: never for the bot
        ((1, 3), 0, 1),
        ((0, 1), None, 0),  # the lobby, the end
        ((2,), 0, 2),  # one seat: always that one, whoever is to move
        ((), 0, None),  # a spectator
    ],
)
def test_a_session_acts_for_the_seat_to_move_among_its_own_else_for_its_first(
    owned: tuple[int, ...], to_move: int | None, acting: int | None
) -> None:
    assert rules.seat_acting(owned, to_move) == acting


def test_a_device_holding_every_persons_seat_may_play_only_the_turn_to_move() -> None:
    table = playing(rolls=1, current=1)
    acting = rules.seat_acting((0, 1), table.game.current if table.game else None)
    assert acting == 1
    assert {"roll", "hold", "score"} <= allowed_actions(table, acting)
    # Its other seat, the one not to move, is refused as any seat out of turn.
    assert refusal(table, 0, "roll") == "not_your_turn"
