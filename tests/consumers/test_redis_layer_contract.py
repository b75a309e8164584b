"""What the project's Redis layer (games/live/redislayer.py) takes from
channels-redis's core layer, held to that layer's own behaviour: its
members, its group and queue keys, and its wire format, against a stock
``RedisChannelLayer`` on the same Redis as another server process would run
it. An upgrade of channels-redis that changes any of them fails here, not
in production. These tests need Redis (CI's PostgreSQL + Redis pass)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from channels_redis.core import RedisChannelLayer
from django.conf import settings
from redis.asyncio import BlockingConnectionPool, Redis

from games.live.redislayer import OwnReaderRedisChannelLayer

pytestmark = pytest.mark.skipif(
    not settings.REDIS_URL, reason="needs REDIS_URL (runs in CI's PostgreSQL + Redis pass)"
)

# Keys of these tests' own in the run's Redis database (see test_redis_layer.py).
PREFIX = "layer-contract-test"
CONFIG = {"prefix": PREFIX, "expiry": 30, "group_expiry": 600, "capacity": 7}


def hosts() -> list[dict[str, object]]:
    return [{"address": settings.REDIS_URL, "socket_timeout": 30}]


@pytest.fixture
async def ours() -> AsyncIterator[OwnReaderRedisChannelLayer]:
    made = OwnReaderRedisChannelLayer(hosts=hosts(), **CONFIG)
    yield made
    await made.flush()


@pytest.fixture
async def stock() -> AsyncIterator[RedisChannelLayer]:
    """The stock layer, as another server process would run it."""
    made = RedisChannelLayer(hosts=hosts(), **CONFIG)
    yield made
    await made.close_pools()


async def test_the_settings_the_layer_reads_are_the_stock_layers_own(ours):
    assert (ours.expiry, ours.group_expiry, ours.capacity) == (30, 600, 7)
    assert ours.prefix == PREFIX
    assert isinstance(ours.brpop_timeout, int) and ours.brpop_timeout > 0
    assert isinstance(ours.connection(ours.consistent_hash("any")), Redis)


async def test_a_socket_channel_is_named_after_its_process_queue(ours):
    channel = await ours.new_channel()
    process = ours.non_local_name(channel)
    assert process == f"specific.{ours.client_prefix}!"
    assert channel.startswith(process) and len(channel) > len(process)
    # What the layer tells its own sockets' channels by.
    assert f".{ours.client_prefix}!" in channel
    assert ours.require_valid_channel_name(channel)
    assert ours.require_valid_group_name("game.token-1")


async def test_a_group_joined_through_the_stock_layer_is_the_key_the_layer_reads(ours, stock):
    channel = await stock.new_channel()
    await stock.group_add("game.joined", channel)
    key = ours._group_key("game.joined")
    redis = ours.connection(ours.consistent_hash("game.joined"))
    assert await redis.zscore(key, channel) is not None


async def test_a_group_send_reaches_a_stock_process_socket_in_its_wire_format(ours, stock):
    # Through the layer's own script, fed by _map_channel_keys_to_connection.
    there = await stock.new_channel()
    await ours.group_add("game.across", there)
    await ours.group_send("game.across", {"type": "game.snapshot", "version": 3})
    got = await asyncio.wait_for(stock.receive(there), 10)
    assert got == {"type": "game.snapshot", "version": 3}


async def test_a_stock_process_group_send_reaches_a_socket_here(ours, stock):
    # The stock layer's write, read by the layer's own reader (BZPOPMIN,
    # deserialize, __asgi_channel__).
    here = await ours.new_channel()
    await stock.group_add("game.back", here)
    await stock.group_send("game.back", {"type": "game.snapshot", "version": 4})
    got = await asyncio.wait_for(ours.receive(here), 10)
    assert got == {"type": "game.snapshot", "version": 4}


async def test_the_mapping_of_channels_to_queues_has_the_shape_the_layer_unpacks(ours):
    first, second = await ours.new_channel(), await ours.new_channel()
    by_connection, messages, capacities = ours._map_channel_keys_to_connection(
        [first, second], {"type": "game.snapshot", "version": 5}
    )
    key = ours.prefix + ours.non_local_name(first)
    assert dict(by_connection) == {0: [key]}
    assert capacities == {key: 7}
    message = ours.deserialize(messages[key])
    assert message == {"type": "game.snapshot", "version": 5, "__asgi_channel__": [first, second]}


async def test_the_pool_is_made_by_the_method_the_layer_calls_with_its_hosts(ours):
    # The layer makes its pools through ``create_pool(index)`` from
    # ``hosts``, each with an ``address``: where ours hands it a pool that waits.
    assert ours.hosts[0]["address"] == settings.REDIS_URL
    assert isinstance(ours.connection(0).connection_pool, BlockingConnectionPool)
