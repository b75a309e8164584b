"""``manage.py clean_stale``: old chat lines go, and so do games started and
then left for good, with every row of theirs; finished games and anything
recent stay whole. Finished games that ended before their points lost to
optimal play were kept have them kept, a batch a run."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command

from games import rules
from games.management.commands import clean_stale
from games.models import ChatMessage, Game, Move, Player, ScoreEntry
from games.play import daily, services
from games.store import advice
from tests import factories

pytestmark = pytest.mark.django_db

START = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def clean() -> str:
    out = StringIO()
    call_command("clean_stale", stdout=out)
    return out.getvalue()


def say(game: Game, guest: str, text: str) -> None:
    services.game_chat(token=game.token, guest_id=guest, text=text)


def rows_of(game: Game) -> tuple[int, int, int, int]:
    return (
        Player.objects.filter(game=game).count(),
        Move.objects.filter(game=game).count(),
        ScoreEntry.objects.filter(player__game=game).count(),
        ChatMessage.objects.filter(game=game).count(),
    )


def test_chat_lines_older_than_the_days_kept_are_deleted_and_newer_ones_stay(time_machine):
    time_machine.move_to(START, tick=False)
    game = factories.play_turns(factories.started_game(2), 1)
    say(game, "ana", "said long ago")
    time_machine.shift(timedelta(days=29))
    say(game, "bo", "said last month")
    factories.play_turn(game)
    time_machine.shift(timedelta(days=2))
    assert "1 old chat lines" in clean()
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["said last month"]
    assert Game.objects.filter(pk=game.pk).exists(), "the game itself is not old"


def test_a_started_game_left_for_the_abandoned_days_is_deleted_with_every_row_of_its(
    time_machine,
):
    time_machine.move_to(START, tick=False)
    left = factories.play_turns(factories.started_game(2), 3)
    say(left, "ana", "brb")
    finished = factories.play_turns(factories.started_game(1))
    say(finished, "ana", "gg")
    assert finished.status == Game.Status.FINISHED
    finished_rows = rows_of(finished)
    time_machine.shift(timedelta(days=10))
    recent = factories.play_turns(factories.started_game(2), 1)
    time_machine.shift(timedelta(days=5))

    said = clean()

    assert "1 abandoned games" in said
    assert not Game.objects.filter(pk=left.pk).exists()
    assert rows_of(left) == (0, 0, 0, 0)
    # A finished game is kept as it was, however long nobody touched it.
    assert Game.objects.get(pk=finished.pk).status == Game.Status.FINISHED
    assert rows_of(finished) == finished_rows
    assert Game.objects.get(pk=recent.pk).status == Game.Status.PLAYING
    assert rows_of(recent)[1] > 0


def test_a_game_whose_players_still_chat_is_not_abandoned(time_machine):
    time_machine.move_to(START, tick=False)
    game = factories.play_turns(factories.started_game(2), 1)
    time_machine.shift(timedelta(days=13))
    say(game, "bo", "still there?")
    time_machine.shift(timedelta(days=2))
    assert "0 abandoned games" in clean()
    assert Game.objects.filter(pk=game.pk).exists()


def test_the_ages_come_from_the_settings(time_machine, settings):
    settings.YACHT_ABANDONED_DAYS = 2
    settings.YACHT_CHAT_KEEP_DAYS = 1
    time_machine.move_to(START, tick=False)
    game = factories.started_game(2)
    say(game, "ana", "hello")
    kept = factories.play_turns(factories.started_game(1))
    say(kept, "ana", "gg")
    time_machine.shift(timedelta(days=3))
    assert "1 abandoned games, 1 old chat lines" in clean()
    assert list(Game.objects.values_list("pk", flat=True)) == [kept.pk]


def test_many_abandoned_games_go_a_batch_at_a_time_and_a_rematch_of_one_is_unlinked(
    time_machine, monkeypatch
):
    monkeypatch.setattr(clean_stale, "BATCH", 2)
    time_machine.move_to(START, tick=False)
    finished = factories.play_turns(factories.started_game(1))
    rematch = services.game_rematch(token=finished.token, guest_id="ana")
    left = [factories.started_game(2) for _ in range(4)]
    time_machine.shift(timedelta(days=15))
    assert "5 abandoned games" in clean()
    assert not Game.objects.filter(pk__in=[rematch.pk, *(g.pk for g in left)]).exists()
    finished.refresh_from_db()
    assert finished.rematch is None and finished.status == Game.Status.FINISHED


def finished_before_losses_were_kept(seats: int = 2, **lobby) -> Game:
    """A finished game as one that ended before the move that ends a game
    kept each person's points lost: none kept on any seat."""
    game = factories.play_turns(factories.started_game(seats, **lobby))
    assert game.status == Game.Status.FINISHED
    Player.objects.filter(game=game).update(lost_to_optimal=None)
    return game


