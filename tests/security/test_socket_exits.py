"""Every way a game socket can end gives back what it counted against: its
claims on the caps per client address, session and game, its place among
the process's open sockets, and its group membership where the channel
layer still answers. A claim kept by a socket that is gone refuses the same
player's next socket with 4029 until the process restarts (issue 39: after
a Redis outage, browsers reconnecting were refused on every try)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import DatabaseError
from redis.exceptions import ConnectionError as RedisConnectionError

from games.live import consumers, limits
from games.live.broadcast import group_name
from games.live.consumers import GameConsumer
from games.live.process import open_sockets
from games.live.redislayer import OwnReaderRedisChannelLayer
from games.models import Game
from games.runtime import runtime
from tests import factories
from tests.consumers.conftest import guest_cookie
from yachtsite.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ADDRESS = "10.39.0.1"

started = sync_to_async(factories.started_game)


@pytest.fixture(autouse=True)
def one_socket_each(settings: Any) -> None:
    """One socket per address, session and game: a claim that is not given
    back refuses the next socket of the same player at once."""
    settings.YACHT_SOCKETS_PER_ADDRESS = 1
    settings.YACHT_SOCKETS_PER_SESSION = 1
    settings.YACHT_SOCKETS_PER_GAME = 1


class Socket:
    """One in-process socket of guest ``bo`` from ``ADDRESS``, through the real routing."""

    def __init__(self, ws: WebsocketCommunicator) -> None:
        self.ws = ws

    @classmethod
    async def open(cls, token: str) -> Socket:
        cookie = await sync_to_async(guest_cookie)("bo")
        ws = WebsocketCommunicator(
            application,
            f"/ws/g/{token}/",
            headers=[
                (b"origin", b"http://localhost"),
                (b"host", b"localhost"),
                (b"cookie", cookie.encode()),
            ],
        )
        ws.scope["client"] = (ADDRESS, 40000)
        connected, _ = await ws.connect()
        assert connected
        return cls(ws)

    async def first(self) -> dict[str, Any]:
        """The next message but presence (which comes as seats arrive and leave)."""
        while True:
            message: dict[str, Any] = json.loads(await self.ws.receive_from(timeout=3))
            if message["type"] != "presence":
                return message

    async def closed_with(self) -> int:
        """Read up to the close frame: its code."""
        while True:
            output = await self.ws.receive_output(timeout=3)
            if output["type"] == "websocket.close":
                return int(output["code"])

    async def ended(self) -> BaseException | None:
        """Wait for the consumer to finish by itself: what it raised, if anything."""
        done, _ = await asyncio.wait({self.ws.future}, timeout=5)
        assert done, "the socket's consumer is still running"
        if self.ws.future.cancelled():
            return None
        return self.ws.future.exception()

    async def cancelled(self) -> None:
        """Cancel the consumer, as daphne does with an application that
        outlives its connection, or every application at shutdown."""
        self.ws.future.cancel()
        await asyncio.gather(self.ws.future, return_exceptions=True)


async def members(token: str) -> set[str]:
    """The channels in the game's group, as the channel layer holds them."""
    layer: Any = get_channel_layer()
    group = group_name(token)
    if isinstance(layer, OwnReaderRedisChannelLayer):
        key = layer._group_key(group)
        found = await layer.connection(layer.consistent_hash(group)).zrange(key, 0, -1)
        return {member.decode() for member in found}
    return set(layer.groups.get(group, {}))


def queues() -> set[str]:
    """The channels the layer keeps a queue for (the Redis layer's inboxes)."""
    layer: Any = get_channel_layer()
    if isinstance(layer, OwnReaderRedisChannelLayer):
        return set(layer._inboxes)
    return set(layer.channels)


@pytest.fixture(autouse=True)
def queues_before() -> None:
    # The layer lives as long as the test process: other tests' leftovers are not ours.
    QUEUES_BEFORE.clear()
    QUEUES_BEFORE.update(queues())


QUEUES_BEFORE: set[str] = set()


async def assert_all_given_back(token: str) -> None:
    assert dict(limits.sockets().open) == {}
    assert len(open_sockets()) == 0
    assert await members(token) == set()
    assert queues() <= QUEUES_BEFORE
    # And the same player is let in again at once.
    again = await Socket.open(token)
    table = await again.first()
    assert table["type"] == "table" and table["seat"] == 1
    await again.ws.disconnect()


def redis_down(*_args: Any, **_kwargs: Any) -> Any:
    raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


@pytest.fixture
async def game() -> AsyncIterator[Game]:
    made = await started()
    yield made
    await runtime.loop.settle()


