import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import rules
from games.models import Game, Move, Player
from games.play import services
from games.rules import GameError, Roll, Score
from games.store import advice as advice_module
from games.store.selectors import game_players, game_state

pytestmark = pytest.mark.django_db


def human_turn(game: Game, guest: str, rng: random.Random) -> Game:
    game.refresh_from_db()
    game = services.game_act(
        token=game.token, guest_id=guest, version=game.version, action=Roll(), rng=rng
    )
    state = game_state(game, game_players(game))
    return services.game_act(
        token=game.token,
        guest_id=guest,
        version=game.version,
        action=Score(state.allowed_boxes()[-1]),
        rng=rng,
    )


def bots_until_human(game: Game) -> Game:
    """Step the bots (as the scheduler would) until a person is to move or the game ends."""
    game.refresh_from_db()
    steps = 0
    while game.status == Game.Status.PLAYING and game_players(game)[game.current_seat].bot:
        game = services.game_bot_step(token=game.token, version=game.version)
        steps += 1
        assert steps < 100, "a bot's turn never ended"
    return game


@pytest.mark.parametrize("level", ["beginner", "solid", "perfect"])
def test_a_person_plays_a_whole_game_against_bots_of_each_level(rng, level):
    game = services.game_create(guest_id="ana", name="Ana", seat_count=3, bot_level=level)
    players = game_players(game)
    assert (players[0].name, players[0].bot, bool(players[0].guest_id)) == ("Ana", "", True)
    assert all(p.bot == level and not p.guest_id for p in players[1:])
    game = services.game_start(token=game.token, guest_id="ana")
    while game.status == Game.Status.PLAYING:
        game = human_turn(game, "ana", rng)
        game = bots_until_human(game)
    assert game.status == Game.Status.FINISHED
    scores = Move.objects.filter(game=game, kind="score").values_list("player__order", flat=True)
    assert sorted(scores) == sorted([0, 1, 2] * 12)


def test_a_bot_step_for_an_old_version_changes_nothing():
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, bot_level="solid")
    game = services.game_start(token=game.token, guest_id="ana")
    with pytest.raises(GameError, match="not_your_turn"):
        services.game_bot_step(token=game.token, version=game.version)
    human_turn(game, "ana", random.Random(1))
    game.refresh_from_db()
    with pytest.raises(GameError, match="stale_version"):
        services.game_bot_step(token=game.token, version=game.version - 1)
    assert Move.objects.filter(game=game, player__order=1).count() == 0


def test_the_host_adds_and_removes_bots_in_the_lobby_and_seats_close_up():
    game = services.game_create(guest_id="ana", name="Ana", seat_count=4)
    services.game_add_bot(token=game.token, guest_id="ana", level="perfect")
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    services.game_add_bot(token=game.token, guest_id="ana", level="beginner")
    with pytest.raises(GameError, match="game_full"):
        services.game_add_bot(token=game.token, guest_id="ana", level="solid")
    with pytest.raises(GameError, match="not_host"):
        services.game_remove_bot(token=game.token, guest_id="bo", seat=1)
    with pytest.raises(GameError, match="not_a_bot"):
        services.game_remove_bot(token=game.token, guest_id="ana", seat=2)
    with pytest.raises(GameError, match="unknown_bot"):
        services.game_add_bot(token=game.token, guest_id="ana", level="genius")
    services.game_remove_bot(token=game.token, guest_id="ana", seat=1)
    assert [(p.order, p.name, p.bot) for p in game_players(game)] == [
        (0, "Ana", ""),
        (1, "Bo", ""),
        (2, game_players(game)[2].name, "beginner"),
    ]
    services.game_start(token=game.token, guest_id="ana")
    with pytest.raises(GameError, match="already_started"):
        services.game_add_bot(token=game.token, guest_id="ana", level="solid")


def test_an_absent_players_seat_can_be_handed_to_a_bot_only_after_the_grace_period(rng, settings):
    settings.YACHT_ABSENT_AFTER = 60
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    game = services.game_start(token=game.token, guest_id="ana")
    game = human_turn(game, "ana", rng)
    with pytest.raises(GameError, match="not_absent"):
        services.game_hand_to_bot(token=game.token, guest_id="ana", seat=1)
    Game.objects.filter(pk=game.pk).update(acted_at=timezone.now() - timedelta(seconds=61))
    with pytest.raises(GameError, match="not_seated"):
        services.game_hand_to_bot(token=game.token, guest_id="stranger", seat=1)
    with pytest.raises(GameError, match="not_absent"):
        services.game_hand_to_bot(token=game.token, guest_id="ana", seat=0)
    game = services.game_hand_to_bot(token=game.token, guest_id="ana", seat=1)
    bo = Player.objects.get(game=game, guest_id="bo")
    assert bo.bot == services.STAND_IN_LEVEL
    game = bots_until_human(game)
    assert Move.objects.filter(player=bo, kind="score").count() == 1
    assert game.current_seat == 0
    # Bo comes back and takes the seat back; then it is Bo who plays it.
    services.game_take_back(token=game.token, guest_id="bo")
    bo.refresh_from_db()
    assert bo.bot == ""
    with pytest.raises(GameError, match="not_absent"):
        services.game_take_back(token=game.token, guest_id="bo")


