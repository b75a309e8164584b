"""Which of the product's files one roll enters, from the socket's message
to the table pushed back to it.

    .venv/bin/python -m bench.walk

A solitaire game on the embedded profile (a throwaway SQLite file, the
in-memory channel layer) through the real ASGI routing. Once the socket has
its first table, every thread's calls are watched while one roll is sent and
its table comes back; the files of ``games/`` and ``yachtsite/`` that were
entered are listed in the order first entered, with how many calls each
took. It says how far one move travels through the code, not what it costs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WATCHED = (str(ROOT / "games") + os.sep, str(ROOT / "yachtsite") + os.sep)


class Entered:
    """The product files whose functions were called, in first-entered order."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.order: list[str] = []

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        path = frame.f_code.co_filename
        if not path.startswith(WATCHED):
            return
        name = os.path.relpath(path, ROOT)
        if name not in self.calls:
            self.order.append(name)
        self.calls[name] += 1

    def __enter__(self) -> Entered:
        threading.setprofile(self.profile)
        sys.setprofile(self.profile)
        return self

    def __exit__(self, *_exc: object) -> None:
        sys.setprofile(None)
        threading.setprofile(None)


async def one_roll() -> Entered:
    from channels.testing import WebsocketCommunicator
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore

    from games.edge.guests import GUEST_KEY
    from games.play import services
    from yachtsite.asgi import application

    game = await asyncio.to_thread(
        services.game_create, guest_id="walker", name="Walker", seat_count=1
    )
    game = await asyncio.to_thread(services.game_start, token=game.token, guest_id="walker")
    store = SessionStore()
    store[GUEST_KEY] = "walker"
    await asyncio.to_thread(store.create)
    cookie = f"{settings.SESSION_COOKIE_NAME}={store.session_key}"
    socket = WebsocketCommunicator(
        application,
        f"/ws/g/{game.token}/?lang=en",
        headers=[
            (b"cookie", cookie.encode()),
            (b"origin", b"http://localhost"),
            (b"host", b"localhost"),
        ],
    )
    connected, _ = await socket.connect()
    assert connected, "the socket was refused"
    version = await _table(socket)
    with Entered() as entered:
        await socket.send_to(text_data=json.dumps({"action": "roll", "version": version}))
        rolled = await _table(socket)
    await socket.disconnect()
    assert rolled == version + 1, f"the roll came back as version {rolled}, not {version + 1}"
    return entered


async def _table(socket: Any) -> int:
    while True:
        message = json.loads(await socket.receive_from(timeout=10))
        if message["type"] == "error":
            raise SystemExit(f"the server answered {message}")
        if message["type"] == "table":
            return int(message["version"])


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    folder = tempfile.mkdtemp(prefix="yacht-walk-")
    os.environ.update(
        DJANGO_SETTINGS_MODULE="yachtsite.settings",
        DJANGO_DEBUG="1",
        DATABASE_URL=f"sqlite:///{folder}/walk.sqlite3",
        DJANGO_ALLOWED_HOSTS="localhost,127.0.0.1",
    )
    os.environ.pop("REDIS_URL", None)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    entered = asyncio.run(one_roll())
    print(f"one roll entered {len(entered.order)} product files:")
    for name in entered.order:
        print(f"  {entered.calls[name]:5d} calls  {name}")


if __name__ == "__main__":
    main()
