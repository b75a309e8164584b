"""The turn clock in a duplicate game runs per round: when it runs out, bots
play the round for everyone who had not played it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game, Move, Player
from games.play import services
from games.present.rendering import table_message
from games.rules import GameError, Roll, Score
from games.store.selectors import game_snapshot, last_action

pytestmark = pytest.mark.django_db(transaction=True)


def clocked_duplicate(seconds: int = 30) -> Game:
    game = services.game_create(
        guest_id="ana", name="Ana", seat_count=3, duplicate=True, turn_seconds=seconds
    )
    for guest in ("bo", "cy"):
        services.game_join(token=game.token, guest_id=guest, name=guest.title())
    return services.game_start(token=game.token, guest_id="ana")


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def act(game: Game, guest: str, action: Roll | Score) -> Game:
    game = fresh(game)
    return services.game_act(token=game.token, guest_id=guest, version=game.version, action=action)


def test_the_rounds_deadline_holds_through_the_round_and_restarts_with_the_next():
    before = timezone.now()
    game = fresh(clocked_duplicate())
    first = game.turn_deadline
    assert first is not None and timedelta(seconds=29) < first - before <= timedelta(seconds=31)
    for guest in ("ana", "bo"):
        game = act(game, guest, Roll())
        game = act(game, guest, Score("choice"))
    assert fresh(game).turn_deadline == first, "one seat's moves give the round no more time"
    game = act(game, "cy", Roll())
    game = act(game, "cy", Score("choice"))
    game = fresh(game)
    assert game.turn_deadline is not None and game.turn_deadline > first
    html = table_message(game_snapshot(game), 0, "en")["html"]
    assert "Time left in this round" in html


def test_when_the_round_runs_out_bots_play_it_for_those_who_had_not():
    game = clocked_duplicate()
    game = act(game, "ana", Roll())
    game = act(game, "ana", Score("choice"))
    game = act(game, "bo", Roll())
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    game = fresh(game)
    assert services.game_clock_expire(token=game.token, version=game.version)
    assert not services.game_clock_expire(token=game.token, version=game.version)
    bots = dict(Player.objects.filter(game=game).values_list("guest_id", "bot"))
    assert bots == {"ana": "", "bo": services.STAND_IN_LEVEL, "cy": services.STAND_IN_LEVEL}
    game = fresh(game)
    assert game.turn_deadline is None, "nobody left to wait for"
    snap = game_snapshot(game)
    said = table_message({**snap, "last": last_action("clock")}, 0, "en")["announce"]
    assert said.startswith("Time is up for this round")
    while snap["duplicate"] is not None and snap["duplicate"]["round"] == 1:
        services.game_bot_step(token=game.token, version=fresh(game).version)
        snap = game_snapshot(fresh(game))
    # The bots left the seats they played the round for: Bo plays the next
    # round himself, on the round's clock.
    assert Player.objects.get(game=game, guest_id="bo").bot == ""
    assert fresh(game).turn_deadline is not None
    game = act(game, "bo", Roll())
    assert Move.objects.filter(game=game, player__guest_id="bo", kind=Move.Kind.ROLL).exists()


def test_a_move_after_the_rounds_deadline_is_refused_and_the_bot_plays_instead():
    game = fresh(clocked_duplicate())
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    with pytest.raises(GameError) as refused:
        services.game_act(token=game.token, guest_id="bo", version=game.version, action=Roll())
    assert refused.value.code == "time_up"
    assert set(Player.objects.filter(game=game).values_list("bot", flat=True)) == {
        services.STAND_IN_LEVEL
    }


def test_once_the_round_ran_out_nothing_its_seats_send_buys_the_round_more_time():
    game = fresh(clocked_duplicate())
    before_the_clock = game.version
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.game_clock_expire(token=game.token, version=before_the_clock)
    for guest in ("ana", "bo"):
        with pytest.raises(GameError, match="time_up"):
            services.game_take_back(token=game.token, guest_id=guest)
        for version in (before_the_clock, fresh(game).version):
            with pytest.raises(GameError, match="time_up"):
                services.game_act(token=game.token, guest_id=guest, version=version, action=Roll())
    game = fresh(game)
    assert game.version == before_the_clock + 1 and game.turn_deadline is None
