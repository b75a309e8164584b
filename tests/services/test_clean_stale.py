"""``manage.py clean_stale``: old chat lines go, and so do games started and
then left for good, with every row of theirs; finished games and anything
recent stay whole."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command

from games.management.commands import clean_stale
from games.models import ChatMessage, Game, Move, Player, ScoreEntry
from games.play import services
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
