"""Play now: a guest joins a queue and is paired with the next strangers
waiting for the same rule set, or plays a bot when nobody comes.

The queue is ``QueueTicket`` rows, shared by every server process and kept
through a restart. A ticket leaves ``waiting`` only through an UPDATE
conditional on it still waiting, inside the transaction that makes its
game: two processes pairing at once, or a pairing racing "Play a bot" or
"Leave", can never seat one ticket twice. On PostgreSQL the pairing locks
the tickets it takes and skips those another pairing holds; SQLite runs
one writer at a time (``transaction_mode`` IMMEDIATE).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import salted_hmac

from games import rules
from games.models import Game, QueueTicket
from games.play import services
from games.play.names import clean_name
from games.rules import GameError
from yachtsite.clientaddr import address_group

WAITING = QueueTicket.State.WAITING
# How many of the oldest waiting tickets one pairing looks through for a
# table's worth that can play together (languages apart).
LOOK_AHEAD = 50
SEATS = range(2, 5)


class _Taken(Exception):
    """Another pairing, a leave or a bot took one of the tickets first."""


def network_of(address: str) -> str:
    """What a ticket keeps of its address: a keyed hash of its group, enough
    to count a network's tickets, from which no address can be read back."""
    message = address_group(address)
    return salted_hmac("yacht.queue.network", message, algorithm="sha256").hexdigest()


def _fresh_since() -> timedelta:
    return timedelta(seconds=settings.YACHT_PLAY_NOW_STALE_SECONDS)


def _require_wish(ruleset: str, language: str, seats: int) -> None:
    if ruleset not in rules.RULESETS:
        raise GameError("unknown_ruleset")
    if seats not in SEATS:
        raise GameError("bad_queue_seats")
    if language and language not in dict(settings.LANGUAGES):
        raise GameError("unknown_language")


def queue_join(
    *,
    guest_id: str,
    name: str,
    address: str,
    ruleset: str = rules.DEFAULT_RULESET,
    language: str = "",
    seats: int = 2,
) -> QueueTicket:
    """A waiting ticket for ``guest_id``, then a first try at pairing it.

    Pressing Play now again while waiting for the same table keeps the
    ticket (and its place); for another table the old ticket is left.
    A network holds at most ``YACHT_PLAY_NOW_WAITING_PER_ADDRESS`` waiting
    tickets (those still asked for by their page): past it, GameError
    ``queue_network_full`` and no row is written.
    """
    if not guest_id:
        raise GameError("no_guest")
    name = clean_name(name)
    _require_wish(ruleset, language, seats)
    now = timezone.now()
    network = network_of(address)
    with transaction.atomic():
        mine = QueueTicket.objects.select_for_update().filter(guest_id=guest_id, state=WAITING)
        same = mine.filter(ruleset=ruleset, language=language, seats=seats).first()
        if same is not None:
            same.seen_at = now
            same.save(update_fields=["seen_at"])
            ticket = same
        else:
            mine.update(state=QueueTicket.State.LEFT)
            _require_room(network)
            ticket = _new_ticket(
                QueueTicket(
                    guest_id=guest_id,
                    network=network,
                    name=name,
                    ruleset=ruleset,
                    language=language,
                    seats=seats,
                    created_at=now,
                    seen_at=now,
                )
            )
    queue_pair(ticket=ticket)
    ticket.refresh_from_db()
    return ticket


def queue_names_ahead(
    *, guest_id: str, ruleset: str, language: str = "", seats: int = 2
) -> list[str]:
    """The names of those a guest pressing Play now for this table would be
    seated with if nobody else came: the oldest strangers waiting for it
    (whose languages agree with ``language``), a table's worth less one."""
    ahead = QueueTicket.objects.filter(
        state=WAITING,
        ruleset=ruleset,
        seats=seats,
        seen_at__gte=timezone.now() - _fresh_since(),
    ).exclude(guest_id=guest_id)
    if language:
        ahead = ahead.filter(Q(language="") | Q(language=language))
    return list(ahead.order_by("created_at", "pk").values_list("name", flat=True)[: seats - 1])


def _require_room(network: str) -> None:
    waiting = QueueTicket.objects.filter(
        network=network, state=WAITING, seen_at__gte=timezone.now() - _fresh_since()
    )
    if waiting.count() >= settings.YACHT_PLAY_NOW_WAITING_PER_ADDRESS:
        raise GameError("queue_network_full")


def _new_ticket(ticket: QueueTicket) -> QueueTicket:
    try:
        with transaction.atomic():
            ticket.save(force_insert=True)
    except IntegrityError:
        # The same guest's other request (a double click) made its waiting
        # ticket meanwhile: that one is theirs.
        return QueueTicket.objects.get(guest_id=ticket.guest_id, state=WAITING)
    return ticket


