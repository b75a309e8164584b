"""Checking a game's dice: the verification page and the JSON export that
``scripts/verify_game.py`` reads. Both recompute every roll from the seed the
server committed to, which is only revealed once the game is over."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from games.models import Game
from games.play.days import is_over
from games.present.labels import ruleset_name
from games.present.messages import error_message
from games.rules import fairness
from games.store.advice import game_roll_players
from games.store.selectors import game_by_token, game_rolls, game_seat_moves

EXPORT_FORMAT = "yacht-fair-dice/1"


def _game_or_404(token: str) -> Game:
    game = game_by_token(token)
    if game is None:
        raise Http404(error_message("no_such_game"))
    return game


def _revealed(game: Game) -> bool:
    if game.daily is not None and not is_over(game.daily.day):
        # The day's seed is every entry's: it waits for the end of the day.
        return False
    return game.status == Game.Status.FINISHED and bool(game.server_seed)


def _roll_rows(game: Game) -> list[dict[str, Any]]:
    names = game_roll_players(game)
    seed = bytes.fromhex(game.server_seed)
    checked: list[tuple[Any, fairness.Mismatch | None]]
    if game.duplicate:
        checked = list(fairness.check_duplicate_log(seed, game_seat_moves(game)))
    else:
        checked = list(fairness.check_log(seed, game_rolls(game)))
    rows = []
    for roll, mismatch in checked:
        rows.append(
            {
                "version": roll.version,
                "player": names.get(roll.version) or "",
                # People count dice from 1; the log counts positions from 0.
                "held": [p + 1 for p in roll.held],
                "dice": list(roll.dice),
                "expected": list(mismatch.expected) if mismatch else list(roll.dice),
                "wrong": [p + 1 for p in mismatch.positions] if mismatch else [],
                "ok": mismatch is None,
            }
        )
    return rows


@require_GET
def verify_page(request: HttpRequest, token: str) -> HttpResponse:
    game = _game_or_404(token)
    context: dict[str, Any] = {
        "game": game,
        "ruleset_name": ruleset_name(game.ruleset),
        "commitment": game.seed_commitment,
        "verifiable": bool(game.server_seed),
        "entered": game.dice_entered,
        "revealed": _revealed(game),
    }
    if context["revealed"]:
        rows = _roll_rows(game)
        commitment_ok = fairness.commitment_matches(
            bytes.fromhex(game.server_seed), game.seed_commitment
        )
        context.update(
            seed=game.server_seed,
            rows=rows,
            commitment_ok=commitment_ok,
            bad_rolls=sum(not row["ok"] for row in rows),
            all_ok=commitment_ok and all(row["ok"] for row in rows),
            export_url=reverse("verify_json", kwargs={"token": game.token}),
        )
    return render(request, "games/verify.html", context)


@require_GET
def verify_json(request: HttpRequest, token: str) -> JsonResponse:
    game = _game_or_404(token)
    if not game.server_seed:
        return JsonResponse({"error": "not_verifiable"}, status=404)
    if not _revealed(game):
        # The commitment is public already; the seed would give away the rolls to come.
        return JsonResponse(
            {"error": "not_finished", "commitment": game.seed_commitment}, status=403
        )
    export: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "game": game.token,
        "ruleset": game.ruleset,
        "seed": game.server_seed,
        "commitment": game.seed_commitment,
        "duplicate": game.duplicate,
    }
    if game.duplicate:
        # Each seat's scores too: they place its rolls in their rounds.
        export["moves"] = [
            {"version": v, "seat": seat, "kind": kind, "held": held, "dice": dice}
            for v, seat, kind, held, dice in game_seat_moves(game)
        ]
    else:
        export["moves"] = [
            {"version": v, "held": held, "dice": dice} for v, held, dice in game_rolls(game)
        ]
    return JsonResponse(export)
