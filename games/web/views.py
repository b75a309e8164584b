"""Pages. Everything that changes a game during play goes through the
websocket; pages only create, join and show."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.sessions.backends.base import SessionBase
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import get_template
from django.urls import reverse
from django.utils import translation
from django.utils.translation import get_language, get_language_from_path
from django.views import i18n
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.edge.guests import guest_id_for, guest_id_of, remembered_name, took_a_seat
from games.models import Game
from games.play import daily, services
from games.present import rules_pages
from games.present.guest_record import games_listed, stats_shown
from games.present.labels import RULESET_NAMES
from games.present.messages import error_message
from games.present.rendering import chat_panel_context, review_rows, table_context, table_html
from games.rules import RULESETS, GameError, get_ruleset
from games.runtime import runtime
from games.store import quotas, records
from games.store.advice import game_review
from games.store.selectors import (
    clock_ran_out,
    game_by_token,
    game_chat_lines,
    game_players,
    game_snapshot,
    seat_among,
    seat_of,
    seen_by,
)
from games.web.forms import JoinForm, NewGameForm, PlayNowForm, default_name


def render_home(
    request: HttpRequest,
    form: NewGameForm,
    *,
    status: int = 200,
    play_form: PlayNowForm | None = None,
) -> HttpResponse:
    guest = guest_id_of(request.session)
    context = {
        "form": form,
        "play_form": play_form or PlayNowForm(),
        "default_name": default_name(),
        "unfinished": games_listed(records.guest_games(guest, unfinished=True, limit=5)),
        "daily_entry": daily.daily_entry_today(guest),
    }
    return render(request, "games/home.html", context, status=status)


@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    """The front door: a name (remembered from last time) and three ways to
    play, each one button; the other settings wait under "More options"."""
    form = NewGameForm(request.POST or None, initial={"name": remembered_name(request.session)})
    if request.method == "POST" and form.is_valid():
        guest = guest_id_for(request.session)
        try:
            # A brake on scripts filling the database, per session and per
            # address (a fresh session per request escapes the first); the
            # service itself stays unlimited for the admin, tests and benchmarks.
            with quotas.game_creation(address=request.META.get("REMOTE_ADDR", ""), guest=guest):
                game = _created(form.cleaned_data, guest)
        except GameError as error:
            form.add_error(None, error_message(error.code))
            if error.code in quotas.CREATION_REFUSALS:
                return render_home(request, form, status=429)
        else:
            took_a_seat(request, guest, name=form.cleaned_data["name"])
            if game.status == Game.Status.LOBBY and (
                game.seat_count == 1 or form.cleaned_data["opponents"]
            ):
                # Every seat is taken already (solitaire, or bots in the
                # others): there is nobody to wait for, so it starts at once.
                services.game_start(token=game.token, guest_id=guest)
            return redirect("game", token=game.token)
    return render_home(request, form)


def _created(data: dict[str, Any], guest: str) -> Game:
    """The game the home page's form asks for, made for ``guest``."""
    if data["pass_and_play"]:
        return services.game_create_shared(
            guest_id=guest,
            names=data["people"],
            bots=data["people_bots"] or 0,
            bot_level=data["people_bot_level"] or "solid",
            ruleset=data["ruleset"],
            hints=data["hints"],
            turn_seconds=data["turn_seconds"] or 0,
            dice_entered=data["dice_entered"],
        )
    return services.game_create(
        guest_id=guest,
        name=data["name"] or default_name(),
        seat_count=data["seats"],
        ruleset=data["ruleset"],
        hints=data["hints"],
        bot_level=data["opponents"],
        watch=data["watch"],
        turn_seconds=data["turn_seconds"] or 0,
        duplicate=data["duplicate"],
        perfect_reference=data["perfect_reference"],
        dice_entered=data["dice_entered"],
    )


def _game_or_404(token: str) -> Game:
    game = game_by_token(token)
    if game is None:
        raise Http404(error_message("no_such_game"))
    return game