def queue_ticket(*, guest_id: str) -> QueueTicket | None:
    """The guest's latest ticket, whatever became of it."""
    if not guest_id:
        return None
    return QueueTicket.objects.filter(guest_id=guest_id).order_by("-created_at", "-pk").first()


def queue_poll(*, guest_id: str) -> QueueTicket | None:
    """The waiting page asks: its ticket is seen now, and paired if a table
    of waiting strangers can be made. The ticket as it then stands."""
    ticket = queue_ticket(guest_id=guest_id)
    if ticket is None or ticket.state != WAITING:
        return ticket
    QueueTicket.objects.filter(pk=ticket.pk, state=WAITING).update(seen_at=timezone.now())
    queue_pair(ticket=ticket)
    ticket.refresh_from_db()
    return ticket


def queue_pair(*, ticket: QueueTicket) -> Game | None:
    """Seat the oldest waiting tickets that can play together at ``ticket``'s
    kind of table (rule set and seats; one language, or any) in a new game,
    started at once with the turn clock on. The game, or None if there is
    not yet a table's worth (or another process took them first)."""
    kind = QueueTicket.objects.filter(
        state=WAITING,
        ruleset=ticket.ruleset,
        seats=ticket.seats,
        seen_at__gte=timezone.now() - _fresh_since(),
    )
    # Every waiting page asks every second or two, and mostly nobody else
    # waits for its kind of table: a plain count first, and the locking
    # transaction only when there may be a table's worth.
    if kind.count() < ticket.seats:
        return None
    try:
        with transaction.atomic():
            waiting = kind.select_for_update(skip_locked=True)
            table = _table(list(waiting.order_by("created_at", "pk")[:LOOK_AHEAD]), ticket.seats)
            if not table:
                return None
            return _seat(table)
    except _Taken:
        return None


def _table(waiting: Sequence[QueueTicket], seats: int) -> list[QueueTicket]:
    """The oldest ``seats`` tickets, in order of waiting, whose languages
    agree (a blank language goes with any)."""
    for start, first in enumerate(waiting):
        table, language = [first], first.language
        for other in waiting[start + 1 :]:
            if language and other.language and other.language != language:
                continue
            table.append(other)
            language = language or other.language
            if len(table) == seats:
                return table
    return []


def _seat(table: list[QueueTicket]) -> Game:
    ids = [t.pk for t in table]
    taken = QueueTicket.objects.filter(pk__in=ids, state=WAITING).update(
        state=QueueTicket.State.PAIRED
    )
    if taken != len(ids):
        raise _Taken
    game = services.game_create_paired(
        seats=[(t.guest_id, t.name) for t in table],
        ruleset=table[0].ruleset,
        turn_seconds=settings.YACHT_PLAY_NOW_TURN_SECONDS,
    )
    QueueTicket.objects.filter(pk__in=ids).update(game=game)
    return game


def queue_leave(*, guest_id: str) -> bool:
    """The guest leaves the queue; False if they had no waiting ticket."""
    left = QueueTicket.objects.filter(guest_id=guest_id, state=WAITING)
    return bool(left.update(state=QueueTicket.State.LEFT))


def queue_keep_waiting(*, guest_id: str) -> bool:
    """The guest turns down the bot offered and keeps their place."""
    waiting = QueueTicket.objects.filter(guest_id=guest_id, state=WAITING)
    return bool(waiting.update(kept_waiting=True, seen_at=timezone.now()))


def queue_play_bot(*, guest_id: str) -> Game:
    """Nobody came: the guest's ticket becomes a game against the solid bot
    in the rule set and seats it waited for, started at once. If a pairing
    took the ticket first, that game; GameError ``not_queued`` if the guest
    has neither."""
    with transaction.atomic():
        ticket = QueueTicket.objects.select_for_update().filter(guest_id=guest_id, state=WAITING)
        mine = ticket.first()
        if mine is not None and ticket.update(state=QueueTicket.State.BOT) == 1:
            game = services.game_create(
                guest_id=guest_id,
                name=mine.name,
                seat_count=mine.seats,
                ruleset=mine.ruleset,
                bot_level=services.STAND_IN_LEVEL,
            )
            game = services.game_start(token=game.token, guest_id=guest_id)
            QueueTicket.objects.filter(pk=mine.pk).update(game=game)
            return game
    latest = queue_ticket(guest_id=guest_id)
    if latest is not None and latest.game is not None and latest.state != WAITING:
        return latest.game
    raise GameError("not_queued")


def stale_tickets(*, before: timedelta) -> int:
    """Delete tickets nobody has asked about for ``before``, whatever their
    state: a waiting one whose page closed long ago, and one that ended in
    a game (the game keeps its seats). How many."""
    deleted, _ = QueueTicket.objects.filter(seen_at__lt=timezone.now() - before).delete()
    return deleted
