"""Presence: whether each seat's player is at the table, across processes.

A seat is ``online`` while a socket of its player is open on the game with
its page in view, ``away`` while every such socket says its page is hidden
or idle (the page tells, with the ``presence`` action), and ``gone`` once
none has been open for ``YACHT_PRESENCE_GRACE_SECONDS``. Within that grace a
seat keeps the state it had, so a refresh or a dropped line that comes back
at once changes nothing anyone sees.

Each open socket of a seat is one entry, ``(seat, state, until)``, kept
where every process sees it: a Redis hash per game when ``REDIS_URL`` is
set, this process otherwise (or while Redis cannot be reached). An entry
lives until ``until``: a closing socket shortens its entry to the grace,
and the process holding a socket renews its entry every third of
``YACHT_PRESENCE_TTL_SECONDS``, so the sockets of a process that dies
leave their seats ``gone`` once their entries run out. Entries are dated by
wall time (``runtime.clock.time``), which every process shares.

When a seat's state changes, the game's group hears a ``presence`` push of
its own (presence is not a change of the game: no version). Each process
looks again at a game when one of its entries is due to run out, and pushes
what changed; several processes may push the same change, and a page shows
it once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from channels.layers import get_channel_layer
from django.conf import settings
from redis.exceptions import RedisError

from games.live import limits
from games.live.broadcast import group_name
from games.runtime import runtime
from games.store import quotas

log = logging.getLogger(__name__)

State = Literal["online", "away", "gone"]
ONLINE: State = "online"
AWAY: State = "away"
GONE: State = "gone"
# How often this process looks for entries run out and renews its own.
TICK_SECONDS = 1.0
# Redis errors are logged once per this many seconds, not once per tick.
_QUIET_SECONDS = 60.0


@dataclass(frozen=True)
class Entry:
    seat: int
    state: State
    until: float

    def encode(self) -> str:
        return f"{self.seat}:{self.state}:{self.until:.3f}"

    @classmethod
    def decode(cls, text: str | bytes) -> Entry | None:
        if isinstance(text, bytes):
            text = text.decode()
        try:
            seat, state, until = text.split(":")
            if state not in (ONLINE, AWAY):
                return None
            return cls(int(seat), state, float(until))
        except ValueError:
            return None


def seat_states(entries: Mapping[str, Entry], now: float) -> dict[int, State]:
    """Each seat with an entry still alive, online if any of its sockets is."""
    states: dict[int, State] = {}
    for entry in entries.values():
        if entry.until <= now:
            continue
        if states.get(entry.seat) != ONLINE:
            states[entry.seat] = entry.state
    return states


def _key(token: str) -> str:
    return f"yacht:presence:{token}"


class _LocalEntries:
    """The entries in this process: the whole store without Redis."""

    def __init__(self) -> None:
        self.games: dict[str, dict[str, Entry]] = {}

    def put(self, token: str, entries: Mapping[str, Entry]) -> None:
        self.games.setdefault(token, {}).update(entries)

    def read(self, token: str, now: float) -> dict[str, Entry]:
        entries = self.games.get(token, {})
        for socket in [s for s, e in entries.items() if e.until <= now]:
            del entries[socket]
        if not entries:
            self.games.pop(token, None)
        return dict(entries)


@dataclass
class _Game:
    """What this process knows of one game's presence."""

    # This process's open sockets with a seat: socket → (seat, state).
    sockets: dict[str, tuple[int, State]] = field(default_factory=dict)
    # The seats' states as last computed or heard here.
    shown: dict[int, State] | None = None
    # When to look again (an entry runs out then), if ever.
    due: float | None = None
    # Until when a socket closed here is in its grace: the game is not
    # forgotten before its end has been looked at.
    keep_until: float = 0.0


