"""How a game's socket takes its messages: one at a time, from the client
and from the channel layer, as channels' consumers do, with less made per
message.

Channels' consumer loop (``channels.utils.await_many_dispatch``) starts a
new task for each message either source gives, and a new ``asyncio.wait``
around both after each: for every message a socket receives, a task, its
context, its coroutine, a waiter future and the wait's callbacks, each
kept until that source's next message, a second or more later. Across a
thousand games those were the largest share of what the collector's young
passes walked (docs/performance.md, "Young passes that grew"). Here each source
has one task for the socket's life, which takes a message and dispatches
it while it holds the socket's turn; what a message makes is only what its
source's own wait makes.

``bench.socket_loop``: a message leaves 4 objects alive until its
source's next message against channels' 14, and costs 5 us of loop
against 16-23 us. At 1,100 human-paced games (``bench.live_play``,
PostgreSQL + Redis) the collector's young and middle passes took less
than half the CPU, the longest young pass 36-49 ms against 84-96 ms
(docs/performance.md, "A task per source, not per message").
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.layers import get_channel_layer

Source = Callable[[], Awaitable[dict[str, Any]]]
Dispatch = Callable[[dict[str, Any]], Awaitable[None]]


class _Turns:
    """The socket's turn, shared by its sources' pumps, and what ended them.

    The exception that ended the loop is handed over here and raised by
    ``dispatch_in_turn`` itself, not re-raised from its pump's task: a task
    keeps its exception, the exception's traceback keeps the loop's frame
    and that frame keeps the tasks, a cycle that held every refused socket
    (its consumer, session and queues, 70 objects) until the collector's
    next full pass."""

    def __init__(self, dispatch: Dispatch) -> None:
        self.dispatch = dispatch
        self.turn = asyncio.Lock()
        self.ended = False
        self.failure: Exception | None = None

    async def pump(self, source: Source) -> None:
        try:
            while not self.ended:
                message = await source()
                async with self.turn:
                    if self.ended:
                        return
                    try:
                        await self.dispatch(message)
                    except BaseException:
                        # Said while the turn is still held: the other
                        # source's message, waiting for it, is not dispatched.
                        self.ended = True
                        raise
        except Exception as raised:
            self.ended = True  # a source or a dispatch failed
            if self.failure is None:
                self.failure = raised

    def raise_failure(self) -> None:
        """Raise what ended the loop, if anything did, and keep it nowhere."""
        failure, self.failure = self.failure, None
        if failure is not None:
            try:
                raise failure
            finally:
                failure = None


async def dispatch_in_turn(sources: Sequence[Source], dispatch: Dispatch) -> None:
    """Dispatch every message of every source, one at a time, until a
    dispatch or a source raises (which this raises) or this is cancelled.
    A source waits with its message while another's is dispatched, as in
    channels' loop; no message is dispatched after one has raised."""
    turns = _Turns(dispatch)
    pumps = [asyncio.ensure_future(turns.pump(source)) for source in sources]
    try:
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for each in pumps:
            if each.done():
                # A pump cancelled from elsewhere, or ended by what is not
                # an ``Exception`` (KeyboardInterrupt): raised as it came.
                each.result()
    finally:
        # Said before the pumps are cancelled, and looked at by each before
        # it waits again: a cancellation that a handler's library swallows
        # (Python 3.11's ``asyncio.wait_for`` returns its result instead when
        # what it waited on finished in the same step, as redis-py's
        # command writes do) must not leave a pump waiting for ever, and
        # this socket with it.
        turns.ended = True
        for each in pumps:
            each.cancel()
        for each in pumps:
            with contextlib.suppress(asyncio.CancelledError):
                await each
    turns.raise_failure()


class InTurnConsumer:
    """Serves an ``AsyncConsumer`` with ``dispatch_in_turn`` in place of
    channels' loop, and hands each message to its handler as channels does
    but without its ``close_old_connections()`` first. That call is a hop
    to the one thread asgiref keeps for synchronous code, made before every
    message and every push of every socket: each waited out whatever else
    ran there, and cost about a twentieth of the process's time in a move.
    The game's socket touches the database on the event loop only to settle
    a move on the remembered row (``games.live.loopmoves``), and
    ``dbthreads.run`` looks after the connections of its own threads. The
    benchmark's floor (bench/floor.py) is served the same way, so that it
    carries no cost the product does not."""

    channel_layer_alias: str

    async def __call__(self, scope: Any, receive: Source, send: Any) -> None:
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        sources = [receive]
        if self.channel_layer is not None:
            self.channel_name = await self.channel_layer.new_channel()
            self.channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
            sources.append(self.channel_receive)
        self.base_send = send
        with contextlib.suppress(StopConsumer):
            await dispatch_in_turn(sources, self.dispatch)

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
