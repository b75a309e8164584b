"""A crowd of clients, each within its own limits, and what other games feel.

    .venv/bin/python -m bench.crowd [--attack creation,tables,botwatch,chat,ipv6]
        [--addresses 50] [--seconds 8] [--rounds 2] [--victims 4]
        [--database-url URL --redis-url URL] [--site-busy-level 1000]

``bench.abuse`` is one client doing its worst; this is fifty (``--addresses``)
doing it together, each from an address of its own (198.18.x.y, given to a
daphne that trusts 127.0.0.1 as its proxy) and each within every limit of
its own, which no per-address limit can stop. Each attack runs on a fresh
daphne, in a process of its own, while victim games (``bench.abuse.victim``:
two players, a move every 100 ms) are measured: once before the crowd
comes, then in phases alternating the crowd resting and attacking, so that
whatever else the machine does weighs on both alike.

- ``creation``: every address creates solitaire games from fresh sessions,
  as fast as it is answered, up to its hourly share; meanwhile a visitor from
  a fresh address starts a game every second (status and seconds are
  reported). ``--site-busy-level`` lowers the site's busy level so that the
  flood passes it and the fair shares are exercised.
- ``tables``: 30 sockets an address watch a game of the address's own and
  ask for its table (``sync`` with version 0) at 90 % of the address's
  message rate.
- ``botwatch``: 12 games of bots alone an address ("Just watch"), each
  watched by one socket; resting, the sockets close and the games pause.
- ``chat``: every address keeps two sockets in each of five games and chats
  into them at 90 % of its message rate (the games hold 100 sockets each).
- ``ipv6``: four addresses of one IPv6 /64 open sockets to one game, 30, 30,
  30 and 10 of them; what they got is reported (no victims: it is a count).

Printed per attack: the victims' pushes p50/p99 alone, resting and
attacking, the attacking/resting p99 ratio against the goal of 2x, and
what the crowd got (answers, refusals by code, close codes, handshakes
refused, games created and refused). Bounded: loopback only, every phase
``--seconds`` long, every socket and game counted above.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.error import HTTPError

import redis
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus

from bench.abuse import ROOT, SETTLE, Client, summary, victims
from scripts.run_cluster import Cluster

ATTACKS = ("creation", "tables", "botwatch", "chat", "ipv6")
# The shares of one address, as the server is started below (the defaults).
MESSAGES_PER_10S = 200
CONNECTS_PER_10S = 30
# Kept under the shares: the server's windows are estimates.
MARGIN = 0.9
TABLE_SOCKETS = 30
BOT_GAMES = 12
CHAT_GAMES = 5
CHAT_SOCKETS_PER_GAME = 2
IPV6_SOCKETS = (30, 30, 30, 10)


def crowd_address(n: int) -> str:
    return f"198.18.{n // 250}.{n % 250 + 1}"


@dataclass
class Tally:
    """What the crowd got."""

    answers: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[int | None] = field(default_factory=Counter)
    handshakes_refused: Counter[int] = field(default_factory=Counter)
    sockets_opened: int = 0
    created: int = 0
    creation_refused: Counter[int] = field(default_factory=Counter)


class Crowd:
    """The attack of one kind from every address; rests while ``active`` is clear."""

    def __init__(self, base: str, kind: str, addresses: int, active: Any, done: Any) -> None:
        self.base = base
        self.kind = kind
        self.addresses = [crowd_address(n) for n in range(addresses)]
        self.active = active
        self.done = done
        self.tally = Tally()
        self.pool = ThreadPoolExecutor(max_workers=min(64, addresses + 8))
        # Each address's new sockets, whichever task opens them, keep under its connect rate.
        self.connect_locks: dict[str, asyncio.Lock] = {}
        self.last_connect: dict[str, float] = {}

    async def http(self, call: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.pool, call, *args)

    async def resting(self) -> None:
        while not self.active.is_set() and not self.done.is_set():
            await asyncio.sleep(0.05)

    async def open(self, client: Client, token: str) -> ClientConnection | None:
        lock = self.connect_locks.setdefault(client.address, asyncio.Lock())
        async with lock:
            gap = 10 / (CONNECTS_PER_10S * MARGIN)
            last = self.last_connect.get(client.address, 0.0)
            await asyncio.sleep(max(0.0, last + gap - time.perf_counter()))
            self.last_connect[client.address] = time.perf_counter()
        try:
            ws = await client.socket(token, cookie=False)
        except InvalidStatus as refused:
            self.tally.handshakes_refused[refused.response.status_code] += 1
            return None
        self.tally.sockets_opened += 1
        return ws

    async def drain(self, ws: ClientConnection) -> None:
        try:
            async for text in ws:
                message = json.loads(text)
                self.tally.answers[message["type"]] += 1
                if message["type"] == "error":
                    self.tally.errors[message["code"]] += 1
        except ConnectionClosed:
            pass
        received = ws.protocol.close_rcvd
        self.tally.closes[received.code if received else None] += 1

    async def talk(self, ws: ClientConnection, every: float, message: Any) -> None:
        """Send ``message()`` every ``every`` seconds while active, until closed."""
        reader = asyncio.create_task(self.drain(ws))
        await asyncio.sleep(random.uniform(0, every))
        while not self.done.is_set() and not reader.done():
            await self.resting()
            try:
                await ws.send(json.dumps(message()))
            except ConnectionClosed:
                break
            await asyncio.sleep(every)
        await ws.close()
        await reader

    def create(self, address: str, fields: dict[str, str] | None = None) -> str | None:
        """A game from a fresh session at ``address``; None if refused."""
        try:
            token = Client(self.base, address).create_with(fields or {"seats": "1"})
        except HTTPError as refused:
            self.tally.creation_refused[refused.code] += 1
            return None
        self.tally.created += 1
        return token

    async def creation(self, ready: Any) -> None:
        ready.set()

        async def flood(address: str) -> None:
            while not self.done.is_set():
                await self.resting()
                if await self.http(self.create, address) is None:
                    await asyncio.sleep(1.0)

        await asyncio.gather(*(flood(address) for address in self.addresses))

    async def tables(self, ready: Any) -> None:
        every = TABLE_SOCKETS * 10 / (MESSAGES_PER_10S * MARGIN)

        async def address_sockets(address: str) -> None:
            token = await self.http(self.create, address)
            if token is None:
                return
            client = Client(self.base, address)
            sockets = [await self.open(client, token) for _ in range(TABLE_SOCKETS)]
            opened.append(1)
            if len(opened) == len(self.addresses):
                ready.set()
            await asyncio.gather(
                *(
                    self.talk(ws, every, lambda: {"action": "sync", "version": 0})
                    for ws in sockets
                    if ws is not None
                )
            )

        opened: list[int] = []
        await asyncio.gather(*(address_sockets(address) for address in self.addresses))

    async def botwatch(self, ready: Any) -> None:
        watch = {"seats": "2", "opponents": "solid", "watch": "on"}

        async def address_games(address: str) -> None:
            client = Client(self.base, address)
            tokens = [await self.http(self.create, address, watch) for _ in range(BOT_GAMES)]
            created.append(1)
            if len(created) == len(self.addresses):
                ready.set()
            while not self.done.is_set():
                # Watching wakes the bots; resting, nobody watches and they pause.
                await self.resting()
                sockets = [await self.open(client, token) for token in tokens if token]
                readers = [asyncio.create_task(self.drain(ws)) for ws in sockets if ws]
                while self.active.is_set() and not self.done.is_set():
                    await asyncio.sleep(0.05)
                for ws in sockets:
                    if ws is not None:
                        await ws.close()
                await asyncio.gather(*readers)

        created: list[int] = []
        await asyncio.gather(*(address_games(address) for address in self.addresses))

    async def chat(self, ready: Any) -> None:
        games = [await self.http(self.create, crowd_address(900 + n)) for n in range(CHAT_GAMES)]
        every = CHAT_GAMES * CHAT_SOCKETS_PER_GAME * 10 / (MESSAGES_PER_10S * MARGIN)
        said = iter(range(10**9))

        async def address_sockets(address: str) -> None:
            client = Client(self.base, address)
            sockets = [
                await self.open(client, token)
                for token in games
                if token
                for _ in range(CHAT_SOCKETS_PER_GAME)
            ]
            opened.append(1)
            if len(opened) == len(self.addresses):
                ready.set()
            await asyncio.gather(
                *(
                    self.talk(ws, every, lambda: {"action": "chat", "text": f"hi {next(said)}"})
                    for ws in sockets
                    if ws is not None
                )
            )

        opened: list[int] = []
        await asyncio.gather(*(address_sockets(address) for address in self.addresses))

    async def run(self, ready: Any) -> Tally:
        await getattr(self, self.kind)(ready)
        self.pool.shutdown(wait=False, cancel_futures=True)
        return self.tally


def crowd_in_process(
    base: str, kind: str, addresses: int, active: Any, done: Any, ready: Any, results: Any
) -> None:
    try:
        results.put(asyncio.run(Crowd(base, kind, addresses, active, done).run(ready)))
    except Exception as failure:
        # As plain text: some exceptions cannot cross between processes.
        results.put(f"the crowd failed: {failure!r}")


async def fresh_visitors(base: str, until: float, start: int) -> list[tuple[int, float]]:
    """A visitor from a fresh address starts a game every second: (status, seconds)."""
    seen = []
    n = start
    while time.perf_counter() < until:
        n += 1
        visitor = Client(base, f"203.0.{113 + n // 250}.{n % 250 + 1}")
        began = time.perf_counter()
        try:
            await asyncio.to_thread(visitor.create_with, {"seats": "1"})
            status = 200
        except HTTPError as refused:
            status = refused.code
        seen.append((status, time.perf_counter() - began))
        await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - began)))
    return seen


async def phases(base: str, kind: str, args: argparse.Namespace) -> None:
    context = multiprocessing.get_context("spawn")
    active, done, ready, results = (
        context.Event(),
        context.Event(),
        context.Event(),
        context.Queue(),
    )
    alone = await victims(base, args.seconds, args.victims)
    crowd = context.Process(
        target=crowd_in_process,
        args=(base, kind, args.addresses, active, done, ready, results),
    )
    active.set()
    crowd.start()
    await asyncio.to_thread(ready.wait, 180)
    quiet: list[float] = []
    loud: list[float] = []
    visits: list[tuple[int, float]] = []
    for _ in range(args.rounds):
        active.clear()
        await asyncio.sleep(SETTLE)
        quiet += await victims(base, args.seconds, args.victims)
        active.set()
        await asyncio.sleep(SETTLE)
        if kind == "creation":
            measured, seen = await asyncio.gather(
                victims(base, args.seconds, args.victims),
                fresh_visitors(base, time.perf_counter() + args.seconds, len(visits)),
            )
            loud += measured
            visits += seen
        else:
            loud += await victims(base, args.seconds, args.victims)
    done.set()
    tally = await asyncio.to_thread(results.get, True, 180)
    crowd.join(30)
    if isinstance(tally, str):
        raise RuntimeError(tally)
    print(f"== {kind}, {args.addresses} addresses")
    summary("alone", alone)
    resting = summary("resting", quiet)
    attacking = summary("attacking", loud)
    ratio = attacking["p99"] / resting["p99"]
    print(f"p99 attacking / resting: {ratio:.2f}x ({'within' if ratio <= 2 else 'OVER'} 2x)")
    print(
        f"crowd: {tally.sockets_opened} sockets opened, handshakes refused "
        f"{dict(tally.handshakes_refused)}, answers {dict(tally.answers)}, errors "
        f"{dict(tally.errors)}, closes {dict(tally.closes)}, {tally.created} games created, "
        f"creations refused {dict(tally.creation_refused)}"
    )
    if visits:
        refused = [status for status, _ in visits if status != 200]
        times = sorted(seconds for _, seconds in visits)
        print(
            f"fresh visitors: {len(visits)} tried, {len(refused)} refused {Counter(refused)}, "
            f"median {times[len(times) // 2]:.2f} s, slowest {times[-1]:.2f} s"
        )


async def ipv6_sockets(base: str) -> None:
    """Four addresses of one /64 each try their share of sockets to one game."""
    host = Client(base, "198.18.200.1")
    token = await asyncio.to_thread(host.create_with, {"seats": "1"})
    opened: list[ClientConnection] = []
    got = Counter[str]()
    for n, wanted in enumerate(IPV6_SOCKETS, start=1):
        client = Client(base, f"2001:db8:0:1::{n}")
        for _ in range(wanted):
            try:
                ws = await client.socket(token, cookie=False)
            except InvalidStatus as refused:
                got[f"handshake {refused.response.status_code}"] += 1
                continue
            try:
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            except ConnectionClosed:
                received = ws.protocol.close_rcvd
                got[f"closed {received.code if received else None}"] += 1
                continue
            if first["type"] == "error":
                got[f"error {first['code']}"] += 1
                await ws.close()
            else:
                got["open"] += 1
                opened.append(ws)
            # The group's connect rate is one share for the whole /64.
            await asyncio.sleep(10 / (CONNECTS_PER_10S * MARGIN))
    for ws in opened:
        await ws.close()
    print(f"== ipv6: 2001:db8:0:1::1..4 asked for {sum(IPV6_SOCKETS)} sockets: {dict(got)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attack", default=",".join(ATTACKS))
    parser.add_argument("--addresses", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=8, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=2, help="resting/attacking phase pairs")
    parser.add_argument("--victims", type=int, default=4, help="victim games played at once")
    parser.add_argument(
        "--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench-crowd.sqlite3'}"
    )
    parser.add_argument("--redis-url", default="")
    parser.add_argument(
        "--site-busy-level",
        type=int,
        default=1000,
        help="games an hour past which the site shares creation fairly",
    )
    args = parser.parse_args(argv)
    for kind in [kind for kind in args.attack.split(",") if kind]:
        if kind not in ATTACKS:
            parser.error(f"unknown attack {kind!r}: one of {','.join(ATTACKS)}")
        if args.redis_url:
            # Each attack starts with nobody's limits spent.
            client = redis.Redis.from_url(args.redis_url)
            for key in client.scan_iter("yacht:limit:*"):
                client.delete(key)
            client.close()
        cluster = Cluster(
            processes=1,
            database_url=args.database_url,
            redis_url=args.redis_url,
            env={
                "YACHT_TRUSTED_PROXIES": "127.0.0.1",
                "YACHT_GAMES_PER_HOUR_SITE": str(args.site_busy_level),
            },
            name=f"bench-crowd-{kind}",
        )
        cluster.migrate()
        cluster.start()
        try:
            if kind == "ipv6":
                asyncio.run(ipv6_sockets(cluster.urls[0]))
            else:
                asyncio.run(phases(cluster.urls[0], kind, args))
        finally:
            cluster.stop()


if __name__ == "__main__":
    main()
