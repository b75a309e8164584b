"""A scripted Yacht player that talks to a running server exactly as a
browser does: pages and forms over HTTP with a cookie jar and the CSRF token
from the form, then the game's websocket with the session cookie and an
Origin header.

Shared by tests/deploy (two processes, one player on each) and
bench/live_play.py, so both exercise the same client path.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from typing import Any
from urllib.parse import urlencode, urlsplit
from urllib.request import HTTPCookieProcessor, Request, build_opener

from websockets.asyncio.client import ClientConnection, connect

# Every scripted player of a load test comes from 127.0.0.1, so the limits per
# client address and site-wide would stop them long before the load they are
# meant to make; the servers they load run with these raised. A scripted
# player also acts within milliseconds of its push: at a soak's pace a fast
# server let one socket send a game's 48 moves in under 4 s, past the
# per-socket limit meant for people. And a capacity bench measures what the
# process holds, not the ceiling it admits (1,000 sockets: 500 games).
LOAD_TEST_LIMITS = {
    name: "1000000"
    for name in (
        "YACHT_SOCKET_MESSAGE_BURST",
        "YACHT_SOCKET_MESSAGES_PER_SECOND",
        "YACHT_GAMES_PER_HOUR",
        "YACHT_GAMES_PER_HOUR_PER_ADDRESS",
        "YACHT_GAMES_PER_HOUR_SITE",
        "YACHT_GAMES_PACE_PER_ADDRESS",
        "YACHT_JOINS_PER_SESSION",
        "YACHT_JOINS_PER_ADDRESS",
        "YACHT_SOCKETS_PER_ADDRESS",
        "YACHT_SOCKETS_PER_PROCESS",
        "YACHT_CONNECTS_PER_ADDRESS",
        "YACHT_MESSAGES_PER_ADDRESS",
        "YACHT_MESSAGES_PER_SESSION",
    )
}

CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
GAME_PATH = re.compile(r"/g/([\w-]+)/$")


class Guest:
    """One browser profile: its own cookies, against one server."""

    def __init__(self, base_url: str) -> None:
        self.base = base_url.rstrip("/")
        self.jar = CookieJar()
        self.opener = build_opener(HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> tuple[str, str]:
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.url, response.read().decode()

    def post_form(self, path: str, action: str, fields: dict[str, str]) -> tuple[str, str]:
        """Fill the form on page ``path`` and post it to ``action``, as a browser
        would: the page's CSRF token, its cookies, an Origin header."""
        _, page = self.get(path)
        token = CSRF_FIELD.search(page)
        if token is None:
            raise AssertionError(f"no CSRF token in the form at {path}")
        request = Request(
            self.base + action,
            data=urlencode({"csrfmiddlewaretoken": token.group(1), **fields}).encode(),
            headers={"Origin": self.base, "Referer": self.base + path},
        )
        with self.opener.open(request, timeout=30) as response:
            return response.url, response.read().decode()

    def create_game(self, name: str, *, seats: int = 2, ruleset: str = "yacht") -> str:
        url, _ = self.post_form(
            "/en/", "/en/", {"name": name, "seats": str(seats), "ruleset": ruleset}
        )
        found = GAME_PATH.search(urlsplit(url).path)
        if found is None:
            raise AssertionError(f"creating a game did not lead to its page but to {url}")
        return found.group(1)

    def join(self, token: str, name: str) -> None:
        self.post_form(f"/en/g/{token}/", f"/en/g/{token}/join/", {"name": name})

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    async def open_socket(self, token: str, *, lang: str = "en") -> ClientConnection:
        ws_base = "ws" + self.base.removeprefix("http")
        return await connect(
            f"{ws_base}/ws/g/{token}/?lang={lang}",
            origin=self.base,  # type: ignore[arg-type]
            additional_headers={"Cookie": self.cookie_header()},
            open_timeout=30,
            max_size=2**22,
        )


def choose_action(state: dict[str, Any], version: int, *, holds: bool = False) -> dict[str, Any]:
    """What the scripted player sends on its turn: one roll, then the best box.

    With ``holds``, as a person plays: after the first roll it holds the
    dice of its most common face (a ``hold`` of its own, which everyone
    sees), rolls the rest, then scores.
    """
    if state["rolls_used"] == 0:
        return {"action": "roll", "version": version, "hold": []}
    if holds and state["rolls_used"] == 1:
        dice: list[int] = state["dice"]
        face = max(set(dice), key=lambda f: (dice.count(f), f))
        keep = [i for i, d in enumerate(dice) if d == face]
        if sorted(state["held"]) != keep:
            return {"action": "hold", "version": version, "dice": keep}
        return {"action": "roll", "version": version}
    preview: dict[str, int] = state["preview"]
    best = max(preview, key=lambda key: preview[key]) if preview else state["categories"][0]
    return {"action": "score", "version": version, "category": best}


