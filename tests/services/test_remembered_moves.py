"""A move made against the version this process committed last is decided on
the row it remembers and written without the lock read; the write itself
checks that the stored game is still at that version, and a game that moved
on is left to the locked path, which decides as it always did."""

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Game, Move, Player, ScoreEntry
from games.play import services
from games.rules import GameError, Hold, Roll, Score, get_ruleset
from games.runtime import runtime
from games.store import writes
from games.store.advice import game_review
from games.store.known import committed_seats
from games.store.selectors import game_players, game_state
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Callable[..., Game]:
    """Act as a socket's move does, with what follows its commit run (this
    process remembers the version it committed)."""

    def act(game: Game, action: Any, guest: str = "ana", version: int | None = None) -> Game:
        with django_capture_on_commit_callbacks(execute=True):
            return services.game_act(
                token=game.token,
                guest_id=guest,
                version=game.version if version is None else version,
                action=action,
            )

    return act


def _writes(captured: CaptureQueriesContext) -> list[str]:
    # Inside a test's transaction, the move's own is a savepoint.
    return [
        q["sql"]
        for q in captured
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "BEGIN", "COMMIT"))
    ]


def _one_box_left(committed: Callable[..., Game]) -> Game:
    """A game of one seat with every box but the last filled, its last turn rolled."""
    game = factories.play_turns(factories.started_game(1), 11)
    return committed(Game.objects.get(pk=game.pk), Roll())


def _open_boxes(game: Game) -> set[str]:
    """The boxes still open on the first seat's card."""
    filled = game_state(game, game_players(game)).cards[0].boxes
    return set(get_ruleset(game.ruleset).category_keys) - set(filled)


@pytest.mark.parametrize("kind, extra", [("roll", []), ("hold", []), ("score", ["INSERT"])])
def test_a_move_on_the_version_committed_here_is_its_own_rows_and_nothing_else(
    committed, kind, extra
):
    """Outside a transaction on PostgreSQL, any other statement of the move
    would be committed on its own, before the move's write: the move must be
    that write alone, whatever its kind."""
    game = committed(factories.started_game(), Roll())
    action = {"roll": Roll(), "hold": Hold(frozenset({0, 1})), "score": Score("choice")}[kind]
    assert committed_seats().get(game.token, game.version) is not None
    with CaptureQueriesContext(connection) as captured:
        game = committed(game, action)
    statements = _writes(captured)
    if connection.vendor == "postgresql":
        assert len(statements) == 1 and statements[0].startswith("WITH moved AS (UPDATE ")
        assert statements[0].count("INSERT INTO") == 1 + len(extra)
    else:
        assert [sql.split()[0] for sql in statements] == ["UPDATE", "INSERT", *extra]
    stored = Game.objects.get(pk=game.pk)
    assert stored.version == game.version
    assert Move.objects.filter(game=game, version=game.version).count() == 1


def test_the_last_score_is_written_under_the_lock_and_the_points_lost_kept_after_its_push(
    committed, monkeypatch
):
    """The last score takes the locked path, even on the version this
    process committed: once it commits, its push goes out first, and then
    each person's review, read from the whole log, is kept (the review
    holds a game's thread 25-40 ms, which the push must not wait for)."""
    game = _one_box_left(committed)
    last = Score(_open_boxes(game).pop())
    assert committed_seats().get(game.token, game.version) is not None
    pushed: list[int] = []
    with CaptureQueriesContext(connection) as captured:
        # How many statements had run when the push went out.
        heard = [*runtime.commits.after_commit, lambda snap: pushed.append(len(captured))]
        monkeypatch.setattr(runtime.commits, "after_commit", heard)
        game = committed(game, last)
    statements = captured.captured_queries
    # The locked path reads the game and its seats under the lock first,
    # where the guarded one starts with its version-guarded write.
    assert _writes(captured)[0].startswith("SELECT"), _writes(captured)[0]
    kept = [
        n
        for n, q in enumerate(statements)
        if q["sql"].startswith("UPDATE") and '"lost_to_optimal"' in q["sql"]
    ]
    assert len(pushed) == 1 and kept and min(kept) >= pushed[0], (pushed, kept)
    stored = Game.objects.get(pk=game.pk)
    assert stored.status == Game.Status.FINISHED and stored.finished_at is not None
    assert Move.objects.filter(game=game, version=game.version).count() == 1
    review = game_review(stored)[0]
    assert Player.objects.get(game=game, order=0).lost_to_optimal == pytest.approx(review.cost)


