"""The daily challenge: one duplicate solitaire a day on the same dice for
everyone, and its board.

A day's seed is made the day before it (whoever first opens the daily page
makes today's and tomorrow's), so its commitment is public ahead of play;
the seed itself is revealed when the day (UTC) is over, and with it each
entry's dice, review and points lost to optimal play. During the day the
board shows names and totals only.

Those losses and the perfect player's score take the solver seconds, so
no page works them out: ``daily_work_out_over`` does, from the scheduled
``clean_stale`` command, and the board says they are being worked out
until it has.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.crypto import salted_hmac

from games import rules
from games.models import DailyChallenge, DailyEntry, Game, Player, ScoreEntry
from games.play import services
from games.play.days import is_over, today
from games.play.names import clean_name, skeletons
from games.rules import GameError, fairness
from yachtsite.clientaddr import address_group


def daily_challenge(day: date) -> DailyChallenge | None:
    """The challenge of ``day``: made now if it is today or tomorrow, never
    for a day already begun before this call could have published it."""
    found = DailyChallenge.objects.filter(day=day).first()
    if found is not None or day not in (today(), today() + timedelta(days=1)):
        return found
    seed = fairness.new_seed()
    try:
        with transaction.atomic():
            return DailyChallenge.objects.create(
                day=day,
                ruleset=rules.DEFAULT_RULESET,
                server_seed=seed.hex(),
                seed_commitment=fairness.commitment(seed),
            )
    except IntegrityError:
        # Another request made it first: theirs is the day's.
        return DailyChallenge.objects.get(day=day)


def daily_entry_of(challenge: DailyChallenge, guest_id: str) -> DailyEntry | None:
    if not guest_id:
        return None
    return challenge.entries.filter(guest_id=guest_id).select_related("game").first()


def daily_entry_today(guest_id: str) -> DailyEntry | None:
    """This guest's entry of today's challenge, if any (one read, only for a
    browser that has a guest id), without making the day's challenge."""
    if not guest_id:
        return None
    entries = DailyEntry.objects.filter(challenge__day=today(), guest_id=guest_id)
    return entries.select_related("game").first()


def network_key(day: date, address: str) -> str:
    """What an entry keeps of its address: a hash, keyed with the site's
    secret and the day, of the address's group. Equal for one network on one
    day; unrelated across days, and no address can be read back from it."""
    message = f"{day.isoformat()} {address_group(address)}"
    return salted_hmac("yacht.daily.network", message, algorithm="sha256").hexdigest()


def name_keys(name: str) -> tuple[str, str]:
    """The two keys under which a name is unique on a day's board."""
    looks, folded = skeletons(name)
    return hashlib.sha256(looks.encode()).hexdigest(), hashlib.sha256(folded.encode()).hexdigest()


def network_entered(challenge: DailyChallenge, address: str) -> bool:
    """Whether an entry of ``challenge`` came from ``address``'s group."""
    return challenge.entries.filter(network=network_key(challenge.day, address)).exists()


def unclaimed_name(base: str) -> str:
    """``base``, or ``base 2``, ``base 3``… : the first that today's board
    does not hold yet. A player who gives no name still enters in one tap,
    however many did the same before them today."""
    challenge = daily_challenge(today())
    assert challenge is not None
    taken = set(challenge.entries.values_list("name_key", flat=True))
    taken |= set(challenge.entries.values_list("name_key_folded", flat=True))
    number = 1
    while True:
        name = base if number == 1 else f"{base} {number}"
        looks, folded = name_keys(name)
        if looks not in taken and folded not in taken:
            return name
        number += 1


def _refusal(challenge: DailyChallenge, guest_id: str, network: str, keys: tuple[str, str]) -> str:
    """Why an entry may not be made, or "" if nothing stands in its way."""
    entries = challenge.entries
    if entries.filter(guest_id=guest_id).exists():
        return "daily_entered"
    if entries.filter(network=network).exists():
        return "daily_network_entered"
    if entries.filter(Q(name_key=keys[0]) | Q(name_key_folded=keys[1])).exists():
        return "daily_name_taken"
    return ""


def daily_enter(*, guest_id: str, name: str, address: str) -> Game:
    """Today's challenge for this browser: a duplicate solitaire on the day's
    seed, started at once.

    One entry a day per browser (``daily_entered``) and per address group
    (``daily_network_entered``), and one of each name as a reader would see
    it (``daily_name_taken``). The database holds all three, so two
    processes cannot both admit the same one.
    """
    if not guest_id:
        raise GameError("no_guest")
    name = clean_name(name)
    challenge = daily_challenge(today())
    assert challenge is not None
    daily_challenge(today() + timedelta(days=1))
    network = network_key(challenge.day, address)
    keys = name_keys(name)
    refusal = _refusal(challenge, guest_id, network, keys)
    if refusal:
        raise GameError(refusal)
    try:
        with transaction.atomic():
            game = services.game_create_daily(challenge=challenge, guest_id=guest_id, name=name)
            DailyEntry.objects.create(
                challenge=challenge,
                guest_id=guest_id,
                network=network,
                name_key=keys[0],
                name_key_folded=keys[1],
                game=game,
            )
    except IntegrityError:
        # Another request got in between the check and the insert.
        raise GameError(_refusal(challenge, guest_id, network, keys) or "daily_entered") from None
    return game


