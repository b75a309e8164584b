"""The daily challenge's pages: today's challenge, and each day's board."""

from __future__ import annotations

from datetime import date, timedelta

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from games import daily, limits
from games.forms import DailyForm, default_name
from games.guests import guest_id_for, guest_id_of, remembered_name, took_a_seat
from games.labels import ruleset_name
from games.messages import error_message
from games.models import DailyChallenge
from games.rules import GameError

# Earlier days listed on the pages (older boards stay at their address).
EARLIER_DAYS = 14


def _earlier(before: date) -> list[date]:
    return list(
        DailyChallenge.objects.filter(day__lt=before)
        .order_by("-day")
        .values_list("day", flat=True)[:EARLIER_DAYS]
    )


@require_http_methods(["GET", "POST"])
def daily_page(request: HttpRequest) -> HttpResponse:
    day = daily.today()
    challenge = daily.daily_challenge(day)
    tomorrow = daily.daily_challenge(day + timedelta(days=1))
    assert challenge is not None and tomorrow is not None
    form = DailyForm(request.POST or None, initial={"name": remembered_name(request.session)})
    status = 200
    if request.method == "POST" and form.is_valid():
        guest = guest_id_for(request.session)
        try:
            with limits.game_creation(address=request.META.get("REMOTE_ADDR", ""), guest=guest):
                game = daily.daily_enter(
                    guest_id=guest, name=form.cleaned_data["name"] or default_name()
                )
        except GameError as error:
            if error.code not in limits.CREATION_REFUSALS:
                messages.error(request, error_message(error.code))
                return redirect("daily")
            form.add_error(None, error_message(error.code))
            status = 429
        else:
            took_a_seat(request, guest, name=form.cleaned_data["name"])
            return redirect("game", token=game.token)
    entry = daily.daily_entry_of(challenge, guest_id_of(request.session))
    yesterday = DailyChallenge.objects.filter(day=day - timedelta(days=1)).first()
    return render(
        request,
        "games/daily.html",
        {
            "challenge": challenge,
            "tomorrow": tomorrow,
            "yesterday": yesterday,
            "ruleset_name": ruleset_name(challenge.ruleset),
            "entry": entry,
            "form": None if entry else form,
            "board": daily.daily_board(challenge),
            "earlier": _earlier(day),
        },
        status=status,
    )


@require_GET
def daily_board_page(request: HttpRequest, day: str) -> HttpResponse:
    try:
        when = date.fromisoformat(day)
    except ValueError:
        raise Http404(error_message("no_such_game")) from None
    challenge = DailyChallenge.objects.filter(day=when).first()
    if challenge is None or when > daily.today():
        raise Http404(error_message("no_such_game"))
    board = daily.daily_board(challenge)
    return render(
        request,
        "games/daily_board.html",
        {
            "challenge": challenge,
            "board": board,
            "ruleset_name": ruleset_name(challenge.ruleset),
            "seed": challenge.server_seed if board.over else None,
            "earlier": _earlier(when),
            "is_today": when == daily.today(),
        },
    )
