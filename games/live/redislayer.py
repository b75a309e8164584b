"""The Redis channel layer, with the process's read owned by the layer.

channels-redis keeps one Redis queue per process for all its sockets. Its
stock ``receive()`` lets whichever socket's receive holds a lock pop that
queue (``BZPOPMIN``) and hand out what it pops. A socket that closes is
cancelled inside its receive; if it held the lock and Redis had just popped
a message for another socket, the reply dies with the cancelled task: Redis
no longer has the message and nobody got it. A push carries a whole game's
sockets on one process, so the game stalls. Sockets closing all the time
(games ending, tabs closing) made this a few lost pushes in every few
hundred games.

Here one task per process, which no socket can cancel, does every pop and
files each message in the inbox of the socket it is for. A socket's receive
only waits on its own inbox, so cancelling it loses nothing but its own
mail. If Redis fails under the reader, every waiting socket hears the error
(and closes with "try again"), as with the stock layer.

The reader pops with a plain ``BZPOPMIN``. The stock receive also copies
each popped message to a backup queue and clears it after (three more round
trips per message), so that a pop cancelled in flight leaves the message
for the next one. Nothing cancels this reader while the process has a
socket: only the last one leaving or the loop closing does, and then no
socket here is left to deliver to. A read that fails with Redis closes
every socket with "try again", and a socket that reconnects is first sent
the whole current table.

A push's group send reads the group's live members (one command, one round
trip) and puts the message straight into the inboxes of this process's
sockets: it never goes through this process's own queue and back. Only
other processes' queues are written, all in one script (sent by its digest
once Redis knows it), so a push among the sockets of one process costs one
round trip instead of the stock layer's eight. Members whose time is up
are left out by the read and removed when a socket joins (one round trip
with the join, where the stock layer took two to join and one more on
every send to tidy up).

Why not channels-redis's own answer to that loss, ``RedisPubSubChannelLayer``
(django/channels#1683), measured against this layer with channels-redis
4.3.0 (docs/performance.md has the runs): it loses no push when a waiting
socket is cancelled either (0 in 60 trials, as this layer; the stock core
layer lost 7, 1 and 0 of 20 in three runs of that trial, ``bench.layers``), but every
publish, subscribe and unsubscribe of a process waits its turn on
one lock and one connection. At 600 human-paced games, 490 of the games'
set-ups failed their websocket handshake (this layer: none, on the machine
loaded alike), and 528 closing sockets had their unsubscribe cancelled while
it waited, leaving them subscribed. Even unhurried, a closing socket does
not always unsubscribe (channels has no call that tells a layer a socket is
gone): under the soak the process's subscriptions grew by about 35 a minute,
955 after 17 minutes with at most 27 sockets open. And when Redis goes away
it tells no socket, so a page shows itself connected and hears nothing
(tests/browser/test_redis_outage.py fails on it). It cost more CPU too: in
three pairs of closed-loop runs one after the other (``bench.live_play``,
50 games, a loaded shared machine) daphne spent 1.10-1.70 ms an action on
the floor with it against 0.57-0.69 with this layer, and 5.0-10.5 ms a
move against 3.0-5.6.

What this layer takes from the core layer's internals (its key names, wire
format, channel names and a few undocumented members) is pinned to
channels-redis's minor version and held by
tests/consumers/test_redis_layer_contract.py.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import redis.asyncio
from channels_redis.core import RedisChannelLayer
from redis.commands.core import AsyncScript

from games.runtime import runtime

log = logging.getLogger(__name__)

# How long a command waits for one of the pool's connections to be free
# before it fails as a Redis that does not answer would.
POOL_WAIT_SECONDS = 5.0


# Adds one message to each queue in KEYS (ARGV: the messages, then each
# queue's capacity, then the cutoff before which queued messages have
# expired, the time now and the queues' time to live). A full queue refuses
# its message; the script answers how many did.
_QUEUE_SCRIPT = """
local n = #KEYS
local cutoff, now, ttl = ARGV[2 * n + 1], ARGV[2 * n + 2], ARGV[2 * n + 3]
local refused = 0
for i = 1, n do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, cutoff)
    if redis.call('ZCARD', KEYS[i]) < tonumber(ARGV[n + i]) then
        redis.call('ZADD', KEYS[i], now, ARGV[i])
        redis.call('EXPIRE', KEYS[i], ttl)
    else
        refused = refused + 1
    end
end
return refused
"""
# Sent by its SHA1 digest (EVALSHA), and in full only to a Redis that does
# not know it yet; bytes, so the digest needs no client's encoding.
_queue_script = AsyncScript(None, _QUEUE_SCRIPT.encode())  # type: ignore[arg-type]


class Inbox(asyncio.Queue[Any]):
    """A socket's messages; past ``maxsize`` the oldest goes, and is counted."""

    def put_nowait(self, item: Any) -> None:
        if self.full():
            self.get_nowait()
            runtime.counts["inbox_overflows"] += 1
            log.warning("a socket's inbox overflowed: dropped its oldest message")
        super().put_nowait(item)


