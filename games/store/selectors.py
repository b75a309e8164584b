"""Reading games: the engine state of a stored game, and the public snapshot
that pages and pushes are rendered from."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Literal, NamedTuple, TypedDict, cast

from django.conf import settings
from django.db.models import Max, OuterRef, Subquery

from games import rules
from games.models import ChatMessage, Game, Move, Player, ScoreEntry
from games.runtime import runtime

if TYPE_CHECKING:
    # Only for annotations: the solver loads numpy, which pages that never
    # review a game should not wait for.
    pass

# What produced a version, for announcing it: the kinds of push.
LastKind = Literal[
    "join",
    "leave",
    "start",
    "roll",
    "hold",
    "score",
    "rematch",
    "stand_in",
    "take_back",
    "clock",
    "chat",
    "bot_pace",
]
# Each kind as docs/protocol.md tells it (written from here by manage.py protocol_doc).
LAST_KINDS: dict[LastKind, str] = {
    "join": "a person or a bot took a seat in the lobby",
    "leave": "the host took a bot off its seat (later seats moved up)",
    "start": "the game started",
    "roll": "`seat` rolled: `dice` are the dice now, `held` the positions kept",
    "hold": "`seat` now keeps the dice at the positions `held` for its next roll",
    "score": "`seat` scored `points` (extra bonus included) in `category` with `dice`",
    "rematch": "the players moved to a new game (see `rematch`)",
    "stand_in": "a bot now plays for `seat`, whose person was idle",
    "take_back": "the person of `seat` took it back from the bot",
    "chat": "the host opened or closed the chat to spectators (see `spectator_chat`)",
    "bot_pace": "the host changed the bots' pace (see `bot_pace`)",
    "clock": "the turn clock of `seat` ran out: the stand-in bot plays that turn (or round) "
    "for it, then leaves the seat to its person for the next",
}


class Last(TypedDict):
    kind: LastKind
    seat: int | None  # who did it (None: nobody in particular)
    dice: list[int]  # a roll: the dice after it; a score: the dice scored
    held: list[int]  # a roll or a hold: the positions kept
    category: str  # a score: the box
    points: int | None  # a score: the points, extra bonus included


class SeatSnapshot(TypedDict):
    order: int
    name: str
    # A level: a bot's seat, or a person's seat a bot keeps for now.
    bot: str
    person: bool
    # Pass and play: this seat's person shares one device with the others so marked.
    shared: bool
    boxes: dict[str, int]
    upper: int
    upper_bonus: int
    extra_bonus: int
    total: int


class SettledCard(TypedDict):
    """A seat's figures without its box of the round being played."""

    boxes: dict[str, int]
    upper: int
    upper_bonus: int
    extra_bonus: int
    total: int


class HandSnapshot(TypedDict):
    """One seat's turn of the current round in a duplicate game. Only its
    own seat may see ``dice``, ``held`` and ``preview`` before the round is
    over (``seen_by`` takes them out for everyone else)."""

    order: int
    dice: list[int]
    held: list[int]
    rolls_used: int
    scored: bool
    preview: dict[str, int]
    settled: SettledCard


class RoundResult(TypedDict):
    order: int
    dice: list[int]
    category: str
    points: int


class DuplicateSnapshot(TypedDict):
    round: int
    hands: list[HandSnapshot]
    # The last round every seat has played, side by side (None before one).
    results_round: int | None
    results: list[RoundResult]
    # The perfect player's score on the same dice, once the game is over.
    perfect: int | None
    # The day (ISO date) of the daily challenge this game is an entry to.
    daily: str | None


class Snapshot(TypedDict):
    """Everything anyone may see of a game at one version (docs/protocol.md's ``state``)."""

    token: str
    version: int
    status: rules.Status
    ruleset: str
    seat_count: int
    hints: bool
    # A companion game: the players entered every die (no seed, no commitment).
    dice_entered: bool
    acted_at: float | None
    turn_seconds: int  # the turn clock, 0 for none
    # When the seat to move runs out of time (seconds since the epoch), if a clock runs.
    deadline: float | None
    spectator_chat: bool
    bot_pace: str  # "normal" or "fast": how long bots pause between steps
    categories: list[str]
    upper_bonus_threshold: int | None
    current_seat: int | None
    dice: list[int]
    held: list[int]
    rolls_used: int
    rolls_left: int
    round: int | None
    rounds: int
    preview: dict[str, int]
    seats: list[SeatSnapshot]
    winners: list[int]
    rematch: str | None
    commitment: str
    seed: str | None
    last: Last | None
    # A duplicate game's rounds (None for a turn-based game).
    duplicate: DuplicateSnapshot | None


