"""Delete what nobody will come back for: lobbies never started and expired
guest sessions. Meant to be scheduled (cron, a systemd timer), e.g. hourly."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Q
from django.utils import timezone

from games.models import Game


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--lobby-hours",
            type=float,
            default=settings.YACHT_LOBBY_MAX_HOURS,
            help="delete lobbies untouched for this long (default: %(default)s)",
        )

    def handle(self, *args: Any, lobby_hours: float, **options: Any) -> None:
        cutoff = timezone.now() - timedelta(hours=lobby_hours)
        # A lobby's last change (a join, a bot added) is its acted_at; games
        # older than that field have only their creation time.
        stale = Game.objects.filter(status=Game.Status.LOBBY).filter(
            Q(acted_at__lt=cutoff) | Q(acted_at__isnull=True, created_at__lt=cutoff)
        )
        _, lobbies = stale.delete()
        sessions, _ = Session.objects.filter(expire_date__lt=timezone.now()).delete()
        self.stdout.write(
            f"deleted {lobbies.get('games.Game', 0)} stale lobbies and {sessions} expired sessions"
        )