@dataclass
class GameLog:
    """What every socket of one game saw, and when, keyed by version."""

    seats: int
    sent: dict[int, float] = field(default_factory=dict)  # resulting version -> send time
    arrived: dict[int, dict[int, float]] = field(default_factory=dict)  # version -> seat -> time
    seen: dict[int, list[int]] = field(default_factory=dict)  # seat -> versions in order
    finals: dict[int, dict[str, Any]] = field(default_factory=dict)  # seat -> last state
    errors: list[str] = field(default_factory=list)
    gaps: int = 0
    timed_out: bool = False
    push_chars: int = 0  # size of the table pushes received, for the floor's padding
    pushes: int = 0

    def latencies(self, since: float = 0.0, until: float = float("inf")) -> list[float]:
        """Send-to-last-socket time of each action sent in [since, until]."""
        out = []
        for version, t0 in self.sent.items():
            arrivals = self.arrived.get(version, {})
            if since <= t0 <= until and len(arrivals) == self.seats:
                out.append(max(arrivals.values()) - t0)
        return out

    def completions(self, since: float = 0.0, until: float = float("inf")) -> list[float]:
        """When the last socket had the push of each action sent in [since, until]."""
        return [
            max(arrivals.values())
            for version, t0 in self.sent.items()
            if since <= t0 <= until and len(arrivals := self.arrived.get(version, {})) == self.seats
        ]

    def missing(self, until: float = float("inf")) -> int:
        """Actions sent by ``until`` whose push some socket never got."""
        return sum(
            1
            for version, t0 in self.sent.items()
            if t0 <= until and len(self.arrived.get(version, {})) < self.seats
        )


async def play_seat(
    ws: ClientConnection,
    seat: int,
    log: GameLog,
    *,
    everyone_here: asyncio.Event,
    stop_acting_at: float = float("inf"),
    idle_timeout: float = 15.0,
    think: tuple[float, float] | None = None,
    start_within: float = 0.0,
) -> None:
    """Read this socket's pushes; act the moment a push says it is our turn,
    or, given ``think``, after a pause drawn uniformly from that range (in
    seconds), as a person would. The host starts the game once everyone is
    here, after a pause drawn uniformly from 0 to ``start_within`` seconds."""
    last = 0
    log.seen[seat] = []
    while True:
        try:
            text = await asyncio.wait_for(ws.recv(), idle_timeout)
        except TimeoutError:
            if time.perf_counter() < stop_acting_at:
                log.timed_out = True
            return
        now = time.perf_counter()
        message = json.loads(text)
        if message.get("type") == "error":
            log.errors.append(str(message.get("code")))
            continue
        if message.get("type") != "table":
            continue
        log.pushes += 1
        log.push_chars += len(text)
        version = message["version"]
        if version <= last:
            continue  # a resync of what we already show
        if last and version != last + 1:
            log.gaps += version - last - 1
        last = version
        log.seen[seat].append(version)
        log.arrived.setdefault(version, {})[seat] = now
        state = message["state"]
        log.finals[seat] = state
        if len(log.finals) == log.seats:
            everyone_here.set()
        if state["status"] == "finished":
            return
        if now >= stop_acting_at:
            # Past the measuring window: keep reading so the last pushes are
            # counted, but start nothing new.
            continue
        action: dict[str, Any] | None = None
        if state["status"] == "lobby" and seat == 0 and len(state["seats"]) == log.seats:
            # Start only once every player's socket is open, or the others
            # would miss the start push (as a real host waits for friends).
            await everyone_here.wait()
            if start_within:
                # People do not all press Start in the same instant: an open
                # loop whose games all start at once measures that burst.
                await asyncio.sleep(random.uniform(0, start_within))
            action = {"action": "start", "version": version}
        elif state["status"] == "playing" and state["current_seat"] == seat:
            action = choose_action(state, version, holds=think is not None)
            if think is not None:
                # Only the mover's socket waits: nothing else comes to it
                # until it acts, so the pause reads no push late.
                await asyncio.sleep(random.uniform(*think))
        if action is not None:
            log.sent[version + 1] = time.perf_counter()
            await ws.send(json.dumps(action))