class ChatLine(TypedDict):
    """One line of a table's chat, as pushed (docs/protocol.md's ``chat``)."""

    id: int
    token: str
    seat: int | None  # None: a spectator
    name: str  # the seat's name when it was said ("" for a spectator)
    text: str  # free text, or "" for a quick phrase or reaction
    code: str  # a quick phrase's or reaction's code, or ""
    at: float


# A table shows its latest lines; the admin keeps them all.
CHAT_LINES_SHOWN = 50


def chat_line(line: ChatMessage, token: str) -> ChatLine:
    return {
        "id": line.pk,
        "token": token,
        "seat": line.player.order if line.player else None,
        "name": line.name,
        "text": line.text,
        "code": line.code,
        "at": line.created_at.timestamp(),
    }


def game_chat_lines(token: str) -> list[ChatLine]:
    """The latest lines of a game's chat, oldest first."""
    rows = (
        ChatMessage.objects.filter(game__token=token)
        .select_related("player")
        .order_by("-pk")[:CHAT_LINES_SHOWN]
    )
    return [chat_line(line, token) for line in reversed(rows)]


def last_action(kind: LastKind, seat: int | None = None, move: Move | None = None) -> Last:
    """What a push announces, from the logged move when there is one."""
    return {
        "kind": kind,
        "seat": seat,
        "dice": list(move.dice) if move else [],
        "held": list(move.held) if move else [],
        "category": move.category if move else "",
        "points": move.points if move else None,
    }


def game_by_token(token: str) -> Game | None:
    return Game.objects.filter(token=token).first()


def clock_ran_out(status: str, deadline: datetime | float | int | None) -> bool:
    """Whether a game's turn clock has run out with nobody acting on it: the
    game in play, a deadline set, and that deadline passed. ``deadline`` as
    the row stores it, or as a snapshot carries it (seconds since the epoch)."""
    if status != Game.Status.PLAYING or deadline is None:
        return False
    if isinstance(deadline, datetime):
        return deadline <= runtime.clock.now()
    return deadline <= runtime.clock.time()


class Sync(NamedTuple):
    """What a ``sync`` reads: the committed version, and whether the turn
    clock has run out with nobody acting on it yet."""

    version: int
    clock_due: bool


def game_sync(*, token: str, guest_id: str, version: int | None = None) -> Sync:
    """The game's committed version, for a client asking whether it shows it
    (one indexed read: the rest of the game is read only if it does not)."""
    row = Game.objects.filter(token=token).values_list("version", "status", "turn_deadline").first()
    if row is None:
        raise rules.GameError("no_such_game")
    current, status, deadline = row
    return Sync(current, clock_ran_out(status, deadline))


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
    return state_of(game, tuple(rules.Scorecard(boxes[p.pk], extra[p.pk]) for p in players))


def state_of(game: Game, cards: tuple[rules.Scorecard, ...]) -> rules.GameState:
    return rules.GameState(
        ruleset_key=game.ruleset,
        cards=cards,
        current=game.current_seat,
        dice=tuple(game.dice),
        held=frozenset(game.held),
        rolls=game.rolls_used,
    )


def duplicate_state(
    game: Game, players: Sequence[Player], scores: rules.GameState
) -> rules.DuplicateState:
    """A duplicate game's engine state: ``scores``' cards and each seat's hand."""
    return rules.DuplicateState(
        ruleset_key=game.ruleset,
        cards=scores.cards,
        hands=tuple(rules.Hand(tuple(p.dice), frozenset(p.held), p.rolls_used) for p in players),
    )


