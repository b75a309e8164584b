"""The daily challenge's days: which is today, and whether one is over (its
seed may then be revealed). Apart from the daily itself because a move's
decision asks it too, and the daily makes its games through the verbs."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.utils import timezone


def today() -> date:
    return timezone.now().date()


def is_over(day: date) -> bool:
    """Whether ``day`` (UTC) has ended, so its seed may be revealed."""
    end = datetime.combine(
        day + timedelta(days=1), time.min, tzinfo=timezone.get_current_timezone()
    )
    return timezone.now() >= end
