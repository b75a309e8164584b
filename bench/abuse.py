"""One client doing its worst within the limits, and what other games feel.

    .venv/bin/python -m bench.abuse [--seconds 10] [--rounds 3] [--victims 4]
        [--attack spectators,churners,creator] [--database-url URL --redis-url URL]

Starts one daphne (SQLite and the in-memory layer by default; PostgreSQL and
Redis with the URLs), trusting 127.0.0.1 as its proxy so that each client
can be given its own address in X-Forwarded-For. Victim games of two
players (four by default, each from addresses of its own) play on at a
human-ish pace (a move every 100 ms, alternating seats). One attacker, from
one address, opens and holds every socket its address may open:

- one seat of its own solitaire, moving as fast as its socket may (5 a
  second, every roll a turn allows; a finished game is rematched);
- spectators of that game, following it to each rematch and sending `sync`
  just within the address's shared message rate (14.5 a second in all);
- a few sockets that close and reopen (all new sockets of the address
  together stay under its connect rate);
- game creation from fresh cookie-less sessions as fast as it is answered.

Staying within the limits is the worst it can do: past them its sockets
are closed and its new ones refused, which costs the server less; after a
refusal it backs off. ``--attack`` picks the parts besides the mover, to
see which one costs the victims what.

The victims' push latency (the mover's send to the other player's receipt
of that version) is measured in phases that alternate, ``--rounds`` times:
the attacker resting (its sockets open and silent), then attacking, so that
whatever else the machine does weighs on both alike; and once alone, before
the attacker comes. The attacker runs in a
process of its own, as it would on a machine of its own.

It prints the victims' p50/p99/max while the attacker rests and while it
attacks, their ratio, and what the attacker got (answers, refusals by code,
close codes, games created). Bounded: loopback only, each phase
``--seconds`` long.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.parse import urlencode
from urllib.request import HTTPCookieProcessor, Request, build_opener

import redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from bench.client import CSRF_FIELD, GAME_PATH
from scripts.run_cluster import Cluster

ROOT = Path(__file__).resolve().parent.parent
ATTACKER = "198.51.100.66"
MOVE_EVERY = 0.1
# Just under the default shared limits of one address: 200 messages and 30
# new sockets per 10 s (the mover's 5 a second count towards the first).
SYNCS_PER_SECOND = 14.5
RECONNECTS_PER_SECOND = 1.0
# All new sockets together: the churners' share, and spectators opening
# or following a rematch.
CONNECTS_PER_SECOND = 2.5
# Spectators open one after another, leaving the churners their share of
# the connect rate (together 2.25 a second of the 3 allowed: the server's
# windows are estimates, and a refused socket costs a retry); the victims
# are measured once they are all open.
SPECTATOR_OPEN_EVERY = 0.8
# After a refusal the attacker waits this long before trying again: it
# keeps at its worst within the limits instead of hammering past them.
BACK_OFF = 2.0
# After the attack starts or stops, before the victims are measured.
SETTLE = 1.0
PARTS = ("spectators", "churners", "creator")


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
        url = self.post_form(
            "/en/", "/en/", {"name": "Host", "seats": str(seats), "ruleset": "yacht"}
        )
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


def next_move(state: dict[str, Any]) -> dict[str, Any]:
    if state["rolls_used"] == 0:
        return {"action": "roll", "version": state["version"], "hold": []}
    best = max(state["preview"], key=lambda key: state["preview"][key])
    return {"action": "score", "version": state["version"], "category": best}


async def victim(base: str, seconds: float, n: int) -> list[float]:
    """Play a two-seat game for ``seconds`` from two addresses of its own;
    each push's latency in ms."""
    host, guest = Client(base, f"192.0.2.{10 + 2 * n}"), Client(base, f"192.0.2.{11 + 2 * n}")
    token = await asyncio.to_thread(host.create, 2)
    await asyncio.to_thread(
        guest.post_form, f"/en/g/{token}/", f"/en/g/{token}/join/", {"name": "Guest"}
    )
    sockets = [await host.socket(token), await guest.socket(token)]
    latest: list[dict[str, Any]] = [{}, {}]
    arrived: dict[tuple[int, int], float] = {}
    changed = asyncio.Event()

    async def read(seat: int) -> None:
        async for text in sockets[seat]:
            message = json.loads(text)
            if message["type"] == "table":
                arrived.setdefault((seat, message["version"]), time.perf_counter())
                if message["version"] >= latest[seat].get("version", 0):
                    latest[seat] = message["state"]
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
        sent = time.perf_counter()
        await sockets[mover].send(json.dumps(move))
        watcher = 1 - mover
        target = (watcher, move["version"] + 1)
        while target not in arrived or latest[mover].get("version", 0) < target[1]:
            changed.clear()
            await asyncio.wait_for(changed.wait(), 30)
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
    connects: int = 0
    created: int = 0
    creation_refused: int = 0
    followed: int = 0