def _scored_rounds(game: Game) -> dict[int, list[RoundResult]]:
    """Each seat's scores in round order, from the move log."""
    rows = (
        game.moves.filter(kind=Move.Kind.SCORE)
        .order_by("version")
        .values_list("player__order", "dice", "category", "points")
    )
    rounds: dict[int, list[RoundResult]] = {}
    for order, dice, category, points in rows:
        rounds.setdefault(order, []).append(
            {"order": order, "dice": list(dice), "category": category, "points": points or 0}
        )
    return rounds


def _duplicate_snapshot(
    game: Game, players: Sequence[Player], state: rules.GameState | None
) -> DuplicateSnapshot:
    ruleset = rules.get_ruleset(game.ruleset)
    # In the lobby too, so that whoever joins knows how the game is played.
    dup = duplicate_state(
        game, players, state or rules.new_game(game.ruleset, max(len(players), 1))
    )
    scored = _scored_rounds(game)
    done = min(len(card.boxes) for card in dup.cards)
    hands: list[HandSnapshot] = []
    for p in players:
        card = dup.cards[p.order]
        settled_card = _as_the_round_found_it(card, scored.get(p.order, []), done)
        t = rules.totals(ruleset, settled_card)
        view = dup.view(p.order)
        hands.append(
            {
                "order": p.order,
                "dice": list(p.dice),
                "held": sorted(p.held),
                "rolls_used": p.rolls_used,
                "scored": view is None,
                "preview": view.preview() if view is not None else {},
                "settled": {
                    "boxes": dict(settled_card.boxes),
                    "upper": t.upper,
                    "upper_bonus": t.upper_bonus,
                    "extra_bonus": t.extra_bonus,
                    "total": t.total,
                },
            }
        )
    results_round = done if done else None
    results = [scored[p.order][done - 1] for p in players if done and p.order in scored]
    return {
        "round": dup.round,
        "hands": hands,
        "results_round": results_round,
        "results": results,
        "perfect": game.perfect_score if game.status == Game.Status.FINISHED else None,
        "daily": game.daily.day.isoformat() if game.daily_id and game.daily else None,
    }


def _as_the_round_found_it(
    card: rules.Scorecard, mine: list[RoundResult], done: int
) -> rules.Scorecard:
    """A seat's card without its box of round ``done + 1`` if it has scored
    it (``mine``: its scores in round order): the others see the seat as it
    was until the round is over."""
    if len(card.boxes) <= done or len(mine) <= done:
        return card
    entry = mine[done]
    points = card.boxes.get(entry["category"], 0)
    boxes = {k: v for k, v in card.boxes.items() if k != entry["category"]}
    return rules.Scorecard(boxes, card.extra_bonus - (entry["points"] - points))


def seen_by(snap: Snapshot, me: int | None) -> Snapshot:
    """``snap`` as the viewer in seat ``me`` (None: a spectator) may see it.

    A turn-based game hides nothing. In a duplicate game's round, another
    seat's dice, holds and this round's box would tell what the shared dice
    bring, so until the round is over a seat sees only its own and a
    spectator nobody's: the others' progress, and their cards as the round
    found them. This is the one place a snapshot becomes a viewer's, so
    every page and push (and the view cache, keyed by seat) agrees.

    A daily challenge's game is played on the day's dice, which everyone
    plays: a spectator of one sees no box, total or round of it at all
    (whatever the time, so a version's view never changes).
    """
    dup = snap["duplicate"]
    if dup is not None and dup["daily"] and me is None:
        return _unseen_daily(snap, dup)
    if dup is None or snap["status"] != "playing":
        return snap
    hands: list[HandSnapshot] = []
    seats: list[SeatSnapshot] = []
    mine: HandSnapshot | None = None
    for seat, hand in zip(snap["seats"], dup["hands"], strict=True):
        if hand["order"] == me:
            mine = hand
            hands.append(hand)
            seats.append(seat)
        else:
            hands.append({**hand, "dice": [], "held": [], "preview": {}})
            seats.append({**seat, **hand["settled"]})
    last = snap["last"]
    if last is not None and last["seat"] != me and last["kind"] in ("roll", "hold", "score"):
        last = {**last, "dice": [], "held": [], "category": "", "points": None}
    playing = mine is not None and not mine["scored"]
    return {
        **snap,
        "seats": seats,
        "current_seat": me if playing else None,
        "dice": mine["dice"] if mine else [],
        "held": mine["held"] if mine else [],
        "rolls_used": mine["rolls_used"] if mine else 0,
        "rolls_left": rules.MAX_ROLLS - mine["rolls_used"] if mine else 0,
        "preview": mine["preview"] if mine else {},
        "last": last,
        "duplicate": {**dup, "hands": hands},
    }


