"""The Redis channel layer loses no socket's message when another socket
closes. channels-redis's stock receive lets one waiting socket pop the
process's Redis queue for everyone; when that socket was cancelled (closed)
just as Redis handed it a message for another socket, the message was gone.
These tests need Redis (CI's PostgreSQL + Redis pass)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from django.conf import settings
from redis import utils as redis_utils
from redis.asyncio import Redis

from games.live.redislayer import OwnReaderRedisChannelLayer
from games.store import quotas

pytestmark = pytest.mark.skipif(
    not settings.REDIS_URL, reason="needs REDIS_URL (runs in CI's PostgreSQL + Redis pass)"
)

# Keys of these tests' own in the run's Redis database, which a flush
# empties without touching the run's other keys (a fixed database number
# was shared with whatever else on the machine used it).
PREFIX = "layer-test"


def make_layer() -> OwnReaderRedisChannelLayer:
    return OwnReaderRedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL, "socket_timeout": 30}],
        prefix=PREFIX,
        expiry=30,
        capacity=100,
    )


@pytest.fixture
async def layer() -> AsyncIterator[OwnReaderRedisChannelLayer]:
    made = make_layer()
    yield made
    await made.flush()


@pytest.fixture
async def other() -> AsyncIterator[OwnReaderRedisChannelLayer]:
    """The layer of another server process, on the same Redis."""
    made = make_layer()
    yield made
    # Not flush(): that empties the keys `layer` reads too.
    for reader in list(made._readers.values()):
        reader.cancel()


async def queued(layer: OwnReaderRedisChannelLayer, channel: str) -> int:
    """Messages waiting in Redis in the queue of ``channel``'s process."""
    key = layer.prefix + layer.non_local_name(channel)
    count: int = await layer.connection(layer.consistent_hash(key)).zcard(key)
    return count


async def test_a_socket_closing_while_it_waits_loses_no_other_sockets_push(layer):
    # Repeated: on the stock layer about half of these trials lost the message.
    for trial in range(10):
        leaving = await layer.new_channel()
        staying = await layer.new_channel()
        group = f"game-{trial}"
        await layer.group_add(group, staying)
        waits = [asyncio.ensure_future(layer.receive(c)) for c in (leaving, staying)]
        await asyncio.sleep(0.2)  # both wait; a blocking pop is on the wire
        await layer.group_send(group, {"type": "game.snapshot", "version": trial})
        waits[0].cancel()  # the first socket closes as Redis answers
        message = await asyncio.wait_for(waits[1], timeout=10)
        assert message["version"] == trial
        await layer.group_discard(group, staying)
        waits[1].cancel()


async def test_messages_that_come_before_a_socket_first_waits_are_kept(layer):
    channel = await layer.new_channel()
    await layer.group_add("early", channel)
    for version in (1, 2, 3):
        await layer.group_send("early", {"type": "game.snapshot", "version": version})
    got = [(await asyncio.wait_for(layer.receive(channel), 10))["version"] for _ in range(3)]
    assert got == [1, 2, 3]


async def test_a_closed_sockets_later_mail_is_not_kept(layer):
    channel = await layer.new_channel()
    await layer.group_add("gone", channel)
    wait = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0.05)  # its blocking pop is on the wire to Redis when it is cancelled
    wait.cancel()
    await asyncio.gather(wait, return_exceptions=True)
    other = await layer.new_channel()
    await layer.group_add("gone", other)
    await layer.group_send("gone", {"type": "game.snapshot", "version": 9})
    assert (await asyncio.wait_for(layer.receive(other), 10))["version"] == 9
    assert channel not in layer._inboxes


async def test_this_processs_sockets_get_a_push_without_a_trip_through_its_queue(layer, other):
    here = [await layer.new_channel() for _ in range(2)]
    there = await other.new_channel()
    for channel in [*here, there]:
        await layer.group_add("mixed", channel)
    await layer.group_send("mixed", {"type": "game.snapshot", "version": 4})
    # This process's sockets have it in their inboxes, and nothing waits
    # in Redis for this process; the other process's socket is sent it there.
    assert await queued(layer, here[0]) == 0
    assert await queued(other, there) == 1
    for channel in here:
        assert (await asyncio.wait_for(layer.receive(channel), 10))["version"] == 4
    assert (await asyncio.wait_for(other.receive(there), 10))["version"] == 4
    # And back: the other process's send reaches these sockets through Redis.
    await other.group_send("mixed", {"type": "game.snapshot", "version": 5})
    for channel in here:
        assert (await asyncio.wait_for(layer.receive(channel), 10))["version"] == 5
    assert (await asyncio.wait_for(other.receive(there), 10))["version"] == 5


