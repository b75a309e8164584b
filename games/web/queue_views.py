"""Play now's pages: joining the queue from the home page, the waiting page
(which refreshes itself without JavaScript, and with it asks
``play_now_status`` every second and a half), leaving it, and the bot
offered when nobody comes."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, gettext
from django.views.decorators.http import require_GET, require_POST

from games.edge.guests import guest_id_for, guest_id_of, took_a_seat
from games.models import QueueTicket
from games.play import queue
from games.present.labels import ruleset_name
from games.present.messages import error_message
from games.rules import DEFAULT_RULESET, GameError
from games.store import quotas
from games.web import views
from games.web.forms import NewGameForm, PlayNowForm, stranger_name


def _address(request: HttpRequest) -> str:
    return request.META.get("REMOTE_ADDR", "")


# Which refusal a Play now field's error is, so that it says what was wrong.
FIELD_CODES = {"play_seats": "bad_queue_seats", "play_ruleset": "unknown_ruleset"}


def _refused(request: HttpRequest, code: str, status: int) -> HttpResponse:
    """The home page again, its forms as they were, with the refusal on top
    (a bad name is said once, beside the name)."""
    form = NewGameForm(request.POST)
    if form.is_valid() or code != "bad_name":
        form.add_error(None, error_message(code))
    return views.render_home(request, form, status=status, play_form=PlayNowForm(request.POST))


@require_POST
def play_now(request: HttpRequest) -> HttpResponse:
    """Join the queue (or keep one's place in it) and wait."""
    guest = guest_id_of(request.session)
    # Counted before any database work: a script pressing in a loop costs a counter.
    if not quotas.queue_join_allowed(address=_address(request), guest=guest):
        return _refused(request, "too_many_queue_joins", 429)
    form = PlayNowForm(request.POST)
    if not form.is_valid():
        failed = next((FIELD_CODES[f] for f in form.errors if f in FIELD_CODES), "bad_name")
        return _refused(request, failed, 400)
    data = form.cleaned_data
    guest = guest_id_for(request.session)
    ruleset = data["play_ruleset"] or DEFAULT_RULESET
    language = (get_language() or "") if data["play_language"] else ""
    seats = data["play_seats"] or 2
    name = data["name"]
    if not name:
        # An animal that none of those ahead in the queue looks like, rather
        # than "Player" beside "Player 2".
        ahead = queue.queue_names_ahead(
            guest_id=guest, ruleset=ruleset, language=language, seats=seats
        )
        name = stranger_name(guest, ahead)
    try:
        # Every ticket ends in one game (a stranger's or a bot's): it is
        # counted as its guest's game when it is made.
        with quotas.game_creation(address=_address(request), guest=guest):
            ticket = queue.queue_join(
                guest_id=guest,
                name=name,
                address=_address(request),
                ruleset=ruleset,
                language=language,
                seats=seats,
            )
    except GameError as error:
        status = 429 if error.code in quotas.CREATION_REFUSALS | {"queue_network_full"} else 400
        return _refused(request, error.code, status)
    took_a_seat(request, guest, name=data["name"])
    if ticket.game is not None:
        return redirect("game", token=ticket.game.token)
    return redirect("play_now_wait")


def _status(ticket: QueueTicket | None) -> dict[str, object]:
    """What the waiting page needs to know of the guest's ticket."""
    if ticket is None:
        return {"state": "none", "url": reverse("home")}
    waited = (timezone.now() - ticket.created_at).total_seconds()
    left = max(0, settings.YACHT_PLAY_NOW_WAIT_SECONDS - int(waited))
    status: dict[str, object] = {
        "state": ticket.state,
        "seconds_left": left,
        "clock": f"{left // 60}:{left % 60:02d}",
        "offer": ticket.state == QueueTicket.State.WAITING
        and left == 0
        and not ticket.kept_waiting,
        "url": reverse("play_now_wait"),
    }
    if ticket.game is not None:
        status["url"] = reverse("game", kwargs={"token": ticket.game.token})
    elif ticket.state != QueueTicket.State.WAITING:
        status["url"] = reverse("home")
    return status


@require_GET
def play_now_wait(request: HttpRequest) -> HttpResponse:
    """The waiting page: the countdown, the bot offered at its end, Leave.

    Without JavaScript it reloads itself every 2 s, so it is counted with
    the status asks; past their pace it is shown from the ticket as it is,
    without marking it seen or trying to pair it."""
    guest = guest_id_of(request.session)
    if guest and quotas.queue_poll_allowed(address=_address(request), guest=guest):
        ticket = queue.queue_poll(guest_id=guest)
    else:
        ticket = queue.queue_ticket(guest_id=guest)
    status = _status(ticket)
    if ticket is None or ticket.state != QueueTicket.State.WAITING:
        return redirect(str(status["url"]))
    context = {
        "ticket": ticket,
        "status": status,
        "ruleset_name": ruleset_name(ticket.ruleset),
        "wait_seconds": settings.YACHT_PLAY_NOW_WAIT_SECONDS,
        "others": ticket.seats - 1,
    }
    return render(request, "games/play_now.html", context)


@require_GET
def play_now_status(request: HttpRequest) -> HttpResponse:
    """The waiting page's question, as JSON: the ticket's state, the seconds
    left before a bot is offered, and where to go once it has a game."""
    guest = guest_id_of(request.session)
    if not guest:
        return JsonResponse(_status(None))
    if not quotas.queue_poll_allowed(address=_address(request), guest=guest):
        return JsonResponse({"error": error_message("rate_limited")}, status=429)
    return JsonResponse(_status(queue.queue_poll(guest_id=guest)))


@require_POST
def play_now_leave(request: HttpRequest) -> HttpResponse:
    """One press leaves the queue, back to the home page."""
    if queue.queue_leave(guest_id=guest_id_of(request.session)):
        messages.info(request, gettext("You have left the Play now queue."))
    ticket = queue.queue_ticket(guest_id=guest_id_of(request.session))
    if ticket is not None and ticket.game is not None:
        # Paired before the press arrived: the game is theirs already.
        return redirect("game", token=ticket.game.token)
    return redirect("home")


@require_POST
def play_now_bot(request: HttpRequest) -> HttpResponse:
    """Nobody came: play the solid bot at once (or the game a pairing made first)."""
    try:
        game = queue.queue_play_bot(guest_id=guest_id_of(request.session))
    except GameError as error:
        messages.error(request, error_message(error.code))
        return redirect("home")
    return redirect("game", token=game.token)


@require_POST
def play_now_keep(request: HttpRequest) -> HttpResponse:
    """Keep waiting: the offer goes, the place in the queue stays."""
    if not queue.queue_keep_waiting(guest_id=guest_id_of(request.session)):
        messages.error(request, error_message("not_queued"))
        return redirect("home")
    return redirect("play_now_wait")