def _unseen_daily(snap: Snapshot, dup: DuplicateSnapshot) -> Snapshot:
    nothing: SettledCard = {
        "boxes": {},
        "upper": 0,
        "upper_bonus": 0,
        "extra_bonus": 0,
        "total": 0,
    }
    last = snap["last"]
    if last is not None:
        last = {**last, "dice": [], "held": [], "category": "", "points": None}
    return {
        **snap,
        "seats": [{**seat, **nothing} for seat in snap["seats"]],
        "current_seat": None,
        "dice": [],
        "held": [],
        "rolls_used": 0,
        "rolls_left": 0,
        "preview": {},
        "winners": [],
        "last": last,
        "duplicate": {
            **dup,
            "hands": [
                {**h, "dice": [], "held": [], "preview": {}, "settled": nothing}
                for h in dup["hands"]
            ],
            "results_round": None,
            "results": [],
        },
    }


def snapshot(
    game: Game,
    players: Sequence[Player],
    state: rules.GameState | None,
    last: Last | None = None,
) -> Snapshot:
    """Everything anyone may see of a game, as plain JSON-able data.

    It carries no guest ids: it goes to every viewer alike. ``last`` describes
    the action that produced this version, for announcing it.
    """
    ruleset = rules.get_ruleset(game.ruleset)
    playing = game.status == Game.Status.PLAYING
    seats = [
        _seat_snapshot(ruleset, p, state.cards[p.order] if state else rules.Scorecard())
        for p in players
    ]
    finished = game.status == Game.Status.FINISHED
    dup = _duplicate_snapshot(game, players, state) if game.duplicate else None
    return {
        "token": game.token,
        "version": game.version,
        "status": cast(rules.Status, game.status),
        "ruleset": game.ruleset,
        "seat_count": game.seat_count,
        "hints": game.hints,
        "dice_entered": game.dice_entered,
        "acted_at": game.acted_at.timestamp() if game.acted_at else None,
        "turn_seconds": game.turn_seconds,
        "deadline": game.turn_deadline.timestamp() if playing and game.turn_deadline else None,
        "spectator_chat": game.spectator_chat,
        "bot_pace": game.bot_pace,
        "categories": list(ruleset.category_keys),
        "upper_bonus_threshold": ruleset.upper_bonus_threshold,
        **_turn_snapshot(game, state, dup),
        "rounds": len(ruleset.categories),
        "preview": state.preview() if state and playing else {},
        "seats": seats,
        "winners": list(state.winners()) if state and finished else [],
        "rematch": game.rematch.token if finished and game.rematch is not None else None,
        # The seed must stay secret while dice are still to be rolled: anyone
        # holding it could predict every roll. The commitment binds it from the start.
        "commitment": game.seed_commitment,
        # A daily challenge's seed is everyone's that day: its page reveals it
        # once the day is over (a version's snapshot never changes).
        "seed": (game.server_seed or None) if finished and not game.daily_id else None,
        "last": last,
        "duplicate": dup,
    }


class _TurnSnapshot(TypedDict):
    """Where play stands (``Snapshot``'s keys of the same names): nothing
    outside play."""

    current_seat: int | None
    dice: list[int]
    held: list[int]
    rolls_used: int
    rolls_left: int
    round: int | None


def _turn_snapshot(
    game: Game, state: rules.GameState | None, dup: DuplicateSnapshot | None
) -> _TurnSnapshot:
    if game.status != Game.Status.PLAYING:
        return {
            "current_seat": None,
            "dice": [],
            "held": [],
            "rolls_used": 0,
            "rolls_left": 0,
            "round": None,
        }
    return {
        "current_seat": game.current_seat,
        "dice": list(game.dice),
        "held": sorted(game.held),
        "rolls_used": game.rolls_used,
        "rolls_left": rules.MAX_ROLLS - game.rolls_used,
        "round": (dup["round"] if dup else state.turn) if state else None,
    }


