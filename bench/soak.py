"""Soak: many 2-player games in a row at a brisk pace; every committed version
must reach every socket of its game.

    .venv/bin/python -m bench.soak                      # 1,000 games, PostgreSQL + Redis, 1 process
    .venv/bin/python -m bench.soak --processes 2        # host on one daphne, guest on the other
    .venv/bin/python -m bench.soak --profile sqlite+memory
    .venv/bin/python -m bench.soak --games 200 --clients 8

Each client is a pair of browser profiles (cookies, CSRF, Origin) playing one
game after another: create, join, open both sockets, start, then every turn
three rolls (``--rolls``) and a score, each sent ``--pace`` seconds after the push that
makes it that seat's move. A socket never asks for a resync on its own here:
a push later than ``--slow`` seconds is counted as slow; one that has not come
after ``--lost-after`` seconds of silence while its game goes on is lost, and
only then healed with a ``sync`` so the soak goes on. After each game the
committed version is read back over HTTP (the game page), independently of
the sockets, and every version between a socket's first table and that one
must have come to the socket as a push.

Printed: games played, versions committed, versions delivered per socket,
losses (committed versions some socket of the game never got pushed), slow pushes,
the server's own count of pushes it could not send, and daphne's RSS over
time. Exit status 1 on any loss. Everything is bounded: ``--minutes`` caps
the run; results also go to var/bench/soak.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.request import urlopen

from bench.client import LOAD_TEST_LIMITS, Guest
from scripts.run_cluster import ROOT, Cluster

PROFILES: dict[str, dict[str, str]] = {
    "postgres+redis": {
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/yacht_soak",
        # A Redis database of the soak's own, away from the tests' (2, 3, 6, 7
        # and a developer's REDIS_URL), the live_play bench's and dev servers'.
        "REDIS_URL": "redis://127.0.0.1:6379/14",
    },
    "sqlite+memory": {
        "DATABASE_URL": f"sqlite:///{ROOT / 'var' / 'soak.sqlite3'}",
        "REDIS_URL": "",
    },
}
PAGE_VERSION = re.compile(r'id="game"[^>]*data-version="(\d+)"')
SERVER_COUNTS = re.compile(r"pushes (\w+)=(\d+)")


@dataclass
class SocketRecord:
    first: int = 0  # the version of the table shown on connect
    pushed: set[int] = field(default_factory=set)
    slow: int = 0
    syncs: int = 0


@dataclass
class Totals:
    games: int = 0
    unfinished: int = 0
    versions_committed: int = 0
    versions_delivered: int = 0  # summed over sockets
    sockets: int = 0
    lost: int = 0
    slow: int = 0
    syncs: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    losses: list[dict[str, Any]] = field(default_factory=list)


class Soak:
    """Plays games on ``urls`` until ``games`` are done or time runs out."""

    def __init__(
        self,
        urls: list[str],
        *,
        games: int,
        clients: int,
        pace: float,
        slow: float,
        lost_after: float,
        deadline: float,
        rolls: int = 3,
        churn: int = 0,
    ) -> None:
        self.urls = urls
        self.churn = churn
        self.live: list[str] = []  # tokens of games being played now
        self.clients = clients
        self.pace = pace
        self.slow = slow
        self.lost_after = lost_after
        self.rolls = rolls
        self.deadline = deadline
        self.to_start = games
        self.totals = Totals()

    async def run(self) -> Totals:
        churners = [asyncio.ensure_future(self._churn(i)) for i in range(self.churn)]
        try:
            await asyncio.gather(*(self._client(i) for i in range(self.clients)))
        finally:
            for task in churners:
                task.cancel()
            await asyncio.gather(*churners, return_exceptions=True)
        return self.totals

    async def _churn(self, index: int) -> None:
        """A spectator that keeps opening a socket on a game in play and
        closing it soon after: sockets coming and going under live games."""
        rng = random.Random(1000 + index)
        viewer = Guest(self.urls[index % len(self.urls)])
        while True:
            if not self.live:
                await asyncio.sleep(0.05)
                continue
            try:
                ws = await viewer.open_socket(rng.choice(self.live))
                await asyncio.sleep(rng.uniform(0.0, 0.3))
                await ws.close()
            except asyncio.CancelledError:
                raise
            except Exception:
                await asyncio.sleep(0.1)

    async def _client(self, index: int) -> None:
        rng = random.Random(index)
        while self.to_start > 0 and time.monotonic() < self.deadline:
            self.to_start -= 1
            # Host and guest on different processes when there are several.
            host = Guest(self.urls[index % len(self.urls)])
            guest = Guest(self.urls[(index + 1) % len(self.urls)])
            await self._game(host, guest, rng)

    async def _game(self, host: Guest, guest: Guest, rng: random.Random) -> None:
        token = await asyncio.to_thread(host.create_game, "Ana", seats=2)
        await asyncio.to_thread(guest.join, token, "Bo")
        sockets = [await host.open_socket(token), await guest.open_socket(token)]
        records = [SocketRecord(), SocketRecord()]
        finished = asyncio.Event()
        self.live.append(token)
        try:
            await asyncio.gather(
                *(
                    self._seat(ws, seat, records[seat], finished, rng)
                    for seat, ws in enumerate(sockets)
                )
            )
        finally:
            self.live.remove(token)
            for ws in sockets:
                await ws.close()
        _, page = await asyncio.to_thread(host.get, f"/en/g/{token}/")
        found = PAGE_VERSION.search(page)
        committed = int(found.group(1)) if found else 0
        self._account(token, committed, records, finished.is_set())

    async def _seat(
        self,
        ws: Any,
        seat: int,
        record: SocketRecord,
        finished: asyncio.Event,
        rng: random.Random,
    ) -> None:
        last = 0
        syncing = False
        silent_since = time.monotonic()
        counted_slow = False
        # Each socket reads until it has the final table itself: the other
        # socket's process may deliver it later.
        while True:
            if time.monotonic() > self.deadline + 2 * self.lost_after:
                return
            try:
                # Cancelling recv() on a timeout loses no message (websockets).
                text = await asyncio.wait_for(ws.recv(), self.slow)
            except TimeoutError:
                if not counted_slow:
                    record.slow += 1
                    counted_slow = True
                if time.monotonic() - silent_since < self.lost_after:
                    continue
                # Silence this long while the game goes on: the push never came.
                record.syncs += 1
                syncing = True
                silent_since = time.monotonic()
                await ws.send(json.dumps({"action": "sync"}))
                continue
            except Exception:
                return  # the server went away
            silent_since = time.monotonic()
            counted_slow = False
            message = json.loads(text)
            if message.get("type") == "error":
                code = str(message.get("code"))
                self.totals.errors[code] = self.totals.errors.get(code, 0) + 1
                continue
            if message.get("type") != "table" or message["version"] <= last:
                continue
            version = message["version"]
            if not last:
                record.first = version
            elif syncing:
                syncing = False  # what the sync brought is not a push
            else:
                record.pushed.add(version)
            last = version
            state = message["state"]
            if state["status"] == "finished":
                finished.set()
                return
            action = self._next_action(state, seat, version, rng)
            if action is not None:
                await asyncio.sleep(self.pace)
                await ws.send(json.dumps(action))

    def _next_action(
        self, state: dict[str, Any], seat: int, version: int, rng: random.Random
    ) -> dict[str, Any] | None:
        if state["status"] == "lobby":
            ready = seat == 0 and len(state["seats"]) == 2
            return {"action": "start", "version": version} if ready else None
        if state["status"] != "playing" or state["current_seat"] != seat:
            return None
        if state["rolls_used"] < self.rolls and state["rolls_left"] > 0:
            hold = sorted(rng.sample(range(5), rng.randint(0, 3))) if state["rolls_used"] else []
            return {"action": "roll", "version": version, "hold": hold}
        preview: dict[str, int] = state["preview"]
        best = max(preview, key=lambda key: preview[key])
        return {"action": "score", "version": version, "category": best}

    def _account(
        self, token: str, committed: int, records: list[SocketRecord], finished: bool
    ) -> None:
        totals = self.totals
        totals.games += 1
        totals.unfinished += not finished
        totals.versions_committed += committed
        for seat, record in enumerate(records):
            totals.sockets += 1
            totals.slow += record.slow
            totals.syncs += record.syncs
            totals.versions_delivered += len(record.pushed)
            expected = set(range(record.first + 1, committed + 1))
            missing = sorted(expected - record.pushed)
            if missing:
                totals.lost += len(missing)
                totals.losses.append({"game": token, "seat": seat, "versions": missing[:10]})


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def server_counts(urls: list[str]) -> dict[str, int]:
    """The daphnes' own counts (pushes sent and failed, inbox overflows...)
    from their health endpoints, summed."""
    total: dict[str, int] = {}
    for url in urls:
        try:
            with urlopen(f"{url}/health/", timeout=10) as response:
                counts = json.load(response)["counts"]
        except HTTPError:
            continue  # a server from before the endpoint (comparing versions)
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
    return total


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    profile = dict(PROFILES[args.profile])
    if args.database_url:
        profile["DATABASE_URL"] = args.database_url
    if args.redis_url is not None:
        profile["REDIS_URL"] = args.redis_url
    if args.processes > 1 and not profile["REDIS_URL"]:
        raise SystemExit("several processes need the postgres+redis profile")
    cluster = Cluster(
        processes=args.processes,
        database_url=profile["DATABASE_URL"],
        redis_url=profile["REDIS_URL"],
        name=f"soak-{args.profile}-{args.processes}",
        env=LOAD_TEST_LIMITS,
    )
    if args.profile == "postgres+redis":
        ensure_postgres_database(profile["DATABASE_URL"])
        flush_redis(profile["REDIS_URL"])
    cluster.migrate()
    cluster.start()
    rss: list[tuple[float, list[float]]] = []
    started = time.monotonic()
    runner = Soak(
        cluster.urls,
        games=args.games,
        clients=args.clients,
        pace=args.pace,
        slow=args.slow,
        lost_after=args.lost_after,
        rolls=args.rolls,
        deadline=started + args.minutes * 60,
        churn=args.churn,
    )

    async def sample() -> None:
        reported = 0
        while True:
            rss.append((time.monotonic() - started, [rss_mb(pid) for pid in cluster.pids]))
            t = runner.totals
            print(
                f"  {time.monotonic() - started:6.0f} s: {t.games} games, "
                f"{t.versions_committed} versions, {t.lost} lost, {t.slow} slow",
                flush=True,
            )
            for loss in t.losses[reported:]:
                print(f"    LOST: game {loss['game']} seat {loss['seat']}: {loss['versions']}")
            reported = len(t.losses)
            await asyncio.sleep(args.sample)

    sampler = asyncio.ensure_future(sample())
    try:
        totals = await runner.run()
        counts = await asyncio.to_thread(server_counts, cluster.urls)
    finally:
        sampler.cancel()
        rss.append((time.monotonic() - started, [rss_mb(pid) for pid in cluster.pids]))
        cluster.stop()
    elapsed = time.monotonic() - started
    return {
        "profile": args.profile,
        "processes": args.processes,
        "clients": args.clients,
        "churn": args.churn,
        "pace_s": args.pace,
        "rolls": args.rolls,
        "slow_s": args.slow,
        "seconds": round(elapsed, 1),
        **asdict(totals),
        "server": counts,
        "rss_mb": [(round(t), [round(m, 1) for m in mbs]) for t, mbs in rss],
    }


def ensure_postgres_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def report(result: dict[str, Any]) -> str:
    lines = [
        f"soak: {result['profile']}, {result['processes']} process(es), "
        f"{result['clients']} clients, {result['churn']} churning spectators, "
        f"{result['pace_s'] * 1000:.0f} ms pace, {result['rolls']} roll(s) a turn, "
        f"{result['seconds']} s",
        f"  games played          {result['games']} ({result['unfinished']} unfinished)",
        f"  versions committed    {result['versions_committed']}",
        f"  versions delivered    {result['versions_delivered']} over {result['sockets']} "
        "sockets (pushes, connect tables aside)",
        f"  lost pushes           {result['lost']}",
        f"  slow pushes (> {result['slow_s']} s) {result['slow']}",
        f"  server's counts       {result['server']}",
        f"  errors answered       {result['errors'] or 'none'}",
        "  daphne RSS (MB) over time:",
    ]
    step = max(1, len(result["rss_mb"]) // 12)
    for t, mbs in result["rss_mb"][::step] + result["rss_mb"][-1:]:
        lines.append(f"    {t:>5} s  " + "  ".join(f"{mb:7.1f}" for mb in mbs))
    for loss in result["losses"][:20]:
        lines.append(f"  LOST: game {loss['game']} seat {loss['seat']}: {loss['versions']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", choices=sorted(PROFILES), default="postgres+redis")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=12)
    parser.add_argument("--pace", type=float, default=0.03, help="seconds before each move")
    parser.add_argument("--rolls", type=int, default=3, help="rolls a turn before scoring (1-3)")
    parser.add_argument("--database-url", default="", help="instead of the profile's")
    parser.add_argument("--redis-url", default=None, help="instead of the profile's")
    parser.add_argument("--slow", type=float, default=5.0, help="a push later than this is slow")
    parser.add_argument(
        "--lost-after", type=float, default=60.0, help="silence after which a push is lost"
    )
    parser.add_argument(
        "--churn", type=int, default=0, help="spectators opening and closing sockets meanwhile"
    )
    parser.add_argument("--minutes", type=float, default=20.0, help="upper bound on the run")
    parser.add_argument("--sample", type=float, default=30.0, help="seconds between RSS samples")
    args = parser.parse_args(argv)
    result = asyncio.run(soak(args))
    print(report(result))
    out = ROOT / "var" / "bench" / "soak.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    return 1 if result["lost"] or result["unfinished"] else 0


if __name__ == "__main__":
    sys.exit(main())