@dataclass
class BoardRow:
    place: int
    name: str
    total: int
    token: str
    lost: float | None = None


@dataclass
class Board:
    challenge: DailyChallenge
    over: bool
    rows: list[BoardRow]
    playing: int  # entries not finished yet
    perfect: int | None
    # Over, and the perfect score or an entry's loss not worked out yet.
    working_out: bool = False


def daily_board(challenge: DailyChallenge) -> Board:
    """The day's finished entries ranked by total (equal totals share a
    place). Once the day is over, each with its points lost to optimal play,
    and the perfect player's score on the day's dice, as far as
    ``daily_work_out_over`` has worked them out: it only reads."""
    over = is_over(challenge.day)
    entries = list(challenge.entries.select_related("game").order_by("created_at", "pk"))
    finished = [e for e in entries if e.game.status == Game.Status.FINISHED]
    totals = _totals(challenge.ruleset, [e.game_id for e in finished])
    players = {
        p.game_id: p for p in Player.objects.filter(game__in=[e.game for e in finished], order=0)
    }
    ranked = sorted(finished, key=lambda e: -totals[e.game_id])
    rows = []
    for e in ranked:
        player = players[e.game_id]
        rows.append(
            BoardRow(
                place=1 + sum(1 for t in totals.values() if t > totals[e.game_id]),
                name=player.name,
                total=totals[e.game_id],
                token=e.game.token,
                lost=player.lost_to_optimal if over else None,
            )
        )
    return Board(
        challenge=challenge,
        over=over,
        rows=rows,
        playing=len(entries) - len(finished),
        perfect=challenge.perfect_score if over else None,
        working_out=over
        and (
            challenge.perfect_score is None
            or any(p.lost_to_optimal is None for p in players.values())
        ),
    )


def _totals(ruleset_key: str, game_ids: list[int]) -> dict[int, int]:
    """Each solitaire game's total, from its filled boxes: one query for the
    whole board, whatever its size."""
    boxes: dict[int, dict[str, int]] = {game_id: {} for game_id in game_ids}
    bonus = dict.fromkeys(game_ids, 0)
    rows = ScoreEntry.objects.filter(player__game__in=game_ids, player__order=0).values_list(
        "player__game_id", "category", "points", "extra_bonus"
    )
    for game_id, category, points, extra in rows:
        boxes[game_id][category] = points
        bonus[game_id] += extra
    ruleset = rules.get_ruleset(ruleset_key)
    return {
        game_id: rules.totals(ruleset, rules.Scorecard(boxes[game_id], bonus[game_id])).total
        for game_id in game_ids
    }


def daily_work_out_over() -> int:
    """For every day that is over, the perfect player's score and each
    finished entry's points lost to optimal play, worked out once and kept
    (what is already kept is not worked out again); how many days had any.

    No entry finishes after its day (a move then is ``daily_over``), so
    what a day's board shows is complete once its day has been worked out.
    """
    days = (
        DailyChallenge.objects.filter(day__lt=today())
        .filter(
            Q(perfect_score__isnull=True)
            | Q(
                entries__game__status=Game.Status.FINISHED,
                entries__game__players__order=0,
                entries__game__players__lost_to_optimal__isnull=True,
            )
        )
        .distinct()
        .order_by("day")
    )
    worked = 0
    for challenge in days:
        players = Player.objects.filter(
            game__daily=challenge, game__status=Game.Status.FINISHED, order=0
        ).select_related("game")
        _work_out(challenge, list(players))
        worked += 1
    return worked


def _work_out(challenge: DailyChallenge, players: list[Player]) -> None:
    """The perfect player's score on a day's dice and each entry's points
    lost to optimal play, for whichever is not kept yet."""
    from games.solver.reference import perfect_score
    from games.store.advice import game_review

    if challenge.perfect_score is None:
        challenge.perfect_score = perfect_score(
            challenge.ruleset, bytes.fromhex(challenge.server_seed)
        )
        DailyChallenge.objects.filter(pk=challenge.pk).update(perfect_score=challenge.perfect_score)
    for player in players:
        if player.lost_to_optimal is None:
            reviewed = game_review(player.game)
            if reviewed:
                player.lost_to_optimal = reviewed[0].cost
                Player.objects.filter(pk=player.pk).update(lost_to_optimal=reviewed[0].cost)
