"""Every change to a game goes through here.

Each verb runs in one transaction that locks the game row, checks who is
asking and the version they acted on, lets the rules engine decide, writes
the rows, bumps the version and registers the push with ``on_commit``, so
nobody hears of a change that could still roll back.
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import rules
from games.broadcast import push_snapshot
from games.models import MAX_SEATS, NAME_MAX_LENGTH, Game, Move, Player, ScoreEntry
from games.rules import GameError, fairness
from games.selectors import game_players, game_state, snapshot

# Only for games created before dice were derived from a seed (blank seed).
_unseeded_dice = secrets.SystemRandom()


# Marks that reorder or hide text: in a name they could make the scoreboard
# lie about who is who.
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def clean_name(name: str) -> str:
    cleaned = " ".join(str(name).split())
    if not cleaned or len(cleaned) > NAME_MAX_LENGTH:
        raise GameError("bad_name")
    if any(
        c in _BIDI_CONTROLS or unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn") for c in cleaned
    ):
        raise GameError("bad_name_characters")
    return cleaned


def _locked(token: str) -> Game:
    game = Game.objects.select_for_update().filter(token=token).first()
    if game is None:
        raise GameError("no_such_game")
    return game


def _fair_seed() -> dict[str, str]:
    """A new game's secret seed and the commitment to it that is shown from the start."""
    seed = fairness.new_seed()
    return {"server_seed": seed.hex(), "seed_commitment": fairness.commitment(seed)}


def _dice_for(game: Game, action: rules.Action) -> rules.engine.DiceRoller:
    """The game's own fair dice for the roll that will be logged as the next version."""
    if not game.server_seed:
        return _unseeded_dice
    hold = action.hold if isinstance(action, rules.Roll) else frozenset()
    return fairness.FairDice(bytes.fromhex(game.server_seed), game.version + 1, hold)


def _commit(
    game: Game,
    players: Sequence[Player],
    state: rules.GameState | None,
    *,
    fields: Sequence[str],
    last: dict[str, Any],
) -> None:
    """Bump the version, save, and push the new snapshot once committed."""
    game.version += 1
    game.save(update_fields=[*fields, "version"])
    snap = snapshot(game, players, state, last)
    transaction.on_commit(lambda: push_snapshot(snap))


def game_create(
    *,
    guest_id: str,
    name: str,
    seat_count: int = 2,
    ruleset: str = rules.DEFAULT_RULESET,
) -> Game:
    name = clean_name(name)
    if ruleset not in rules.RULESETS:
        raise GameError("unknown_ruleset")
    if not 1 <= seat_count <= MAX_SEATS:
        raise GameError("bad_seat_count")
    with transaction.atomic():
        game = Game.objects.create(
            ruleset=ruleset, seat_count=seat_count, version=1, **_fair_seed()
        )
        host = Player.objects.create(game=game, order=0, name=name, guest_id=guest_id)
        Move.objects.create(game=game, player=host, version=1, kind=Move.Kind.JOIN)
    return game


def game_join(*, token: str, guest_id: str, name: str) -> Player:
    """Take the next free seat. Joining again from the same guest returns its seat."""
    name = clean_name(name)
    with transaction.atomic():
        game = _locked(token)
        players = game_players(game)
        mine = next((p for p in players if p.guest_id == guest_id), None)
        if mine:
            return mine
        if game.status != Game.Status.LOBBY:
            raise GameError("already_started")
        if len(players) >= game.seat_count:
            raise GameError("game_full")
        player = Player.objects.create(game=game, order=len(players), name=name, guest_id=guest_id)
        Move.objects.create(game=game, player=player, version=game.version + 1, kind=Move.Kind.JOIN)
        _commit(
            game, [*players, player], None, fields=[], last={"kind": "join", "seat": player.order}
        )
    return player


