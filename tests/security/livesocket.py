"""Real websocket clients for tests against real daphne processes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.live import DaphneProcess


async def socket_to(
    server: DaphneProcess, token: str, cookie: str = "", *, lang: str = "en"
) -> ClientConnection:
    return await connect(
        f"ws://127.0.0.1:{server.port}/ws/g/{token}/?lang={lang}",
        origin=server.url,  # type: ignore[arg-type]
        additional_headers={"Cookie": cookie} if cookie else {},
        open_timeout=30,
    )


class Tab:
    """A socket whose every message is collected as it arrives, like a browser tab."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.closed = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, server: DaphneProcess, token: str, cookie: str = "") -> Tab:
        return cls(await socket_to(server, token, cookie))

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                self.messages.append(json.loads(text))
        except ConnectionClosed:
            pass
        finally:
            self.closed.set()

    @property
    def close_code(self) -> int | None:
        """The code of the close frame the server sent; None if the line just dropped."""
        received = self.ws.protocol.close_rcvd
        return received.code if received is not None else None

    def shown(self) -> int:
        return max((m["version"] for m in self.messages if m["type"] == "table"), default=0)

    def last_table(self) -> dict[str, Any]:
        return next(m for m in reversed(self.messages) if m["type"] == "table")

    async def until_shown(self, version: int, timeout: float = 20) -> dict[str, Any]:
        for _ in range(int(timeout / 0.05)):
            if self.shown() >= version:
                assert self.shown() == version, self.messages[-3:]
                return self.last_table()
            await asyncio.sleep(0.05)
        raise AssertionError(f"never shown version {version}: {self.messages[-3:]}")

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def close(self) -> None:
        await self.ws.close()
        await self.reader
