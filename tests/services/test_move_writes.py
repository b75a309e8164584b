"""What a move writes: the move log's row, a score's box and the game's new
state, through the statements games.store.writes writes once per database, with
the same rows and the same constraints as the ORM's saves."""

from collections.abc import Callable

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from games.models import Game, Move, ScoreEntry
from games.play import services
from games.rules import Roll, Score
from games.store import writes
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_roll_logs_its_dice_and_moves_the_game_on():
    game = factories.started_game()
    before = Game.objects.get(pk=game.pk)
    services.game_act(token=game.token, guest_id="ana", version=game.version, action=Roll())
    game.refresh_from_db()
    move = Move.objects.get(game=game, version=game.version)
    assert game.version == before.version + 1
    assert move.kind == Move.Kind.ROLL and move.player is not None and move.player.order == 0
    assert move.dice == game.dice and len(move.dice) == 5 and move.held == []
    assert move.category == "" and move.points is None
    assert move.created_at is not None and game.acted_at is not None
    assert game.rolls_used == 1 and game.current_seat == 0


def test_a_score_fills_the_box_and_logs_the_points():
    game = factories.rolled_game()
    dice = list(game.dice)
    services.game_act(
        token=game.token, guest_id="ana", version=game.version, action=Score("choice")
    )
    game.refresh_from_db()
    move = Move.objects.get(game=game, version=game.version)
    entry = ScoreEntry.objects.get(player__game=game, category="choice")
    assert entry.points == sum(dice) and entry.extra_bonus == 0 and entry.created_at is not None
    assert move.kind == Move.Kind.SCORE and move.dice == dice and move.points == sum(dice)
    assert game.current_seat == 1 and game.rolls_used == 0 and game.dice == []


def test_a_move_is_one_statement_between_the_lock_and_the_commit_on_postgresql():
    game = factories.rolled_game(1)
    with CaptureQueriesContext(connection) as captured:
        services.game_act(
            token=game.token, guest_id="ana", version=game.version, action=Score("choice")
        )
    # (Inside a test's transaction, the move's own is a savepoint.)
    statements = [
        q["sql"] for q in captured if q["sql"].split()[0] not in ("SELECT", "SAVEPOINT", "RELEASE")
    ]
    if connection.vendor == "postgresql":
        assert len(statements) == 1
        assert (
            statements[0].startswith("WITH moved AS (UPDATE ")
            and statements[0].count("INSERT INTO") == 2
        )
    else:
        assert [w.split()[0] for w in statements] == ["UPDATE", "INSERT", "INSERT"]


def _unpublished() -> Callable[[], None]:
    """A refused write is never published: this fails the test if it is."""

    def published() -> None:
        raise AssertionError("a refused write was published")

    return published


def test_a_version_already_logged_refuses_the_whole_move():
    game = factories.rolled_game(1)
    locked = Game.objects.get(pk=game.pk)
    player = locked.players.get(order=0)
    # Someone logged this version already: the game must not move on either.
    Move.objects.create(game=locked, player=player, version=locked.version + 1, kind="roll")
    locked.version += 1
    move = Move(game=locked, player=player, version=locked.version, kind="roll")
    with pytest.raises(IntegrityError), transaction.atomic():
        writes.write_locked(
            writes.Rows(game=locked, fields=("version",), since=locked.version - 1, move=move),
            _unpublished,
        )
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_box_filled_twice_refuses_the_whole_move():
    game = factories.rolled_game(1)
    locked = Game.objects.get(pk=game.pk)
    player = locked.players.get(order=0)
    ScoreEntry.objects.create(player=player, category="choice", points=5)
    locked.version += 1
    move = Move(game=locked, player=player, version=locked.version, kind="score")
    score = ScoreEntry(player=player, category="choice", points=9)
    with pytest.raises(IntegrityError), transaction.atomic():
        writes.write_locked(
            writes.Rows(
                game=locked, fields=("version",), since=locked.version - 1, move=move, score=score
            ),
            _unpublished,
        )
    assert Game.objects.get(pk=game.pk).version == game.version
    assert not Move.objects.filter(game=game, version=locked.version).exists()


def test_the_lock_and_the_write_every_move_runs_are_prepared_once_on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's (SQLite caches its own)")
    game = factories.started_game(1)
    boxes = ["ones", "twos", "threes", "fours", "fives", "sixes", "choice"]
    for box in boxes:
        for action in (Roll(), Score(box)):
            game = services.game_act(
                token=game.token, guest_id="ana", version=game.version, action=action
            )
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    # Each has run once per move (the roll's write once per roll): from the
    # sixth run on, PostgreSQL parses and plans neither again.
    assert any("FOR UPDATE" in sql for sql in prepared)
    assert any(sql.startswith("WITH ") and sql.count("INSERT INTO") == 1 for sql in prepared)