def losses(game: Game) -> dict[int, float | None]:
    return dict(Player.objects.filter(game=game).values_list("order", "lost_to_optimal"))


def test_older_finished_games_have_their_points_lost_kept_as_the_review_says():
    game = finished_before_losses_were_kept(2, bot_level="solid")
    solo = finished_before_losses_were_kept(1)

    assert "reviewed 2 finished games for their stats (0 failed)" in clean()

    for each in (game, solo):
        kept = losses(each)
        for review in advice.game_review(each):
            assert kept[review.order] == pytest.approx(review.cost)
    # A bot's seat is nobody's stats.
    assert losses(game)[1] is None


def every_box(game: Game, throw: Callable[[Game], Game]) -> Game:
    """Ana's solitaire played to its end: one throw a turn, the boxes in order."""
    for category in rules.get_ruleset(game.ruleset).categories:
        game = throw(game)
        game = services.game_score(
            token=game.token, guest_id="ana", version=game.version, category=category.key
        )
    game.refresh_from_db()
    return game


def test_daily_entries_real_dice_and_pass_and_play_games_are_not_reviewed_for_stats():
    entry = every_box(
        daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1"),
        lambda g: services.game_roll(token=g.token, guest_id="ana", version=g.version),
    )
    real_dice = services.game_create(guest_id="ana", name="Ana", seat_count=1, dice_entered=True)
    companion = every_box(
        services.game_start(token=real_dice.token, guest_id="ana"),
        lambda g: services.game_enter(
            token=g.token, guest_id="ana", version=g.version, dice=[1, 2, 3, 4, 6]
        ),
    )
    shared = factories.play_turns(
        services.game_create_shared(guest_id="dev", names=("Ana", "Ben")), guests=("dev", "dev")
    )
    games = (entry, companion, shared)
    assert all(g.status == Game.Status.FINISHED for g in games)
    Player.objects.filter(game__in=games).update(lost_to_optimal=None)

    with mock.patch.object(advice, "game_review", wraps=advice.game_review) as review:
        said = clean()

    # Today's entry is worked out with its day, once it is over; the others
    # My stats leaves out, so nothing needs their review.
    assert "reviewed 0 finished games for their stats (0 failed)" in said
    assert review.call_count == 0
    assert all(lost is None for g in games for lost in losses(g).values())


def test_a_game_whose_losses_are_kept_is_not_reviewed_again():
    kept_as_it_ended = factories.played_out(factories.started_game(2))
    older = finished_before_losses_were_kept(2)
    assert None not in losses(kept_as_it_ended).values()

    with mock.patch.object(advice, "game_review", wraps=advice.game_review) as review:
        first = clean()
        assert [c.args[0].pk for c in review.call_args_list] == [older.pk]
        second = clean()
        assert review.call_count == 1, "the second run reviews nothing"

    assert "reviewed 1 finished games" in first
    assert "reviewed 0 finished games" in second


def test_a_run_reviews_at_most_its_batch_newest_first_and_the_next_run_goes_on():
    oldest, middle, newest = (finished_before_losses_were_kept(1) for _ in range(3))
    out = StringIO()
    call_command("clean_stale", "--reviews", "2", stdout=out)
    assert "reviewed 2 finished games" in out.getvalue()
    assert losses(oldest)[0] is None
    assert losses(middle)[0] is not None and losses(newest)[0] is not None
    out = StringIO()
    call_command("clean_stale", "--reviews", "2", stdout=out)
    assert "reviewed 1 finished games" in out.getvalue()
    assert losses(oldest)[0] is not None


def test_a_review_that_fails_is_tried_once_a_run_and_the_run_goes_on(caplog):
    older, broken = finished_before_losses_were_kept(1), finished_before_losses_were_kept(1)
    real = advice.game_review

    def review(game: Game):
        if game.pk == broken.pk:
            raise ValueError("a log the review cannot replay")
        return real(game)

    with mock.patch.object(advice, "game_review", side_effect=review) as called:
        said = clean()

    assert "reviewed 1 finished games for their stats (1 failed)" in said
    assert [c.args[0].pk for c in called.call_args_list] == [broken.pk, older.pk]
    assert losses(broken)[0] is None and losses(older)[0] is not None
    assert f"could not review game {broken.token}" in caplog.text
