"""Real server processes for tests: daphne on a free loopback port, sharing
the test database (and Redis, when the suite runs with REDIS_URL)."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

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
