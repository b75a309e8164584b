"""Clients doing their worst within the limits, and what other games feel.

    .venv/bin/python -m bench.abuse [--seconds 10] [--rounds 3] [--victims 4]
        [--attack spectators,churners,creator] [--addresses 50]
        [--attack creation,tables,botwatch,chat,ipv6]
        [--database-url URL --redis-url URL] [--port N] [--proxy] [--pin]

Starts one daphne (SQLite and the in-memory layer by default; PostgreSQL and
Redis with the URLs), trusting 127.0.0.1 as its proxy so that each client
can be given its own address in X-Forwarded-For. Victim games of two
players (four by default, each from addresses of its own) play on at a
human-ish pace (a move every 100 ms, alternating seats). The limits the
attackers keep within are read from the server's own settings, never
written here.

``spectators``, ``churners`` and ``creator`` are parts of one attacker,
from one address, that opens and holds every socket its address may open:

- one seat of its own solitaire, moving as fast as its socket may (every
  roll a turn allows; a finished game is rematched), always;
- spectators of that game, following it to each rematch and sending `sync`
  just within the address's shared message rate;
- a few sockets that close and reopen (all new sockets of the address
  together stay under its connect rate);
- game creation from fresh cookie-less sessions as fast as it is answered.

The other attacks each come from a crowd of ``--addresses`` addresses,
every one within its own limits, and each runs against a server of its own
(a creation flood's count lasts an hour):

- ``creation``: each address tries to create games (each from a fresh
  session) as fast as it is answered, refused or not, while attacking,
  till it has made its hour's games; a visitor from a fresh address
  creates a game in every phase, and once more after the flood; its
  answers and times are reported;
- ``tables``: each address opens as many sockets as its connect rate lets
  through at once to a game of its own and asks for the table (`sync`
  without a version) within its message rate;
- ``botwatch``: each address creates 12 "Just watch" games of bots and
  watches each from a socket (at rest the sockets are closed: games of
  bots alone pause);
- ``chat``: the addresses' sockets fill games up to the game's socket cap
  and chat within each address's message rate;
- ``ipv6``: addresses of one IPv6 /64 open sockets to one game, each as
  many as its connect rate lets through, up to the game's socket cap; the
  report says how many the /64 got.

Two options make the topology production's, so that what is measured is
what a real attack costs the server:

- ``--proxy`` puts the shipped nginx (deploy/nginx.conf, through
  scripts/run_cluster.py) in front of daphne, as production runs. The
  bench's clients reach it from 127.0.0.1, named a TLS terminator, so each
  client's X-Forwarded-For is believed as a terminator's would be: nginx's
  own limits count each client's address group, and what nginx refuses
  never reaches daphne. Without it the clients talk to daphne directly and
  only the app's limits hold.
- ``--pin`` keeps the server and the clients off each other's core: daphne
  and nginx on the first CPU, the bench's clients (victims and attackers)
  on the second, and the attackers' process at a lower priority than the
  victims'. An attacker's clients run on machines of their own; on a
  two-core box without it, the fifty clients' own work (HTTP and websocket
  framing, JSON) takes the server's CPU, and a victim's client waits behind
  the attackers' to read its push, neither of which a real attack does.
  PostgreSQL and Redis run where the system puts them, on either core. On
  a machine busy with other work the attackers' lower priority also slows
  the attack itself: compare what the attackers got (answers, sockets
  opened, tries) before comparing the victims' figures of two runs.

Staying within the limits is the worst they can do: past them sockets are
closed and new ones refused, which costs the server less; after a refusal
an attacker backs off.

The victims' push latency (the mover's send to the other player's receipt
of that version) is measured in phases that alternate, ``--rounds`` times:
the attackers resting, then attacking, so that whatever else the machine
does weighs on both alike; and once alone, before they come. The attackers
run in a process of their own, as they would on machines of their own.

Per attack it prints the victims' p50/p99/max alone, resting and attacking,
the p99 ratios attacking / resting and attacking / alone against the goal
of at most 2x (both: an attack's backlog can slow a resting phase), and what
the attackers got (answers, refusals by code, close codes, games created,
sockets held). Bounded: loopback only, each phase ``--seconds`` long, each
attacker's count set by the limits.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import itertools
import json
import math
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.parse import urlencode
from urllib.request import HTTPCookieProcessor, Request, build_opener

import redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from bench.client import CSRF_FIELD, GAME_PATH
from scripts.run_cluster import Cluster, free_port

ROOT = Path(__file__).resolve().parent.parent
ATTACKER = "198.51.100.66"
# Each victim game is hosted and joined from a pair of addresses never used
# before in the run: a victim is an honest player, and the limits (counted in
# Redis, so across every phase and attack of a run) must not refuse it for
# what earlier phases did from the same address.
VICTIM_PAIRS = itertools.count()
VISITOR = "192.0.2.{}"
# What the victims were told instead of their pushes: errors by code (an
# honest player is never meant to hear one).
VICTIMS_TOLD: Counter[str] = Counter()
MOVE_EVERY = 0.1
# Of each limit the attackers use this share: the server's windows are
# estimates, and a refusal would cost them a back-off.
WITHIN = 0.9
RECONNECTS_PER_SECOND = 1.0
# The figure for "Just watch" games per address.
WATCHED_PER_ADDRESS = 12
# Spectators open one after another, leaving the churners their share of
# the address's connect rate (the server's windows are estimates, and a
# refused socket costs a retry); the victims are measured once they are
# all open.
SPECTATOR_OPEN_EVERY = 0.8
# After a refusal the attacker waits this long before trying again: it
# keeps at its worst within the limits instead of hammering past them.
BACK_OFF = 2.0
# After the attack starts or stops, before the victims are measured.
SETTLE = 1.0
# With --pin, the attackers' clients share a CPU with the victims': they
# run below the victims' priority, as on machines of their own they would
# not delay the victims' clients at all.
ATTACKERS_NICENESS = 10
# The goal: the victims' p99 while attacked at most this many times at rest.
GOAL = 2.0
PARTS = ("spectators", "churners", "creator")
CROWD_ATTACKS = ("creation", "tables", "botwatch", "chat", "ipv6")
ONE_FORM = {"name": "Host", "seats": "1", "ruleset": "yacht"}
WATCH_FORM = {
    "name": "Host",
    "seats": "2",
    "ruleset": "yacht",
    "opponents": "beginner",
    "watch": "on",
}


class Client:
    """A browser profile with its own cookies, seen by the server at ``address``."""

    def __init__(self, base: str, address: str) -> None:
        self.base = base
        self.address = address
        self.jar = CookieJar()
        self.opener = build_opener(HTTPCookieProcessor(self.jar))
        self.opener.addheaders = [("X-Forwarded-For", address)]

    def post_form(self, page: str, action: str, fields: dict[str, str]) -> str:
        with self.opener.open(self.base + page, timeout=30) as response:
            token = CSRF_FIELD.search(response.read().decode())
        assert token is not None
        request = Request(
            self.base + action,
            data=urlencode({"csrfmiddlewaretoken": token.group(1), **fields}).encode(),
            headers={"Origin": self.base, "Referer": self.base + page},
        )
        with self.opener.open(request, timeout=30) as response:
            return str(response.url)

    def create(self, seats: int) -> str:
        url = self.post_form("/en/", "/en/", {**ONE_FORM, "seats": str(seats)})
        found = GAME_PATH.search(url)
        assert found is not None, url
        return found.group(1)

    async def socket(self, token: str, *, cookie: bool = True) -> ClientConnection:
        headers = {"X-Forwarded-For": self.address}
        if cookie:
            headers["Cookie"] = "; ".join(f"{c.name}={c.value}" for c in self.jar)
        return await connect(
            f"ws://{self.base.removeprefix('http://')}/ws/g/{token}/?lang=en",
            origin=self.base,  # type: ignore[arg-type]
            additional_headers=headers,
            max_size=2**22,
            open_timeout=30,
        )


@dataclass(frozen=True)
class Limits:
    """The server's limits, as its own settings say (they change as the
    limits do), and its error messages in English, to tell a refusal's code."""

    settings: dict[str, float]
    window: float
    messages: dict[str, str]

    @classmethod
    def of(cls, cluster: Cluster) -> Limits:
        probe = (
            "import json, django; django.setup()\n"
            "from django.conf import settings\n"
            "from django.utils import translation\n"
            "from games.store import quotas; from games.present import messages\n"
            "translation.activate('en')\n"
            "print(json.dumps({'settings': {n: getattr(settings, n) for n in dir(settings)"
            " if n.startswith('YACHT_') and type(getattr(settings, n)) in (int, float)},"
            " 'window': quotas.MESSAGE_WINDOW,"
            " 'messages': {c: str(m) for c, m in messages.MESSAGES.items()}}))"
        )
        found = subprocess.run(
            [sys.executable, "-c", probe],
            env=cluster.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        return cls(**json.loads(found.stdout))

    def __getitem__(self, name: str) -> int:
        return int(self.settings[f"YACHT_{name}"])

    @property
    def address_rate(self) -> float:
        """Messages a second one address may send, all its sockets together."""
        return WITHIN * self["MESSAGES_PER_ADDRESS"] / self.window

    @property
    def socket_rate(self) -> float:
        return WITHIN * self.settings["YACHT_SOCKET_MESSAGES_PER_SECOND"]

    @property
    def connects_at_once(self) -> int:
        """New sockets one address may open at once: its connect rate's window
        and its open sockets both bound them."""
        return min(self["CONNECTS_PER_ADDRESS"], self["SOCKETS_PER_ADDRESS"])

    def code_of(self, page: str) -> str:
        """The refusal's code, or "nginx" for the proxy's own page."""
        text = html.unescape(page)
        found = next((code for code, message in self.messages.items() if message in text), "?")
        return "nginx" if found == "?" and "<center>nginx" in text else found


@dataclass
class Creation:
    status: int
    seconds: float
    code: str = ""
    token: str = ""


def attempt_creation(client: Client, form: dict[str, str], limits: Limits) -> Creation:
    """``client`` fills the home page's form: what it got, how fast."""
    began = time.perf_counter()
    try:
        url = client.post_form("/en/", "/en/", form)
    except HTTPError as refusal:
        page = refusal.read().decode()
        return Creation(refusal.code, time.perf_counter() - began, limits.code_of(page))
    found = GAME_PATH.search(url)
    return Creation(
        200, time.perf_counter() - began, "" if found else "form", found.group(1) if found else ""
    )


def next_move(state: dict[str, Any]) -> dict[str, Any]:
    if state["rolls_used"] == 0:
        return {"action": "roll", "version": state["version"], "hold": []}
    best = max(state["preview"], key=lambda key: state["preview"][key])
    return {"action": "score", "version": state["version"], "category": best}


async def victim(base: str, seconds: float, n: int) -> list[float]:
    """Play a two-seat game for ``seconds`` from two addresses of its own;
    each push's latency in ms."""
    k = next(VICTIM_PAIRS)
    pair = f"10.20.{k // 100}.{10 + 2 * (k % 100)}", f"10.20.{k // 100}.{11 + 2 * (k % 100)}"
    host, guest = Client(base, pair[0]), Client(base, pair[1])
    token = await asyncio.to_thread(host.create, 2)
    await asyncio.to_thread(
        guest.post_form, f"/en/g/{token}/", f"/en/g/{token}/join/", {"name": "Guest"}
    )
    sockets = [await host.socket(token), await guest.socket(token)]
    latest: list[dict[str, Any]] = [{}, {}]
    arrived: dict[tuple[int, int], float] = {}
    refused = [False, False]
    changed = asyncio.Event()

    async def read(seat: int) -> None:
        async for text in sockets[seat]:
            message = json.loads(text)
            if message["type"] == "table":
                arrived.setdefault((seat, message["version"]), time.perf_counter())
                if message["version"] >= latest[seat].get("version", 0):
                    latest[seat] = message["state"]
                changed.set()
            elif message["type"] == "error":
                VICTIMS_TOLD[message["code"]] += 1
                refused[seat] = True
                changed.set()

    readers = [asyncio.create_task(read(seat)) for seat in (0, 1)]
    await sockets[0].send(json.dumps({"action": "start", "version": 2}))
    latencies = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        state = latest[0]
        if state.get("status") == "finished" or not state:
            await changed.wait()
            changed.clear()
            if latest[0].get("status") == "finished":
                break
            continue
        mover = state["current_seat"]
        if state.get("status") != "playing" or latest[mover].get("version") != state["version"]:
            await asyncio.sleep(0.005)
            continue
        move = next_move(latest[mover])
        refused[mover] = False
        sent = time.perf_counter()
        await sockets[mover].send(json.dumps(move))
        watcher = 1 - mover
        target = (watcher, move["version"] + 1)
        try:
            while not refused[mover] and (
                target not in arrived or latest[mover].get("version", 0) < target[1]
            ):
                changed.clear()
                await asyncio.wait_for(changed.wait(), 30)
        except TimeoutError:
            # Neither the push nor a refusal in 30 s: the game is stuck.
            VICTIMS_TOLD["(no answer in 30 s: the game stalled)"] += 1
            break
        if refused[mover]:
            # Refused (the answer says why, counted): try again on the table sent with it.
            await asyncio.sleep(MOVE_EVERY)
            continue
        latencies.append((arrived[target] - sent) * 1000)
        await asyncio.sleep(MOVE_EVERY)
    for ws in sockets:
        await ws.close()
    for reader in readers:
        reader.cancel()
    return latencies


@dataclass
class Damage:
    answers: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[int | None] = field(default_factory=Counter)
    refused_handshakes: int = 0
    handshakes: Counter[int] = field(default_factory=Counter)
    connects: int = 0
    opened: int = 0
    held: int = 0
    created: int = 0
    creation_refused: int = 0
    creations: Counter[str] = field(default_factory=Counter)
    followed: int = 0

    def report(self) -> str:
        return (
            f"{self.answers} answers, errors {dict(self.errors)}, closes {dict(self.closes)}, "
            f"{self.opened} sockets opened ({self.held} still open at the end of an attack), "
            f"{self.refused_handshakes} handshakes refused "
            f"{dict(self.handshakes)} (0: no answer), {self.connects} reconnects, "
            f"{self.created} games created, "
            f"{self.creation_refused} creations refused {dict(self.creations)}, "
            f"spectators followed {self.followed} rematches"
        )


async def drain(ws: ClientConnection, damage: Damage, latest: dict[str, Any] | None = None) -> None:
    """Read a socket to its end, counting its answers, errors and close code;
    with ``latest``, keep the table's state there."""
    try:
        async for text in ws:
            damage.answers += 1
            if latest is None and not str(text).startswith('{"type": "error"'):
                continue  # a spectator's table: nothing in it to act on
            message = json.loads(text)
            if message["type"] == "error":
                damage.errors[message["code"]] += 1
            elif latest is not None and message["type"] == "table":
                latest.update(message["state"])
    except ConnectionClosed:
        pass
    received = ws.protocol.close_rcvd
    damage.closes[received.code if received else None] += 1


class Phases:
    """The attackers' view of the bench's phases: rest while ``active`` is
    clear, stop at ``done`` or past ``seconds``."""

    def __init__(self, seconds: float, active: Any, done: Any) -> None:
        self.stop = time.perf_counter() + seconds
        self.active = active
        self.done = done

    def over(self) -> bool:
        return bool(self.done.is_set()) or time.perf_counter() >= self.stop

    async def resting(self) -> None:
        while not self.active.is_set() and not self.over():
            await asyncio.sleep(0.05)

    async def attacking(self) -> None:
        while self.active.is_set() and not self.over():
            await asyncio.sleep(0.05)


async def attacker(
    base: str, phases: Phases, limits: Limits, parts: set[str], ready: Any
) -> Damage:
    """One address's attack, while ``phases`` says so; at rest its sockets
    stay open and silent."""
    damage = Damage()
    me = Client(base, ATTACKER)
    token = await asyncio.to_thread(me.create, 1)
    over, resting = phases.over, phases.resting
    # The mover's socket sends at its own rate; the spectators share the rest.
    syncs_per_second = limits.address_rate - limits.socket_rate
    connects_per_second = WITHIN * limits["CONNECTS_PER_ADDRESS"] / limits.window

    # Every new socket of the address, whichever task opens it, waits its
    # turn: together they stay under the address's connect rate.
    pace = asyncio.Lock()
    last_connect = 0.0

    async def open_socket(watching: str) -> ClientConnection:
        nonlocal last_connect
        async with pace:
            await asyncio.sleep(
                max(0.0, last_connect + 1 / connects_per_second - time.perf_counter())
            )
            last_connect = time.perf_counter()
        return await me.socket(watching, cookie=False)

    async def mover() -> None:
        nonlocal token
        while not over():
            ws = await me.socket(token)
            latest: dict[str, Any] = {}
            reader = asyncio.create_task(drain(ws, damage, latest))
            while not over() and not reader.done():
                await resting()
                if latest.get("rematch"):
                    break
                if latest.get("status") in ("lobby", "finished"):
                    action = "start" if latest["status"] == "lobby" else "rematch"
                    try:
                        await ws.send(json.dumps({"action": action, "version": latest["version"]}))
                    except ConnectionClosed:
                        break
                elif latest:
                    # Every roll a turn allows: the most pushes per game.
                    move = next_move(latest)
                    if latest["rolls_left"] > 0:
                        move = {"action": "roll", "version": latest["version"], "hold": []}
                    try:
                        await ws.send(json.dumps(move))
                    except ConnectionClosed:
                        break
                # The socket's own rate, past its burst.
                await asyncio.sleep(1 / limits.socket_rate)
            await ws.close()
            await reader
            if latest.get("rematch"):
                token = latest["rematch"]

    async def spectator(n: int) -> None:
        await asyncio.sleep(n * SPECTATOR_OPEN_EVERY)
        while not over():
            watching = token
            try:
                ws = await open_socket(watching)
            except InvalidStatus:
                damage.refused_handshakes += 1
                await asyncio.sleep(BACK_OFF)
                continue
            reader = asyncio.create_task(drain(ws, damage))
            while not over() and not reader.done() and token == watching:
                await resting()
                try:
                    await ws.send('{"action": "sync"}')
                except ConnectionClosed:
                    break
                await asyncio.sleep(spectators / syncs_per_second)
            await ws.close()
            await reader
            if token != watching:
                # Follow the rematch, one after another within the connect rate.
                damage.followed += 1
                await asyncio.sleep(0)
            else:
                # Cut off: come back within the connect rate.
                await asyncio.sleep(BACK_OFF)

    async def churner() -> None:
        while not over():
            await resting()
            try:
                ws = await open_socket(token)
            except InvalidStatus:
                damage.refused_handshakes += 1
                await asyncio.sleep(BACK_OFF)
                continue
            damage.connects += 1
            try:
                await asyncio.wait_for(ws.recv(), 10)
                damage.answers += 1
            except (ConnectionClosed, TimeoutError):
                pass
            await ws.close()
            await asyncio.sleep(churners / RECONNECTS_PER_SECOND)

    async def creator() -> None:
        while not over():
            await resting()
            if not await create_counted(Client(base, ATTACKER), ONE_FORM, limits, damage):
                await asyncio.sleep(BACK_OFF / 4)

    async def opened() -> None:
        await asyncio.sleep((spectators + 1) * SPECTATOR_OPEN_EVERY)
        ready.set()

    churners = 4
    # One slot per churner spare: a closed socket is counted until the server sees it go.
    spectators = limits["SOCKETS_PER_ADDRESS"] - 1 - 2 * churners
    tasks = [mover(), opened()]
    if "spectators" in parts:
        tasks += [spectator(n) for n in range(spectators)]
    if "churners" in parts:
        tasks += [churner() for _ in range(churners)]
    if "creator" in parts:
        tasks.append(creator())
    await asyncio.gather(*tasks)
    return damage


async def create_counted(
    client: Client, form: dict[str, str], limits: Limits, damage: Damage
) -> str:
    """One creation by ``client``, counted: the game's token, or ''."""
    got = await asyncio.to_thread(attempt_creation, client, form, limits)
    if got.token:
        damage.created += 1
    else:
        damage.creation_refused += 1
        damage.creations[f"{got.status} {got.code}"] += 1
    return got.token


async def open_counted(
    client: Client, token: str, damage: Damage, *, cookie: bool = False
) -> ClientConnection | None:
    """A socket to ``token``, or None if the server refused it (counted by status)."""
    try:
        ws = await client.socket(token, cookie=cookie)
    except InvalidStatus as refusal:
        damage.refused_handshakes += 1
        damage.handshakes[refusal.response.status_code] += 1
        return None
    except (TimeoutError, InvalidHandshake, OSError):
        # No answer within the handshake's 30 s, or the connection dropped
        # before one: counted, not fatal.
        damage.refused_handshakes += 1
        damage.handshakes[0] += 1
        return None
    damage.opened += 1
    return ws


async def open_many(client: Client, tokens: list[str], damage: Damage) -> list[ClientConnection]:
    """A socket to each of ``tokens`` at once, those the server let in."""
    opened = await asyncio.gather(*(open_counted(client, token, damage) for token in tokens))
    return [ws for ws in opened if ws is not None]


async def talk(ws: ClientConnection, message: str, every: float, phases: Phases) -> None:
    """Send ``message`` every ``every`` seconds while attacking, till the socket closes."""
    while not phases.over() and ws.state.name == "OPEN":
        await phases.resting()
        try:
            await ws.send(message)
        except ConnectionClosed:
            return
        await asyncio.sleep(every)


async def crowd(
    kind: str, base: str, phases: Phases, limits: Limits, addresses: list[str], ready: Any
) -> Damage:
    """``kind``'s attack from every one of ``addresses``, each within its own limits."""
    damage = Damage()
    clients = [Client(base, address) for address in addresses]
    readers: list[asyncio.Task[None]] = []
    held: list[ClientConnection] = []

    def hold(sockets: list[ClientConnection]) -> None:
        held.extend(sockets)
        readers.extend(asyncio.create_task(drain(ws, damage)) for ws in sockets)

    async def let_go() -> None:
        damage.held = max(damage.held, sum(ws.state.name == "OPEN" for ws in held))
        await asyncio.gather(*(ws.close() for ws in held))
        held.clear()

    async def host(client: Client) -> str:
        return await create_counted(client, ONE_FORM, limits, damage)

    if kind == "creation":
        ready.set()

        async def flood(address: str) -> None:
            made = 0
            # Refusals do not stop it: a try refused at once is at once
            # followed by the next, all through every attacking phase.
            while made < limits["GAMES_PER_HOUR_PER_ADDRESS"]:
                await phases.resting()
                if phases.over():
                    return
                # A fresh session each time: a session's own count is lower.
                made += bool(await create_counted(Client(base, address), ONE_FORM, limits, damage))

        await asyncio.gather(*(flood(address) for address in addresses))
    elif kind in ("tables", "chat"):
        each = limits.connects_at_once
        # Tables: a game per address. Chat: the crowd's sockets fill games
        # up to the game's cap, each game hosted by its first address.
        per_game = each if kind == "tables" else limits["SOCKETS_PER_GAME"]
        games = math.ceil(len(clients) * each / per_game)
        tokens = await asyncio.gather(*(host(clients[g * per_game // each]) for g in range(games)))
        opened = await asyncio.gather(
            *(
                open_many(client, [tokens[(n * each + k) // per_game] for k in range(each)], damage)
                for n, client in enumerate(clients)
            )
        )
        ready.set()
        message = '{"action": "sync"}' if kind == "tables" else '{"action": "chat", "text": "spam"}'
        talkers = []
        for sockets in opened:
            hold(sockets)
            # The address's rate shared by its sockets, none past its own.
            every = max(len(sockets) / limits.address_rate, 1 / limits.socket_rate)
            talkers += [talk(ws, message, every, phases) for ws in sockets]
        await asyncio.gather(*talkers)
    elif kind == "botwatch":
        count = min(
            WATCHED_PER_ADDRESS, limits["GAMES_PER_HOUR_PER_ADDRESS"], limits.connects_at_once
        )
        watchers = [Client(base, client.address) for client in clients for _ in range(count)]

        # Each watcher's own session creates its game: its socket is the host's.
        tokens = await asyncio.gather(
            *(create_counted(watcher, WATCH_FORM, limits, damage) for watcher in watchers)
        )
        ready.set()
        while not phases.over():
            # Watching is the attack: at rest nobody watches, and the games pause.
            watching = await asyncio.gather(
                *(
                    open_counted(w, t, damage, cookie=True)
                    for w, t in zip(watchers, tokens, strict=True)
                    if t
                )
            )
            hold([ws for ws in watching if ws is not None])
            await phases.attacking()
            await let_go()
            await phases.resting()
    elif kind == "ipv6":
        token = await host(clients[0])
        wanted = limits["SOCKETS_PER_GAME"]
        for client in clients:
            tries = min(limits.connects_at_once, wanted)
            wanted -= tries
            hold(await open_many(client, [token] * tries, damage))
        ready.set()
        while not phases.over():
            await asyncio.sleep(0.05)
    await let_go()
    await asyncio.gather(*readers, return_exceptions=True)
    return damage


def attack_from_process(
    kind: str,
    base: str,
    seconds: float,
    limits: Limits,
    detail: Any,
    active: Any,
    done: Any,
    ready: Any,
    results: Any,
    yields: bool,
) -> None:
    """The attack ``kind`` ("single", its parts in ``detail``; else a crowd
    attack from the addresses in ``detail``), run in a process of its own;
    one that ``yields`` lets the victims' clients on its core go first."""
    if yields:
        os.nice(ATTACKERS_NICENESS)

    async def attack() -> Damage:
        # Every address's creation waits on a thread of its own.
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=64))
        phases = Phases(seconds, active, done)
        if kind == "single":
            return await attacker(base, phases, limits, detail, ready)
        return await crowd(kind, base, phases, limits, detail, ready)

    try:
        results.put(asyncio.run(attack()))
    except Exception as failure:
        # As plain text: some exceptions (an HTTPError holding its response)
        # cannot cross between processes.
        results.put(f"the attacker failed: {failure!r}")


def summary(name: str, latencies: list[float]) -> dict[str, float]:
    if not latencies:
        # No victim got as far as a move in the phase: as slow as it gets.
        print(f"{name:>9}:    0 pushes (no victim game got to play)")
        return {"pushes": 0, "p50": math.inf, "p99": math.inf, "max": math.inf}
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    figures = {
        "pushes": len(ordered),
        "p50": statistics.median(ordered),
        "p99": p99,
        "max": ordered[-1],
    }
    print(
        f"{name:>9}: {figures['pushes']:4d} pushes, p50 {figures['p50']:7.1f} ms, "
        f"p99 {figures['p99']:7.1f} ms, max {figures['max']:7.1f} ms"
    )
    return figures


async def victims(base: str, seconds: float, games: int) -> list[float]:
    """``games`` victim games at once, so the tail has enough pushes to mean something."""
    played = await asyncio.gather(*(victim(base, seconds, n) for n in range(games)))
    return [latency for latencies in played for latency in latencies]


async def visit(base: str, limits: Limits, n: int, seconds: float) -> Creation:
    """A visitor from a fresh address, some time into a phase, starts a game."""
    await asyncio.sleep(seconds)
    return await asyncio.to_thread(
        attempt_creation, Client(base, VISITOR.format(200 + n)), ONE_FORM, limits
    )


async def run(
    base: str,
    seconds: float,
    rounds: int,
    games: int,
    limits: Limits,
    kind: str,
    detail: Any,
    pinned: bool,
) -> None:
    # The attackers are a process of their own, as they would be machines
    # of their own: their clients' work must not slow the victims' clients down.
    VICTIMS_TOLD.clear()
    context = multiprocessing.get_context("spawn")
    active, done, ready, results = (
        context.Event(),
        context.Event(),
        context.Event(),
        context.Queue(),
    )
    active.set()
    longest = rounds * 2 * (seconds + SETTLE + 30) + 180
    attack = context.Process(
        target=attack_from_process,
        args=(kind, base, longest, limits, detail, active, done, ready, results, pinned),
        # A bench that failed must not wait out the attackers' whole run.
        daemon=True,
    )
    alone = await victims(base, seconds, games)
    attack.start()
    # Every socket the attackers may have is open (their games created),
    # unless their process failed on the way: then say why at once.
    while not await asyncio.to_thread(ready.wait, 1.0):
        if not attack.is_alive():
            raise RuntimeError(results.get(timeout=5))
    quiet: list[float] = []
    loud: list[float] = []
    visits: list[tuple[str, Creation]] = []
    # Resting and attacking phases alternate, so whatever else the machine
    # is doing weighs on both alike.
    for _ in range(rounds):
        for phase, latencies in (("resting", quiet), ("attacking", loud)):
            (active.clear if phase == "resting" else active.set)()
            await asyncio.sleep(SETTLE)
            measured, visited = await asyncio.gather(
                victims(base, seconds, games), visit(base, limits, len(visits), seconds / 2)
            )
            latencies += measured
            visits.append((f"while {phase}", visited))
    done.set()
    damage = await asyncio.to_thread(results.get, True, 180)
    if kind == "creation":
        # The flood's games still count against the site's hour: one more
        # visitor comes.
        visits.append(("after the flood", await visit(base, limits, len(visits), 0)))
    attack.join(30)
    if isinstance(damage, str):
        raise RuntimeError(damage)
    first = summary("alone", alone)
    unloaded = summary("resting", quiet)
    loaded = summary("attacking", loud)
    ratios = (loaded["p99"] / unloaded["p99"], loaded["p99"] / first["p99"])
    # Against both: a backlog the attack left behind can slow a resting phase too.
    print(
        f"victims' p99, attacking / resting: {ratios[0]:.2f}x, attacking / alone "
        f"(before the attackers came): {ratios[1]:.2f}x: "
        f"{'PASS' if max(ratios) <= GOAL else 'FAIL'} (goal: both at most {GOAL:g}x)"
    )
    print(f"attackers: {damage.report()}")
    print(f"victims told: {dict(VICTIMS_TOLD) or 'nothing but their pushes'}")
    for phase, visited in visits:
        print(
            f"fresh visitor, {phase}: HTTP {visited.status}"
            f"{' ' + visited.code if visited.code else ''} in {visited.seconds:.2f} s"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=3, help="resting/attacking phase pairs")
    parser.add_argument(
        "--attack",
        default=",".join(PARTS),
        help=f"parts of the one-address attack besides the mover ({','.join(PARTS)}) "
        f"and crowd attacks, each run on its own ({','.join(CROWD_ATTACKS)}); "
        f"default: {','.join(PARTS)}",
    )
    parser.add_argument("--addresses", type=int, default=50, help="addresses of each crowd attack")
    parser.add_argument("--victims", type=int, default=4, help="victim games played at once")
    parser.add_argument(
        "--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench-abuse.sqlite3'}"
    )
    parser.add_argument("--redis-url", default="")
    parser.add_argument("--port", type=int, default=0, help="the server's (default: a free one)")
    parser.add_argument(
        "--proxy", action="store_true", help="through the shipped nginx, as production runs"
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the server on one CPU, the clients on the others, the attackers yielding",
    )
    args = parser.parse_args(argv)
    named = [name for name in args.attack.split(",") if name]
    unknown = set(named) - set(PARTS) - set(CROWD_ATTACKS)
    if unknown:
        parser.error(f"unknown attacks: {','.join(sorted(unknown))}")
    if not 0 < args.addresses <= 250:
        parser.error("--addresses: from 1 to 250")
    parts = {name for name in named if name in PARTS}
    attacks: list[tuple[str, str, Any]] = []
    if parts or not named:
        attacks.append(("single", f"one address: mover, {','.join(sorted(parts))}", parts))
    crowd = [f"203.0.113.{n + 1}" for n in range(args.addresses)]
    for kind in (name for name in CROWD_ATTACKS if name in named):
        if kind == "ipv6":
            # Its addresses depend on the limits, read once its server is set up.
            attacks.append((kind, "ipv6: addresses of one /64 at one game", None))
        else:
            attacks.append((kind, f"{kind} from {len(crowd)} addresses", crowd))
    for kind, title, detail in attacks:
        print(f"\n== {title} ==", flush=True)
        attack(kind, detail, args)


def attack(kind: str, detail: Any, args: argparse.Namespace) -> None:
    """``kind`` against a server of its own, whose limits nobody has spent."""
    cluster = Cluster(
        processes=1,
        database_url=args.database_url,
        redis_url=args.redis_url,
        ports=[args.port] if args.port else None,
        env={"YACHT_TRUSTED_PROXIES": "127.0.0.1"},
        name="bench-abuse",
        # The bench's clients stand behind a TLS terminator at 127.0.0.1
        # that names each one in X-Forwarded-For.
        proxy_port=free_port() if args.proxy else None,
        proxy_tls_terminators=["127.0.0.1"],
    )
    if args.redis_url:
        # An earlier attack's addresses used up their games for the hour.
        client = redis.Redis.from_url(args.redis_url)
        for key in client.scan_iter("yacht:limit:*"):
            client.delete(key)
        client.close()
    limits = Limits.of(cluster)
    if kind == "ipv6":
        # As many addresses of the /64 as the game's socket cap takes.
        each = limits.connects_at_once
        wanted = math.ceil(limits["SOCKETS_PER_GAME"] / each)
        detail = [f"2001:db8:0:1::{n + 1:x}" for n in range(wanted)]
        print(
            f"{', '.join(detail)}: up to {each} sockets each, {limits['SOCKETS_PER_GAME']} in all"
        )
    cluster.migrate()
    cluster.start()
    try:
        if args.proxy and cluster.nginx is None:
            raise SystemExit("--proxy needs Debian's nginx")
        if args.pin:
            pin(cluster)
        asyncio.run(
            run(
                cluster.front_url,
                args.seconds,
                args.rounds,
                args.victims,
                limits,
                kind,
                detail,
                args.pin,
            )
        )
    finally:
        cluster.stop()


# The CPUs this bench may use, as it started (each attack pins it anew).
CPUS = sorted(os.sched_getaffinity(0))


def pin(cluster: Cluster) -> None:
    """The server's processes on the first CPU, this one (and the attackers'
    process it starts later, which inherits it) on the others."""
    cpus = CPUS
    if len(cpus) < 2:
        raise SystemExit("--pin needs two CPUs")
    for pid in (*cluster.pids, *cluster.proxy_pids):
        os.sched_setaffinity(pid, cpus[:1])
    os.sched_setaffinity(0, cpus[1:])
    print(f"server on CPU {cpus[0]}, clients on CPU {','.join(map(str, cpus[1:]))}", flush=True)


if __name__ == "__main__":
    main()
