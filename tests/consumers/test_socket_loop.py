"""A socket's messages are dispatched one at a time, from both sources, as
channels' own loop does it (games/live/socketloop.py), with one task per
source for the socket's life."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.exceptions import StopConsumer

from games.live.socketloop import dispatch_in_turn
from tests import factories


class Source:
    """A source as daphne's receive and a layer's receive are: a queue's get."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.cancelled = False

    async def __call__(self) -> dict[str, Any]:
        try:
            return await self.queue.get()
        except asyncio.CancelledError:
            self.cancelled = True
            raise


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def test_a_message_waits_while_another_is_dispatched_and_each_source_keeps_its_order():
    client, layer = Source(), Source()
    seen: list[str] = []
    running = 0
    release = asyncio.Event()

    async def dispatch(message: dict[str, Any]) -> None:
        nonlocal running
        running += 1
        assert running == 1, "two messages dispatched at once"
        seen.append(message["n"])
        if message["n"] == "c1":
            await release.wait()
        running -= 1

    loop = asyncio.ensure_future(dispatch_in_turn([client, layer], dispatch))
    client.queue.put_nowait({"n": "c1"})
    await settle()
    for n in ("l1", "l2"):
        layer.queue.put_nowait({"n": n})
    client.queue.put_nowait({"n": "c2"})
    await settle()
    assert seen == ["c1"]
    release.set()
    await settle()
    assert sorted(seen) == ["c1", "c2", "l1", "l2"]
    assert seen.index("l1") < seen.index("l2")
    loop.cancel()
    with pytest.raises(asyncio.CancelledError):
        await loop
    assert client.cancelled and layer.cancelled


async def test_a_stop_ends_the_loop_and_nothing_is_dispatched_after_it():
    client, layer = Source(), Source()
    seen: list[str] = []
    stopping = asyncio.Event()

    async def dispatch(message: dict[str, Any]) -> None:
        seen.append(message["n"])
        if message["n"] == "disconnect":
            # A push arrives while the disconnect is being handled.
            layer.queue.put_nowait({"n": "late push"})
            stopping.set()
            await settle()
            raise StopConsumer

    loop = asyncio.ensure_future(dispatch_in_turn([client, layer], dispatch))
    client.queue.put_nowait({"n": "disconnect"})
    with pytest.raises(StopConsumer):
        await asyncio.wait_for(loop, 1)
    assert seen == ["disconnect"]


async def test_a_source_that_fails_ends_the_loop_with_its_error():
    class Failing(Source):
        async def __call__(self) -> dict[str, Any]:
            await asyncio.sleep(0)
            raise ConnectionError("layer gone")

    client = Source()

    async def dispatch(message: dict[str, Any]) -> None:
        raise AssertionError("nothing to dispatch")

    with pytest.raises(ConnectionError, match="layer gone"):
        await asyncio.wait_for(dispatch_in_turn([client, Failing()], dispatch), 1)
    assert client.cancelled


async def test_the_loop_ends_when_cancelled_even_if_a_handler_swallows_the_cancellation():
    # As Python 3.11's asyncio.wait_for does when what it waits on finishes
    # in the step the cancellation comes in (redis-py's command writes).
    client, layer = Source(), Source()
    handling = asyncio.Event()

    async def dispatch(message: dict[str, Any]) -> None:
        handling.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return

    loop = asyncio.ensure_future(dispatch_in_turn([client, layer], dispatch))
    client.queue.put_nowait({"n": "connect"})
    await handling.wait()
    loop.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(loop, 1)
    assert layer.cancelled


async def test_each_source_has_one_task_for_the_socket_life():
    client, layer = Source(), Source()
    dispatched = 0

    async def dispatch(message: dict[str, Any]) -> None:
        nonlocal dispatched
        dispatched += 1

    before = len(asyncio.all_tasks())
    loop = asyncio.ensure_future(dispatch_in_turn([client, layer], dispatch))
    await settle()
    tasks = asyncio.all_tasks()
    for n in range(50):
        (client if n % 2 else layer).queue.put_nowait({"n": n})
        await settle()
        assert asyncio.all_tasks() == tasks
    assert dispatched == 50
    assert len(tasks) == before + 3  # the loop and its two pumps
    loop.cancel()
    with pytest.raises(asyncio.CancelledError):
        await loop


def pumps() -> set[asyncio.Task[Any]]:
    return {
        task
        for task in asyncio.all_tasks()
        if task.get_coro().__qualname__ == "_Turns.pump"  # type: ignore[union-attr]
    }


@pytest.mark.django_db(transaction=True)
async def test_the_game_socket_keeps_its_two_tasks_through_moves_and_pushes(connect):
    game = await sync_to_async(factories.lobby_game)()
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    for client in (ana, bo):
        await client.table()
    serving = pumps()
    assert len(serving) == 4  # two sockets, each its client and its channel
    await ana.send({"action": "start", "version": 2})
    await ana.send({"action": "roll", "version": 3, "hold": []})
    for client in (ana, bo):
        await client.table_at(4)
    await bo.send({"action": "sync"})
    assert (await bo.table())["version"] == 4
    assert pumps() == serving


class Handler:
    """A socket's handler, holding what a consumer holds (its session, its
    queues), as its bound ``dispatch`` does."""

    def __init__(self) -> None:
        self.held = {"session": object()}

    async def dispatch(self, message: dict[str, Any]) -> None:
        raise StopConsumer


async def test_a_loop_ended_by_its_handler_leaves_no_cycle_for_the_collector():
    # A refused socket ends by its handler raising StopConsumer. Re-raised
    # from the pump's task, that exception and the loop's frame held each
    # other, and with them the whole socket, till a full collector pass.
    client, layer = Source(), Source()
    handler = Handler()
    alive = weakref.ref(handler)
    client.queue.put_nowait({"type": "websocket.disconnect"})
    gc.disable()
    try:
        with contextlib.suppress(StopConsumer):
            await dispatch_in_turn([client, layer], handler.dispatch)
        del handler
        # Freed as the last reference went, without the collector.
        assert alive() is None
    finally:
        gc.enable()
