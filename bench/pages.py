"""What a page costs daphne: the site's pages (Django's WSGI handler on
threads kept for pages, ``yachtsite/pages.py``) against Django's own ASGI
handler, beside a floor.

    .venv/bin/python -m bench.pages                 # PostgreSQL + Redis
    .venv/bin/python -m bench.pages --database-url sqlite:///var/bench-pages.sqlite3 --redis-url ''

For each application, one after another and ``--rounds`` times in turn, a
daphne is started (scripts/run_cluster.py) and ``--clients`` threads ask it
for the same pages for ``--seconds``: the home page (its form) and a game's
page as its host sees it. Each request is a new connection, as urllib makes
them, for every application alike. The floor is a daphne answering a fixed
page with no Django at all (``bench.pages_asgi:floor``): what the server
costs on its own. Reported per application and page: requests a second,
latency p50/p99, and daphne's CPU per request, also as a ratio to the
floor's, which moves less with other load on a shared machine.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from dataclasses import dataclass
from urllib.request import Request, urlopen

from bench.client import LOAD_TEST_LIMITS, Guest
from bench.live_play import PROFILES, cpu_of, percentile, prepare_databases
from scripts.run_cluster import Cluster

APPLICATIONS = {
    "floor": "bench.pages_asgi:floor",
    "wsgi threads": "yachtsite.asgi:application",
    "django asgi": "bench.pages_asgi:stock",
}


@dataclass
class Figures:
    application: str
    page: str
    requests: int
    per_second: float
    p50_ms: float
    p99_ms: float
    cpu_ms: float


def hammer(url: str, cookie: str, clients: int, seconds: float) -> list[float]:
    """Latencies of the requests ``clients`` threads made for ``seconds``."""
    latencies: list[float] = []
    failures: list[str] = []
    end = time.perf_counter() + seconds

    def client() -> None:
        while time.perf_counter() < end:
            started = time.perf_counter()
            try:
                with urlopen(Request(url, headers={"Cookie": cookie}), timeout=30) as response:
                    response.read()
            except OSError as failure:
                failures.append(str(failure))
                continue
            latencies.append(time.perf_counter() - started)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise SystemExit(f"{len(failures)} requests failed, the first: {failures[0]}")
    return latencies


def measure(
    name: str, database_url: str, redis_url: str, clients: int, seconds: float
) -> list[Figures]:
    cluster = Cluster(
        processes=1,
        database_url=database_url,
        redis_url=redis_url,
        application=APPLICATIONS[name],
        env=LOAD_TEST_LIMITS,
        name="bench-pages",
    )
    # The game is made through the site's own application, whichever is measured.
    maker = Cluster(
        processes=1,
        database_url=database_url,
        redis_url=redis_url,
        env=LOAD_TEST_LIMITS,
        name="bench-pages-maker",
    ).start()
    try:
        host = Guest(maker.urls[0])
        token = host.create_game("Ana")
        cookie = host.cookie_header()
    finally:
        maker.stop()
    cluster.start()
    figures = []
    try:
        base = cluster.urls[0]
        for page, path in (("home", "/en/"), ("game", f"/en/g/{token}/")):
            hammer(base + path, cookie, clients, 1.0)  # warm: templates, connections
            before = cpu_of(cluster.pids)
            started = time.perf_counter()
            latencies = hammer(base + path, cookie, clients, seconds)
            elapsed = time.perf_counter() - started
            cpu = cpu_of(cluster.pids) - before
            figures.append(
                Figures(
                    application=name,
                    page=page,
                    requests=len(latencies),
                    per_second=len(latencies) / elapsed,
                    p50_ms=percentile(latencies, 50) * 1000,
                    p99_ms=percentile(latencies, 99) * 1000,
                    cpu_ms=cpu * 1000 / max(1, len(latencies)),
                )
            )
    finally:
        cluster.stop()
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="per page and application")
    parser.add_argument("--clients", type=int, default=8, help="threads asking at once")
    parser.add_argument("--rounds", type=int, default=2, help="each application this many times")
    profile = PROFILES["postgres+redis"]
    parser.add_argument("--database-url", default=profile["DATABASE_URL"])
    parser.add_argument("--redis-url", default=profile["REDIS_URL"])
    args = parser.parse_args(argv)
    PROFILES["postgres+redis"] = {"DATABASE_URL": args.database_url, "REDIS_URL": args.redis_url}
    prepare_databases(["postgres+redis"])

    results: list[Figures] = []
    for round_ in range(args.rounds):
        for name in APPLICATIONS:
            print(f"round {round_ + 1}: {name}", file=sys.stderr, flush=True)
            results += measure(name, args.database_url, args.redis_url, args.clients, args.seconds)

    floor = [f.cpu_ms for f in results if f.application == "floor"]
    floor_ms = sum(floor) / len(floor)
    print(f"\n{args.clients} clients, {args.seconds:g} s per page, {args.rounds} rounds")
    print(
        f"{'application':13} {'page':5} {'req/s':>7} {'p50ms':>7} {'p99ms':>7} "
        f"{'cpu ms/req':>10} {'x floor':>8}"
    )
    for f in results:
        print(
            f"{f.application:13} {f.page:5} {f.per_second:>7.0f} {f.p50_ms:>7.1f} "
            f"{f.p99_ms:>7.1f} {f.cpu_ms:>10.2f} {f.cpu_ms / floor_ms:>7.1f}x"
        )
    print("\nmean CPU per request, Django's ASGI handler minus the page threads:")
    for page in ("home", "game"):

        def mean(application: str, page: str = page) -> float:
            found = [f.cpu_ms for f in results if (f.application, f.page) == (application, page)]
            return sum(found) / len(found)

        ours, stock = mean("wsgi threads"), mean("django asgi")
        print(
            f"  {page}: {stock:.2f} - {ours:.2f} = {stock - ours:+.2f} ms "
            f"({(stock - ours) / floor_ms:+.1f} floors)"
        )


if __name__ == "__main__":
    main()
