import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore

from games.edge.guests import GUEST_KEY
from yachtsite.asgi import application


def guest_cookie(guest: str | None) -> str:
    store = SessionStore()
    if guest:
        store[GUEST_KEY] = guest
    store.create()
    return f"{settings.SESSION_COOKIE_NAME}={store.session_key}"


class Client:
    """A websocket client speaking docs/protocol.md, through the real routing."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.ws = communicator
        self.version = 0
        # Presence comes whenever someone arrives or leaves: kept aside here
        # for the tests that look for it (``presence``), unseen by the rest.
        self.presences: list[dict[str, str]] = []

    async def send(self, message: Any) -> None:
        await self.ws.send_to(text_data=json.dumps(message))

    async def receive(self, timeout: float = 3) -> dict[str, Any]:
        while True:
            message = json.loads(await self.ws.receive_from(timeout=timeout))
            if message["type"] != "presence":
                break
            self.presences.append(message["seats"])
        if message["type"] == "table":
            self.version = message["version"]
        return message

    async def presence(self, timeout: float = 3) -> dict[str, str]:
        """The next presence message's seats (one kept aside first)."""
        if self.presences:
            return self.presences.pop(0)
        message = json.loads(await self.ws.receive_from(timeout=timeout))
        while message["type"] != "presence":
            if message["type"] == "table":
                self.version = message["version"]
            message = json.loads(await self.ws.receive_from(timeout=timeout))
        return message["seats"]

    async def table(self, timeout: float = 3) -> dict[str, Any]:
        while True:
            message = await self.receive(timeout)
            if message["type"] == "table":
                return message

    async def table_at(self, version: int) -> dict[str, Any]:
        """Read tables until the one of ``version`` (older resyncs may come first)."""
        while True:
            table = await self.table()
            if table["version"] >= version:
                assert table["version"] == version
                return table

    async def error(self) -> dict[str, Any]:
        message = await self.receive()
        assert message["type"] == "error", message
        return message

    async def nothing_new(self) -> bool:
        """Nothing changed the game since the last table this socket saw, and
        nothing was pushed to it since.

        No wait for an unwanted message to turn up (one merely late would
        pass): the socket is asked for the table again and the answer must be
        the next message, at the same version. The answer is read from the
        database, so a change that was wrongly committed shows there, and a
        push sent before it would arrive first.
        """
        seen = self.version
        await self.send({"action": "sync"})
        answer = await self.receive()
        assert answer["type"] == "table", answer
        return answer["version"] == seen


Connect = Callable[..., Awaitable[Client]]


@pytest.fixture
async def connect() -> AsyncIterator[Connect]:
    opened: list[WebsocketCommunicator] = []

    async def open_socket(
        token: str, guest: str | None = None, *, lang: str = "en", origin: str = "http://localhost"
    ) -> Client:
        cookie = await sync_to_async(guest_cookie)(guest)
        communicator = WebsocketCommunicator(
            application,
            f"/ws/g/{token}/?lang={lang}",
            headers=[
                (b"origin", origin.encode()),
                (b"cookie", cookie.encode()),
                (b"host", b"localhost"),
            ],
        )
        connected, _ = await communicator.connect()
        assert connected
        opened.append(communicator)
        client = Client(communicator)
        return client

    yield open_socket
    for communicator in opened:
        await communicator.disconnect()