def game_start(*, token: str, guest_id: str, version: int | None = None) -> Game:
    """The host (seat 1) starts the game with whoever has joined."""
    with transaction.atomic():
        game = _locked(token)
        players = game_players(game)
        host = players[0]
        if host.guest_id != guest_id:
            raise GameError("not_host")
        if game.status != Game.Status.LOBBY:
            raise GameError("already_started")
        if version is not None and version != game.version:
            raise GameError("stale_version")
        game.status = Game.Status.PLAYING
        game.started_at = timezone.now()
        # Seats nobody took are closed: the game is played by those present.
        game.seat_count = len(players)
        Move.objects.create(game=game, player=host, version=game.version + 1, kind=Move.Kind.START)
        state = rules.new_game(game.ruleset, len(players))
        _commit(
            game,
            players,
            state,
            fields=["status", "started_at", "seat_count"],
            last={"kind": "start", "seat": host.order},
        )
    return game


def game_act(
    *,
    token: str,
    guest_id: str,
    version: int,
    action: rules.Action,
    rng: rules.engine.DiceRoller | None = None,
) -> Game:
    """Apply one player's action, made against ``version`` of the game.

    Dice come from the game's seed unless ``rng`` is given (tests script them).
    """
    with transaction.atomic():
        game = _locked(token)
        if game.status == Game.Status.LOBBY:
            raise GameError("not_started")
        if game.status == Game.Status.FINISHED:
            raise GameError("game_over")
        players = game_players(game)
        seat = next((p for p in players if guest_id and p.guest_id == guest_id), None)
        if seat is None:
            raise GameError("not_seated")
        if version != game.version:
            raise GameError("stale_version")
        before = game_state(game, players)
        dice = rng if rng is not None else _dice_for(game, action)
        after = rules.apply(before, seat.order, action, dice)
        move = Move(game=game, player=seat, version=game.version + 1)
        if isinstance(action, rules.Roll):
            move.kind = Move.Kind.ROLL
            move.held = sorted(after.held)
            move.dice = list(after.dice)
        else:
            card = after.cards[seat.order]
            points = card.boxes[action.category]
            bonus = card.extra_bonus - before.cards[seat.order].extra_bonus
            ScoreEntry.objects.create(
                player=seat, category=action.category, points=points, extra_bonus=bonus
            )
            move.kind = Move.Kind.SCORE
            move.dice = list(before.dice)
            move.category = action.category
            move.points = points + bonus
        move.save()
        last = {
            "kind": move.kind,
            "seat": seat.order,
            "dice": move.dice,
            "held": move.held,
            "category": move.category,
            "points": move.points,
        }
        game.current_seat = after.current
        game.dice = list(after.dice)
        game.held = sorted(after.held)
        game.rolls_used = after.rolls
        fields = ["current_seat", "dice", "held", "rolls_used"]
        if after.finished:
            game.status = Game.Status.FINISHED
            game.finished_at = timezone.now()
            fields += ["status", "finished_at"]
        _commit(game, players, after, fields=fields, last=last)
    return game


def game_rematch(*, token: str, guest_id: str) -> Game:
    """A new game with the same seats, started at once; everyone is sent to it."""
    with transaction.atomic():
        game = _locked(token)
        if game.status != Game.Status.FINISHED:
            raise GameError("not_finished")
        players = game_players(game)
        if not any(p.guest_id == guest_id for p in players if guest_id):
            raise GameError("not_seated")
        if game.rematch_id:
            return game.rematch
        new = Game.objects.create(
            ruleset=game.ruleset,
            seat_count=len(players),
            status=Game.Status.PLAYING,
            started_at=timezone.now(),
            version=1,
            **_fair_seed(),
        )
        Player.objects.bulk_create(
            Player(game=new, order=p.order, name=p.name, guest_id=p.guest_id) for p in players
        )
        Move.objects.create(game=new, version=1, kind=Move.Kind.START)
        game.rematch = new
        state = game_state(game, players)
        _commit(game, players, state, fields=["rematch"], last={"kind": "rematch"})
    return new