def test_a_hold_on_the_remembered_version_is_stored_and_logged(committed):
    game = committed(factories.started_game(), Roll())
    game = committed(game, Hold(frozenset({0, 1})))
    stored = Game.objects.get(pk=game.pk)
    assert stored.version == game.version and stored.held == [0, 1]
    move = Move.objects.get(game=game, version=game.version)
    assert move.kind == Move.Kind.HOLD and move.held == [0, 1] and move.dice == stored.dice


def test_a_score_on_the_remembered_version_fills_the_box_and_passes_the_turn(committed):
    game = committed(factories.started_game(), Roll())
    dice = list(game.dice)
    game = committed(game, Score("choice"))
    stored = Game.objects.get(pk=game.pk)
    assert stored.version == game.version and stored.current_seat == 1 and stored.dice == []
    entry = ScoreEntry.objects.get(player__game=game, category="choice")
    assert entry.points == sum(dice) and entry.player.order == 0
    # Bo's first roll starts from the version Ana's score committed here.
    with CaptureQueriesContext(connection) as captured:
        game = committed(game, Roll(), guest="bo")
    assert not any("FOR UPDATE" in sql for sql in _writes(captured))
    assert Game.objects.get(pk=game.pk).rolls_used == 1


def test_a_game_that_moved_on_elsewhere_is_left_unwritten_and_the_lock_decides(
    committed, monkeypatch
):
    game = committed(factories.started_game(), Roll())
    remembered = game.version
    # Another process holds Ana's dice at this version and commits: this
    # process still remembers the version before.
    services.game_act(
        token=game.token, guest_id="ana", version=remembered, action=Hold(frozenset({2}))
    )
    assert committed_seats().get(game.token, remembered) is not None, "still held here"
    assert Game.objects.get(pk=game.pk).version == remembered + 1
    guarded: list[writes.Written] = []
    real_write = writes.write_guarded

    def write(*args: Any, **kwargs: Any) -> writes.Written:
        guarded.append(real_write(*args, **kwargs))
        return guarded[-1]

    monkeypatch.setattr(writes, "write_guarded", write)
    # A second tab of Ana's acts on the version it shows, the one remembered.
    with pytest.raises(GameError) as refused:
        committed(game, Hold(frozenset({0})), version=remembered)
    assert refused.value.code == "stale_version"
    assert guarded == [writes.Written.STALE], "the remembered version was tried and found stale"
    stored = Game.objects.get(pk=game.pk)
    assert stored.version == remembered + 1 and stored.held == [2]
    assert Move.objects.filter(game=game, version=remembered + 2).count() == 0


def test_a_move_the_rules_refuse_on_the_remembered_row_is_refused_as_under_the_lock(committed):
    game = committed(factories.started_game(), Roll())
    game = committed(game, Score("choice"))
    game = committed(game, Roll(), guest="bo")
    game = committed(game, Score("yacht"), guest="bo")
    game = committed(game, Roll())
    for action, guest, code in [
        (Score("choice"), "ana", "category_filled"),
        (Roll(), "bo", "not_your_turn"),
        (Score("nope"), "ana", "unknown_category"),
    ]:
        with pytest.raises(GameError) as refused:
            committed(game, action, guest=guest)
        assert refused.value.code == code
    assert Game.objects.get(pk=game.pk).version == game.version
    # The row remembered for this version was not changed by the refusals.
    known = committed_seats().get(game.token, game.version)
    assert known is not None and known[0].version == game.version
    assert known[0].rolls_used == 1 and known[0].current_seat == 0


def test_after_a_move_that_found_its_game_moved_on_what_is_remembered_is_the_stored_row(
    committed,
):
    game = committed(factories.started_game(), Roll())
    services.game_act(
        token=game.token, guest_id="ana", version=game.version, action=Hold(frozenset({1}))
    )
    with pytest.raises(GameError):
        committed(game, Score("choice"))
    # The locked path read the version the other process committed, and
    # that is what this process now plays from: not the stale attempt's row.
    stored = Game.objects.get(pk=game.pk)
    known = committed_seats().get(game.token, stored.version)
    assert known is not None
    for field in Game._meta.concrete_fields:
        assert getattr(known[0], field.attname) == getattr(stored, field.attname), field.name
    assert not ScoreEntry.objects.filter(player__game=game).exists()


