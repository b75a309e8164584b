"""A companion game: real dice at a table, the faces entered by the players,
scored and coached by the server as if it had rolled them."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, Move
from games.play import services
from games.rules import GameError, Score
from games.store import records
from games.store.advice import game_hint
from games.store.selectors import game_players, game_snapshot, game_state

pytestmark = pytest.mark.django_db


def companion(seats: int = 1, **settings: Any) -> Game:
    game = services.game_create(
        guest_id="ana", name="Ana", seat_count=seats, dice_entered=True, **settings
    )
    if seats > 1:
        services.game_join(token=game.token, guest_id="bo", name="Bo")
    return services.game_start(token=game.token, guest_id="ana")


def enter(game: Game, dice: list[int], hold: list[int] | None = None, guest: str = "ana") -> Game:
    game.refresh_from_db()
    return services.game_enter(
        token=game.token, guest_id=guest, version=game.version, dice=dice, hold=hold
    )


def score(game: Game, box: str, guest: str = "ana") -> Game:
    game.refresh_from_db()
    return services.game_score(token=game.token, guest_id=guest, version=game.version, category=box)


def test_a_companion_game_has_hints_on_and_no_seed_to_commit_to() -> None:
    game = companion()
    assert game.dice_entered and game.hints
    assert (game.server_seed, game.seed_commitment) == ("", "")
    snap = game_snapshot(game)
    assert snap["dice_entered"] is True
    assert snap["commitment"] == ""
    # Once over there is still no seed to reveal: null, as for a game under way.
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    game.refresh_from_db()
    assert game_snapshot(game)["seed"] is None


def test_entered_dice_become_the_table_dice_and_are_logged_as_that_roll() -> None:
    game = enter(companion(), [2, 2, 5, 5, 5])
    assert (game.dice, game.rolls_used) == ([2, 2, 5, 5, 5], 1)
    logged = Move.objects.get(game=game, version=game.version)
    assert (logged.kind, logged.dice, logged.held) == (Move.Kind.ROLL, [2, 2, 5, 5, 5], [])
    game = enter(game, [2, 2, 5, 5, 2], hold=[0, 1, 2, 3])
    assert game.dice == [2, 2, 5, 5, 2] and game.held == [0, 1, 2, 3]


def test_a_refused_entry_changes_nothing_and_says_why() -> None:
    game = enter(companion(), [6, 6, 1, 2, 3])
    before = (game.version, game.dice)
    with pytest.raises(GameError) as refused:
        enter(game, [5, 6, 1, 2, 3], hold=[0, 1])
    assert refused.value.code == "held_changed"
    with pytest.raises(GameError) as faces:
        enter(game, [6, 6, 1, 2, 9], hold=[0, 1])
    assert faces.value.code == "bad_faces"
    game.refresh_from_db()
    assert (game.version, game.dice) == before


def test_the_server_rolls_nothing_in_a_companion_game_and_nobody_enters_dice_in_another() -> None:
    game = companion()
    with pytest.raises(GameError) as refused:
        services.game_roll(token=game.token, guest_id="ana", version=game.version)
    assert refused.value.code == "dice_are_entered"
    normal = services.game_create(guest_id="bo", name="Bo", seat_count=1)
    normal = services.game_start(token=normal.token, guest_id="bo")
    with pytest.raises(GameError) as entering:
        enter(normal, [1, 2, 3, 4, 5], guest="bo")
    assert entering.value.code == "dice_are_rolled"


def test_only_the_player_to_move_may_enter_dice() -> None:
    game = companion(seats=2)
    with pytest.raises(GameError) as refused:
        enter(game, [1, 2, 3, 4, 5], guest="bo")
    assert refused.value.code == "not_your_turn"


@pytest.mark.parametrize(
    "settings",
    [{"bot_level": "solid"}, {"turn_seconds": 30}, {"duplicate": True}],
    ids=["bots", "clock", "duplicate"],
)
def test_what_needs_server_dice_cannot_be_combined_with_real_dice(settings: dict) -> None:
    with pytest.raises(GameError) as refused:
        services.game_create(
            guest_id="ana", name="Ana", seat_count=2, dice_entered=True, **settings
        )
    assert refused.value.code == "companion_alone"
    assert not Game.objects.exists()


def test_pass_and_play_with_real_dice_passes_the_device_and_refuses_bots() -> None:
    game = services.game_create_shared(guest_id="dev", names=["Ana", "Ben"], dice_entered=True)
    assert game.dice_entered and game.status == Game.Status.PLAYING
    game = enter(game, [1, 1, 1, 2, 2], guest="dev")
    game = score(game, "full_house", guest="dev")
    assert game.current_seat == 1
    with pytest.raises(GameError) as refused:
        services.game_create_shared(
            guest_id="dev", names=["Ana", "Ben"], bots=1, bot_level="solid", dice_entered=True
        )
    assert refused.value.code == "companion_alone"


def test_a_rematch_of_a_companion_game_is_one_too() -> None:
    game = companion()
    for box in game_state(game, game_players(game)).ruleset.category_keys:
        game = score(enter(game, [1, 2, 3, 4, 6]), box)
    assert game.status == Game.Status.FINISHED
    rematch = services.game_rematch(token=game.token, guest_id="ana")
    assert rematch.dice_entered and rematch.hints and not rematch.server_seed


def test_the_advisor_answers_for_the_entered_dice_and_the_rolls_left() -> None:
    from games.solver import evaluate_boxes, evaluate_keeps, get_table

    game = enter(companion(ruleset="yacht"), [6, 6, 6, 2, 1])
    hint = game_hint(token=game.token, guest_id="ana")
    assert hint["dice"] == [6, 6, 6, 2, 1]
    state = game_state(game, game_players(game))
    table = get_table("yacht")
    keeps = evaluate_keeps(table, state.cards[0], state.dice, 1)
    boxes = evaluate_boxes(table, state.cards[0], state.dice)
    assert hint["best"] == max([*boxes.values(), *(v for _hold, v in keeps)])
    assert {row["category"]: row["points"] for row in hint["boxes"]}["sixes"] == 18


def test_my_stats_leave_companion_games_out_and_say_this_browser_has_some() -> None:
    game = companion()
    assert not records.has_finished_entered_games("ana")
    for box in game_state(game, game_players(game)).ruleset.category_keys:
        game = score(enter(game, [5, 5, 5, 5, 5]), box)
    assert game.status == Game.Status.FINISHED
    assert records.guest_stats("ana") == []
    assert records.has_finished_entered_games("ana")
    assert [g.dice_entered for g in records.guest_games("ana")] == [True]


def test_an_entered_yacht_scores_as_a_rolled_one() -> None:
    game = enter(companion(ruleset="classic13"), [4, 4, 4, 4, 4])
    game = score(game, "yacht")
    game = services.game_act(
        token=game.token,
        guest_id="ana",
        version=enter(game, [4, 4, 4, 4, 4]).version,
        action=Score("fours"),
    )
    seat = game_snapshot(game)["seats"][0]
    assert seat["boxes"] == {"yacht": 50, "fours": 20}
    assert seat["extra_bonus"] == 100
