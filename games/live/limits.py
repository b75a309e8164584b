"""What one process holds: its open sockets, capped per client address, per
guest, per game and in all, its chat deliveries to spectators and the
messages it reads from spectators.

A socket lives on one process, and that process's event loop is what a
crowd of sockets slows down, so each process guards its own; the shipped
nginx configuration caps connections per address in front of all of them.
Every count "per client address" is per address group
(``yachtsite.clientaddr.address_group``: an IPv6 /64, an IPv4 address).
What a client may do across every process (messages, sockets opened, joins,
chat lines, new games) is counted in the shared cache
(``games.store.quotas``).
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from dataclasses import dataclass, field

from django.conf import settings

from games.runtime import runtime
from yachtsite.clientaddr import address_group

# RFC 6455 has no "too many connections" code; 4029 echoes HTTP's 429.
CLOSE_TOO_MANY_SOCKETS = 4029
# This process is full (``SocketCounts``): 4503 echoes HTTP's 503. Not the
# client's doing, unlike 4029: the page says so and tries again later.
CLOSE_SERVER_BUSY = 4503


@dataclass
class SocketClaim:
    """What one open socket counts against, to be given back when it closes."""

    keys: list[tuple[str, str]] = field(default_factory=list)
    # Whether it counts against the process's ceiling, until given back.
    counted: bool = False
    # Whether it holds one of the process's places for spectators.
    watching: bool = False


class SocketCounts:
    """Open sockets in this process, by address, guest and game, and in all.

    The caps per client are fair shares; fifty addresses each within its
    share still made one process hold more sockets than its loop serves in
    time. So the process has a ceiling of its own too
    (``YACHT_SOCKETS_PER_PROCESS``), and people playing come first: a
    spectator is admitted only while the process is below its share of the
    ceiling (``YACHT_SPECTATOR_SOCKET_SHARE``), so the rest is always left
    for seated players, and while fewer than ``YACHT_SPECTATORS_PER_PROCESS``
    spectators are open (``admits_spectator``).

    The spectators' own cap bounds what a crowd of them costs at once: fifty
    addresses' 800 spectators each sending one message at the same moment
    (each within its address's rate) held the loop 170-190 ms per burst,
    about 0.2 ms a message even when every one past the spectators' budget
    is refused unread, and other games' pushes took 9 times as long; with
    200 spectators, 1.4-4 times in four runs (``bench.abuse --attack tables``).
    """

    def __init__(self) -> None:
        self.open: Counter[tuple[str, str]] = Counter()
        self.total = 0
        self.spectators = 0

    def full(self) -> bool:
        """Whether this process has as many sockets open as its ceiling."""
        return self.total >= settings.YACHT_SOCKETS_PER_PROCESS

    def admits_spectator(self) -> bool:
        """Whether one more socket without a seat fits: below the spectators'
        share of the ceiling, counted with the sockets already claimed (the
        spectator's own among them), and below the spectators' own cap."""
        share = settings.YACHT_SOCKETS_PER_PROCESS * settings.YACHT_SPECTATOR_SOCKET_SHARE
        return self.total <= share and self.spectators < settings.YACHT_SPECTATORS_PER_PROCESS

    def watch(self, claim: SocketClaim) -> bool:
        """Take a spectator's place for ``claim``'s socket, if one is free."""
        if claim.watching:
            return True
        if not self.admits_spectator():
            return False
        claim.watching = True
        self.spectators += 1
        return True

    def claim(self, *, address: str, guest: str, token: str) -> SocketClaim | None:
        """Count a new socket in, or None if one of its client's caps is full
        (the process's ceiling is the caller's to check first: ``full``)."""
        wanted = [
            (("address", address_group(address)), settings.YACHT_SOCKETS_PER_ADDRESS),
            (("guest", guest), settings.YACHT_SOCKETS_PER_SESSION),
            (("game", token), settings.YACHT_SOCKETS_PER_GAME),
        ]
        # A socket without a session has no guest to count against; its
        # address still counts. (Only in-process test clients have no address.)
        wanted = [(key, cap) for key, cap in wanted if key[1]]
        if any(self.open[key] >= cap for key, cap in wanted):
            return None
        claim = SocketClaim([key for key, _cap in wanted], counted=True)
        self.open.update(claim.keys)
        self.total += 1
        return claim

    def release(self, claim: SocketClaim) -> None:
        if claim.counted:
            self.total -= 1
            claim.counted = False
        if claim.watching:
            self.spectators -= 1
            claim.watching = False
        self.open.subtract(claim.keys)
        for key in claim.keys:
            if self.open[key] <= 0:
                del self.open[key]
        claim.keys = []

    def watching(self, token: str) -> int:
        return self.open[("game", token)]


def sockets() -> SocketCounts:
    """This process's ``SocketCounts``."""
    return runtime.part(SocketCounts)


class _PerSecond:
    """A budget of this process's: ``rate()`` a second, ``at_once`` seconds'
    worth at once."""

    at_once = 1.0

    def __init__(self) -> None:
        self.tokens: float | None = None
        self.stamp = 0.0

    def rate(self) -> float:
        raise NotImplementedError

    def take(self) -> bool:
        rate = self.rate()
        most = max(1.0, rate * self.at_once)
        now = runtime.clock.monotonic()
        if self.tokens is None:
            self.tokens = most
        else:
            # A clock set back (a test's) earns nothing rather than a debt.
            self.tokens = min(most, self.tokens + max(0.0, now - self.stamp) * rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class ChatDeliveries(_PerSecond):
    """This process's budget of chat lines delivered to spectators' sockets:
    ``YACHT_CHAT_DELIVERIES_PER_SECOND``, a tenth of a second's worth at once
    (a whole second's worth, 500 sends, had held the loop at once).

    A line said at a table with a hundred spectators is a hundred sends on
    the loop that also sends every game's moves; fifty such tables chatting
    made other games' pushes ten times slower. Past the budget a spectator
    misses the line (seated players never do); the chat log a socket gets
    on connect has it.
    """

    at_once = 0.1

    def rate(self) -> float:
        return float(settings.YACHT_CHAT_DELIVERIES_PER_SECOND)


class SpectatorMessages(_PerSecond):
    """This process's budget of messages from sockets without a seat:
    ``YACHT_SPECTATOR_MESSAGES_PER_SECOND``.

    Each address keeps within its own message rate, but fifty addresses'
    800 spectators asking for the table, or chatting into full tables, sent
    the process a thousand messages a second, and other games' pushes took
    fifteen to twenty-five times as long (``bench.abuse --attack
    tables,chat``). A page watching a game asks a few times a minute at
    most. Past the budget a spectator's message is answered
    ``spectators_busy`` before any shared count, reading or rendering;
    seated players' messages never wait on it.

    Only a tenth of a second's worth is read at once: a crowd's sockets
    asking together, each ask read and answered, had held the loop for
    100-150 ms when a whole second's worth could come at once.
    """

    at_once = 0.1

    def rate(self) -> float:
        return float(settings.YACHT_SPECTATOR_MESSAGES_PER_SECOND)


class SpectatorChat(_PerSecond):
    """This process's budget of chat lines said by spectators, in all its
    games together: ``YACHT_SPECTATOR_CHAT_LINES_PER_SECOND``.

    Each table keeps to its own pace of chat, but a line costs the process
    far more than its socket message: the game and its seats read, a count
    in the shared cache and a row written on a game's thread (about 3 ms of
    CPU on PostgreSQL), then a send to every socket of the table. Fifty
    addresses' spectators saying lines into fifteen tables at each table's
    pace were thirty lines a second, and other games' pushes were several
    times slower (``bench.abuse --attack chat``). Ten a second is more
    than every spectator of a process says in earnest. Past it, the line is
    refused ``chat_busy`` before anything is read; a seated player's line
    never counts against it. A second's worth may come at once: a few
    spectators answering one roll together are all heard.
    """

    def rate(self) -> float:
        return float(settings.YACHT_SPECTATOR_CHAT_LINES_PER_SECOND)


def spectator_chat() -> SpectatorChat:
    """This process's ``SpectatorChat``."""
    return runtime.part(SpectatorChat)


def chat_deliveries() -> ChatDeliveries:
    """This process's ``ChatDeliveries``."""
    return runtime.part(ChatDeliveries)


def spectator_messages() -> SpectatorMessages:
    """This process's ``SpectatorMessages``."""
    return runtime.part(SpectatorMessages)


class SpectatorTurns:
    """Spectators' work on the loop, one piece per turn of the loop, so
    that a crowd's burst never holds up the players' pushes.

    A crowd's sockets all send at one moment (each address's rate shared
    by its sockets, every socket woken together): two hundred messages read
    in one turn of the loop, each answered, or a chat line sent to a
    hundred spectators at once, are tens of milliseconds in which no
    player's push goes out (``bench.abuse --attack chat``). Here each
    spectator's message, and each chat line to a spectator, waits its turn:
    one a turn, and between two turns the loop reads whatever else came
    (another game's move and its push). Players never wait here. Who
    waits is bounded by the spectators' places
    (``YACHT_SPECTATORS_PER_PROCESS``): a socket handles one message at a
    time."""

    def __init__(self) -> None:
        self.waiting: deque[asyncio.Future[None]] = deque()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.calling = False

    async def turn(self) -> None:
        """Return on this spectator's turn."""
        loop = asyncio.get_running_loop()
        if loop is not self.loop:
            # A new loop (a test's): what waited on another is not ours.
            self.loop, self.waiting, self.calling = loop, deque(), False
        if not self.waiting and not self.calling:
            # Nobody ahead: this turn is its own.
            self.calling = True
            loop.call_soon(self._next)
            return
        ready: asyncio.Future[None] = loop.create_future()
        self.waiting.append(ready)
        await ready

    def _next(self) -> None:
        """Let the next one waiting go on; call again on the next turn."""
        while self.waiting:
            ready = self.waiting.popleft()
            if not ready.done():  # a socket that closed while it waited
                ready.set_result(None)
                assert self.loop is not None
                self.loop.call_soon(self._next)
                return
        self.calling = False


def spectator_turns() -> SpectatorTurns:
    """This process's ``SpectatorTurns``."""
    return runtime.part(SpectatorTurns)