def _seat_snapshot(ruleset: rules.RuleSet, p: Player, card: rules.Scorecard) -> SeatSnapshot:
    t = rules.totals(ruleset, card)
    return {
        "order": p.order,
        "name": p.name,
        # A level: a bot's seat, or a person's seat a bot keeps for now.
        "bot": p.bot,
        "person": bool(p.guest_id),
        "shared": p.shared,
        "boxes": dict(card.boxes),
        "upper": t.upper,
        "upper_bonus": t.upper_bonus,
        "extra_bonus": t.extra_bonus,
        "total": t.total,
    }


def game_snapshot(game: Game, players: list[Player] | None = None) -> Snapshot:
    """``game``'s snapshot, from its seats read here unless already given."""
    if players is None:
        players = game_players(game)
    state = game_state(game, players) if game.status != Game.Status.LOBBY else None
    return snapshot(game, players, state)


class RecentSnapshots:
    """The snapshots of recent versions this process has seen, by game and version.

    Every change to what anyone may see of a game bumps its version, so the
    snapshot of a version never changes: a socket asking for the table again
    (a sync, a reconnect) needs only the game's current version from the
    database, and the snapshot itself when this process already built or
    received it. Kept without ``last``, as a read from the database is.
    """

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._known: OrderedDict[tuple[str, int], Snapshot] = OrderedDict()

    def remember(self, snap: Snapshot) -> None:
        key = (snap["token"], snap["version"])
        with self._lock:
            if key not in self._known:
                self._known[key] = snap if snap["last"] is None else {**snap, "last": None}
                if len(self._known) > self.size:
                    self._known.popitem(last=False)

    def get(self, token: str, version: int) -> Snapshot | None:
        with self._lock:
            snap = self._known.get((token, version))
            if snap is not None:
                self._known.move_to_end((token, version))
            return snap

    def clear(self) -> None:
        with self._lock:
            self._known.clear()


def recent() -> RecentSnapshots:
    """This process's ``RecentSnapshots``."""
    return runtime.part(RecentSnapshots)


def game_viewed_by(token: str, guest_id: str | None) -> tuple[Snapshot, int | None] | None:
    """A game's snapshot and the seat of the guest looking at it (None: a
    spectator), or None if there is no such game.

    One indexed read when this process knows the game's current version
    already; the whole game is read only when it does not.
    """
    seat_query = Player.objects.filter(game=OuterRef("pk"), guest_id=guest_id or None)
    row = (
        Game.objects.filter(token=token)
        .annotate(seat=Subquery(seat_query.values("order")[:1]))
        .values_list("version", "seat")
        .first()
    )
    if row is None:
        return None
    version, seat = row
    snap = recent().get(token, version)
    if snap is not None:
        return snap, seat
    # Not seen here yet: read the whole game, and the seat again from the
    # same read (a lobby's seats may have moved in between).
    game = Game.objects.filter(token=token).first()
    if game is None:
        return None
    players = game_players(game)
    state = game_state(game, players) if game.status != Game.Status.LOBBY else None
    snap = snapshot(game, players, state)
    recent().remember(snap)
    mine = seat_among(players, guest_id)
    return snap, (mine.order if mine else None)


def game_rolls(game: Game) -> list[tuple[int, list[int], list[int]]]:
    """The game's rolls from the move log as ``(version, held, dice)``, in order."""
    rows = game.moves.filter(kind=Move.Kind.ROLL).order_by("version")
    return [
        (v, list(held), list(dice)) for v, held, dice in rows.values_list("version", "held", "dice")
    ]


def game_seat_moves(game: Game) -> list[tuple[int, int, str, list[int], list[int]]]:
    """A duplicate game's rolls and scores as ``(version, seat, kind, held,
    dice)``, in order: what places each roll in its round and roll."""
    rows = (
        game.moves.filter(kind__in=[Move.Kind.ROLL, Move.Kind.SCORE])
        .order_by("version")
        .values_list("version", "player__order", "kind", "held", "dice")
    )
    return [(v, order, kind, list(held), list(dice)) for v, order, kind, held, dice in rows]


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


