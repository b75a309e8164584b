"""The daily challenge's pages: today's challenge, and each day's board."""

from __future__ import annotations

from datetime import date, timedelta

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from games.edge.guests import guest_id_for, guest_id_of, remembered_name, took_a_seat
from games.models import DailyChallenge
from games.play import daily
from games.present.labels import ruleset_name
from games.present.messages import error_message
from games.rules import GameError
from games.store import quotas
from games.web.forms import DailyForm, default_name

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
    form = DailyForm(request.POST or None, initial={"name": remembered_name(request.session)})
    address = request.META.get("REMOTE_ADDR", "")
    status = 200
    if request.method == "POST" and form.is_valid():
        guest = guest_id_for(request.session)
        try:
            with quotas.game_creation(address=address, guest=guest):
                game = daily.daily_enter(
                    guest_id=guest,
                    name=form.cleaned_data["name"] or daily.unclaimed_name(default_name()),
                    address=address,
                )
        except GameError as error:
            if error.code == "daily_name_taken":
                # The form again, with what was typed, to choose another name.
                form.add_error("name", error_message(error.code))
            elif error.code in quotas.CREATION_REFUSALS:
                form.add_error(None, error_message(error.code))
                status = 429
            else:
                # A network's refusal is shown by the page itself, in place
                # of the form.
                if error.code != "daily_network_entered":
                    messages.error(request, error_message(error.code))
                return redirect("daily")
        else:
            took_a_seat(request, guest, name=form.cleaned_data["name"])
            return redirect("game", token=game.token)
    return render(request, "games/daily.html", _today(request, form, address), status=status)


def _today(request: HttpRequest, form: DailyForm, address: str) -> dict[str, object]:
    """What today's page shows this browser: the day's challenge and board,
    its entry if it has one, else the form (unless its network has entered)."""
    day = daily.today()
    challenge = daily.daily_challenge(day)
    tomorrow = daily.daily_challenge(day + timedelta(days=1))
    assert challenge is not None and tomorrow is not None
    entry = daily.daily_entry_of(challenge, guest_id_of(request.session))
    network_entered = entry is None and daily.network_entered(challenge, address)
    return {
        "challenge": challenge,
        "tomorrow": tomorrow,
        "yesterday": DailyChallenge.objects.filter(day=day - timedelta(days=1)).first(),
        "ruleset_name": ruleset_name(challenge.ruleset),
        "entry": entry,
        "form": None if entry or network_entered else form,
        "network_entered": error_message("daily_network_entered") if network_entered else "",
        "board": daily.daily_board(challenge),
        "earlier": _earlier(day),
    }


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