class Presence:
    def __init__(self) -> None:
        self.games: dict[str, _Game] = {}
        self.local = _LocalEntries()
        self._ticker: asyncio.Task[Any] | None = None
        self._renewed = float("-inf")
        self._last_complaint = float("-inf")

    # -- the store --------------------------------------------------------

    def _redis(self) -> Any:
        return quotas.short_calls_client()

    def _complain(self) -> None:
        now = runtime.clock.monotonic()
        if now - self._last_complaint > _QUIET_SECONDS:
            self._last_complaint = now
            log.warning("presence: Redis unreachable, kept in this process", exc_info=True)

    async def _put(self, token: str, entries: Mapping[str, Entry]) -> None:
        if settings.REDIS_URL:
            try:
                keep = int(_ttl() + settings.YACHT_PRESENCE_GRACE_SECONDS)
                async with self._redis().pipeline(transaction=False) as pipe:
                    pipe.hset(_key(token), mapping={s: e.encode() for s, e in entries.items()})
                    # A game nobody renews leaves nothing behind.
                    pipe.expire(_key(token), keep + 1)
                    await pipe.execute()
                return
            except (RedisError, OSError):
                self._complain()
        self.local.put(token, entries)

    async def _read(self, token: str, now: float) -> dict[str, Entry]:
        if settings.REDIS_URL:
            try:
                raw = await self._redis().hgetall(_key(token))
            except (RedisError, OSError):
                self._complain()
            else:
                entries = {}
                dead = []
                # A socket open in this process is alive, as this process
                # knows it, whatever its stored expiry says: its renewal may
                # be on its way to Redis while this read runs (a tick renewing
                # beside another looking), and reading it as run out, or
                # deleting it, would show its seat gone.
                game = self.games.get(token)
                open_here = game.sockets if game is not None else {}
                for socket, text in raw.items():
                    entry = Entry.decode(text)
                    name = socket.decode() if isinstance(socket, bytes) else socket
                    if name in open_here:
                        seat, state = open_here[name]
                        entries[name] = Entry(seat, state, now + _ttl())
                    elif entry is None or entry.until <= now:
                        dead.append(name)
                    else:
                        entries[name] = entry
                if dead:
                    try:
                        await self._redis().hdel(_key(token), *dead)
                    except (RedisError, OSError):
                        self._complain()
                # Entries kept here while Redis was away count too.
                return {**self.local.read(token, now), **entries}
        return self.local.read(token, now)

    # -- the sockets ------------------------------------------------------

    async def arrive(self, token: str, socket: str, seat: int, state: State = ONLINE) -> None:
        """A socket of ``seat`` is open (or says its page's state changed)."""
        game = self.games.setdefault(token, _Game())
        if game.sockets.get(socket) == (seat, state):
            return
        game.sockets[socket] = (seat, state)
        self._start()
        now = runtime.clock.time()
        await self._put(token, {socket: Entry(seat, state, now + _ttl())})
        await self.look(token)

    def leave(self, token: str, socket: str) -> None:
        """A socket of a seat has closed: its entry lasts the grace, then
        the seat is gone unless another socket of it is open by then. From
        any exit path of the socket, without waiting."""
        game = self.games.get(token)
        if game is None or socket not in game.sockets:
            return
        seat, state = game.sockets.pop(socket)
        until = runtime.clock.time() + settings.YACHT_PRESENCE_GRACE_SECONDS
        game.due = until if game.due is None else min(game.due, until)
        game.keep_until = max(game.keep_until, until)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        entry = {socket: Entry(seat, state, until)}
        runtime.loop.spawn(self._put(token, entry), what="presence")

    async def states(self, token: str) -> dict[int, State]:
        """The game's seats' states now, as every process sees them."""
        now = runtime.clock.time()
        entries = await self._read(token, now)
        game = self.games.get(token)
        if game is not None:
            # A grace set by a closing socket whose shortened entry is not
            # stored yet still counts.
            due = [e.until for e in entries.values()]
            if game.due is not None and game.due > now:
                due.append(game.due)
            game.due = min(due) if due else None
        return seat_states(entries, now)

    async def current(self, token: str) -> dict[int, State]:
        """The seats' states for a socket opening on the game; from then on
        this process looks after the game's presence while it has sockets
        of it (one of them may be the last to notice a process gone)."""
        game = self.games.setdefault(token, _Game())
        self._start()
        states = await self.states(token)
        if game.shown is None:
            game.shown = states
        return states

    def heard(self, token: str, states: dict[int, State]) -> None:
        """A push of the game's presence reached this process."""
        game = self.games.get(token)
        if game is not None:
            game.shown = states

    async def look(self, token: str) -> dict[int, State]:
        """Work the game's presence out again; push it if it changed."""
        states = await self.states(token)
        game = self.games.setdefault(token, _Game())
        if states != game.shown:
            game.shown = states
            await push(token, states)
        return states

    # -- the ticks --------------------------------------------------------

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        ticker = self._ticker
        if ticker is not None and not ticker.done() and ticker.get_loop() is loop:
            return
        # Not one of ``live``'s tasks: those are waited for until they end,
        # and this one ends only once no game is left here.
        self._ticker = loop.create_task(self._tick_forever())

    async def _tick_forever(self) -> None:
        while self.games:
            await asyncio.sleep(TICK_SECONDS)
            try:
                await self.tick()
            except Exception:
                runtime.counts["presence_tick_failed"] += 1
                log.exception("presence tick failed")

    async def tick(self) -> None:
        """Renew this process's entries when due, and look again at every
        game with an entry run out."""
        now = runtime.clock.time()
        if now - self._renewed >= _ttl() / 3:
            self._renewed = now
            for token, game in list(self.games.items()):
                if game.sockets:
                    until = now + _ttl()
                    await self._put(
                        token, {s: Entry(seat, st, until) for s, (seat, st) in game.sockets.items()}
                    )
        for token, game in list(self.games.items()):
            if game.due is not None and game.due <= now:
                await self.look(token)
            if not game.sockets and not limits.sockets().watching(token) and now >= game.keep_until:
                # Nobody here holds or watches the game any more, and its
                # last grace here has been seen out: forget it.
                self.games.pop(token, None)


def _ttl() -> float:
    return float(settings.YACHT_PRESENCE_TTL_SECONDS)


def message(states: Mapping[int, State]) -> dict[str, Any]:
    """The ``presence`` message: the seats with a player here or away
    (any other person's seat is gone)."""
    return {"type": "presence", "seats": {str(seat): state for seat, state in states.items()}}


async def push(token: str, states: Mapping[int, State]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    event = {"type": "game.presence", "seats": {str(s): st for s, st in states.items()}}
    try:
        await layer.group_send(group_name(token), event)
    except (RedisError, OSError):
        runtime.counts["presence_failed"] += 1
        log.warning("could not push presence of game %s", token, exc_info=True)


def from_event(event: Mapping[str, Any]) -> dict[int, State]:
    return {int(seat): state for seat, state in event["seats"].items()}


def presence() -> Presence:
    """This process's ``Presence``."""
    return runtime.part(Presence)
