"""Reading games: the engine state of a stored game, and the public snapshot
that pages and pushes are rendered from."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from games import rules
from games.models import Game, Move, Player, ScoreEntry

Snapshot = dict[str, Any]


def game_by_token(token: str) -> Game | None:
    return Game.objects.filter(token=token).first()


def game_version(token: str) -> int | None:
    """The game's committed version, without reading the rest of it."""
    return Game.objects.filter(token=token).values_list("version", flat=True).first()


def games_hosted_since(guest_id: str, since: datetime) -> int:
    """Games this guest created from the home page (rematches aside) since ``since``."""
    return Player.objects.filter(
        guest_id=guest_id, order=0, game__created_at__gte=since, game__rematch_of__isnull=True
    ).count()


def game_players(game: Game) -> list[Player]:
    return list(game.players.order_by("order"))


def game_state(game: Game, players: Sequence[Player]) -> rules.GameState:
    """The engine's view of a stored game (seats in order)."""
    entries = ScoreEntry.objects.filter(player__game=game).values_list(
        "player_id", "category", "points", "extra_bonus"
    )
    boxes: dict[int, dict[str, int]] = {p.pk: {} for p in players}
    extra: dict[int, int] = dict.fromkeys(boxes, 0)
    for player_id, category, points, bonus in entries:
        boxes[player_id][category] = points
        extra[player_id] += bonus
    return rules.GameState(
        ruleset_key=game.ruleset,
        cards=tuple(rules.Scorecard(boxes[p.pk], extra[p.pk]) for p in players),
        current=game.current_seat,
        dice=tuple(game.dice),
        held=frozenset(game.held),
        rolls=game.rolls_used,
    )


def snapshot(
    game: Game,
    players: Sequence[Player],
    state: rules.GameState | None,
    last: dict[str, Any] | None = None,
) -> Snapshot:
    """Everything anyone may see of a game, as plain JSON-able data.

    It carries no guest ids: it goes to every viewer alike. ``last`` describes
    the action that produced this version, for announcing it.
    """
    ruleset = rules.get_ruleset(game.ruleset)
    playing = game.status == Game.Status.PLAYING
    seats = []
    for p in players:
        card = state.cards[p.order] if state else rules.Scorecard()
        t = rules.totals(ruleset, card)
        seats.append(
            {
                "order": p.order,
                "name": p.name,
                # A level: a bot's seat, or a person's seat a bot keeps for now.
                "bot": p.bot,
                "person": bool(p.guest_id),
                "boxes": dict(card.boxes),
                "upper": t.upper,
                "upper_bonus": t.upper_bonus,
                "extra_bonus": t.extra_bonus,
                "total": t.total,
            }
        )
    finished = game.status == Game.Status.FINISHED
    return {
        "token": game.token,
        "version": game.version,
        "status": game.status,
        "ruleset": game.ruleset,
        "seat_count": game.seat_count,
        "hints": game.hints,
        "acted_at": game.acted_at.timestamp() if game.acted_at else None,
        "categories": list(ruleset.category_keys),
        "upper_bonus_threshold": ruleset.upper_bonus_threshold,
        "current_seat": game.current_seat if playing else None,
        "dice": list(game.dice) if playing else [],
        "held": sorted(game.held) if playing else [],
        "rolls_used": game.rolls_used if playing else 0,
        "rolls_left": rules.MAX_ROLLS - game.rolls_used if playing else 0,
        "round": state.turn if state and playing else None,
        "rounds": len(ruleset.categories),
        "preview": state.preview() if state and playing else {},
        "seats": seats,
        "winners": list(state.winners()) if state and finished else [],
        "rematch": game.rematch.token if finished and game.rematch_id else None,
        # The seed must stay secret while dice are still to be rolled: anyone
        # holding it could predict every roll. The commitment binds it from the start.
        "commitment": game.seed_commitment,
        "seed": game.server_seed if finished else None,
        "last": last,
    }


def game_snapshot(game: Game) -> Snapshot:
    players = game_players(game)
    state = game_state(game, players) if game.status != Game.Status.LOBBY else None
    return snapshot(game, players, state)


def game_rolls(game: Game) -> list[tuple[int, list[int], list[int]]]:
    """The game's rolls from the move log as ``(version, held, dice)``, in order."""
    rows = game.moves.filter(kind=Move.Kind.ROLL).order_by("version")
    return [
        (v, list(held), list(dice)) for v, held, dice in rows.values_list("version", "held", "dice")
    ]


def seat_order(token: str, guest_id: str | None) -> int | None:
    """Where this guest sits at the game, if anywhere, in one query."""
    if not guest_id:
        return None
    return (
        Player.objects.filter(game__token=token, guest_id=guest_id)
        .values_list("order", flat=True)
        .first()
    )


def seat_of(game: Game, guest_id: str | None) -> Player | None:
    if not guest_id:
        return None
    return game.players.filter(guest_id=guest_id).first()