async def test_a_socket_whose_group_join_fails_on_connect_says_retry_and_gives_back_its_claims(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    layer = get_channel_layer()
    monkeypatch.setattr(layer, "group_add", redis_down)
    socket = await Socket.open(game.token)
    assert (await socket.first())["code"] == "unavailable"
    assert await socket.closed_with() == consumers.CLOSE_TRY_AGAIN_LATER
    await socket.ended()
    monkeypatch.undo()
    await assert_all_given_back(game.token)


async def test_sockets_refused_again_and_again_while_the_layer_is_down_leave_nothing_counted(
    game: Game, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    # A page reconnecting through an outage: each try joins the group and fails.
    settings.YACHT_SOCKETS_PER_SESSION = 3
    layer = get_channel_layer()
    monkeypatch.setattr(layer, "group_add", redis_down)
    for _ in range(5):
        socket = await Socket.open(game.token)
        assert (await socket.first())["code"] == "unavailable"
        await socket.ended()
    monkeypatch.undo()
    await assert_all_given_back(game.token)


class FailingReceive:
    """The channel layer's receive, until ``fail()``: then every socket
    waiting on it is told Redis went away, as the Redis layer's reader
    tells them when its read fails."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.layer: Any = get_channel_layer()
        self.real = self.layer.receive
        self.gone = asyncio.Event()
        monkeypatch.setattr(self.layer, "receive", self.receive)

    async def receive(self, channel: str) -> Any:
        real = asyncio.ensure_future(self.real(channel))
        gone = asyncio.ensure_future(self.gone.wait())
        try:
            await asyncio.wait({real, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not real.done():
                real.cancel()
                await asyncio.gather(real, return_exceptions=True)
        if real.done() and not real.cancelled():
            return real.result()
        redis_down()

    def fail(self) -> None:
        self.gone.set()


async def test_a_socket_whose_channel_layer_fails_while_it_waits_gives_back_its_claims(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    layer = FailingReceive(monkeypatch)
    socket = await Socket.open(game.token)
    assert (await socket.first())["type"] == "table"
    layer.fail()
    assert (await socket.first())["code"] == "unavailable"
    assert await socket.closed_with() == consumers.CLOSE_TRY_AGAIN_LATER
    await socket.ended()
    monkeypatch.undo()
    await assert_all_given_back(game.token)


async def test_a_socket_whose_group_renewal_fails_on_a_sync_gives_back_its_claims(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    socket = await Socket.open(game.token)
    assert (await socket.first())["type"] == "table"
    monkeypatch.setattr(get_channel_layer(), "group_add", redis_down)
    await socket.ws.send_to(text_data=json.dumps({"action": "sync", "version": game.version}))
    assert (await socket.first())["code"] == "unavailable"
    assert await socket.closed_with() == consumers.CLOSE_TRY_AGAIN_LATER
    await socket.ended()
    monkeypatch.undo()
    await assert_all_given_back(game.token)


async def test_a_cancelled_socket_gives_back_its_claims(game: Game) -> None:
    socket = await Socket.open(game.token)
    assert (await socket.first())["type"] == "table"
    await socket.cancelled()
    await assert_all_given_back(game.token)


async def test_a_socket_cancelled_while_it_opens_gives_back_its_claims(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Redis that stopped answering (not refusing) holds the join until
    # daphne gives up on the application and cancels it.
    joining = asyncio.Event()

    async def hangs(*_args: Any) -> None:
        joining.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(get_channel_layer(), "group_add", hangs)
    socket = await Socket.open(game.token)
    await asyncio.wait_for(joining.wait(), 5)
    assert limits.sockets().open  # counted in, and now cancelled
    await socket.cancelled()
    monkeypatch.undo()
    await assert_all_given_back(game.token)


@pytest.mark.parametrize(
    "handler",
    [
        pytest.param(lambda: ("receive", {"action": "sync"}), id="a-message-from-the-client"),
        pytest.param(lambda: ("game_snapshot", None), id="a-push"),
    ],
)
async def test_a_socket_whose_handler_raises_gives_back_its_claims(
    game: Game, monkeypatch: pytest.MonkeyPatch, handler: Callable[[], tuple[str, Any]]
) -> None:
    name, message = handler()

    async def broken(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("a bug in a handler")

    socket = await Socket.open(game.token)
    assert (await socket.first())["type"] == "table"
    monkeypatch.setattr(GameConsumer, name, broken)
    if message is not None:
        await socket.ws.send_to(text_data=json.dumps(message))
    else:
        await sync_to_async(factories.play_turn)(game)
    assert isinstance(await socket.ended(), RuntimeError)
    monkeypatch.undo()
    await assert_all_given_back(game.token)


async def test_sockets_closed_at_shutdown_give_back_their_claims(game: Game) -> None:
    socket = await Socket.open(game.token)
    assert (await socket.first())["type"] == "table"
    # What the process does when daphne begins to shut down: a close frame
    # to every open socket, then every application still running cancelled.
    await open_sockets().close_all(consumers.CLOSE_GOING_AWAY)
    assert await socket.closed_with() == consumers.CLOSE_GOING_AWAY
    await socket.cancelled()
    await assert_all_given_back(game.token)


@pytest.mark.parametrize("refusal", ["no_such_game", "database_down", "too_many_sockets"])
async def test_a_refused_socket_gives_back_its_claims_when_its_client_hangs_up(
    game: Game, monkeypatch: pytest.MonkeyPatch, refusal: str
) -> None:
    token = game.token
    holder = None
    if refusal == "no_such_game":
        token = "no-such-game-token"
    elif refusal == "database_down":

        def down(*_args: Any) -> None:
            raise DatabaseError("connection refused")

        monkeypatch.setattr(consumers, "_opening", down)
    else:
        holder = await Socket.open(game.token)
        assert (await holder.first())["type"] == "table"
    socket = await Socket.open(token)
    if refusal != "no_such_game":
        assert (await socket.first())["code"] in ("unavailable", "too_many_sockets")
    await socket.closed_with()
    await socket.ws.disconnect()
    if holder is not None:
        await holder.ws.disconnect()
    monkeypatch.undo()
    await assert_all_given_back(game.token)


async def test_a_socket_that_disconnects_gives_back_its_claims(game: Game) -> None:
    socket = await Socket.open(game.token)
    assert (await socket.first())["type"] == "table"
    await socket.ws.disconnect()
    await assert_all_given_back(game.token)