@require_GET
def game(request: HttpRequest, token: str) -> HttpResponse:
    game = _game_or_404(token)
    # A turn clock that ran out while nobody was connected is honoured now.
    if clock_ran_out(game.status, game.turn_deadline) and services.game_clock_expire(
        token=game.token, version=game.version
    ):
        game.refresh_from_db()
    # Only read: a visitor who just looks gets no session row of their own.
    players = game_players(game)
    seat = seat_among(players, guest_id_of(request.session))
    snap = game_snapshot(game, players)
    me = seat.order if seat else None
    can_join = (
        seat is None and game.status == Game.Status.LOBBY and len(snap["seats"]) < game.seat_count
    )
    # A duplicate round shows this viewer only what is theirs to see.
    table = table_context(seen_by(snap, me), me)
    coach = False
    if table["coachable"] or (me is not None and game.status == Game.Status.LOBBY):
        coach = coach_on(request.session)
    context = {
        "game": game,
        # No language in the link: each friend who opens it lands in their own.
        "invite_url": request.build_absolute_uri(f"/g/{game.token}/"),
        "solo": game.seat_count == 1,
        "join_form": JoinForm(initial={"name": remembered_name(request.session)})
        if can_join
        else None,
        "language": get_language(),
        # The time the page counts the turn clock from, on the process's clock.
        "server_now": runtime.clock.time(),
        # What each socket may send (a burst, then a steady rate): the page
        # keeps within it rather than be cut off for sending faster.
        "pace_burst": settings.YACHT_SOCKET_MESSAGE_BURST,
        # "Teach me": on for a first game, then as the player last set it.
        "coach": coach,
        "pace_rate": settings.YACHT_SOCKET_MESSAGES_PER_SECOND,
        **table,
        "table_html": table_html(table),
        **chat_panel_context(snap, me, game_chat_lines(game.token)),
    }
    return render(request, "games/game.html", context)


COACH_KEY = "coach"


def coach_on(session: SessionBase) -> bool:
    """Whether this browser's player wants the coaching line: as they last
    set it, else on until they have finished a game."""
    chosen = session.get(COACH_KEY)
    if chosen is not None:
        return bool(chosen)
    return not records.has_finished_a_game(guest_id_of(session))


@require_POST
def coach(request: HttpRequest) -> HttpResponse:
    """Turn "Teach me" on (``on=1``) or off for this browser's session.

    Only a guest (who has taken a seat) has a table to be coached at: anyone
    else is answered the same but gets no session row of their own."""
    if guest_id_of(request.session):
        request.session[COACH_KEY] = request.POST.get("on") == "1"
    return HttpResponse(status=204)


@require_GET
def game_end(request: HttpRequest, token: str) -> HttpResponse:
    """The end's line only this game can say to the person asking: the
    review's verdict on their play, for a daily entry their place on the
    day's board, and where the perfect player played the same dice, how
    their total stands against its score. The page asks for it once the
    game is over: the pushed table is rendered without the database, and
    the review reads the solver's tables. Spectators and bots' seats get nothing to say."""
    game = _game_or_404(token)
    if game.status != Game.Status.FINISHED:
        raise Http404(error_message("not_finished"))
    seat = seat_of(game, guest_id_of(request.session))
    context: dict[str, object] = {"game": game}
    # Pass and play: the device was several people's, and its "you" nobody's.
    if seat is not None and not seat.shared:
        context["verdict"] = records.seat_verdict(seat)
        perfect = game.perfect_score
        if game.daily is not None:
            board = daily.daily_board(game.daily)
            # The day's perfect score is hidden with its seed until the day is over.
            perfect = board.perfect
            row = next((r for r in board.rows if r.token == game.token), None)
            if row is not None:
                context["daily_place"] = {"place": row.place, "entries": len(board.rows)}
        if perfect is not None:
            ahead = records.seat_total(seat) - perfect
            context["against_perfect"] = {"ahead": ahead, "by": abs(ahead)}
    return render(request, "games/partials/end_line.html", context)


@require_GET
def my_games(request: HttpRequest) -> HttpResponse:
    """The games this browser has a seat at: a returning guest finds an
    unfinished game without keeping its link. Only read: a visitor with no
    session gets none."""
    games = games_listed(records.guest_games(guest_id_of(request.session)))
    return render(
        request,
        "games/my_games.html",
        {
            "playing": [g for g in games if g.status == Game.Status.PLAYING],
            "lobby": [g for g in games if g.status == Game.Status.LOBBY],
            "finished": [g for g in games if g.status == Game.Status.FINISHED],
        },
    )