def test_each_committed_move_is_pushed_once_whichever_path_wrote_it(committed):
    pushed: list[int] = []

    def push(snap: Any) -> None:
        pushed.append(snap["version"])

    runtime.commits.after_commit.insert(0, push)
    try:
        game = committed(factories.started_game(), Roll())
        game = committed(game, Hold(frozenset({0})))
        services.game_act(token=game.token, guest_id="ana", version=game.version, action=Roll())
        committed_seats().clear()
        game = Game.objects.get(pk=game.pk)
        game = committed(game, Score("choice"))
    finally:
        runtime.commits.after_commit.remove(push)
    # The roll made without its commit hooks is not pushed by this test's
    # capture; every other version is, once, in order.
    assert pushed == [game.version - 3, game.version - 2, game.version]


def _holds_at_once(game: Game, version: int) -> list[object]:
    """Two holds of Ana's, both made against ``version``, released together."""
    gate = threading.Barrier(2)
    results: list[object] = [None, None]

    def hold(n: int, dice: frozenset[int]) -> None:
        try:
            gate.wait()
            results[n] = services.game_act(
                token=game.token, guest_id="ana", version=version, action=Hold(dice)
            )
        except Exception as error:
            results[n] = error
        finally:
            connection.close()

    threads = [
        threading.Thread(target=hold, args=(0, frozenset({0}))),
        threading.Thread(target=hold, args=(1, frozenset({1, 2}))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


@pytest.mark.django_db(transaction=True)
def test_two_moves_on_one_remembered_version_at_once_apply_exactly_one():
    game = factories.started_game()
    game = services.game_act(token=game.token, guest_id="ana", version=game.version, action=Roll())
    for _ in range(6):
        version = Game.objects.get(pk=game.pk).version
        assert committed_seats().get(game.token, version) is not None
        results = _holds_at_once(game, version)
        applied = [r for r in results if isinstance(r, Game)]
        refused = [r for r in results if isinstance(r, GameError)]
        assert len(applied) == 1 and len(refused) == 1, results
        assert refused[0].code == "stale_version"
        stored = Game.objects.get(pk=game.pk)
        assert stored.version == version + 1
        assert Move.objects.filter(game=game, version=version + 1).count() == 1
        assert Move.objects.filter(game=game, version__gt=version + 1).count() == 0
        assert stored.held == sorted(applied[0].held)


def test_only_a_move_the_remembered_row_settles_is_planned_there_and_planning_writes_nothing():
    game = factories.lobby_game()
    game = services.game_start(token=game.token, guest_id="ana")
    # What the start's commit leaves this process remembering.
    committed_seats().remember(game, game_players(game), game_state(game, game_players(game)).cards)
    moves = Move.objects.filter(game=game).count()
    # Out of turn on the remembered version: not settled there.
    assert (
        services.game_plan_remembered(
            token=game.token, guest_id="bo", version=game.version, action=Roll()
        )
        is None
    )
    # A version this process does not hold: not settled there either.
    assert (
        services.game_plan_remembered(
            token=game.token, guest_id="ana", version=game.version + 1, action=Roll()
        )
        is None
    )
    # The player to move, on the version this process committed: a plan of
    # the game's row and its log entry, and nothing written yet.
    plan = services.game_plan_remembered(
        token=game.token, guest_id="ana", version=game.version, action=Roll()
    )
    assert plan is not None and plan.rows.guardable
    assert plan.rows.since == game.version and plan.rows.game.version == game.version + 1
    assert Move.objects.filter(game=game).count() == moves
    assert Game.objects.get(pk=game.pk).version == game.version
    assert writes.write_guarded(plan.rows) is writes.Written.DONE
    assert Move.objects.filter(game=game).count() == moves + 1
    # The same plan again: the game has moved on, and nothing more is written.
    assert writes.write_guarded(plan.rows) is writes.Written.STALE
    assert Move.objects.filter(game=game).count() == moves + 1
