"""The embedded setup's in-memory channel layer: a push's cost does not grow
with the number of sockets in the process, and it delivers as channels'
own in-memory layer does."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from channels.layers import InMemoryChannelLayer

from games.live import memorylayer
from games.live.memorylayer import SharedCopyInMemoryChannelLayer
from games.runtime import runtime


async def test_a_group_send_reaches_every_member_in_order() -> None:
    layer = SharedCopyInMemoryChannelLayer(capacity=10)
    members = [await layer.new_channel() for _ in range(3)]
    outsider = await layer.new_channel()
    for channel in members:
        await layer.group_add("game.a", channel)
    await layer.group_add("game.b", outsider)
    for version in (1, 2):
        await layer.group_send("game.a", {"type": "game.snapshot", "version": version})
    for channel in members:
        got = [(await layer.receive(channel))["version"] for _ in range(2)]
        assert got == [1, 2]
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(outsider), 0.1)


async def test_a_full_channel_misses_a_message_and_the_others_still_get_it() -> None:
    layer = SharedCopyInMemoryChannelLayer(capacity=2)
    slow, quick = await layer.new_channel(), await layer.new_channel()
    for channel in (slow, quick):
        await layer.group_add("game", channel)
    await layer.group_send("game", {"type": "game.snapshot", "version": 1})
    await layer.group_send("game", {"type": "game.snapshot", "version": 2})
    assert (await layer.receive(quick))["version"] == 1
    # slow has read nothing: its queue is full and it misses version 3,
    # which the operator sees counted.
    missed = runtime.counts["inbox_overflows"]
    await layer.group_send("game", {"type": "game.snapshot", "version": 3})
    assert runtime.counts["inbox_overflows"] == missed + 1
    assert [(await layer.receive(slow))["version"] for _ in range(2)] == [1, 2]
    assert [(await layer.receive(quick))["version"] for _ in range(2)] == [2, 3]


async def test_a_push_does_not_walk_every_socket_of_the_process(monkeypatch) -> None:
    walks = 0
    stock_clean = InMemoryChannelLayer._clean_expired

    def counted(self: InMemoryChannelLayer) -> None:
        nonlocal walks
        walks += 1
        stock_clean(self)

    monkeypatch.setattr(InMemoryChannelLayer, "_clean_expired", counted)
    # However slow the machine, this test's calls fall within one interval.
    monkeypatch.setattr(memorylayer, "CLEAN_EVERY_SECONDS", 600.0)
    layer = SharedCopyInMemoryChannelLayer()
    # 100 games of two sockets, every socket waiting for its next push.
    sockets = {}
    for game in range(100):
        for _ in range(2):
            channel = await layer.new_channel()
            await layer.group_add(f"game.{game}", channel)
            sockets[channel] = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0)
    for game in range(100):
        await layer.group_send(f"game.{game}", {"type": "game.snapshot", "version": 1})
    got = await asyncio.gather(*sockets.values())
    assert all(message["version"] == 1 for message in got)
    # The stock layer walks all of them on each of these 300 calls.
    assert walks == 1


async def test_expired_messages_and_their_channels_still_go(monkeypatch, time_machine) -> None:
    # Dated, as channels' layer dates them, by the wall clock the test moves.
    time_machine.move_to(datetime.now(tz=UTC), tick=False)
    monkeypatch.setattr(memorylayer, "CLEAN_EVERY_SECONDS", 0.0)
    layer = SharedCopyInMemoryChannelLayer(expiry=0)
    gone, other = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("game", gone)
    await layer.group_send("game", {"type": "game.snapshot", "version": 1})
    time_machine.shift(1)
    # The next call's sweep drops the expired message, and with it the
    # channel's membership, as the stock layer does.
    await layer.group_add("game", other)
    await layer.group_send("game", {"type": "game.snapshot", "version": 2})
    assert gone not in layer.groups.get("game", {})