async def test_a_full_queue_refuses_more_and_the_group_send_goes_on(layer, other):
    channel = await layer.new_channel()
    await layer.group_add("full", channel)
    # Nobody reads yet: the process's queue fills up to the layer's capacity
    # with what another process sends it.
    for version in range(layer.capacity + 5):
        await other.group_send("full", {"type": "game.snapshot", "version": version})
    got = [
        (await asyncio.wait_for(layer.receive(channel), 10))["version"]
        for _ in range(layer.capacity)
    ]
    assert got == list(range(layer.capacity))
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(channel), 0.5)
    await other.group_send("full", {"type": "game.snapshot", "version": 999})
    assert (await asyncio.wait_for(layer.receive(channel), 10))["version"] == 999


async def test_a_member_whose_time_is_up_gets_nothing_and_goes_when_someone_joins(layer, other):
    """A socket of a process that died without leaving stays in the group's
    set: past the group's expiry it is sent nothing, and the next join
    removes it."""
    here = await layer.new_channel()
    gone = await other.new_channel()
    await layer.group_add("stale", here)
    key = layer._group_key("stale")
    redis = layer.connection(layer.consistent_hash("stale"))
    await redis.zadd(key, {gone: time.time() - layer.group_expiry - 5})
    await layer.group_send("stale", {"type": "game.snapshot", "version": 7})
    assert (await asyncio.wait_for(layer.receive(here), 10))["version"] == 7
    assert await queued(other, gone) == 0
    assert await redis.zcard(key) == 2
    await layer.group_add("stale", await layer.new_channel())
    members = {m.decode() for m in await redis.zrange(key, 0, -1)}
    assert gone not in members and here in members and len(members) == 2
    assert 0 < await redis.ttl(key) <= layer.group_expiry


async def test_a_redis_that_forgot_the_queue_script_is_sent_it_again(layer, other):
    there = await other.new_channel()
    await layer.group_add("forgot", there)
    await layer.group_send("forgot", {"type": "game.snapshot", "version": 1})
    await layer.connection(0).script_flush()
    await layer.group_send("forgot", {"type": "game.snapshot", "version": 2})
    got = [(await asyncio.wait_for(other.receive(there), 10))["version"] for _ in range(2)]
    assert got == [1, 2]


async def connections_received() -> int:
    async with Redis.from_url(settings.REDIS_URL, **settings.REDIS_CLIENT_OPTIONS) as client:
        stats = await client.info("stats")
    return int(stats["total_connections_received"])


async def test_new_connections_do_not_introduce_themselves(monkeypatch):
    # When every socket of a process closes at once, the pool opens a
    # connection per group_discard running side by side. Each used to look
    # the library's version up in the installed packages' metadata first.
    def looked_up() -> str:
        raise AssertionError("a new connection looked redis-py's version up")

    monkeypatch.setattr(redis_utils, "get_lib_version", looked_up)
    layers: dict[str, Any] = settings.CHANNEL_LAYERS
    configured = layers["default"]["CONFIG"]["hosts"][0]
    made = OwnReaderRedisChannelLayer(hosts=[configured], prefix=PREFIX)
    before = await connections_received()
    await asyncio.gather(*(made.group_discard("storm", f"gone.{n}") for n in range(20)))
    # The limits' own clients, as a socket's connect counts itself.
    assert await quotas.connect_allowed(address="203.0.113.9")
    # Made here, so the check above had connections to catch.
    assert await connections_received() - before >= 20


async def test_a_burst_past_the_pools_size_waits_for_connections_instead_of_failing():
    # Every socket of a process leaving (or rejoining) its group at once:
    # more commands in flight than the pool has connections.
    made = OwnReaderRedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL, "socket_timeout": 30, "max_connections": 4}],
        prefix=PREFIX,
    )
    try:
        members = [f"gone.{n}" for n in range(200)]
        await asyncio.gather(*(made.group_add("crowd", member) for member in members))
        async with Redis.from_url(settings.REDIS_URL, **settings.REDIS_CLIENT_OPTIONS) as client:
            assert await client.zcard(made._group_key("crowd")) == 200
            await asyncio.gather(*(made.group_discard("crowd", member) for member in members))
            assert await client.zcard(made._group_key("crowd")) == 0
    finally:
        await made.flush()
