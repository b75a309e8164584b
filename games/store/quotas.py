"""Quotas: how many messages, sockets opened, join posts, chat lines and new
games one client (or one game) may have in a while, counted where every
process sees the same count.

Every count "per client address" is per address group
(``yachtsite.clientaddr.address_group``: an IPv6 /64, an IPv4 address).
The counts are sliding windows kept in Redis when ``REDIS_URL`` is set, so
every process adds to the same count; in this process otherwise (the
embedded setup has one). If Redis cannot be reached the count falls back to
this process: limits stay on, if looser. Socket messages reach Redis in
batches (``SharedMessageCounts``).

No quota refuses a client because of what others did: the site-wide count
of games only holds back the address groups above their fair share of it.
What one process holds (its open sockets, its chat deliveries) is limited
by the live layer (``games.live.limits``).

Why these counters and not the ``limits`` package's (measured with
``bench.limiter``, 5.8.0, Redis on loopback, load average 0.9-1.3; per
check, two runs): a join's two counts cost one call of ``_COUNT_SCRIPT``,
146-199 us, against 265-358 us for two of its sliding window counters,
a round trip each; in this process 4.4-4.5 us against 25-30 us. One count
on the event loop costs about the same either way (136-159 us against
143-188 us). What it cannot express at all: socket messages counted in
batches (``SharedMessageCounts``), a chat hold worked out from a window's
two counts (``_seconds_till``), the creation shares' sorted sets
(``_CREATION_SCRIPT``), refused tries that count in a sliding window (the
creation pace), a fallback to this process while Redis is down (it would
be written around it), and the runtime's clock: its memory storage reads
``time.time()`` and sweeps every key from a thread every 10 ms. Taking it
for the few plain windows would make two limiters where there is one.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import redis
import redis.asyncio
from django.conf import settings
from redis.commands.core import AsyncScript, Script
from redis.exceptions import RedisError

from games.rules import GameError
from games.runtime import runtime
from yachtsite.clientaddr import address_group

log = logging.getLogger(__name__)


class _LocalWindows:
    """Window counters in this process, each kept while a count may still
    read it: through its own window and the next, where it is the previous
    one. Cleared whole only past ``MOST`` live keys (counts lost, never
    inflated). Kept till 100,000 keys of any age instead, past windows'
    keys took up to 14 MB, and each time they reached it everyone's counts
    were lost."""

    MOST = 100_000
    # How often the keys of past windows are swept out, in seconds.
    SWEEP_EVERY = 60.0

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.ends: dict[str, float] = {}
        self.next_sweep = float("-inf")
        # Page threads count beside the loop, and a sweep walks the keys.
        self._lock = threading.Lock()

    def incr(self, key: str, previous: str, window: int) -> tuple[int, int]:
        now = runtime.clock.time()
        with self._lock:
            if now >= self.next_sweep or len(self.counts) > self.MOST:
                self._sweep(now)
            if key not in self.counts:
                self.ends[key] = now + 2 * window
            self.counts[key] = self.counts.get(key, 0) + 1
            return self.counts[key], self.counts.get(previous, 0)

    def _sweep(self, now: float) -> None:
        self.next_sweep = now + self.SWEEP_EVERY
        for key in [key for key, end in self.ends.items() if end <= now]:
            del self.counts[key], self.ends[key]
        if len(self.counts) > self.MOST:
            self.counts.clear()
            self.ends.clear()


class _Scripts:
    """The counting scripts on a client of each Redis URL, and for asyncio of
    each event loop too (a client's connections belong to the loop that
    opened them), with each loop's client for short calls."""

    def __init__(self) -> None:
        self.by_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, AsyncScript]
        ] = weakref.WeakKeyDictionary()
        self.clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, redis.asyncio.Redis]
        ] = weakref.WeakKeyDictionary()
        self.blocking: dict[tuple[str, str], Script] = {}