@require_GET
def my_stats(request: HttpRequest) -> HttpResponse:
    """How this browser's guest plays, per rule set, from their finished games."""
    guest = guest_id_of(request.session)
    context = {
        "stats": stats_shown(records.guest_stats(guest)),
        "passed_left_out": records.has_finished_passed_games(guest),
        "entered_left_out": records.has_finished_entered_games(guest),
    }
    return render(request, "games/my_stats.html", context)


@require_GET
def review_page(request: HttpRequest, token: str) -> HttpResponse:
    """After the end: each person's decisions priced against optimal play."""
    game = _game_or_404(token)
    if game.status != Game.Status.FINISHED:
        raise Http404(error_message("not_finished"))
    # A daily entry's review shows the day's dice: its player's alone until the day is over.
    hidden = game.daily is not None and not daily.is_over(game.daily.day)
    if hidden and seat_of(game, guest_id_of(request.session)) is None:
        raise Http404(error_message("not_finished"))
    seats = game_review(game)
    totals = {s["order"]: s["total"] for s in game_snapshot(game)["seats"]}
    return render(
        request,
        "games/review.html",
        {
            "game": game,
            "ruleset_name": RULESET_NAMES[game.ruleset],
            "seats": [
                {**review_rows(game.ruleset, seat), "total": totals.get(seat.order)}
                for seat in seats
            ],
            # A duplicate game's perfect player, on the same dice.
            "perfect": game.perfect_score,
        },
    )


@require_POST
def join(request: HttpRequest, token: str) -> HttpResponse:
    # Counted before the game is looked up: a script posting joins in a loop
    # costs a counter, not the database. (The messages below travel in a
    # cookie, so a refused join writes no session either.)
    if not quotas.join_allowed(
        address=request.META.get("REMOTE_ADDR", ""), guest=guest_id_of(request.session)
    ):
        messages.error(request, error_message("too_many_joins"))
        return redirect("game", token=token)
    game = _game_or_404(token)
    form = JoinForm(request.POST)
    if form.is_valid():
        guest = guest_id_for(request.session)
        try:
            services.game_join(token=game.token, guest_id=guest, name=form.cleaned_data["name"])
        except GameError as error:
            messages.error(request, error_message(error.code))
        else:
            took_a_seat(request, guest, name=form.cleaned_data["name"])
    else:
        messages.error(request, error_message("bad_name"))
    return redirect("game", token=game.token)


@require_GET
def rules_page(request: HttpRequest, ruleset: str = "yacht") -> HttpResponse:
    if ruleset not in RULESETS:
        raise Http404(error_message("unknown_ruleset"))
    rs = get_ruleset(ruleset)
    # Every language of rules_pages.LANGUAGES has the whole page; any other
    # active language reads the English one.
    language = get_language() or "en"
    if language not in rules_pages.LANGUAGES:
        language = "en"
    alternates = []
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            alternates.append((code, request.build_absolute_uri(reverse("rules", args=[ruleset]))))
    context = {
        "alternates": alternates,
        "ruleset": rs,
        "ruleset_key": ruleset,
        "ruleset_name": RULESET_NAMES[ruleset],
        "rulesets": [(key, RULESET_NAMES[key]) for key in RULESETS],
        "rules_language": language,
        **rules_pages.page_context(ruleset, language),
    }
    template = get_template("rules/page.html")
    return HttpResponse(template.render(context, request))


def set_language(request: HttpRequest) -> HttpResponse:
    """Django's language switch, made to read ``next`` in the language of its
    own prefix.

    Django resolves ``next`` in the language of the switch request itself
    (cookie or Accept-Language), so from /es/g/<token>/ opened by a browser
    that prefers English it cannot recognise the page, and sends the player
    back to the Spanish one. Resolving it as its prefix says keeps them at the
    same table, in the language they picked.
    """
    next_url = request.POST.get("next", request.GET.get("next")) or ""
    page_language = get_language_from_path(urlsplit(next_url).path)
    with translation.override(page_language or get_language()):
        return i18n.set_language(request)
