"""The game's websocket. Thin on purpose: parse and check the message's shape,
call one service, answer errors to the sender; every state change reaches
every socket through the game's group, pushed after commit.

The message format is documented in docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any
from urllib.parse import parse_qs

from autobahn.exception import Disconnected
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError
from django.utils import translation
from redis.exceptions import RedisError

from games.edge.guests import guest_id_of
from games.live import botplay, limits, loopmoves
from games.live import presence as presences
from games.live.broadcast import group_name
from games.live.presence import presence
from games.live.process import open_sockets
from games.live.socketloop import InTurnConsumer
from games.play import services, turnclock
from games.play.actions import BadMessage, Declaration, parse
from games.present import viewcache
from games.present.messages import error_message
from games.present.rendering import chat_lines_html, coach_message, hint_message
from games.rules import GameError
from games.runtime import runtime
from games.store import dbthreads, quotas
from games.store.selectors import (
    ChatLine,
    Snapshot,
    Sync,
    clock_ran_out,
    game_chat_lines,
    game_viewed_by,
    recent,
    seat_order,
)
from yachtsite.clientaddr import scope_address

log = logging.getLogger(__name__)

# A burst of a few dozen messages, then a handful per second (raised only
# for load tests, whose scripted players act faster than people).
RATE_BURST: int = settings.YACHT_SOCKET_MESSAGE_BURST
RATE_PER_SECOND: float = settings.YACHT_SOCKET_MESSAGES_PER_SECOND
MOVES_ON_LOOP: bool = settings.YACHT_MOVES_ON_LOOP
# A socket's sync reads the game at most this often; one asked sooner is
# answered from what the socket was last sent (``answered_from_memory``).
SYNC_READS_EVERY: float = settings.YACHT_SYNC_READS_EVERY
OWN_SYNC_READ_EVERY = 60.0
# Daphne (through autobahn) refuses to send any close code but 1000 and
# 3000-4999, and drops the reason text: the RFC 6455 codes 1008 (policy
# violation), 1013 (try again later) and 1001 (going away) travel as 4008,
# 4013 and 4001, and the error message sent just before a close is the
# reason people read.
CLOSE_POLICY_VIOLATION = 4008
CLOSE_TRY_AGAIN_LATER = 4013
CLOSE_GOING_AWAY = 4001
CLOSE_NO_SUCH_GAME = 4404
# A socket that has ended waits this long at most to leave its game's group:
# a Redis that stopped answering must not hold on to every closing socket.
LEAVE_GROUP_SECONDS = 2.0


def _opening(token: str, guest: str) -> tuple[tuple[Snapshot, int | None], list[ChatLine]] | None:
    """What a socket opening on ``token`` shows, read in one trip to the
    game's thread: the table with the guest's seat, and the chat's latest
    lines. None if there is no such game."""
    loaded = game_viewed_by(token, guest)
    if loaded is None:
        return None
    return loaded, game_chat_lines(token)


class TokenBucket:
    """A socket's own pace: a burst, then a steady rate (the page paces
    itself by the same two figures, ``static/js/table.js``). Kept over the
    ``limits`` package, which has no token bucket: its nearest, a moving
    window or a sliding window counter in its memory storage, cost 7.6-7.8
    and 10-15 us a check against 0.41 us here, on every message of every
    socket (``bench.limiter``, load average 0.9-1.3)."""

    def __init__(self, burst: int, per_second: float) -> None:
        self.capacity = burst
        self.tokens = float(burst)
        self.rate = per_second
        self.stamp = runtime.clock.monotonic()

    def take(self) -> bool:
        now = runtime.clock.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class SyncReads:
    """When a socket of each game last read it for a sync, and the version
    it found (``GameConsumer._read_by_another``)."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[float, int]] = {}
        # The read each game's sync has in flight, for others to share.
        self.reading: dict[str, asyncio.Future[Sync | None]] = {}

    def get(self, token: str) -> tuple[float, int] | None:
        return self.last.get(token)

    def note(self, token: str, at: float, version: int) -> None:
        if len(self.last) > 10_000:
            # Games no socket asked about lately: forget them.
            self.last = {t: r for t, r in self.last.items() if at - r[0] < SYNC_READS_EVERY}
        self.last[token] = (at, version)