class OwnReaderRedisChannelLayer(RedisChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._inboxes: dict[str, Inbox] = {}
        self._readers: dict[str, asyncio.Task[None]] = {}
        # What every channel made here has in its name (see new_channel).
        self._own_mark = f".{self.client_prefix}!"

    def create_pool(self, index: int) -> redis.asyncio.ConnectionPool:
        """A pool whose commands wait for a free connection, where the stock
        one raises ``MaxConnectionsError`` once all are in use. 2,600
        sockets closing together (the end of a bench window; pages
        reconnecting together after a restart) each leave or join their
        game's group and push its presence at once, and past the pool's
        1,000 connections the rest failed: a socket joining was closed with
        "try again", one leaving stayed in its group (sent each push of its
        game till the group's expiry) and a presence push was lost."""
        host = dict(self.hosts[index])
        address = host.pop("address", None)
        if address is None:
            return super().create_pool(index)
        return redis.asyncio.BlockingConnectionPool.from_url(
            address, timeout=POOL_WAIT_SECONDS, **host
        )

    async def new_channel(self, prefix: str = "specific") -> str:
        channel: str = await super().new_channel(prefix)
        # Messages may come before the socket's first receive: keep them.
        self._inboxes[channel] = Inbox(self.capacity)
        return channel

    async def receive(self, channel: str) -> Any:
        if "!" not in channel:
            return await super().receive(channel)
        inbox = self._inboxes.get(channel)
        if inbox is None:
            inbox = self._inboxes[channel] = Inbox(self.capacity)
        self._ensure_reader(self.non_local_name(channel))
        try:
            item = await inbox.get()
        except asyncio.CancelledError:
            # Channels cancels a consumer's receive only when the consumer is done.
            self._inboxes.pop(channel, None)
            if not self._inboxes:
                # No socket left to read for: stop reading (nothing popped now
                # could be anyone's), so no reader outlives its event loop.
                # The next receive starts a new one.
                for reader in self._readers.values():
                    reader.cancel()
                self._readers.clear()
            raise
        if isinstance(item, BaseException):
            raise item
        return item

    def forget(self, channel: str) -> None:
        """Drop the inbox of a socket that has ended. A receive cancelled
        drops its own; a socket can also end between two receives (a
        handler raising on the message the last one returned, or on the
        error this layer hands every socket when Redis fails)."""
        self._inboxes.pop(channel, None)

    def _ensure_reader(self, process_channel: str) -> None:
        loop = asyncio.get_running_loop()
        reader = self._readers.get(process_channel)
        if reader is not None and not reader.done() and reader.get_loop() is loop:
            return
        self._readers[process_channel] = loop.create_task(self._read(process_channel))

    async def _read(self, process_channel: str) -> None:
        connection = self.connection(self.consistent_hash(process_channel))
        key = self.prefix + process_channel
        while self._inboxes and not self._stopping():
            try:
                # One blocking pop at a time (it waits up to brpop_timeout),
                # so the loop can look between pops whether it should stop.
                popped = await connection.bzpopmin(key, timeout=self.brpop_timeout)
            except BaseException as error:
                if not isinstance(error, Exception):
                    raise
                # Redis is gone or failing: tell every waiting socket, as the
                # stock layer tells the one holding its lock. The next receive
                # starts a new reader.
                for inbox in self._inboxes.values():
                    inbox.put_nowait(error)
                break
            if popped is None:
                continue
            message = self.deserialize(popped[1])
            destination = message.pop("__asgi_channel__", process_channel)
            for name in destination if isinstance(destination, list) else [destination]:
                found = self._inboxes.get(name)
                if found is not None:
                    found.put_nowait(message)
        if self._readers.get(process_channel) is asyncio.current_task():
            del self._readers[process_channel]

    async def group_add(self, group: str, channel: str) -> None:
        """The stock join in one round trip, not two, which also drops the
        members whose time is up (the stock layer did that on every send)."""
        assert self.require_valid_group_name(group), "Group name not valid"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        key = self._group_key(group)
        now = time.time()
        async with self.connection(self.consistent_hash(group)).pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(key, min=0, max=int(now) - self.group_expiry)
            pipe.zadd(key, {channel: now})
            # Everything in the group now is gone by then.
            pipe.expire(key, self.group_expiry)
            await pipe.execute()

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """The stock group send in one or two round trips, not four: the
        group's live members are read in one command; this process's
        members get the message in their inboxes at once, and only other
        processes' queues are written, by a script that also drops their
        expired messages."""
        assert self.require_valid_group_name(group), "Group name not valid"
        key = self._group_key(group)
        # Joined within group_expiry (the stock send removes the rest first;
        # here group_add does).
        members = await self.connection(self.consistent_hash(group)).zrangebyscore(
            key, f"({int(time.time()) - self.group_expiry}", "+inf"
        )
        remote: list[str] = []
        here: list[Inbox] = []
        for member in members:
            channel = member.decode("utf8")
            if self._own_mark not in channel:
                remote.append(channel)
            elif (inbox := self._inboxes.get(channel)) is not None:
                here.append(inbox)
        if here:
            # This process's sockets share one copy, as they share one popped
            # message: no round trip to this process's own queue and back.
            # What it carries is the committed snapshot, never changed after.
            delivered = dict(message)
            for inbox in here:
                inbox.put_nowait(delivered)
        if not remote:
            return
        by_connection, messages, capacities = self._map_channel_keys_to_connection(remote, message)
        for index, keys in by_connection.items():
            now = time.time()
            refused = await _queue_script(
                keys=keys,
                args=[
                    *(messages[k] for k in keys),
                    *(capacities[k] for k in keys),
                    int(now) - int(self.expiry),
                    now,
                    self.expiry,
                ],
                client=self.connection(index),
            )
            if refused:
                log.info("%s of %s channels over capacity in group %s", refused, len(keys), group)

    @staticmethod
    def _stopping() -> bool:
        # redis-py retries a read that timed out just as its task was
        # cancelled, which swallows the cancellation (Python 3.11): a reader
        # asked to stop checks for it between pops instead of reading forever.
        task = asyncio.current_task()
        return task is not None and task.cancelling() > 0

    async def flush(self) -> None:
        for reader in list(self._readers.values()):
            reader.cancel()
        self._readers.clear()
        self._inboxes.clear()
        await super().flush()