# Redis errors are logged once per this many seconds, not once per message.
_QUIET_SECONDS = 60.0


class _Complaints:
    """When Redis's absence was last logged."""

    last = float("-inf")


def _windows(name: str, who: str, window: int) -> tuple[str, str, float]:
    """This window's key, the previous window's, and how far into this one we are."""
    now = runtime.clock.time()
    index = int(now // window)
    base = f"yacht:limit:{name}:{who}:"
    return f"{base}{index}", f"{base}{index - 1}", now / window - index


def _estimate(current: int, previous: int, into: float) -> float:
    # A sliding window, approximated: the previous window's count weighted by
    # how much of it the last ``window`` seconds still cover. Plain fixed
    # windows let a burst straddling a boundary through twice.
    return current + previous * (1 - into)


def _complain() -> None:
    complaints = runtime.part(_Complaints)
    now = runtime.clock.monotonic()
    if now - complaints.last > _QUIET_SECONDS:
        complaints.last = now
        log.warning("limits: Redis unreachable, counting in this process only", exc_info=True)


async def _ahit(name: str, who: str, window: int) -> float:
    return (await _ahits([(name, who)], window))[0]


def _client_options() -> dict[str, Any]:
    """The counters' Redis clients, sync and async alike: a Redis that does
    not answer within a second is counted around (``_complain``)."""
    return {"socket_timeout": 1, "socket_connect_timeout": 1, **settings.REDIS_CLIENT_OPTIONS}


def short_calls_client() -> redis.asyncio.Redis:
    """The running loop's client for its short Redis calls (these counters,
    who is at a table: one pool for both), whose calls wait their turn for
    one of ``YACHT_REDIS_SHORT_CALL_CONNECTIONS`` connections, a second at
    most.

    redis-py's pool opens a connection per call in flight and raises past
    100 of them: 1,500 sockets opening at once (a crowd, or every page of a
    restarted process coming back) each counted its connect, the pool ran
    dry, and every limit counted in this process only for the burst. One
    Redis serves its calls one at a time, so more connections only cost
    their setup; a call that finds none free within the second is counted
    around, as with a Redis that does not answer."""
    clients = runtime.part(_Scripts).clients.setdefault(asyncio.get_running_loop(), {})
    client = clients.get(settings.REDIS_URL)
    if client is None:
        pool = redis.asyncio.BlockingConnectionPool.from_url(
            settings.REDIS_URL,
            max_connections=settings.YACHT_REDIS_SHORT_CALL_CONNECTIONS,
            timeout=1,
            **_client_options(),
        )
        client = clients[settings.REDIS_URL] = redis.asyncio.Redis(connection_pool=pool)
    return client


def _async_script() -> AsyncScript:
    scripts = runtime.part(_Scripts).by_loop.setdefault(asyncio.get_running_loop(), {})
    script = scripts.get(settings.REDIS_URL)
    if script is None:
        script = scripts[settings.REDIS_URL] = short_calls_client().register_script(_COUNT_SCRIPT)
    return script


async def _ahits(counted: list[tuple[str, str]], window: int) -> list[float]:
    """Count one hit on each (name, who), in one Redis command."""
    windows = [_windows(name, who, window) for name, who in counted]
    if not settings.REDIS_URL:
        return _local_estimates(windows, window)
    try:
        replies = await _async_script()(
            keys=_script_keys(windows), args=_script_args(window, [1] * len(windows))
        )
    except (RedisError, OSError):
        _complain()
        return _local_estimates(windows, window)
    return _estimates(replies, windows)


def _hit(name: str, who: str, window: int) -> float:
    return _hits([(name, who)], window)[0]


def _sync_script(source: str) -> Script:
    """The script of this source on a blocking client of ``REDIS_URL``."""
    scripts = runtime.part(_Scripts).blocking
    script = scripts.get((settings.REDIS_URL, source))
    if script is None:
        client = redis.Redis.from_url(settings.REDIS_URL, **_client_options())
        script = scripts[settings.REDIS_URL, source] = client.register_script(source)
    return script


def _hits(counted: list[tuple[str, str]], window: int) -> list[float]:
    """``_ahits`` for blocking code: one hit on each (name, who), in one command."""
    return [_estimate(*counts) for counts in _counts(counted, window)]


def _counts(counted: list[tuple[str, str]], window: int) -> list[tuple[int, int, float]]:
    """One hit on each (name, who), in one command: for each, its count in
    this window and in the previous one, and how far into this one we are."""
    windows = [_windows(name, who, window) for name, who in counted]
    if not settings.REDIS_URL:
        return _local_counts(windows, window)
    try:
        replies = _sync_script(_COUNT_SCRIPT)(
            keys=_script_keys(windows), args=_script_args(window, [1] * len(windows))
        )
    except (RedisError, OSError):
        _complain()
        return _local_counts(windows, window)
    return [
        (int(replies[2 * n]), int(replies[2 * n + 1]), into)
        for n, (_, _, into) in enumerate(windows)
    ]


# Adds hits to each of the windows KEYS names (for each count, this window's
# key, then the previous window's) and answers, for each, both windows'
# counts. ARGV[1]: how long a window's key is kept, in seconds; then the hits
# to add to each count. One command in place of a pipeline of three per count.
_COUNT_SCRIPT = """
local counts = {}
for i = 1, #KEYS, 2 do
    counts[#counts + 1] = redis.call('INCRBY', KEYS[i], ARGV[(i + 1) / 2 + 1])
    redis.call('EXPIRE', KEYS[i], ARGV[1])
    counts[#counts + 1] = tonumber(redis.call('GET', KEYS[i + 1]) or 0)
end
return counts
"""


def _script_keys(windows: list[tuple[str, str, float]]) -> list[str]:
    return [key for current, previous, _ in windows for key in (current, previous)]


def _script_args(window: int, hits: list[int]) -> list[int]:
    """The script's ARGV: keys are kept for two windows; then the hits on each."""
    return [2 * window, *hits]


def _estimates(replies: list[int], windows: list[tuple[str, str, float]]) -> list[float]:
    return [
        _estimate(int(replies[2 * n]), int(replies[2 * n + 1]), into)
        for n, (_, _, into) in enumerate(windows)
    ]


def _local_estimates(windows: list[tuple[str, str, float]], window: int) -> list[float]:
    return [_estimate(*counts) for counts in _local_counts(windows, window)]


def _local_counts(
    windows: list[tuple[str, str, float]], window: int
) -> list[tuple[int, int, float]]:
    local = runtime.part(_LocalWindows)
    return [(*local.incr(key, previous, window), into) for key, previous, into in windows]


MESSAGE_WINDOW = 10
# How often this process adds its socket messages' counts to Redis's.
FLUSH_SECONDS = 0.25


class SharedMessageCounts:
    """Socket messages counted here and added to Redis's counts in batches.

    Counting each message in Redis cost it a round trip, and a move is a
    message: about a twentieth of the process's time under load. Now a
    message is counted in this process, against the counts Redis gave at
    the last flush, and at most every ``FLUSH_SECONDS`` one message's
    handler adds this process's new counts to Redis's and learns what the
    client's sockets on other processes counted. Within one process the
    count is exact; a client spread over several can get past its limit by
    what the others counted since their last flush, a fraction of a second
    of its messages, before the limit holds across all of them.
    """

    def __init__(self) -> None:
        # Counted here, not yet sent; on their way to Redis; Redis's counts
        # (every process's) as of the last flush.
        self.unsent: Counter[str] = Counter()
        self.sending: Counter[str] = Counter()
        self.shared: dict[str, int] = {}
        self.last_flush = float("-inf")
        self.swept = 0

    def hit(self, current: str, previous: str) -> tuple[int, int]:
        """Count one message in window ``current``: both windows' counts."""
        self.unsent[current] += 1
        return self._count(current), self._count(previous)

    def _count(self, key: str) -> int:
        return self.shared.get(key, 0) + self.sending[key] + self.unsent[key]

    async def flush_if_due(self) -> None:
        now = runtime.clock.monotonic()
        if self.sending or not self.unsent or now - self.last_flush < FLUSH_SECONDS:
            return
        self.last_flush = now
        self.sending, self.unsent = self.unsent, Counter()
        keys = list(self.sending)
        pairs = [(key, _window_before(key)) for key in keys]
        try:
            replies = await _async_script()(
                keys=[key for pair in pairs for key in pair],
                args=_script_args(MESSAGE_WINDOW, [self.sending[key] for key in keys]),
            )
        except BaseException as failure:
            # Redis unreachable, or this handler cancelled (its socket
            # closed) mid-flush: the hits stay counted in this process.
            for key, hits in self.sending.items():
                self.shared[key] = self.shared.get(key, 0) + hits
            if not isinstance(failure, (RedisError, OSError)):
                raise
            _complain()
        else:
            # The windows before first: a key both counted and read as some
            # other key's previous window keeps the count its increment gave.
            for n, (_, previous) in enumerate(pairs):
                self.shared[previous] = int(replies[2 * n + 1])
            for n, key in enumerate(keys):
                self.shared[key] = int(replies[2 * n])
        finally:
            self.sending = Counter()
        self._forget_old_windows()

    def _forget_old_windows(self) -> None:
        # Only the current and the previous window count: older keys go, in
        # one sweep per window.
        window = int(runtime.clock.time() // MESSAGE_WINDOW)
        if window == self.swept:
            return
        self.swept = window
        oldest = window - 1
        for key in [key for key in self.shared if _window_index(key) < oldest]:
            del self.shared[key]


def _window_index(key: str) -> int:
    return int(key.rpartition(":")[2])


def _window_before(key: str) -> str:
    """The key of the window before the one ``key`` counts (see ``_windows``)."""
    return f"{key.rpartition(':')[0]}:{_window_index(key) - 1}"


def _messages() -> SharedMessageCounts:
    return runtime.part(SharedMessageCounts)


async def message_allowed(*, address: str, guest: str) -> bool:
    """Count one socket message of this client across all its sockets and
    processes; False once its session or its address is over the limit."""
    counted = [("msg-guest", guest)] if guest else []
    # Only in-process test clients have no address.
    if address:
        counted.append(("msg-addr", address_group(address)))
    if not counted:
        return True
    windows = [_windows(name, who, MESSAGE_WINDOW) for name, who in counted]
    if settings.REDIS_URL:
        messages = _messages()
        counts = [
            _estimate(*messages.hit(current, previous), into) for current, previous, into in windows
        ]
        await messages.flush_if_due()
    else:
        counts = _local_estimates(windows, MESSAGE_WINDOW)
    caps = {
        "msg-guest": settings.YACHT_MESSAGES_PER_SESSION,
        "msg-addr": settings.YACHT_MESSAGES_PER_ADDRESS,
    }
    return all(count <= caps[name] for (name, _), count in zip(counted, counts, strict=True))


async def connect_allowed(*, address: str) -> bool:
    """Count one new socket from this address; False past its rate.

    The caps above bound how many sockets are open at once, not how fast
    they come: closing and reopening one costs the server a session load,
    a game lookup and a table each time.
    """
    if not address:
        return True
    count = await _ahit("connect-addr", address_group(address), MESSAGE_WINDOW)
    return count <= settings.YACHT_CONNECTS_PER_ADDRESS


CHAT_WINDOW = 10


def chat_allowed(*, token: str) -> bool:
    """Count one chat line at this game, across every process; False past
    the game's pace. Each line is sent to every socket of the game, so a
    table's pace bounds its fan-out whoever is speaking. A refusal holds
    the game's chat in this process (``ChatHolds``)."""
    (counts,) = _counts([("chat-game", token)], CHAT_WINDOW)
    pace = settings.YACHT_CHAT_LINES_PER_GAME
    if _estimate(*counts) <= pace:
        return True
    # The next line fits once the count, with it, is within the pace again.
    until = runtime.clock.time() + _seconds_till(pace - 1, *counts, CHAT_WINDOW)
    chat_holds().hold(token, until)
    return False


def chat_held(*, token: str) -> bool:
    """Whether this process found the game's chat past its pace and the
    count cannot have room for a line yet: refuse the line at once."""
    return chat_holds().held(token)


class ChatHolds:
    """The games whose chat this process found past its pace, each until
    the count would have room for a line if nobody said another.

    A crowd saying lines into a full table made every line a trip to a
    database thread (the game and its seats read, then the count in Redis)
    only to be refused (``bench.abuse --attack chat``). Held, a line is
    refused on the socket before any of that. Lines said meanwhile on other
    processes can only keep the count higher, so a hold never refuses a
    line the shared count would have let through; and a line refused here
    is not counted, so it does not keep the table's chat full either."""

    def __init__(self) -> None:
        self.until: dict[str, float] = {}

    def hold(self, token: str, until: float) -> None:
        if len(self.until) > 10_000:
            now = runtime.clock.time()
            self.until = {held: end for held, end in self.until.items() if end > now}
        self.until[token] = until

    def held(self, token: str) -> bool:
        until = self.until.get(token)
        if until is None:
            return False
        if runtime.clock.time() < until:
            return True
        self.until.pop(token, None)
        return False


def chat_holds() -> ChatHolds:
    return runtime.part(ChatHolds)


def _seconds_till(room: float, current: int, previous: int, into: float, window: int) -> float:
    """How long, with no more hits, until a sliding count (``_estimate``)
    of ``current`` and ``previous``, ``into`` this window, falls to ``room``."""
    if current <= room:
        # Within this window, as the previous one's weight fades.
        fades = 1 - (room - current) / previous if previous else 0.0
        return max(0.0, fades - into) * window
    # In the next, as this one's does.
    return (1 - into + 1 - room / current) * window


JOIN_WINDOW = 600


def _client_within(
    kind: str, *, address: str, guest: str, per_address: int, per_session: int, window: int
) -> bool:
    """Count one ``kind`` of request from this client, per address group and
    per session when it has one; False past either share."""
    counted = [(f"{kind}-addr", address_group(address))]
    caps = [per_address]
    if guest:
        counted.append((f"{kind}-guest", guest))
        caps.append(per_session)
    counts = _hits(counted, window)
    return all(count <= cap for count, cap in zip(counts, caps, strict=True))


def join_allowed(*, address: str, guest: str) -> bool:
    """Count one post of the join form from this client; False past its
    share, before any database work."""
    return _client_within(
        "join",
        address=address,
        guest=guest,
        per_address=settings.YACHT_JOINS_PER_ADDRESS,
        per_session=settings.YACHT_JOINS_PER_SESSION,
        window=JOIN_WINDOW,
    )


QUEUE_WINDOW = 600
POLL_WINDOW = 60


def queue_join_allowed(*, address: str, guest: str) -> bool:
    """Count one press of Play now from this client; False past its share,
    before any database work. A join also counts as a game created
    (``game_creation``)."""
    return _client_within(
        "queue",
        address=address,
        guest=guest,
        per_address=settings.YACHT_PLAY_NOW_JOINS_PER_ADDRESS,
        per_session=settings.YACHT_PLAY_NOW_JOINS_PER_SESSION,
        window=QUEUE_WINDOW,
    )


def queue_poll_allowed(*, address: str, guest: str) -> bool:
    """Count one question of a waiting page; False past its pace."""
    return _client_within(
        "poll",
        address=address,
        guest=guest,
        per_address=settings.YACHT_PLAY_NOW_POLLS_PER_ADDRESS,
        per_session=settings.YACHT_PLAY_NOW_POLLS_PER_SESSION,
        window=POLL_WINDOW,
    )


CREATE_WINDOW = 3600
# The codes of a creation refused by the limits below (HTTP 429 on a page).
CREATION_REFUSALS = frozenset({"too_many_games", "site_busy", "creating_too_fast"})


@dataclass(frozen=True)
class CreationCounts:
    """Games created over the last hour, the one being counted included
    (sliding estimates): by the creator's session, by its address group and
    by the whole site; and how many address groups created any."""

    session: float
    group: float
    site: float
    groups: float


def creation_refusal(counts: CreationCounts) -> str | None:
    """The code of the share these counts are past, or None.

    A session and an address group each have a share of their own. The
    site's count alone refuses nobody: once it is past the busy level, a
    group is refused only while it is above its fair share of that level
    (the level split among the groups creating games, but never less than
    ``YACHT_GAMES_PER_HOUR_FAIR_FLOOR``). So the heaviest groups are held
    back first, and however many clients crowd in, a fresh one always
    starts a game.
    """
    if (
        counts.session > settings.YACHT_GAMES_PER_HOUR
        or counts.group > settings.YACHT_GAMES_PER_HOUR_PER_ADDRESS
    ):
        return "too_many_games"
    busy = settings.YACHT_GAMES_PER_HOUR_SITE
    fair_share = max(busy / max(counts.groups, 1), settings.YACHT_GAMES_PER_HOUR_FAIR_FLOOR)
    if counts.site > busy and counts.group > fair_share:
        return "site_busy"
    return None


@contextmanager
def game_creation(*, address: str, guest: str) -> Iterator[None]:
    """Count one new game against its creator's shares, around its creation.

    Past a share, GameError with the code of ``creation_refusal``, and
    nothing stays counted; a creation that fails gives its count back too,
    so the counts are of games made.
    """
    now = runtime.clock.time()
    group = address_group(address)
    # The hourly shares bound how many games a group makes, not how fast:
    # fifty groups each spending theirs at once cost the process every
    # other game's pushes. Attempts are paced (refused ones count too:
    # they cost a request each) well above what a person clicks.
    if _hit("create-pace", group, settings.YACHT_GAMES_PACE_SECONDS) > (
        settings.YACHT_GAMES_PACE_PER_ADDRESS
    ):
        raise GameError("creating_too_fast")
    counted = _Creation(int(now // CREATE_WINDOW), group, guest)
    counts = _creation_counts(counted, now / CREATE_WINDOW - counted.index)
    refused = creation_refusal(counts)
    if refused is not None:
        _give_back(counted)
        raise GameError(refused)
    try:
        yield
    except BaseException:
        _give_back(counted)
        raise


@dataclass
class _Creation:
    """One game counted: the hour it was counted in, its creator's group and
    session, and whether Redis counted it (else this process did)."""

    index: int
    group: str
    guest: str
    shared: bool = True

    def keys(self, index: int) -> list[str]:
        """The group's sorted set, the site's and the session's counts of a window."""
        return [
            f"yacht:limit:create-groups:{index}",
            f"yacht:limit:create-site:{index}",
            f"yacht:limit:create-guest:{self.guest}:{index}",
        ]


# Counts a game in this hour's keys (``_Creation.keys``) and answers, for this
# hour and the one before: the group's games, the groups that created any,
# the site's games and the session's. ARGV[1]: how long a window's keys are
# kept; ARGV[2]: the group. One command per game created.
_CREATION_SCRIPT = """
local ttl, group = ARGV[1], ARGV[2]
local mine = tonumber(redis.call('ZINCRBY', KEYS[1], 1, group))
local site = redis.call('INCR', KEYS[2])
local session = redis.call('INCR', KEYS[3])
for i = 1, 3 do
    redis.call('EXPIRE', KEYS[i], ttl)
end
return {
    mine, tonumber(redis.call('ZSCORE', KEYS[4], group) or 0),
    redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[4]),
    site, tonumber(redis.call('GET', KEYS[5]) or 0),
    session, tonumber(redis.call('GET', KEYS[6]) or 0),
}
"""

# Takes one game back out of the keys it was counted in; a group left with
# none leaves the set, so it no longer counts among the groups creating games.
_GIVE_BACK_SCRIPT = """
if tonumber(redis.call('ZINCRBY', KEYS[1], -1, ARGV[1])) <= 0 then
    redis.call('ZREM', KEYS[1], ARGV[1])
end
redis.call('DECR', KEYS[2])
redis.call('DECR', KEYS[3])
return 1
"""


@dataclass
class _CreationWindow:
    groups: Counter[str] = field(default_factory=Counter)
    sessions: Counter[str] = field(default_factory=Counter)
    site: int = 0


class _LocalCreations:
    """Games created, counted in this process: the same counts as the
    scripts above keep in Redis, for this hour and the one before. Pages
    count from the request thread and rematches from the games' threads."""

    def __init__(self) -> None:
        self.windows: dict[int, _CreationWindow] = {}
        self.lock = threading.Lock()

    def count(self, counted: _Creation) -> list[int]:
        with self.lock:
            return self._count(counted)

    def _count(self, counted: _Creation) -> list[int]:
        for old in [index for index in self.windows if index < counted.index - 1]:
            del self.windows[old]
        now = self.windows.setdefault(counted.index, _CreationWindow())
        before = self.windows.get(counted.index - 1, _CreationWindow())
        now.groups[counted.group] += 1
        now.sessions[counted.guest] += 1
        now.site += 1
        return [
            now.groups[counted.group],
            before.groups[counted.group],
            len(now.groups),
            len(before.groups),
            now.site,
            before.site,
            now.sessions[counted.guest],
            before.sessions[counted.guest],
        ]

    def give_back(self, counted: _Creation) -> None:
        with self.lock:
            window = self.windows.get(counted.index)
            if window is None:
                return
            window.site -= 1
            for counter, key in ((window.groups, counted.group), (window.sessions, counted.guest)):
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]


def _local_creations() -> _LocalCreations:
    return runtime.part(_LocalCreations)


def _creation_counts(counted: _Creation, into: float) -> CreationCounts:
    """Count the game where every process sees it (this process's count
    if there is no Redis, or it fails); ``into``: how far into its hour."""
    replies: list[int] | None = None
    if settings.REDIS_URL:
        try:
            replies = _sync_script(_CREATION_SCRIPT)(
                keys=counted.keys(counted.index) + counted.keys(counted.index - 1),
                args=[2 * CREATE_WINDOW, counted.group],
            )
        except (RedisError, OSError):
            _complain()
    if replies is None:
        counted.shared = False
        replies = _local_creations().count(counted)
    mine, mine_before, groups, groups_before, site, site_before, session, session_before = (
        int(reply) for reply in replies
    )
    return CreationCounts(
        session=_estimate(session, session_before, into),
        group=_estimate(mine, mine_before, into),
        site=_estimate(site, site_before, into),
        # Groups that created games in both hours are one group each: the
        # larger of the two counts, the hour before weighed as its count is.
        groups=max(groups, groups_before * (1 - into)),
    )


def _give_back(counted: _Creation) -> None:
    if not counted.shared:
        _local_creations().give_back(counted)
        return
    try:
        _sync_script(_GIVE_BACK_SCRIPT)(keys=counted.keys(counted.index), args=[counted.group])
    except (RedisError, OSError):
        # Counted in Redis and not taken back: one game too many for an
        # hour, the safe side of a limit.
        _complain()