def sync_reads() -> SyncReads:
    return runtime.part(SyncReads)


class GameConsumer(InTurnConsumer, AsyncWebsocketConsumer):
    token: str
    group: str
    guest: str
    language: str
    seat: int | None
    shown_version: int
    synced_at: float
    # When this socket last joined its game's group (or renewed it).
    renewed_at: float = float("-inf")
    address: str
    claim: limits.SocketClaim | None = None
    refused: bool = False
    # The page says it is hidden or idle (the ``presence`` action).
    away: bool = False
    # The seat and state this socket last counted in the game's presence.
    presented: tuple[int, bool] | None = None

    async def connect(self) -> None:
        self.token = self.scope["url_route"]["kwargs"]["token"]
        self.language = self._language()
        self.address = scope_address(self.scope)
        self.bucket = TokenBucket(RATE_BURST, RATE_PER_SECOND)
        self.shown_version = 0
        self.synced_at = float("-inf")
        # Accept before touching the database: a database that is slow to
        # refuse (a pool waiting out its timeout) must not outlast daphne's
        # handshake timeout, or the client gets a dropped line and no reason.
        await self.accept()
        open_sockets().track(self, close_code=CLOSE_GOING_AWAY)
        try:
            await self._open()
        except DatabaseError:
            log.warning("database unavailable on connect to game %s", self.token, exc_info=True)
            await self.send_error("unavailable", resync=False)
            await self.close(code=CLOSE_TRY_AGAIN_LATER)

    async def _open(self) -> None:
        if not await self._admitted():
            return
        if not limits.sockets().admits_spectator() and not await self._seated():
            # Spectators' places are full: a socket without a seat is refused
            # before it joins the group and reads the chat, each a trip that
            # a crowd retrying its refused spectators would multiply.
            await self.refuse_busy()
            return
        # Join the group before reading the state, so no push can fall between.
        self.group = group_name(self.token)
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.renewed_at = runtime.clock.monotonic()
        opened = await dbthreads.run(self.token, _opening, self.token, self.guest)
        if opened is None:
            await self.close(code=CLOSE_NO_SUCH_GAME)
            return
        (snap, self.seat), lines = opened
        if self.seat is None and not (self.claim and limits.sockets().watch(self.claim)):
            await self.refuse_busy()
            return
        # A turn clock that ran out while nobody was connected is honoured
        # now, and the version that follows is the one shown.
        if clock_ran_out(snap["status"], snap["deadline"]) and await dbthreads.run(
            self.token, services.game_clock_expire, token=self.token, version=snap["version"]
        ):
            loaded = await dbthreads.run(self.token, game_viewed_by, self.token, self.guest)
            if loaded is None:
                await self.close(code=CLOSE_NO_SUCH_GAME)
                return
            snap, self.seat = loaded
        await self._show(snap)
        await self._greet(snap, lines)

    async def _seated(self) -> bool:
        """Whether this socket's guest holds a seat at its game."""
        if not self.guest:
            return False
        loaded = await dbthreads.run(self.token, game_viewed_by, self.token, self.guest)
        return loaded is not None and loaded[1] is not None

    async def _admitted(self) -> bool:
        """Whether this socket is within its limits and the process's
        ceilings, with its claim taken; if not, it is told and closed."""
        if not await quotas.connect_allowed(address=self.address):
            await self.send_error("too_many_sockets", resync=False)
            await self.close(code=limits.CLOSE_TOO_MANY_SOCKETS)
            return False
        # A full process refuses everyone before any database work.
        if limits.sockets().full():
            await self.refuse_busy()
            return False
        # The session loads from its store lazily: read it off the event loop.
        self.guest = await dbthreads.run(self.token, guest_id_of, self.scope.get("session"))
        self.claim = limits.sockets().claim(
            address=self.address, guest=self.guest, token=self.token
        )
        if self.claim is None:
            await self.send_error("too_many_sockets", resync=False)
            await self.close(code=limits.CLOSE_TOO_MANY_SOCKETS)
            return False
        # A socket without a session can never hold a seat: a spectator,
        # refused before any database work when spectators are.
        if not self.guest and not limits.sockets().admits_spectator():
            await self.refuse_busy()
            return False
        return True

    async def _greet(self, snap: Snapshot, lines: list[ChatLine]) -> None:
        """After the first table: who is at it, the chat, and the work a
        restarted process may have lost (a bot's step, a turn clock)."""
        # Who is at the table now; later changes come as the group's pushes.
        await self._present()
        states = await presence().current(self.token)
        await self.send(text_data=json.dumps(presences.message(states)))
        # The chat as it is now, for a page that may have missed lines
        # while its socket was away (a fresh page shows them already).
        if lines:
            html = chat_lines_html(lines, self.language)
            await self.send(text_data=json.dumps({"type": "chat_log", "html": html}))
        # A bot whose step was lost with a restarted process moves again now,
        # and a running turn clock is armed here too.
        runtime.loop.remember(asyncio.get_running_loop())
        botplay.schedule(snap)
        turnclock.schedule(snap)

    async def refuse_busy(self) -> None:
        """This process is full (for spectators, or for everyone): say so,
        close, and let the page try again later."""
        self.refused = True
        # Its place is free at once, not when the client completes the close.
        self._give_back()
        # Nor does it relay the game's pushes (or step its bots) meanwhile.
        group = self.__dict__.pop("group", None)
        if group is not None:
            await self.channel_layer.group_discard(group, self.channel_name)
        await self.send_error("server_busy", resync=False)
        await self.close(code=limits.CLOSE_SERVER_BUSY)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Serve the socket; whatever ends it, give back what it holds.

        Channels runs ``disconnect`` only when the client's disconnect is
        dispatched. A socket also ends by its channel layer failing (Redis
        gone), by a handler raising, or by being cancelled (daphne gives up
        on an application that outlives its connection, and cancels every
        one at shutdown): none of those dispatch a disconnect, and the
        claims such a socket kept refused its player's every later socket
        with 4029 until the process restarted.
        """
        try:
            await super().__call__(scope, receive, send)
        except (RedisError, OSError):
            # The channel layer went away under this socket (Redis restarted):
            # no push can reach it any more. Say so and close with "try again",
            # so the client reconnects and resyncs, instead of a bare 1011.
            log.warning(
                "channel layer lost for game %s", getattr(self, "token", "?"), exc_info=True
            )
            # Before the close: the reconnect it prompts must find room.
            self._give_back()
            with contextlib.suppress(Exception):
                await self.send_error("unavailable", resync=False)
                await self.close(code=CLOSE_TRY_AGAIN_LATER)
        finally:
            self._give_back()
            await self._leave_layer()

    def _give_back(self) -> None:
        """Give back the socket's claims and its place among the open
        sockets; at once, without waiting on anything, and as often as asked."""
        open_sockets().untrack(self)
        if self.presented is not None:
            self.presented = None
            presence().leave(self.token, self.channel_name)
        claim, self.claim = self.claim, None
        if claim is not None:
            sockets = limits.sockets()
            sockets.release(claim)
            if not sockets.watching(self.token):
                # A game of bots alone nobody here watches any more gives its
                # slot to one waiting (its step in flight may never be pushed
                # here to find out).
                botplay.slots().release(self.token)

    async def _leave_layer(self) -> None:
        """Leave the game's group, if the channel layer still answers (else
        the membership expires with the layer's ``group_expiry``), then let
        the layer drop what it keeps for this socket."""
        layer = getattr(self, "channel_layer", None)
        if layer is None or not hasattr(self, "channel_name"):
            return
        group = self.__dict__.pop("group", None)
        try:
            if group is not None:
                async with asyncio.timeout(LEAVE_GROUP_SECONDS):
                    await layer.group_discard(group, self.channel_name)
        except (RedisError, OSError, TimeoutError):
            log.info("could not leave group %s", group, exc_info=True)
        finally:
            # This project's layers keep a queue per socket, which a socket
            # ending between two receives leaves behind; channels' own
            # layers have no such call.
            forget = getattr(layer, "forget", None)
            if forget is not None:
                forget(self.channel_name)

    def _language(self) -> str:
        query = self.scope.get("query_string", b"").decode("latin-1")
        wanted = parse_qs(query).get("lang", [""])[-1]
        codes = {code for code, _ in settings.LANGUAGES}
        return wanted if wanted in codes else settings.LANGUAGE_CODE

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not hasattr(self, "group") or self.refused:
            # Refused on connect and closing: what it sends is not read.
            return
        if not self.bucket.take():
            await self.send_error("rate_limited")
            await self.close(code=CLOSE_POLICY_VIOLATION, reason="rate limit")
            return
        if self.seat is None:
            await limits.spectator_turns().turn()
        if self.seat is None and not limits.spectator_messages().take():
            runtime.counts["spectator_messages_refused"] += 1
            await self.send_error("spectators_busy", resync=False)
            return
        if not await quotas.message_allowed(address=self.address, guest=self.guest):
            await self.send_error("rate_limited")
            await self.close(code=CLOSE_POLICY_VIOLATION, reason="rate limit")
            return
        if text_data is None:
            await self.send_error("bad_message", resync=False)
            return
        try:
            declaration, fields = parse(text_data)
        except BadMessage as bad:
            await self.send_error(bad.code, resync=False)
            return
        if declaration.name == "chat" and (
            quotas.chat_held(token=self.token)
            or (self.seat is None and not limits.spectator_chat().take())
        ):
            # The table's chat is full for now, or spectators' chat in this
            # process: refused before any reading.
            await self.send_error("chat_busy", resync=False)
            return
        try:
            await self.perform(declaration, fields)
        except GameError as error:
            # A refused change is followed by the table it was refused
            # against; a refused read changed nothing worth resending.
            await self.send_error(error.code, resync=declaration.answer == "push")
        except DatabaseError:
            # The action's transaction rolled back whole; the player may retry.
            log.warning("database unavailable for game %s", self.token, exc_info=True)
            await self.send_error("unavailable", resync=False)

    async def perform(self, declaration: Declaration, fields: dict[str, Any]) -> None:
        """Call the action's verb; answer the sender as its declaration says."""
        if declaration.answer == "presence":
            if self.seat is None:
                raise GameError("not_seated")
            self.away = bool(fields["away"])
            await self._present()
            return
        if declaration.answer == "current" and await self.answered_from_memory(
            fields.get("version")
        ):
            return
        result: Any = None
        if declaration.verb is not None:
            call = {"token": self.token, "guest_id": self.guest, **fields}
            if declaration.addressed:
                call["address"] = self.address
            if MOVES_ON_LOOP and declaration.verb in services.MOVES:
                # Most moves are settled on the row this process remembers,
                # here on the loop; the rest lock the row on the game's thread.
                result = await loopmoves.settle(declaration.verb, **call)
            if declaration.answer == "current":
                result = await self._read_for_sync(declaration.verb, call)
            if result is None:
                result = await dbthreads.run(self.token, declaration.verb, **call)
        if declaration.answer == "table":
            await self.send_fresh_table(force=True)
        elif declaration.answer == "current":
            await self.answer_sync(asked=fields.get("version"), current=result)
        elif declaration.answer == "hint":
            await self.send(text_data=json.dumps(hint_message(result, self.language)))
        elif declaration.answer == "coach":
            await self.send(text_data=json.dumps(coach_message(result, self.language)))

    async def answered_from_memory(self, asked: int | None) -> bool:
        """Answer a ``sync`` asked again within ``SYNC_READS_EVERY`` of the
        last from what this socket was last sent, without the database.

        A page asks at most every few seconds; a client asking faster, each
        ask a database read, a Redis command and often a whole table, made a
        crowd of spectators within their message limits cost other games'
        pushes 100 times their latency (``bench.crowd --attack tables``).
        Whatever this socket was sent reaches the client before the answer,
        so what it was sent is what the client has, or is about to have.
        """
        now = runtime.clock.monotonic()
        if now - self.synced_at >= SYNC_READS_EVERY and not self._read_by_another(now):
            self.synced_at = now
            return False
        if asked == self.shown_version:
            await self.send(text_data=json.dumps({"type": "current", "version": asked}))
            return True
        shown = recent().get(self.token, self.shown_version)
        if shown is None or (self.guest and shown["status"] == "lobby"):
            return False
        await self._show(shown, force=True)
        return True

    def _read_by_another(self, now: float) -> bool:
        """Whether another socket of this game here read it within
        ``SYNC_READS_EVERY`` and found no version this socket was not shown.

        The once-a-second read was per socket: fifty addresses' 800 sockets
        asking for tables made 800 reads a second, and the database threads'
        queue held up other games' moves for seconds (``bench.abuse --attack
        tables``). The sockets of one game share it. A socket whose group
        membership was last renewed (on opening, or by its own read) over
        ``OWN_SYNC_READ_EVERY`` ago reads for itself: Redis lets membership
        lapse after a day."""
        read = sync_reads().get(self.token)
        return (
            read is not None
            and now - read[0] < SYNC_READS_EVERY
            and read[1] <= self.shown_version
            and now - self.renewed_at < OWN_SYNC_READ_EVERY
        )

    async def _read_for_sync(self, verb: Any, call: dict[str, Any]) -> Sync:
        """The game's version for a sync, from a read another socket of the
        game has in flight if there is one: a crowd's sockets of one game
        asking at the same moment each went to the database, all of them
        before any read had come back to be shared. A shared read older than
        what this socket was shown is not enough: it reads for itself. (Off
        when every sync reads, as in the socket tests: a read begun before
        a commit would answer an ask made after it.)"""
        reads = sync_reads()
        pending = reads.reading.get(self.token)
        if pending is not None and SYNC_READS_EVERY > 0:
            shared = await asyncio.shield(pending)
            if shared is not None and shared.version >= self.shown_version:
                return shared
        # None to those sharing it if this read fails: each reads for itself.
        read: asyncio.Future[Sync | None] = asyncio.get_running_loop().create_future()
        reads.reading[self.token] = read
        found: Sync | None = None
        try:
            current: Sync = await dbthreads.run(self.token, verb, **call)
            found = current
            return current
        finally:
            read.set_result(found)
            if reads.reading.get(self.token) is read:
                del reads.reading[self.token]

    async def answer_sync(self, *, asked: int | None, current: Sync) -> None:
        """Answer a client that asks whether it is up to date.

        A client that names the version it shows and is current gets a short
        ``current`` answer, so a watchdog's periodic check costs one indexed
        read and no render; otherwise the whole table comes again.
        """
        sync_reads().note(self.token, self.synced_at, current.version)
        # Group membership expires after a day on Redis: renew it, so a tab
        # left open for days goes on hearing pushes.
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.renewed_at = runtime.clock.monotonic()
        # A page whose clock reached zero asks: a deadline no timer acted on
        # (its process gone) is honoured now, and the new version follows.
        if current.clock_due and await dbthreads.run(
            self.token, services.game_clock_expire, token=self.token, version=current.version
        ):
            return
        if asked is not None and asked == current.version:
            await self.send(text_data=json.dumps({"type": "current", "version": current.version}))
            return
        # The current version as this process last saw it pushed: no second
        # read. A socket that may take a seat (a guest in a lobby) reads its
        # seat again with the table.
        known = recent().get(self.token, current.version)
        if known is not None and (not self.guest or known["status"] != "lobby"):
            await self._show(known, force=True)
            return
        await self.send_fresh_table(force=True)

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except Disconnected:
            # The client left while we were answering it; its disconnect follows.
            return

    async def send_error(self, code: str, *, resync: bool = True) -> None:
        with translation.override(self.language):
            text = error_message(code)
        await self.send(text_data=json.dumps({"type": "error", "code": code, "message": text}))
        if resync:
            await self.send_fresh_table(force=True)

    async def send_fresh_table(self, *, force: bool = False) -> None:
        loaded = await dbthreads.run(self.token, game_viewed_by, self.token, self.guest)
        if loaded is None:
            # Deleted under the socket (a stale lobby cleaned away).
            await self.close(code=CLOSE_NO_SUCH_GAME)
            return
        snap, self.seat = loaded
        await self._present()
        await self._show(snap, force=force)

    async def game_snapshot(self, event: dict[str, Any]) -> None:
        snap: Snapshot = event["snapshot"]
        recent().remember(snap)
        # Every process watching a game of bots steps it (once per process):
        # the one that committed the last step may have nobody watching.
        botplay.schedule(snap)
        # Every process with a socket of the game arms the turn clock, so the
        # deadline is kept if the process that committed this version dies.
        turnclock.schedule(snap)
        # Seats are taken in the lobby and closed at the start: look ours up
        # again, then show exactly the version pushed (a fresh read of the
        # whole game could already be a later one, and this socket would never
        # have been shown the version in between). A socket without a session
        # can never hold a seat and needs no lookup.
        if self.guest and (
            snap["status"] == "lobby" or (snap["last"] and snap["last"]["kind"] == "start")
        ):
            try:
                self.seat = await dbthreads.run(self.token, seat_order, self.token, self.guest)
            except DatabaseError:
                # This viewer misses one push; the next one, or a sync, catches up.
                log.warning("database unavailable for game %s", self.token, exc_info=True)
                return
            await self._present()
        await self._show(snap)

    async def game_chat(self, event: dict[str, Any]) -> None:
        line: ChatLine = event["line"]
        # Players always hear their table; a crowd of spectators only within
        # the process's budget of chat deliveries, so that chat into big
        # crowds cannot take the loop's time from the moves' pushes.
        if self.seat is None:
            await limits.spectator_turns().turn()
            if not limits.chat_deliveries().take():
                runtime.counts["chat_deliveries_skipped"] += 1
                return
        await self.send(text_data=viewcache.chat_text(line, self.language))

    async def game_presence(self, event: dict[str, Any]) -> None:
        states = presences.from_event(event)
        presence().heard(self.token, states)
        await self.send(text_data=json.dumps(presences.message(states)))

    async def _present(self) -> None:
        """Count this socket in its seat's presence as it is now: from the
        moment it has a seat, and again when its page's state changes."""
        if self.seat is None or self.presented == (self.seat, self.away):
            return
        self.presented = (self.seat, self.away)
        state = presences.AWAY if self.away else presences.ONLINE
        await presence().arrive(self.token, self.channel_name, self.seat, state)

    async def _show(self, snap: Snapshot, *, force: bool = False) -> None:
        if snap["version"] < self.shown_version or (
            snap["version"] == self.shown_version and not force
        ):
            return
        self.shown_version = snap["version"]
        await self.send(text_data=viewcache.table_text(snap, self.seat, self.language))