async def attacker(
    base: str, seconds: float, sockets_allowed: int, parts: set[str], active: Any, done: Any
) -> Damage:
    """The attack, for at most ``seconds`` or until ``done`` is set; while
    ``active`` is clear it rests, its sockets open and silent."""
    damage = Damage()
    me = Client(base, ATTACKER)
    token = await asyncio.to_thread(me.create, 1)
    stop = time.perf_counter() + seconds

    def over() -> bool:
        return done.is_set() or time.perf_counter() >= stop

    async def resting() -> None:
        while not active.is_set() and not over():
            await asyncio.sleep(0.05)

    # Every new socket of the address, whichever task opens it, waits its
    # turn: together they stay under the address's connect rate.
    pace = asyncio.Lock()
    last_connect = 0.0

    async def open_socket(watching: str) -> ClientConnection:
        nonlocal last_connect
        async with pace:
            await asyncio.sleep(
                max(0.0, last_connect + 1 / CONNECTS_PER_SECOND - time.perf_counter())
            )
            last_connect = time.perf_counter()
        return await me.socket(watching, cookie=False)

    async def drain(ws: ClientConnection, latest: dict[str, Any] | None = None) -> None:
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

    async def mover() -> None:
        nonlocal token
        while not over():
            ws = await me.socket(token)
            latest: dict[str, Any] = {}
            reader = asyncio.create_task(drain(ws, latest))
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
                # The socket's own rate: a burst, then 5 a second.
                await asyncio.sleep(0.2)
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
            reader = asyncio.create_task(drain(ws))
            while not over() and not reader.done() and token == watching:
                await resting()
                try:
                    await ws.send('{"action": "sync"}')
                except ConnectionClosed:
                    break
                await asyncio.sleep(spectators / SYNCS_PER_SECOND)
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

    def creator() -> None:
        while not over():
            if not active.is_set():
                time.sleep(0.05)
                continue
            try:
                Client(base, ATTACKER).create(1)
                damage.created += 1
            except (HTTPError, AssertionError):
                damage.creation_refused += 1
                time.sleep(BACK_OFF / 4)

    churners = 4
    # One slot per churner spare: a closed socket is counted until the server sees it go.
    spectators = sockets_allowed - 1 - 2 * churners
    tasks = [mover()]
    if "spectators" in parts:
        tasks += [spectator(n) for n in range(spectators)]
    if "churners" in parts:
        tasks += [churner() for _ in range(churners)]
    if "creator" in parts:
        tasks.append(asyncio.to_thread(creator))
    await asyncio.gather(*tasks)
    return damage


def attack_from_process(
    base: str,
    seconds: float,
    sockets_allowed: int,
    parts: set[str],
    active: Any,
    done: Any,
    results: Any,
) -> None:
    try:
        results.put(asyncio.run(attacker(base, seconds, sockets_allowed, parts, active, done)))
    except Exception as failure:
        # As plain text: some exceptions (an HTTPError holding its response)
        # cannot cross between processes.
        results.put(f"the attacker failed: {failure!r}")


def summary(name: str, latencies: list[float]) -> dict[str, float]:
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


async def run(
    base: str, seconds: float, rounds: int, sockets_allowed: int, games: int, parts: set[str]
) -> None:
    # The attacker is a process of its own, as it would be a machine of its
    # own: its clients' work must not slow the victims' clients down.
    context = multiprocessing.get_context("spawn")
    active, done, results = context.Event(), context.Event(), context.Queue()
    active.set()
    ramp = (sockets_allowed + 1) * SPECTATOR_OPEN_EVERY
    longest = ramp + rounds * 2 * (seconds + SETTLE + 30) + 60
    attack = context.Process(
        target=attack_from_process,
        args=(base, longest, sockets_allowed, parts, active, done, results),
    )
    alone = await victims(base, seconds, games)
    attack.start()
    await asyncio.sleep(ramp)  # every socket the address may have is open
    quiet: list[float] = []
    loud: list[float] = []
    # Resting and attacking phases alternate, so whatever else the machine
    # is doing weighs on both alike.
    for _ in range(rounds):
        active.clear()
        await asyncio.sleep(SETTLE)
        quiet += await victims(base, seconds, games)
        active.set()
        await asyncio.sleep(SETTLE)
        loud += await victims(base, seconds, games)
    done.set()
    damage = await asyncio.to_thread(results.get, True, 120)
    attack.join(30)
    if isinstance(damage, str):
        raise RuntimeError(damage)
    first = summary("alone", alone)
    unloaded = summary("resting", quiet)
    loaded = summary("attacking", loud)
    print(
        f"attacker: {damage.answers} answers, errors {dict(damage.errors)}, "
        f"closes {dict(damage.closes)}, {damage.connects} reconnects, "
        f"{damage.refused_handshakes} handshakes refused, {damage.created} games created, "
        f"{damage.creation_refused} creations refused, "
        f"spectators followed {damage.followed} rematches"
    )
    print(
        f"victims' p99, attacking / resting: {loaded['p99'] / unloaded['p99']:.2f}x "
        f"(attacking / alone, before the attacker came: {loaded['p99'] / first['p99']:.2f}x)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=3, help="resting/attacking phase pairs")
    parser.add_argument(
        "--attack",
        default=",".join(PARTS),
        help=f"which parts of the attack run besides the mover (default: all of {','.join(PARTS)})",
    )
    parser.add_argument("--victims", type=int, default=4, help="victim games played at once")
    parser.add_argument(
        "--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench-abuse.sqlite3'}"
    )
    parser.add_argument("--redis-url", default="")
    args = parser.parse_args(argv)
    sockets_allowed = 40
    cluster = Cluster(
        processes=1,
        database_url=args.database_url,
        redis_url=args.redis_url,
        env={
            "YACHT_TRUSTED_PROXIES": "127.0.0.1",
            "YACHT_SOCKETS_PER_ADDRESS": str(sockets_allowed),
        },
        name="bench-abuse",
    )
    if args.redis_url:
        # A run starts with nobody's limits spent (an earlier run's attacker
        # used up its address's games for the hour).
        client = redis.Redis.from_url(args.redis_url)
        for key in client.scan_iter("yacht:limit:*"):
            client.delete(key)
        client.close()
    cluster.migrate()
    cluster.start()
    try:
        parts = set(args.attack.split(",")) - {""}
        asyncio.run(
            run(cluster.urls[0], args.seconds, args.rounds, sockets_allowed, args.victims, parts)
        )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
