"""The turn clock: its deadline is stored with the game, and when it passes
the stand-in bot takes the turn. Any number of attempts to act on one
deadline change the game once; an action racing the deadline and the
expiry itself are never both applied."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Game, Move, Player
from games.play import services, turnclock
from games.present.rendering import table_message
from games.rules import GameError, Roll, Score
from games.runtime import runtime
from games.store.selectors import clock_ran_out, game_players, game_snapshot, game_state
from tests import factories
from tests.clocks import ThreadClock

pytestmark = pytest.mark.django_db(transaction=True)


def clocked_game(seconds: int = 30, seats: int = 2) -> Game:
    game = factories.lobby_game(seats)
    Game.objects.filter(pk=game.pk).update(turn_seconds=seconds)
    return services.game_start(token=game.token, guest_id="ana")


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def run_out(game: Game) -> Game:
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    return fresh(game)


def test_a_game_created_with_a_clock_keeps_it_and_an_unknown_clock_is_refused():
    game = services.game_create(guest_id="ana", name="Ana", turn_seconds=60)
    assert game.turn_seconds == 60 and game.turn_deadline is None
    with pytest.raises(GameError, match="unknown_clock"):
        services.game_create(guest_id="ana", name="Ana", turn_seconds=45)


def test_the_deadline_runs_from_the_start_of_a_turn_through_its_rolls_and_restarts_for_the_next():
    before = timezone.now()
    game = fresh(clocked_game(30))
    assert game.turn_deadline is not None
    assert timedelta(seconds=29) < game.turn_deadline - before <= timedelta(seconds=31)
    first = game.turn_deadline
    services.game_act(token=game.token, guest_id="ana", version=game.version, action=Roll())
    game = fresh(game)
    assert game.turn_deadline == first, "a roll does not give the turn more time"
    box = game_state(game, game_players(game)).allowed_boxes()[0]
    services.game_act(token=game.token, guest_id="ana", version=game.version, action=Score(box))
    game = fresh(game)
    assert game.current_seat == 1 and game.turn_deadline is not None
    assert game.turn_deadline > first


def test_no_clock_means_no_deadline_and_a_bot_to_move_has_none():
    game = fresh(factories.started_game(2))
    assert game.turn_deadline is None
    with_bot = factories.lobby_game(2, bot_level="solid")
    Game.objects.filter(pk=with_bot.pk).update(turn_seconds=30)
    services.game_start(token=with_bot.token, guest_id="ana")
    game = fresh(with_bot)
    assert game.turn_deadline is not None
    services.game_act(token=game.token, guest_id="ana", version=game.version, action=Roll())
    game = fresh(game)
    box = game_state(game, game_players(game)).allowed_boxes()[0]
    services.game_act(token=game.token, guest_id="ana", version=game.version, action=Score(box))
    game = fresh(game)
    assert game.current_seat == 1 and game.turn_deadline is None


def test_a_rematch_keeps_the_clock():
    game = clocked_game(120, seats=1)
    _play_solitaire(game)
    new = fresh(services.game_rematch(token=game.token, guest_id="ana"))
    assert new.turn_seconds == 120 and new.turn_deadline is not None


def _play_solitaire(game: Game) -> None:
    while True:
        game = fresh(game)
        if game.status == Game.Status.FINISHED:
            return
        services.game_act(token=game.token, guest_id="ana", version=game.version, action=Roll())
        game = fresh(game)
        box = game_state(game, game_players(game)).allowed_boxes()[0]
        services.game_act(token=game.token, guest_id="ana", version=game.version, action=Score(box))


def test_a_passed_deadline_hands_the_turn_to_the_stand_in_bot_once_however_often_it_is_tried():
    game = run_out(clocked_game(30))
    version = game.version
    assert services.game_clock_expire(token=game.token, version=version) is True
    assert services.game_clock_expire(token=game.token, version=version) is False
    assert services.game_clock_expire(token=game.token) is False
    game = fresh(game)
    assert game.version == version + 1
    assert game.turn_deadline is None
    ana = Player.objects.get(game=game, order=0)
    assert ana.bot == services.STAND_IN_LEVEL and ana.guest_id == "ana"


def test_a_deadline_not_yet_passed_changes_nothing():
    game = clocked_game(30)
    assert services.game_clock_expire(token=game.token, version=game.version) is False
    now = fresh(game)
    assert clock_ran_out(now.status, now.turn_deadline) is False
    assert now.version == game.version


def test_an_action_after_the_deadline_is_refused_and_the_bot_takes_the_turn_instead(time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    game = clocked_game(30)
    # The clock runs out as time passes, for this process's remembered game
    # as for the stored one.
    time_machine.shift(timedelta(seconds=31))
    with pytest.raises(GameError, match="time_up"):
        services.game_act(token=game.token, guest_id="ana", version=game.version, action=Roll())
    after = fresh(game)
    assert after.version == game.version + 1
    assert not Move.objects.filter(game=game, kind=Move.Kind.ROLL).exists()
    assert Player.objects.get(game=game, order=0).bot == services.STAND_IN_LEVEL
    # Acting again, on the version it now shows, cannot take the turn back.
    with pytest.raises(GameError, match="time_up"):
        services.game_act(token=game.token, guest_id="ana", version=after.version, action=Roll())
    assert fresh(game).version == after.version and fresh(game).turn_deadline is None


def bot_plays_the_turn(game: Game) -> Game:
    """Every step of the bot to move, until a seat of a person is to move."""
    while True:
        game = fresh(game)
        seat = Player.objects.get(game=game, order=game.current_seat)
        if not seat.bot or game.status != Game.Status.PLAYING:
            return game
        services.game_bot_step(token=game.token, version=game.version)


SENT_AT_THE_DEADLINE = {
    "take_back": lambda game: services.game_take_back(token=game.token, guest_id="ana"),
    "roll": lambda game: services.game_roll(token=game.token, guest_id="ana", version=game.version),
    "hold": lambda game: services.game_hold(
        token=game.token, guest_id="ana", version=game.version, dice=[0]
    ),
    "score": lambda game: services.game_score(
        token=game.token, guest_id="ana", version=game.version, category="choice"
    ),
}


def test_nothing_sent_as_the_clock_runs_out_gives_the_turn_a_fresh_period(time_machine):
    """The stall once reproduced: a take back sent each time the clock ran
    out started a fresh full period, three expiries in 90 s and no move."""
    time_machine.move_to(datetime(2026, 12, 5, 18, 0, tzinfo=UTC), tick=False)
    game = fresh(clocked_game(30))
    deadline = game.turn_deadline
    assert deadline is not None
    services.game_roll(token=game.token, guest_id="ana", version=game.version)
    game = fresh(game)
    time_machine.move_to(deadline)
    assert services.game_clock_expire(token=game.token, version=game.version)
    ran_out = fresh(game)
    for _again in range(3):
        for name, send in SENT_AT_THE_DEADLINE.items():
            with pytest.raises(GameError) as refused:
                send(fresh(game))
            assert refused.value.code == "time_up", name
        services.game_chat(token=game.token, guest_id="ana", phrase="one_moment")
        time_machine.shift(timedelta(seconds=30))
        now = fresh(game)
        assert now.version == ran_out.version, "nothing Ana sent changed the game"
        assert now.turn_deadline is None, "and no fresh period began"
        assert services.game_clock_expire(token=game.token) is False
    # The stand-in bot plays the turn Ana ran out of, within the time that
    # passes between its steps, and the next turn is Bo's on a full period.
    game = bot_plays_the_turn(game)
    assert game.current_seat == 1
    assert game.turn_deadline == timezone.now() + timedelta(seconds=30)
    last_score = Move.objects.filter(game=game, kind=Move.Kind.SCORE).get()
    assert last_score.player is not None and last_score.player.order == 0


def test_a_move_made_just_before_the_clock_acted_is_told_time_up_not_stale_version(time_machine):
    time_machine.move_to(datetime(2026, 12, 5, 18, 0, tzinfo=UTC), tick=False)
    game = fresh(clocked_game(30))
    before_the_clock = game.version
    time_machine.shift(timedelta(seconds=31))
    assert services.game_clock_expire(token=game.token, version=before_the_clock)
    for move in (Roll(), Score("choice")):
        with pytest.raises(GameError) as refused:
            services.game_act(
                token=game.token, guest_id="ana", version=before_the_clock, action=move
            )
        assert refused.value.code == "time_up"
    # Bo, who was not to move, hears the game moved on.
    with pytest.raises(GameError, match="stale_version"):
        services.game_act(token=game.token, guest_id="bo", version=before_the_clock, action=Roll())


def test_a_seat_whose_clock_ran_out_plays_its_next_turn_itself_on_a_full_period(time_machine):
    time_machine.move_to(datetime(2026, 12, 5, 18, 0, tzinfo=UTC), tick=False)
    game = fresh(clocked_game(30))
    time_machine.shift(timedelta(seconds=31))
    assert services.game_clock_expire(token=game.token, version=game.version)
    game = bot_plays_the_turn(game)
    ana = Player.objects.get(game=game, order=0)
    assert ana.bot == "" and ana.guest_id == "ana", "the bot left Ana her seat"
    # Bo plays his turn; then Ana's turn is hers, on a full period again.
    services.game_roll(token=game.token, guest_id="bo", version=game.version)
    services.game_score(
        token=game.token, guest_id="bo", version=fresh(game).version, category="choice"
    )
    game = fresh(game)
    assert game.current_seat == 0
    assert game.turn_deadline == timezone.now() + timedelta(seconds=30)
    services.game_roll(token=game.token, guest_id="ana", version=game.version)
    assert Move.objects.filter(game=game, player__order=0, kind=Move.Kind.ROLL).exists()


def test_with_a_clock_the_others_cannot_hand_an_idle_seat_to_a_bot(time_machine, settings):
    time_machine.move_to(datetime(2026, 12, 5, 18, 0, tzinfo=UTC), tick=False)
    game = clocked_game(120)
    time_machine.shift(timedelta(seconds=settings.YACHT_ABSENT_AFTER + 1))
    with pytest.raises(GameError, match="not_absent"):
        services.game_hand_to_bot(token=game.token, guest_id="bo", seat=0)


def _race(game: Game, clock: ThreadClock) -> tuple[object, object]:
    """The player's roll and a timer's expiry, both made against the same
    version and released at the same instant: the roll read on the clock a
    hair before the deadline, the timer as it fires, a hair after (two
    processes' clocks, a message and a timer crossing at the deadline)."""
    assert game.turn_deadline is not None
    deadline = game.turn_deadline.timestamp()
    gate = threading.Barrier(2)
    results: list[object] = [None, None]

    def player() -> None:
        try:
            clock.tell(deadline - 0.001)
            gate.wait()
            results[0] = services.game_act(
                token=game.token, guest_id="ana", version=game.version, action=Roll()
            )
        except Exception as error:
            results[0] = error
        finally:
            connection.close()

    def timer() -> None:
        try:
            clock.tell(deadline + turnclock.LATE_BY)
            gate.wait()
            results[1] = services.game_clock_expire(token=game.token, version=game.version)
        except Exception as error:
            results[1] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=player), threading.Thread(target=timer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results[0], results[1]


def test_a_clock_running_out_exactly_as_the_player_acts_applies_exactly_one_of_the_two(
    monkeypatch,
):
    clock = ThreadClock()
    monkeypatch.setattr(runtime, "clock", clock)
    outcomes = set()
    for _ in range(8):
        game = fresh(clocked_game(30))
        acted, expired = _race(game, clock)
        after = fresh(game)
        rolled = Move.objects.filter(game=game, kind=Move.Kind.ROLL).count()
        stood_in = Player.objects.get(game=game, order=0).bot == services.STAND_IN_LEVEL
        assert after.version == game.version + 1, "exactly one change was committed"
        assert rolled + stood_in == 1, (acted, expired)
        if rolled:
            assert isinstance(acted, Game) and expired is False
            outcomes.add("roll")
        else:
            assert isinstance(acted, GameError) and acted.code in ("time_up", "stale_version")
            assert expired is True
            outcomes.add("clock")
    assert outcomes


def test_the_clock_rule_reads_a_row_and_a_snapshot_alike():
    """One rule for the row's deadline (a datetime) and a snapshot's (seconds
    since the epoch): in play, a deadline set, and that deadline passed."""
    past, future = timezone.now() - timedelta(seconds=1), timezone.now() + timedelta(seconds=30)
    for deadline, due in ((past, True), (future, False)):
        assert clock_ran_out(Game.Status.PLAYING, deadline) is due
        assert clock_ran_out("playing", deadline.timestamp()) is due
        # Whole seconds, as a snapshot's deadline may come back from JSON.
        assert clock_ran_out("playing", int(deadline.timestamp()) + (0 if due else 1)) is due
        assert clock_ran_out(Game.Status.FINISHED, deadline) is False
        assert clock_ran_out("lobby", deadline.timestamp()) is False
    assert clock_ran_out(Game.Status.PLAYING, None) is False


def test_the_table_tells_a_seat_whose_clock_ran_out_that_the_bot_plays_this_turn(time_machine):
    time_machine.move_to(datetime(2026, 12, 5, 18, 0, tzinfo=UTC), tick=False)
    game = clocked_game(30)
    time_machine.shift(timedelta(seconds=31))
    services.game_clock_expire(token=game.token, version=game.version)
    snap = game_snapshot(fresh(game))
    mine = table_message(snap, 0, "it")["html"]
    assert "Il prossimo turno lo giochi tu." in mine
    assert 'data-action="roll"' not in mine and 'data-action="take_back"' not in mine
    assert "Il prossimo turno" not in table_message(snap, 1, "it")["html"]
