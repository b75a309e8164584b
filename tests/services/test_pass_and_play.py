"""Pass and play: one browser holds every person's seat of a game and is
passed round the table; it acts only for the seat to move, and every other
guarantee of a game holds."""

from __future__ import annotations

import random

import pytest

from games.models import ChatMessage, Game, Move, Player
from games.play import services
from games.rules import GameError, Roll, Score
from games.store import records
from games.store.advice import game_hint
from games.store.selectors import game_players, game_state
from tests import factories

pytestmark = pytest.mark.django_db

DEVICE = "device"


def shared_game(*names: str, bots: int = 0, bot_level: str = "") -> Game:
    return services.game_create_shared(
        guest_id=DEVICE, names=names or ("Ana", "Ben", "Cai"), bots=bots, bot_level=bot_level
    )


def act(game: Game, action: Roll | Score, guest: str = DEVICE) -> Game:
    game.refresh_from_db()
    return services.game_act(
        token=game.token,
        guest_id=guest,
        version=game.version,
        action=action,
        rng=random.Random(7),
    )


def turn(game: Game) -> Game:
    """The device plays the turn to move: one roll, the first open box."""
    game = act(game, Roll())
    box = game_state(game, game_players(game)).allowed_boxes()[0]
    return act(game, Score(box))


def test_a_pass_and_play_game_starts_at_once_with_every_person_on_the_device_then_its_bots():
    game = shared_game("Ana", "Ben", bots=1, bot_level="beginner")
    seats = game_players(game)
    assert game.status == Game.Status.PLAYING
    assert [(p.name, p.guest_id, p.shared, p.bot) for p in seats] == [
        ("Ana", DEVICE, True, ""),
        ("Ben", DEVICE, True, ""),
        (seats[2].name, "", False, "beginner"),
    ]
    assert seats[2].name not in ("Ana", "Ben")


def test_the_device_plays_each_persons_turn_in_order_as_that_persons_seat():
    game = shared_game()
    for _ in range(3):
        game = turn(game)
    movers = list(
        Move.objects.filter(game=game, kind=Move.Kind.SCORE)
        .order_by("version")
        .values_list("player__name", flat=True)
    )
    assert movers == ["Ana", "Ben", "Cai"]
    game.refresh_from_db()
    assert game.current_seat == 0


def test_a_move_made_on_a_version_the_table_has_left_is_refused_from_the_device_too():
    game = shared_game()
    stale = game.version
    turn(game)
    with pytest.raises(GameError) as refused:
        services.game_act(token=game.token, guest_id=DEVICE, version=stale, action=Roll())
    assert refused.value.code == "stale_version"


def test_on_a_bots_turn_the_device_may_not_act_for_anyone():
    game = turn(shared_game("Ana", "Ben", bots=1, bot_level="beginner"))
    game = turn(game)
    assert game.current_seat == 2
    with pytest.raises(GameError) as refused:
        act(game, Roll())
    assert refused.value.code == "not_your_turn"


def test_another_browser_only_watches_a_pass_and_play_game():
    game = shared_game()
    with pytest.raises(GameError) as refused:
        act(game, Roll(), guest="stranger")
    assert refused.value.code == "not_seated"
    with pytest.raises(GameError) as joining:
        services.game_join(token=game.token, guest_id="stranger", name="Dee")
    assert joining.value.code == "already_started"


@pytest.mark.parametrize(
    ("names", "bots", "code"),
    [
        (("Ana",), 0, "bad_seat_count"),
        (("Ana",), 1, "bad_seat_count"),
        (("Ana", "Ben", "Cai", "Dee", "Eve"), 2, "bad_seat_count"),
        (("Ana", "ana"), 0, "name_taken"),
        (("Ana", " "), 0, "bad_name"),
    ],
)
def test_a_pass_and_play_game_needs_two_to_six_distinct_people_and_seats(names, bots, code):
    with pytest.raises(GameError) as refused:
        services.game_create_shared(guest_id=DEVICE, names=names, bots=bots, bot_level="solid")
    assert refused.value.code == code
    assert not Game.objects.exists()


def test_a_rematch_keeps_every_person_on_the_device_and_passes_the_first_roll_on():
    game = shared_game()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    new = services.game_rematch(token=game.token, guest_id=DEVICE)
    seats = game_players(new)
    assert [(p.name, p.guest_id, p.shared) for p in seats] == [
        ("Ben", DEVICE, True),
        ("Cai", DEVICE, True),
        ("Ana", DEVICE, True),
    ]
    assert new.status == Game.Status.PLAYING


def test_my_games_lists_a_pass_and_play_game_once_and_always_as_the_devices_turn():
    game = turn(shared_game())
    listed = records.guest_games(DEVICE)
    assert [g.token for g in listed] == [game.token]
    assert listed[0].your_turn
    assert listed[0].names == ["Ana", "Ben", "Cai"]


def test_my_stats_leave_out_a_pass_and_play_game_the_device_cannot_say_whose_it_was():
    shared = shared_game()
    own = factories.started_game(2, guests=(DEVICE, "bo"))
    Game.objects.filter(pk__in=[shared.pk, own.pk]).update(status=Game.Status.FINISHED)
    Player.objects.filter(game=own).update(lost_to_optimal=0.0)
    Player.objects.filter(game=shared).update(lost_to_optimal=0.0)
    stats = records.guest_stats(DEVICE)
    assert sum(s.games for s in stats) == 1


def test_a_move_settled_on_the_remembered_row_is_the_person_to_moves_too(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        game = turn(shared_game())
    plan = services.game_plan_remembered(
        token=game.token, guest_id=DEVICE, version=game.version, action=Roll()
    )
    assert plan is not None and plan.last["seat"] == 1


def test_the_advisor_answers_the_person_to_move_on_the_device():
    game = turn(services.game_create_shared(guest_id=DEVICE, names=("Ana", "Ben"), hints=True))
    game = act(game, Roll())
    advice = game_hint(token=game.token, guest_id=DEVICE)
    assert advice["boxes"]


def test_a_chat_line_from_the_device_carries_the_name_of_the_person_to_move():
    game = turn(shared_game())
    services.game_chat(token=game.token, guest_id=DEVICE, phrase="good_game")
    assert ChatMessage.objects.get(game=game).name == "Ben"