def test_a_rematch_whose_first_player_never_rolls_can_be_handed_to_a_bot(
    rng, settings, time_machine
):
    settings.YACHT_ABSENT_AFTER = 60
    time_machine.move_to(timezone.now(), tick=False)
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    game = services.game_start(token=game.token, guest_id="ana")
    while game.status == Game.Status.PLAYING:
        game = human_turn(game, ("ana", "bo")[game.current_seat], rng)
    new = services.game_rematch(token=game.token, guest_id="ana")
    # Bo opens the rematch, and has just been sent to it: not absent yet.
    assert game_players(new)[0].guest_id == "bo"
    with pytest.raises(GameError, match="not_absent"):
        services.game_hand_to_bot(token=new.token, guest_id="ana", seat=0)
    # A minute later Bo still has not rolled: Ana may let a bot play for Bo.
    time_machine.shift(timedelta(seconds=61))
    new = services.game_hand_to_bot(token=new.token, guest_id="ana", seat=0)
    assert Player.objects.get(game=new, guest_id="bo").bot == services.STAND_IN_LEVEL


def test_acting_on_a_seat_a_bot_keeps_takes_it_back(rng, settings):
    settings.YACHT_ABSENT_AFTER = 0
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    game = services.game_start(token=game.token, guest_id="ana")
    game = human_turn(game, "ana", rng)
    services.game_hand_to_bot(token=game.token, guest_id="ana", seat=1)
    game.refresh_from_db()
    services.game_act(token=game.token, guest_id="bo", version=game.version, action=Roll(), rng=rng)
    assert Player.objects.get(game=game, guest_id="bo").bot == ""


def test_hints_are_given_only_when_the_host_allowed_them_and_only_to_the_player_to_move(rng):
    off = services.game_create(guest_id="ana", name="Ana", seat_count=1)
    off = services.game_start(token=off.token, guest_id="ana")
    with pytest.raises(GameError, match="hints_off"):
        advice_module.game_hint(token=off.token, guest_id="ana")
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, hints=True)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    game = services.game_start(token=game.token, guest_id="ana")
    with pytest.raises(GameError, match="must_roll_first"):
        advice_module.game_hint(token=game.token, guest_id="ana")
    game = services.game_act(
        token=game.token, guest_id="ana", version=game.version, action=Roll(), rng=rng
    )
    with pytest.raises(GameError, match="not_your_turn"):
        advice_module.game_hint(token=game.token, guest_id="bo")
    advice = advice_module.game_hint(token=game.token, guest_id="ana")
    state = game_state(game, game_players(game))
    assert {row["category"] for row in advice["boxes"]} == set(state.allowed_boxes())
    assert {row["category"]: row["points"] for row in advice["boxes"]} == state.preview()
    best = max([b["value"] for b in advice["boxes"]] + [h["value"] for h in advice["holds"]])
    assert advice["best"] == pytest.approx(best)
    assert min(row["loss"] for row in advice["boxes"] + advice["holds"]) == pytest.approx(0)
    assert all(row["loss"] >= -1e-9 for row in advice["boxes"] + advice["holds"])
    assert 0 < len(advice["holds"]) <= advice_module.HINT_HOLDS
    # The advisor's best choice is what the perfect bot would do.
    from games.solver import best_action, get_table

    action = best_action(get_table("yacht"), state)
    if isinstance(action, Score):
        assert advice["boxes"][0]["category"] == action.category
        assert advice["boxes"][0]["loss"] == pytest.approx(0)
    else:
        assert advice["holds"][0]["positions"] == sorted(action.hold or ())


def test_a_rematch_keeps_the_bots_and_the_first_roll_moves_one_seat_on(rng):
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, bot_level="beginner")
    game = services.game_start(token=game.token, guest_id="ana")
    while game.status == Game.Status.PLAYING:
        game = human_turn(game, "ana", rng)
        game = bots_until_human(game)
    new = services.game_rematch(token=game.token, guest_id="ana")
    # Ana opened the first game; the bot opens the rematch.
    assert [(p.name, p.bot) for p in game_players(new)] == [
        (p.name, p.bot) for p in reversed(game_players(game))
    ]
    assert new.current_seat == 0
    assert rules.get_ruleset(new.ruleset).key == "yacht"


def test_a_game_of_only_bots_starts_at_once_and_plays_itself_to_the_end():
    game = services.game_create(
        guest_id="ana", name="Ana", seat_count=2, bot_level="perfect", watch=True
    )
    assert game.status == Game.Status.PLAYING
    assert [p.guest_id for p in game_players(game)] == ["", ""]
    game = bots_until_human(game)
    assert game.status == Game.Status.FINISHED
    with pytest.raises(GameError, match="unknown_bot"):
        services.game_create(guest_id="ana", name="Ana", seat_count=2, watch=True)


def test_an_empty_guest_id_never_stands_for_a_bots_seat():
    game = services.game_create(guest_id="ana", name="Ana", seat_count=3, bot_level="solid")
    with pytest.raises(GameError, match="no_guest"):
        services.game_join(token=game.token, guest_id="", name="Nobody")
    with pytest.raises(GameError, match="no_guest"):
        services.game_create(guest_id="", name="Nobody")
    game = services.game_start(token=game.token, guest_id="ana")
    with pytest.raises(GameError, match="not_seated"):
        services.game_take_back(token=game.token, guest_id="")


@pytest.mark.django_db(transaction=True)
def test_a_bot_step_loads_its_strategy_table_before_it_locks_the_game(monkeypatch):
    from django.db import connection

    from games.solver import bots, get_table

    inside: list[bool] = []
    real = get_table

    def watched(key, *args, **kwargs):
        inside.append(connection.in_atomic_block)
        return real(key, *args, **kwargs)

    monkeypatch.setattr(bots, "get_table", watched)
    game = services.game_create(
        guest_id="ana", name="Ana", seat_count=2, bot_level="perfect", watch=True
    )
    services.game_bot_step(token=game.token, version=game.version)
    # Loaded (or built, the first time) outside the transaction; the step
    # itself then finds it in memory.
    assert inside[0] is False
