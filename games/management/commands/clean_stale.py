"""Delete what nobody will come back for: lobbies never started, games
started and then left for good, old chat lines, Play now's queue tickets
nobody has asked about for an hour (a closed waiting page, or a ticket
whose game began) and expired guest sessions.
Meant to be scheduled (cron, a systemd timer), e.g. hourly.

A finished game is never deleted: it is a player's record (My games, My
stats, the review, a daily board). A game left unfinished for
``YACHT_ABANDONED_DAYS`` is deleted with its rows rather than ended: only
finished games count in anyone's stats, so deleting it takes nothing from
them, where calling it finished would count half a game; and My games stops
offering a table nobody will sit at again.

It also closes the daily challenges of days that are over: the perfect
player's score and each entry's points lost to optimal play are worked out
here (seconds of the solver's time each), never by the board's page.

And it keeps the points lost to optimal play of finished games that ended
before the move that ends a game kept them (for My stats), a bounded number
of reviews a run, newest game first: a long backlog is worked through over
the next runs.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from games.models import ChatMessage, Game, Move, ScoreEntry
from games.play import queue
from games.play.daily import daily_work_out_over
from games.store.records import losses_backfill

# Rows deleted per statement: each batch is a short transaction, so a
# cleanup of a large table never holds locks (or a SQLite writer) for long.
BATCH = 500
# A queue ticket is kept this long after its page last asked: long past any
# wait, and its game keeps the seats.
QUEUE_KEEP_HOURS = 1
# Older finished games reviewed for their points lost per run: each review
# replays a game against the solver's table (measured 18-73 ms a game of 1
# to 4 seats, on a busy 2-core machine), so a run stays within about 15 s
# however long the backlog.
REVIEWS = 200


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--lobby-hours",
            type=float,
            default=settings.YACHT_LOBBY_MAX_HOURS,
            help="delete lobbies untouched for this long (default: %(default)s)",
        )
        parser.add_argument(
            "--abandoned-days",
            type=float,
            default=settings.YACHT_ABANDONED_DAYS,
            help="delete started games with no move or chat line for this long, never "
            "finished ones (default: %(default)s)",
        )
        parser.add_argument(
            "--chat-days",
            type=float,
            default=settings.YACHT_CHAT_KEEP_DAYS,
            help="delete chat lines older than this (default: %(default)s)",
        )
        parser.add_argument(
            "--reviews",
            type=int,
            default=REVIEWS,
            help="review at most this many older finished games for the points lost that "
            "My stats shows (default: %(default)s)",
        )

    def handle(
        self,
        *args: Any,
        lobby_hours: float,
        abandoned_days: float,
        chat_days: float,
        reviews: int,
        **options: Any,
    ) -> None:
        now = timezone.now()
        lobbies = _delete_games(untouched(Game.Status.LOBBY, now - timedelta(hours=lobby_hours)))
        abandoned = _delete_games(
            untouched(Game.Status.PLAYING, now - timedelta(days=abandoned_days))
        )
        chat = _delete_chat(
            ChatMessage.objects.filter(created_at__lt=now - timedelta(days=chat_days))
        )
        tickets = queue.stale_tickets(before=timedelta(hours=QUEUE_KEEP_HOURS))
        sessions, _ = Session.objects.filter(expire_date__lt=now).delete()
        days = daily_work_out_over()
        reviewed, failed = losses_backfill(limit=max(reviews, 0))
        self.stdout.write(
            f"deleted {lobbies} stale lobbies, {abandoned} abandoned games, "
            f"{chat} old chat lines, {tickets} stale queue tickets and {sessions} expired "
            f"sessions; worked out {days} finished daily challenges; reviewed {reviewed} "
            f"finished games for their stats ({failed} failed)"
        )


def untouched(status: str, cutoff: datetime) -> QuerySet[Game]:
    """The games of ``status`` that nothing has changed since ``cutoff``:
    no move (a game's last change is its acted_at; games older than that
    field have only their creation time) and no line said at the table."""
    said = ChatMessage.objects.filter(game=OuterRef("pk"), created_at__gte=cutoff)
    return (
        Game.objects.filter(status=status)
        .filter(Q(acted_at__lt=cutoff) | Q(acted_at__isnull=True, created_at__lt=cutoff))
        .exclude(Exists(said))
    )


def _delete_games(games: QuerySet[Game]) -> int:
    """Delete ``games`` with every row of theirs, a batch at a time; how many.

    Each batch locks its games first and deletes only those still matching,
    so a player coming back at that very moment either acts first (and the
    game is kept) or finds it gone. The big tables go first, one statement
    each; the rest (seats, a daily entry, a rematch pointing here) is left
    to Django's cascade, a few rows a game.
    """
    deleted = 0
    while True:
        with transaction.atomic():
            batch = list(games.select_for_update().values_list("pk", flat=True)[:BATCH])
            if not batch:
                return deleted
            ScoreEntry.objects.filter(player__game_id__in=batch).delete()
            Move.objects.filter(game_id__in=batch).delete()
            ChatMessage.objects.filter(game_id__in=batch).delete()
            Game.objects.filter(pk__in=batch).delete()
        deleted += len(batch)


def _delete_chat(lines: QuerySet[ChatMessage]) -> int:
    """Delete ``lines`` a batch at a time (found by the index on their age); how many."""
    deleted = 0
    while True:
        batch = list(lines.values_list("pk", flat=True)[:BATCH])
        if not batch:
            return deleted
        deleted += ChatMessage.objects.filter(pk__in=batch).delete()[0]
