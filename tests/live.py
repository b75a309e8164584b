"""Real server processes for tests: daphne on a free loopback port, sharing
the test database (and Redis, when the suite runs with REDIS_URL)."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_database_url() -> str:
    """The URL of the database the test run created, for other processes."""
    params = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(params['NAME']).resolve()}"
    user = params.get("USER") or "postgres"
    host = params.get("HOST") or "127.0.0.1"
    port = params.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{params['NAME']}"


class DaphneProcess:
    def __init__(self, *, port: int | None = None, env: dict[str, str] | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "yachtsite.settings",
            "DATABASE_URL": test_database_url(),
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_DEBUG": "0",
            # Servers run without DEBUG, which refuses a missing secret key: a
            # throwaway one, unless the caller's environment names one.
            "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),
            "PYTHONUNBUFFERED": "1",
            # Bots pause for people to follow them; tests need no such pause.
            "YACHT_BOT_PAUSE_MIN": "0.02",
            "YACHT_BOT_PAUSE_MAX": "0.05",
            **(env or {}),
        }
        self.process: subprocess.Popen[bytes] | None = None
        self.log = ROOT / "var" / f"daphne-{self.port}.log"

    def start(self) -> DaphneProcess:
        self.log.parent.mkdir(exist_ok=True)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "yachtsite.asgi:application",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited: {self.log.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.1)
        # The caller never gets a server to stop: stop it here, or it
        # outlives the test run.
        self.kill()
        raise RuntimeError(f"daphne did not start: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


class RedisProxy:
    """A TCP proxy in front of a Redis, which a test can cut (every
    connection through it dropped, new ones refused, as when Redis goes
    down) and restore. Runs its own event loop in a thread, beside whatever
    the test runs in its own."""

    def __init__(self, redis_url: str) -> None:
        target = urlsplit(redis_url)
        self.target = (target.hostname or "127.0.0.1", target.port or 6379)
        self.port = free_port()
        self.url = target._replace(netloc=f"127.0.0.1:{self.port}").geturl()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()

    def start(self) -> RedisProxy:
        self._thread.start()
        self.restore()
        return self

    def cut(self) -> None:
        self._run(self._cut())

    def restore(self) -> None:
        self._run(self._listen())

    def stop(self) -> None:
        self.cut()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(work, self._loop).result(10)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def _cut(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()

    async def _serve(self, client_in: asyncio.StreamReader, client: asyncio.StreamWriter) -> None:
        try:
            redis_in, redis = await asyncio.open_connection(*self.target)
        except OSError:
            client.transport.abort()
            return
        self._open |= {client, redis}
        await asyncio.gather(self._pipe(client_in, redis), self._pipe(redis_in, client))

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        except OSError:
            pass
        finally:
            self._open.discard(sink)
            sink.transport.abort()
