"""The Redis channel layer loses no socket's message when another socket
closes. channels-redis's stock receive lets one waiting socket pop the
process's Redis queue for everyone; when that socket was cancelled (closed)
just as Redis handed it a message for another socket, the message was gone.
These tests need Redis (CI's PostgreSQL + Redis pass)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from games.redislayer import OwnReaderRedisChannelLayer

pytestmark = pytest.mark.skipif(
    not settings.REDIS_URL, reason="needs REDIS_URL (runs in CI's PostgreSQL + Redis pass)"
)

# A Redis database of these tests' own.
REDIS_DB = 6


@pytest.fixture
async def layer() -> AsyncIterator[OwnReaderRedisChannelLayer]:
    url = urlsplit(settings.REDIS_URL)._replace(path=f"/{REDIS_DB}").geturl()
    made = OwnReaderRedisChannelLayer(
        hosts=[{"address": url, "socket_timeout": 30}], expiry=30, capacity=100
    )
    yield made
    await made.flush()


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
    await asyncio.sleep(0.05)
    wait.cancel()
    await asyncio.gather(wait, return_exceptions=True)
    other = await layer.new_channel()
    await layer.group_add("gone", other)
    await layer.group_send("gone", {"type": "game.snapshot", "version": 9})
    assert (await asyncio.wait_for(layer.receive(other), 10))["version"] == 9
    assert channel not in layer._inboxes


async def test_a_full_queue_refuses_more_and_the_group_send_goes_on(layer):
    channel = await layer.new_channel()
    await layer.group_add("full", channel)
    # Nobody reads yet: the process's queue fills up to the layer's capacity.
    for version in range(layer.capacity + 5):
        await layer.group_send("full", {"type": "game.snapshot", "version": version})
    got = [
        (await asyncio.wait_for(layer.receive(channel), 10))["version"]
        for _ in range(layer.capacity)
    ]
    assert got == list(range(layer.capacity))
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(channel), 0.5)
    await layer.group_send("full", {"type": "game.snapshot", "version": 999})
    assert (await asyncio.wait_for(layer.receive(channel), 10))["version"] == 999
