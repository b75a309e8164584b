"""A guest's own record, read from the games they sat at: the list of their
games (lobby, in play, finished) and their statistics per rule set.

Only what this guest's seats say is read: another guest's games never
appear, whatever the page is asked. What is read is data: the names people
read and the chart are drawn by ``games.present.guest_record``.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime

from django.db import transaction
from django.db.models import Exists, F, OuterRef, QuerySet, Subquery

from games import rules
from games.models import Game, Player, ScoreEntry

log = logging.getLogger(__name__)

# A page lists this many of a guest's latest games.
GAMES_LISTED = 60


@dataclass
class MyGame:
    token: str
    ruleset: str
    status: str
    created_at: datetime
    finished_at: datetime | None
    seat: int
    names: list[str]
    your_turn: bool = False
    round: int | None = None
    rounds: int = 0
    place: int | None = None
    score: int | None = None
    seats_taken: int = 0
    seat_count: int = 0
    # The day of a daily challenge's entry.
    daily: date | None = None
    # Played with real dice, entered by the players.
    dice_entered: bool = False

    @property
    def opponents(self) -> list[str]:
        """Who else sits at the table (bots by their level's name)."""
        return [name for order, name in enumerate(self.names) if order != self.seat]


def _cards(games: list[Game]) -> dict[int, dict[int, rules.Scorecard]]:
    """Every seat's scorecard of these games, by game id and seat, in one query."""
    boxes: dict[int, dict[int, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    extra: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    rows = ScoreEntry.objects.filter(player__game__in=games).values_list(
        "player__game_id", "player__order", "category", "points", "extra_bonus"
    )
    for game_id, order, category, points, bonus in rows:
        boxes[game_id][order][category] = points
        extra[game_id][order] += bonus
    return {
        game_id: {order: rules.Scorecard(b, extra[game_id][order]) for order, b in seats.items()}
        for game_id, seats in boxes.items()
    }


def seat_total(player: Player) -> int:
    """A seat's total as its scorecard stands, bonuses included."""
    card = _cards([player.game]).get(player.game_id, {}).get(player.order, rules.Scorecard())
    return rules.totals(rules.get_ruleset(player.game.ruleset), card).total


def has_finished_a_game(guest_id: str | None) -> bool:
    """This guest has played a game to its end (the coaching of a first game
    stops once they have)."""
    return (
        bool(guest_id)
        and Game.objects.filter(status=Game.Status.FINISHED, players__guest_id=guest_id).exists()
    )


def guest_games(
    guest_id: str, *, unfinished: bool = False, limit: int = GAMES_LISTED
) -> list[MyGame]:
    """The games this guest has a seat at, newest first; with ``unfinished``,
    only those in the lobby or in play (so a guest with a long record reads
    none of it for a list of the games still open)."""
    if not guest_id:
        return []
    seats = _listed_seats(guest_id, unfinished=unfinished, limit=limit)
    games = [s.game for s in seats]
    names, owned = _seat_names(games, guest_id)
    cards = _cards([g for g in games if g.status != Game.Status.LOBBY])
    listed = []
    for seat in seats:
        game = seat.game
        ruleset = rules.get_ruleset(game.ruleset)
        mine = MyGame(
            token=game.token,
            ruleset=game.ruleset,
            status=game.status,
            created_at=game.created_at,
            finished_at=game.finished_at,
            seat=seat.order,
            names=names[game.pk],
            rounds=len(ruleset.categories),
            seats_taken=len(names[game.pk]),
            seat_count=game.seat_count,
            daily=game.daily.day if game.daily is not None else None,
            dice_entered=game.dice_entered,
        )
        _where_it_stands(mine, game, seat.order, cards.get(game.pk, {}), owned[game.pk])
        listed.append(mine)
    return listed


def _listed_seats(guest_id: str, *, unfinished: bool, limit: int) -> list[Player]:
    """The guest's seats, with their games, one a game: the first it holds
    (in pass and play, one browser holds several), newest game first."""
    first = Player.objects.filter(game=OuterRef("game"), guest_id=guest_id).order_by("order")
    seated = (
        Player.objects.filter(guest_id=guest_id)
        .annotate(first=Subquery(first.values("order")[:1]))
        .filter(order=F("first"))
    )
    if unfinished:
        seated = seated.exclude(game__status=Game.Status.FINISHED)
    return list(seated.select_related("game__daily").order_by("-game__created_at")[:limit])


def _seat_names(
    games: list[Game], guest_id: str
) -> tuple[dict[int, list[str]], dict[int, set[int]]]:
    """Per game, its seats' names in order and the places ``guest_id`` holds."""
    names: dict[int, list[str]] = defaultdict(list)
    owned: dict[int, set[int]] = defaultdict(set)
    for game_id, name, order, guest in (
        Player.objects.filter(game__in=games)
        .order_by("order")
        .values_list("game_id", "name", "order", "guest_id")
    ):
        names[game_id].append(name)
        if guest == guest_id:
            owned[game_id].add(order)
    return names, owned


def _where_it_stands(
    mine: MyGame, game: Game, order: int, card_of: dict[int, rules.Scorecard], owned: set[int]
) -> None:
    """The round, whose turn and the score of a game in play; the score and
    place of a finished one. ``owned`` are the places the guest holds (in
    pass and play, every person's: each person's turn is the device's)."""
    ruleset = rules.get_ruleset(game.ruleset)
    if game.status == Game.Status.PLAYING:
        mine.round = min(len(c.boxes) for c in card_of.values()) + 1 if card_of else 1
        if game.duplicate:
            # Everyone plays each round: it is your turn until you have played this one.
            mine.your_turn = len(card_of.get(order, rules.Scorecard()).boxes) < mine.round
        else:
            mine.your_turn = game.current_seat in owned
        mine.score = rules.totals(ruleset, card_of.get(order, rules.Scorecard())).total
    elif game.status == Game.Status.FINISHED:
        totals = {seat: rules.totals(ruleset, card).total for seat, card in card_of.items()}
        mine.score = totals.get(order, 0)
        mine.place = 1 + sum(1 for t in totals.values() if t > mine.score)


@dataclass
class RulesetStats:
    ruleset: str
    games: int = 0
    wins: int = 0
    # Each game's score, oldest first.
    scores: list[int] = field(default_factory=list)
    yachts: int = 0
    upper_bonuses: int = 0
    has_upper_bonus: bool = False
    lost: list[float] = field(default_factory=list)

    @property
    def average(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    @property
    def best(self) -> int:
        return max(self.scores, default=0)

    @property
    def average_lost(self) -> float | None:
        return sum(self.lost) / len(self.lost) if self.lost else None


def has_finished_passed_games(guest_id: str) -> bool:
    """This guest's browser was passed round a table to the end of a game
    (pass and play), which its stats leave out."""
    return (
        bool(guest_id)
        and Player.objects.filter(
            guest_id=guest_id, shared=True, game__status=Game.Status.FINISHED
        ).exists()
    )


def has_finished_entered_games(guest_id: str) -> bool:
    """This guest finished a companion game (dice entered by the players),
    which its stats keep apart: entered dice prove nothing."""
    return (
        bool(guest_id)
        and Player.objects.filter(
            guest_id=guest_id, game__dice_entered=True, game__status=Game.Status.FINISHED
        ).exists()
    )


def guest_stats(guest_id: str) -> list[RulesetStats]:
    """This guest's finished games, summed up per rule set (in the order the
    rule sets are offered), each with its scores over time."""
    if not guest_id:
        return []
    seats = list(
        # A pass-and-play game's seats are the people who held the device,
        # not this browser's own: its stats would sum up several people.
        # A companion game's dice are whatever was entered: its scores say
        # nothing of how this guest plays dice nobody chose.
        Player.objects.filter(
            guest_id=guest_id,
            shared=False,
            game__dice_entered=False,
            game__status=Game.Status.FINISHED,
        )
        .select_related("game")
        .order_by("game__finished_at", "game__pk")
    )
    cards = _cards([s.game for s in seats])
    found: dict[str, RulesetStats] = {}
    for seat in seats:
        game = seat.game
        ruleset = rules.get_ruleset(game.ruleset)
        stats = found.setdefault(
            game.ruleset,
            RulesetStats(game.ruleset, has_upper_bonus=ruleset.upper_bonus_threshold is not None),
        )
        card_of = cards.get(game.pk, {})
        totals = {order: rules.totals(ruleset, card) for order, card in card_of.items()}
        mine = totals.get(seat.order) or rules.totals(ruleset, rules.Scorecard())
        stats.games += 1
        stats.scores.append(mine.total)
        # A solitaire has nobody to beat: it is not counted as a win.
        if len(totals) > 1 and all(t.total <= mine.total for t in totals.values()):
            stats.wins += 1
        card = card_of.get(seat.order, rules.Scorecard())
        if card.boxes.get("yacht", 0) > 0:
            stats.yachts += 1
        if mine.upper_bonus:
            stats.upper_bonuses += 1
        if seat.lost_to_optimal is not None:
            stats.lost.append(seat.lost_to_optimal)
    return [found[key] for key in rules.RULESETS if key in found]


def keep_losses(game: Game) -> None:
    """As ``game`` ends, in the transaction that ends it: each person's
    points lost to optimal play, from the review of the whole game (which
    reads the solver's tables), kept on their seat for My stats, so no page
    writes them. Only for games My stats counts: a daily entry's are worked
    out once its day is over (``daily.daily_work_out_over``), and a game of
    real dice or passed round one device is left out of the stats. Games
    that ended before this was kept have it from ``losses_backfill``.

    A review that fails leaves the game ended as it is, with no losses kept:
    the end is committed whatever this says."""
    from games.store.advice import game_review

    if game.daily_id is not None or game.dice_entered:
        return
    counted = Player.objects.filter(game=game, shared=False).exclude(guest_id="")
    if not counted.exists():
        return
    try:
        with transaction.atomic():  # a savepoint: a failure here undoes only this
            for review in game_review(game):
                counted.filter(order=review.order).update(lost_to_optimal=review.cost)
    except Exception:
        log.warning("could not review game %s for its stats", game.token, exc_info=True)


def unreviewed_games() -> QuerySet[Game]:
    """Finished games My stats counts (as ``keep_losses`` picks them) with a
    counted seat whose points lost were never kept: games that ended before
    the write that ends a game kept them, whose guests' stats page never
    worked them out, and any whose review failed as it ended."""
    missing = Player.objects.filter(
        game=OuterRef("pk"), shared=False, lost_to_optimal__isnull=True
    ).exclude(guest_id="")
    return Game.objects.filter(
        status=Game.Status.FINISHED, daily__isnull=True, dice_entered=False
    ).filter(Exists(missing))


def losses_backfill(*, limit: int) -> tuple[int, int]:
    """Keep the points lost of at most ``limit`` of ``unreviewed_games``,
    newest first, each game in its own transaction through ``keep_losses``;
    how many games had them kept and how many reviews failed.

    Newest first: the guests of recent games are the likeliest to open My
    stats, and the oldest games' logs the likeliest to fail a review for
    good, so those wait at the end rather than hold up every run. The games
    are chosen once, so a review that fails is tried once a run and never
    stops it (``keep_losses`` logs it and keeps nothing)."""
    games = list(unreviewed_games().order_by("-pk")[:limit])
    kept = 0
    for game in games:
        with transaction.atomic():
            keep_losses(game)
        if not unreviewed_games().filter(pk=game.pk).exists():
            kept += 1
    return kept, len(games) - kept


# Less than this given away reads as 0.0 points: said as perfect play.
TO_A_TENTH = 0.05


@dataclass
class SeatVerdict:
    """What the review says of one seat's game, in one line: the points it
    gave away to optimal play and the round of its costliest choice (None
    when no choice cost anything)."""

    cost: float
    costliest_round: int | None


def seat_verdict(player: Player) -> SeatVerdict | None:
    """The review's verdict on a person's seat of a finished game (None for a
    bot's). Only read: the points lost were kept as the game ended."""
    from games.store.advice import game_review

    review = next((r for r in game_review(player.game) if r.order == player.order), None)
    if review is None:
        return None
    worst = max(review.decisions, key=lambda d: d.cost, default=None)
    return SeatVerdict(
        cost=review.cost,
        costliest_round=worst.round if worst is not None and review.cost >= TO_A_TENTH else None,
    )