def seat_among(
    players: Sequence[Player], guest_id: str | None, to_move: int | None = None
) -> Player | None:
    """The seat ``guest_id`` acts for among a game's seats, the seat
    ``to_move`` being the one whose turn it is (``rules.seat_acting``: in
    pass and play a guest holds several); None for a spectator or no
    session (bots' seats have no guest id, and must never match one)."""
    if not guest_id:
        return None
    owned = [p for p in players if p.guest_id == guest_id]
    acting = rules.seat_acting([p.order for p in owned], to_move)
    return next((p for p in owned if p.order == acting), None)


def rules_table(
    game: Game, players: Sequence[Player], state: rules.GameState | None
) -> rules.Table:
    """A stored game as the rules' checks see it (``state`` is None in the lobby)."""
    idle = (runtime.clock.now() - game.acted_at).total_seconds() if game.acted_at else 0.0
    turns = fresh_from = None
    if game.duplicate and state is not None:
        dup = duplicate_state(game, players, state)
        turns = tuple(dup.view(p.order) for p in players)
        fresh_from = _fresh_from(game, players)
    return rules.Table(
        status=cast(rules.Status, game.status),
        version=game.version,
        seat_count=game.seat_count,
        seats=tuple(rules.Seat(person=bool(p.guest_id), bot=p.bot) for p in players),
        game=state,
        hints=game.hints,
        absent=idle >= settings.YACHT_ABSENT_AFTER,
        spectator_chat=game.spectator_chat,
        turns=turns,
        fresh_from=fresh_from,
        clock=bool(game.turn_seconds),
        daily=game.daily_id is not None,
        entered=game.dice_entered,
    )


def _fresh_from(game: Game, players: Sequence[Player]) -> tuple[int, ...]:
    """Per seat of a duplicate game in play, the version of its last move
    (or of the start): an action made against any later version is current."""
    moves = game.moves.filter(kind__in=[Move.Kind.START, Move.Kind.ROLL, Move.Kind.SCORE])
    last = dict(
        moves.exclude(kind=Move.Kind.START)
        .values("player_id")
        .annotate(latest=Max("version"))
        .values_list("player_id", "latest")
    )
    started = moves.filter(kind=Move.Kind.START).aggregate(v=Max("version"))["v"] or 0
    return tuple(max(last.get(p.pk, 0), started) for p in players)


def snapshot_table(snap: Snapshot, *, absent: bool) -> rules.Table:
    """A snapshot as the rules' checks see it. Whether the seat to move is
    absent is the caller's to say: a snapshot is not told the time."""
    state = None
    if snap["status"] != "lobby":
        state = rules.GameState(
            ruleset_key=snap["ruleset"],
            cards=tuple(rules.Scorecard(s["boxes"], s["extra_bonus"]) for s in snap["seats"]),
            current=snap["current_seat"] or 0,
            dice=tuple(snap["dice"]),
            held=frozenset(snap["held"]),
            rolls=snap["rolls_used"],
        )
    turns = None
    dup = snap["duplicate"]
    if dup is not None and state is not None:
        turns = tuple(
            None
            if hand["scored"]
            else rules.GameState(
                ruleset_key=state.ruleset_key,
                cards=state.cards,
                current=hand["order"],
                dice=tuple(hand["dice"]),
                held=frozenset(hand["held"]),
                rolls=hand["rolls_used"],
            )
            for hand in dup["hands"]
        )
    return rules.Table(
        status=snap["status"],
        version=snap["version"],
        seat_count=snap["seat_count"],
        seats=tuple(rules.Seat(person=s["person"], bot=s["bot"]) for s in snap["seats"]),
        game=state,
        hints=snap["hints"],
        absent=absent,
        spectator_chat=snap["spectator_chat"],
        turns=turns,
        clock=bool(snap["turn_seconds"]),
        daily=bool(snap["duplicate"] and snap["duplicate"]["daily"]),
        entered=snap["dice_entered"],
    )
