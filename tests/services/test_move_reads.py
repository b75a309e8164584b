"""What a move reads: the game's row through the precompiled lock statement,
and its seats and cards from this process's last commit when the version
says they are still the game's."""

from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import F
from django.test import TestCase

from games.models import Game, Player
from games.play import services
from games.rules import GameError, Roll, Score
from games.runtime import runtime
from games.store import known
from games.store.known import committed_seats, lock_game
from games.store.selectors import game_players, game_state
from tests import factories

pytestmark = pytest.mark.django_db


def test_the_lock_statement_reads_the_game_the_orm_reads():
    game = factories.rolled_game(3, ruleset="classic13", hints=True)
    with transaction.atomic():
        locked = lock_game(game.token)
        assert lock_game("no-such-game") is None
    assert locked is not None
    read = Game.objects.get(token=game.token)
    for field in Game._meta.concrete_fields:
        assert getattr(locked, field.attname) == getattr(read, field.attname), field.name
    assert locked.dice and locked.started_at is not None
    # Saved back as a row read by the ORM would be.
    locked.rolls_used = 2
    locked.save(update_fields=["rolls_used"])
    assert Game.objects.get(pk=game.pk).rolls_used == 2


def test_the_lock_statement_locks_the_row_where_the_database_can():
    game = factories.started_game()
    with transaction.atomic():
        lock_game(game.token)
        compiled = runtime.part(known._LockStatement).compiled
        assert compiled is not None
        sql = compiled[1]
    assert ("FOR UPDATE" in sql) == connection.features.has_select_for_update


def rolled_and_remembered() -> Game:
    """A started game whose first roll was committed as a server commits it
    (the push's follow-ups run), so this process remembers its version."""
    game = factories.started_game()
    with TestCase.captureOnCommitCallbacks(execute=True):
        game = services.game_act(
            token=game.token, guest_id="ana", version=game.version, action=Roll()
        )
    assert committed_seats().get(game.token, game.version) is not None
    return game


def test_a_version_committed_elsewhere_is_read_again_not_taken_from_memory(
    django_capture_on_commit_callbacks,
):
    game = rolled_and_remembered()
    # Another process renames the second seat and commits its own version.
    Player.objects.filter(game=game, order=1).update(name="Zed")
    Game.objects.filter(pk=game.pk).update(version=F("version") + 1)
    game.refresh_from_db()
    assert committed_seats().get(game.token, game.version) is None
    pushed: list[dict[str, Any]] = []
    runtime.commits.after_commit.insert(0, pushed.append)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            services.game_act(
                token=game.token, guest_id="ana", version=game.version, action=Score("choice")
            )
    finally:
        runtime.commits.after_commit.remove(pushed.append)
    assert [seat["name"] for seat in pushed[-1]["seats"]] == ["Ana", "Zed"]
    known = committed_seats().get(game.token, game.version + 1)
    assert known is not None and known[1][1].name == "Zed"


def test_a_refused_move_leaves_the_remembered_seats_as_they_were_committed():
    game = factories.started_game()
    game = factories.play_turn(game)  # Ana fills a box
    game = factories.play_turn(game)  # and Bo
    box = next(iter(game_state(game, game_players(game)).cards[0].boxes))
    game = services.game_act(token=game.token, guest_id="ana", version=game.version, action=Roll())
    # Mid-turn, another process hands Ana's seat to a bot and commits.
    Player.objects.filter(game=game, order=0).update(bot="solid")
    Game.objects.filter(pk=game.pk).update(version=F("version") + 1)
    game.refresh_from_db()
    # Ana scores a box she filled: acting takes her seat back, then the
    # rules refuse the box, and the whole move rolls back.
    with pytest.raises(GameError) as refused:
        services.game_act(token=game.token, guest_id="ana", version=game.version, action=Score(box))
    assert refused.value.code == "category_filled"
    assert Player.objects.get(game=game, order=0).bot == "solid"
    known = committed_seats().get(game.token, game.version)
    assert known is not None and known[1][0].bot == "solid"


def test_remembered_seats_are_handed_out_as_copies_of_their_own():
    game = factories.started_game()
    players = game_players(game)
    cached = players[0].game  # the seat's game, cached on it as a move finds it
    game.version = 99
    committed_seats().remember(game, players, ())
    known = committed_seats().get(game.token, 99)
    assert known is not None
    seat = known[1][0]
    assert seat is not players[0] and seat.pk == players[0].pk and seat.name == players[0].name
    # What a move does to its copy (a bot's seat taken back, the cached
    # game replaced) stays in that copy.
    seat.bot = "solid"
    seat._state.fields_cache["game"] = None
    again = committed_seats().get(game.token, 99)
    assert again is not None
    assert again[1][0].bot == players[0].bot == ""
    assert again[1][0]._state.fields_cache["game"] is cached
    assert again[1][0]._state.db == players[0]._state.db and not again[1][0]._state.adding


def test_a_game_that_ends_is_forgotten_as_its_last_move_is_committed():
    game = factories.played_out(rolled_and_remembered())
    assert game.status == Game.Status.FINISHED
    assert committed_seats().get(game.token, game.version) is None
