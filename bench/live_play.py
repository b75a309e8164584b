"""Live play under load, against the real stack on loopback.

    .venv/bin/python -m bench.live_play            # a few seconds per step
    .venv/bin/python -m bench.live_play --quick    # shorter, fewer idle sockets
    .venv/bin/python -m bench.live_play --games 1,50 --human 100,200,400 --profiles postgres+redis
    .venv/bin/python -m bench.live_play --profiles postgres+redis --processes 2 --proxy

For each profile (PostgreSQL + Redis, then embedded SQLite + in-memory layer)
and each N (1, 50, 200 concurrent games of two scripted players), it starts
daphne through scripts/run_cluster.py, creates and joins games over HTTP as a
browser does (cookies, CSRF), and plays them over the websocket with the
session cookie and an Origin header, closed loop: a player acts the moment its
push says it is its turn. Then the same clients play the floor (bench/floor.py:
the same daphne and channel layer only fanning pushes out) and every figure is
also given as a ratio to the floor's.

Reported per step: accepted actions/s; latency from an action's send to the
moment the last socket of its game has the resulting push (p50/p95/p99);
daphne's CPU (cores busy, and ms per accepted action: the figure least moved
by other load on a shared machine) and peak RSS, with the CPU of the
benchmark database's PostgreSQL backends, of the whole Redis server and of the
load generator beside it, and the share of the machine's CPU time a
virtual machine's host took for others meanwhile (steal); errors, lost
pushes (version gaps) and timeouts (a push still missing 30 s after the
window, or a socket silent 60 s mid-game), counted, never dropped. A closed
loop's games are short (a roll and a score a turn), so the games its slots
set up again inside the window weigh on its CPU per action: each step also
costs one set-up (from the N set-ups made before the window) and gives daphne's
CPU per move with the window's set-ups taken out. Where those set-ups would
take out more than half of the window's CPU, that figure is not given: the
estimate (made on N set-ups at once) is then larger than what it leaves.

Then, human-paced and open loop: for each N of a ramp (100, 200, 300, 400,
500, 600, 800 and 1,000 games by default), the same two-player games with
each player acting 1-3 s (uniformly) after the push that makes it its turn,
as a person does (roll, hold the most common face, roll again, score:
holds are actions). The games start spread over a warm-up, 20 a second,
and the window opens once all of them are under way. The ramp stops at the first N whose p99 passes
150 ms or that loses, times out or errs anything, and the report says the
most games the run held.
With ``--processes 2`` the PostgreSQL + Redis profile runs two daphne
processes; players alternate between them, or with ``--proxy`` every browser
goes through nginx with deploy/nginx.conf (its CPU reported beside daphne's)
and nginx picks the process, as in production.

Standard error names each step's daphne processes and says when its
window opens, so a sampling profiler (py-spy) can watch just the window.

Then RSS per idle socket with 2,000 sockets on one process,
and a cProfile of the server's work for one update (the service call, then
one render per socket). Everything is bounded in time; results also go to
var/bench/live_play.json.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Only for annotations: Django is set up before the games modules load.
    from games.store.selectors import Snapshot

from bench.client import LOAD_TEST_LIMITS, GameLog, Guest, play_seat
from scripts.run_cluster import ROOT, Cluster, free_port

PROFILES: dict[str, dict[str, str]] = {
    "postgres+redis": {
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/yacht_bench",
        # A Redis database of the benchmark's own, away from the tests' (2, 3,
        # 6, 7 and a developer's REDIS_URL) and dev servers'.
        "REDIS_URL": "redis://127.0.0.1:6379/13",
    },
    "sqlite+memory": {
        "DATABASE_URL": f"sqlite:///{ROOT / 'var' / 'bench.sqlite3'}",
        "REDIS_URL": "",
    },
}
# Up to where one process gives out: on a 2-core host one held 600 human-paced
# games and not 800 (issue 13's notes), and a ramp that stopped at 400 could
# only say "holds 400". It stops at the first step not held, so a machine
# that gives out sooner costs no more time than before.
HUMAN_RAMP = "100,200,300,400,500,600,800,1000"
CLK_TCK = os.sysconf("SC_CLK_TCK")
GRACE_SECONDS = 30.0
# Silence on a socket mid-game for this long counts as a timeout.
IDLE_TIMEOUT = 60.0


# -- process figures, from /proc (no extra dependency) ----------------------


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime


def status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def pids_named(*names: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in names:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def machine_cpu() -> tuple[int, int]:
    """The whole machine's CPU time so far, in ticks: (stolen, all). On a
    virtual machine the host may run something else on our cores ("steal");
    latency measured while it does is the host's as much as ours."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return values[7], sum(values)


def cpu_of(pids: list[int]) -> float:
    return sum(cpu_seconds(pid) for pid in pids)


def postgres_backends(database_url: str) -> dict[int, float]:
    """CPU seconds of the PostgreSQL backends serving the benchmark's database
    (not other users of the same server), by pid."""
    if not database_url.startswith("postgres"):
        return {}
    name = database_url.rsplit("/", 1)[1]
    found = {}
    for pid in pids_named("postgres"):
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if f" {name} " in f" {title} ":
            found[pid] = cpu_seconds(pid)
    return found


def backends_cpu(before: dict[int, float], after: dict[int, float]) -> float:
    # Backends opened during the step started from zero.
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


# -- one measured step ------------------------------------------------------


@dataclass
class Step:
    profile: str
    server: str  # "yacht", "floor", or "human" (yacht, human-paced)
    games: int
    seconds: float
    processes: int = 1
    proxy: bool = False
    actions: int = 0
    actions_per_s: float = 0.0
    p50_ms: float = 0.0
    p95_ms: float = 0.0
    p99_ms: float = 0.0
    errors: int = 0
    lost_pushes: int = 0
    timeouts: int = 0
    games_finished: int = 0
    daphne_cores: float = 0.0
    # CPU per accepted action: unlike rates, barely moved by other load on the machine.
    daphne_ms_per_action: float = 0.0
    postgres_ms_per_action: float = 0.0
    daphne_peak_rss_mb: float = 0.0
    postgres_cores: float = 0.0
    redis_cores: float = 0.0
    # nginx in front of the processes (--proxy), master and workers.
    proxy_cores: float = 0.0
    loadgen_cores: float = 0.0
    # Share of the machine's CPU time the host took for others (virtual machines).
    steal_pct: float = 0.0
    mean_push_chars: float = 0.0
    # Games set up (created and joined over HTTP, two sockets opened) while
    # the window was measured, and daphne's CPU for one set-up, measured on
    # the N set-ups before the window opens: what a move costs without them.
    setups_in_window: int = 0
    setup_ms: float = 0.0
    daphne_ms_per_move: float = 0.0
    # The share of the window's daphne CPU those set-ups are taken to cost.
    # The per-set-up figure comes from N set-ups made together before the
    # window, so it is an estimate; when it stands for most of the window,
    # what is left for the moves means nothing (the report says so).
    setup_share: float = 0.0
    error_codes: dict[str, int] = field(default_factory=dict)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


class Game:
    """One game's two browsers, set up (HTTP or nothing) ahead of play."""

    def __init__(self, guests: list[Guest], token: str) -> None:
        self.guests = guests
        self.token = token


def prepare_yacht_game(urls: list[str], n: int) -> Game:
    # Players alternate between processes when there are several, so pushes
    # cross the channel layer as in production.
    host = Guest(urls[n % len(urls)])
    token = host.create_game("Host")
    guest = Guest(urls[(n + 1) % len(urls)])
    guest.join(token, "Guest")
    return Game([host, guest], token)


def prepare_floor_game(urls: list[str], n: int) -> Game:
    return Game([Guest(urls[n % len(urls)]), Guest(urls[(n + 1) % len(urls)])], uuid.uuid4().hex)


async def run_step(
    urls: list[str],
    server: str,
    games: int,
    seconds: float,
    probe: Callable[[], dict[str, Any]],
    think: tuple[float, float] | None = None,
    warmup: float = 0.0,
) -> tuple[list[GameLog], float, float, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Play ``games`` games at once for ``seconds``; return every game's log,
    the measuring window, ``probe()`` read as it opens and once every push
    of it has landed, and the games' set-ups: daphne's CPU seconds for each
    one before the window (``cpu``) and when each one in it began (``at``).

    With a ``warmup``, the games start spread over that many seconds and
    the window opens once every one of them is under way (``think[1]``
    later), so it measures the games being played, not their starts."""
    prepare = prepare_floor_game if server == "floor" else prepare_yacht_game
    counter = iter(range(10**9))
    go = asyncio.Event()
    window: dict[str, float] = {}
    logs: list[GameLog] = []
    setup_failures: list[str] = []
    ready = 0
    all_ready = asyncio.Event()
    setups_at: list[float] = []

    async def setup() -> list[Any] | None:
        """A new game's two open sockets, or None (counted) if the server
        refused any step of it."""
        try:
            game = await asyncio.to_thread(prepare, urls, next(counter))
            return [await g.open_socket(game.token) for g in game.guests]
        except Exception as failure:
            setup_failures.append(f"setup: {type(failure).__name__} {failure}"[:120])
            return None

    async def slot() -> None:
        nonlocal ready
        sockets = await setup()
        ready += 1
        if ready == games:
            all_ready.set()
        await go.wait()
        while sockets is not None:
            log = GameLog(seats=2)
            logs.append(log)
            here = asyncio.Event()
            tasks = [
                asyncio.ensure_future(
                    play_seat(
                        ws,
                        seat,
                        log,
                        everyone_here=here,
                        stop_acting_at=window["end"],
                        idle_timeout=IDLE_TIMEOUT,
                        think=think,
                        start_within=warmup or (think[1] if think else 0.0),
                    )
                )
                for seat, ws in enumerate(sockets)
            ]
            # Not wait_for: it would cancel the readers along with the wait.
            _, pending = await asyncio.wait(
                tasks, timeout=max(0.0, window["end"] - time.perf_counter()) + 0.01
            )
            if pending:
                # The window closed mid-game: let the pushes in flight land.
                deadline = time.perf_counter() + GRACE_SECONDS
                while log.missing() and time.perf_counter() < deadline:
                    await asyncio.sleep(0.05)
            for task in tasks:
                task.cancel()
            # Collect what each reader ended with (a socket the server closed
            # first ends its reader with ConnectionClosedOK): counted in the
            # log already, it must not surface as "never retrieved" noise.
            await asyncio.gather(*tasks, return_exceptions=True)
            for ws in sockets:
                await ws.close()
            if time.perf_counter() >= window["end"]:
                return
            # A finished game: its players start another, as browsers would
            # (the setup is part of the load, inside the window).
            setups_at.append(time.perf_counter())
            sockets = await setup()

    window["end"] = float("inf")
    # One game set up and left first, so the set-ups costed below are warm
    # ones (templates compiled, connections open), as in the window.
    warm = await setup()
    for ws in warm or []:
        await ws.close()
    unready = probe()
    runners = [asyncio.ensure_future(slot()) for _ in range(games)]
    await asyncio.wait_for(all_ready.wait(), timeout=180)
    setups = {"cpu": (probe()["daphne"] - unready["daphne"]) / games, "at": setups_at}
    lead = warmup + (think[1] if think else 0.0) if warmup else 0.0
    window["start"] = time.perf_counter() + lead
    window["end"] = window["start"] + seconds
    if not lead:
        first = probe()
    go.set()
    if lead:
        await asyncio.sleep(lead)
        first = probe()
    print(f"  window open for {seconds:g} s", file=sys.stderr, flush=True)
    last = await landed(logs, window["end"], probe)
    await asyncio.wait_for(
        asyncio.gather(*runners), timeout=window["end"] - time.perf_counter() + GRACE_SECONDS + 120
    )
    if setup_failures:
        failed = GameLog(seats=2, errors=setup_failures)
        logs.append(failed)
    return logs, window["start"], window["end"], first, last, setups


async def landed(
    logs: list[GameLog], end: float, probe: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """``probe()`` read once every action sent in the window has its push on
    every socket of its game (or the grace period is over).

    Read then, not once every game has wound down: games that end together
    near the window's close start new ones, whose setups and idle sockets
    are no part of the window's actions. Read after them, one run charged
    the setups of 50 games and a minute of waiting to 2,500 actions."""
    await asyncio.sleep(max(0.0, end - time.perf_counter()))
    deadline = time.perf_counter() + GRACE_SECONDS
    while any(log.missing(end) for log in logs) and time.perf_counter() < deadline:
        await asyncio.sleep(0.02)
    return probe()


def measure(
    profile: str,
    server: str,
    games: int,
    seconds: float,
    processes: int,
    push_chars: float,
    think: tuple[float, float] | None = None,
    proxy: bool = False,
    warmup: float = 0.0,
) -> Step:
    env = PROFILES[profile]
    cluster = Cluster(
        processes=processes,
        database_url=env["DATABASE_URL"],
        redis_url=env["REDIS_URL"],
        # Every player comes from 127.0.0.1: nginx's cap per address is raised
        # (to the most nginx accepts), and its paces lifted, as the servers'
        # own limits are.
        proxy_port=free_port() if proxy else None,
        proxy_sockets_per_address=65_535,
        proxy_request_limits=False,
        application="bench.floor_asgi:application"
        if server == "floor"
        else "yachtsite.asgi:application",
        env={"FLOOR_MESSAGE_CHARS": str(round(push_chars)), **LOAD_TEST_LIMITS},
        name=f"bench-{profile.replace('+', '-')}",
    ).start()
    try:
        if proxy and cluster.nginx is None:
            raise SystemExit("--proxy needs Debian's nginx (apt-get install nginx-light)")
        redis = pids_named("redis-server")
        nginx = cluster.proxy_pids
        # Through the proxy every browser goes to nginx, which picks the process.
        urls = [cluster.front_url] if proxy else cluster.urls
        # A sampling profiler can be attached to these for just the window.
        print(f"{profile} {server} N={games}: daphne pids {cluster.pids}", file=sys.stderr)

        def probe() -> dict[str, Any]:
            return {
                "t": time.perf_counter(),
                "daphne": cpu_of(cluster.pids),
                "redis": cpu_of(redis),
                "proxy": cpu_of(nginx),
                "postgres": postgres_backends(env["DATABASE_URL"]),
                "loadgen": time.process_time(),
                "machine": machine_cpu(),
            }

        loop = asyncio.new_event_loop()
        # Setting up 200 games is a few thousand HTTP requests: more threads.
        loop.set_default_executor(ThreadPoolExecutor(max_workers=16))
        logs, start, end, before, after, setups = loop.run_until_complete(
            run_step(urls, server, games, seconds, probe, think, warmup)
        )
        loop.close()
        peak_kb = max(status_kb(pid, "VmHWM") for pid in cluster.pids)
    finally:
        cluster.stop()

    latencies = [lat for log in logs for lat in log.latencies(start, end)]
    step = Step(
        profile=profile,
        server=server,
        games=games,
        seconds=seconds,
        processes=processes,
        proxy=proxy,
    )
    step.actions = len(latencies)
    # Over the time it took to serve them: the window, and the drain of
    # what was sent in it. Dividing by the window alone counted a closed
    # loop whose queue outlasts the window (latency past the window, as at
    # 200 games in a 2 s window) as N actions per window, whatever the server.
    done = max((t for log in logs for t in log.completions(start, end)), default=end)
    step.actions_per_s = len(latencies) / (max(done, end) - start)
    step.p50_ms = percentile(latencies, 50) * 1000
    step.p95_ms = percentile(latencies, 95) * 1000
    step.p99_ms = percentile(latencies, 99) * 1000
    codes: dict[str, int] = {}
    for log in logs:
        for code in log.errors:
            codes[code] = codes.get(code, 0) + 1
    step.error_codes = codes
    step.errors = sum(codes.values())
    step.lost_pushes = sum(log.gaps for log in logs)
    # An action whose push some socket still lacked after the grace period,
    # or a socket silent for IDLE_TIMEOUT mid-game.
    step.timeouts = sum(log.missing(end) + log.timed_out for log in logs)
    step.games_finished = sum(
        1
        for log in logs
        if log.finals and all(s["status"] == "finished" for s in log.finals.values())
    )
    # CPU over the window and its grace period, not the setup before it.
    wall = after["t"] - before["t"]
    step.daphne_cores = (after["daphne"] - before["daphne"]) / wall
    step.postgres_cores = backends_cpu(before["postgres"], after["postgres"]) / wall
    step.redis_cores = (after["redis"] - before["redis"]) / wall
    step.proxy_cores = (after["proxy"] - before["proxy"]) / wall
    step.loadgen_cores = (after["loadgen"] - before["loadgen"]) / wall
    stolen = after["machine"][0] - before["machine"][0]
    step.steal_pct = 100 * stolen / max(1, after["machine"][1] - before["machine"][1])
    step.setups_in_window = sum(1 for t in setups["at"] if before["t"] <= t <= after["t"])
    step.setup_ms = setups["cpu"] * 1000
    if step.actions:
        step.daphne_ms_per_action = step.daphne_cores * wall * 1000 / step.actions
        step.postgres_ms_per_action = step.postgres_cores * wall * 1000 / step.actions
        window_ms = step.daphne_cores * wall * 1000
        setups_ms = step.setups_in_window * step.setup_ms
        step.setup_share = setups_ms / window_ms if window_ms else 0.0
        step.daphne_ms_per_move = (window_ms - setups_ms) / step.actions
    step.daphne_peak_rss_mb = peak_kb / 1024
    pushes = sum(log.pushes for log in logs)
    step.mean_push_chars = sum(log.push_chars for log in logs) / pushes if pushes else 0.0
    return step


# -- idle sockets -----------------------------------------------------------


def idle_rss(profile: str, count: int) -> dict[str, float]:
    env = PROFILES[profile]
    cluster = Cluster(
        processes=1,
        database_url=env["DATABASE_URL"],
        redis_url=env["REDIS_URL"],
        env=LOAD_TEST_LIMITS,
        name=f"bench-idle-{profile.replace('+', '-')}",
    ).start()
    opened: list[Any] = []
    failed = 0

    async def run() -> tuple[int, int]:
        nonlocal failed
        url = cluster.urls[0]
        hosts = [Guest(url) for _ in range(10)]
        tokens = [await asyncio.to_thread(h.create_game, "Host") for h in hosts]
        # A first socket per game, so what is measured is the sockets, not
        # first-use caches (templates, translations, connections).
        for host, token in zip(hosts, tokens, strict=True):
            ws = await host.open_socket(token)
            await ws.recv()
            opened.append(ws)
        await asyncio.sleep(0.5)
        before = status_kb(cluster.pids[0], "VmRSS")
        watcher = Guest(url)

        async def one(n: int) -> None:
            nonlocal failed
            try:
                ws = await watcher.open_socket(tokens[n % len(tokens)])
                await asyncio.wait_for(ws.recv(), 30)
                opened.append(ws)
            except Exception:
                failed += 1

        for batch in range(0, count, 100):
            await asyncio.gather(*(one(n) for n in range(batch, min(count, batch + 100))))
        await asyncio.sleep(1.0)
        after = status_kb(cluster.pids[0], "VmRSS")
        for ws in opened:
            await ws.close()
        return before, after

    try:
        before, after = asyncio.run(asyncio.wait_for(run(), timeout=240))
    finally:
        cluster.stop()
    ok = len(opened) - 10
    return {
        "sockets": ok,
        "failed": failed,
        "rss_before_mb": before / 1024,
        "rss_after_mb": after / 1024,
        "kb_per_socket": (after - before) / max(ok, 1),
    }


# -- profile of one update ---------------------------------------------------


def profile_updates(updates: int) -> str:
    """In this process (run as a child with the profile's environment): the
    server's work for ``updates`` updates of one game, profiled. What the
    consumer does per update is the service call (lock, rules, writes, commit,
    group_send) and, per socket, one render of the pushed snapshot."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yachtsite.settings")
    # Without DEBUG the settings refuse a missing secret key: any will do here.
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    django.setup()
    from games.play import services
    from games.present.rendering import table_message
    from games.rules import Roll, Score
    from games.runtime import runtime

    pushed: list[Snapshot] = []
    runtime.commits.after_commit.insert(0, pushed.append)
    guests = ("bench-a", "bench-b")

    def new_game() -> Any:
        game = services.game_create(guest_id=guests[0], name="A", seat_count=2)
        services.game_join(token=game.token, guest_id=guests[1], name="B")
        return services.game_start(token=game.token, guest_id=guests[0])

    def one_update(game: Any) -> Any:
        snap = pushed[-1]
        seat = snap["current_seat"]
        assert seat is not None
        if snap["rolls_used"] == 0:
            action: Any = Roll(frozenset())
        else:
            action = Score(max(snap["preview"], key=lambda k: snap["preview"][k]))
        game = services.game_act(
            token=game.token, guest_id=guests[seat], version=snap["version"], action=action
        )
        for viewer in (0, 1):
            json.dumps(table_message(pushed[-1], viewer, "en"))
        return game

    game = new_game()
    one_update(game)  # warm caches: templates, translations, connection
    profiler = cProfile.Profile()
    started = time.perf_counter()
    done = 0
    profiler.enable()
    while done < updates:
        if pushed[-1]["status"] == "finished":
            profiler.disable()
            game = new_game()
            profiler.enable()
        game = one_update(game)
        done += 1
    profiler.disable()
    elapsed = time.perf_counter() - started
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    out.write(f"{updates} updates, {elapsed / updates * 1000:.2f} ms each (profiled)\n")
    stats.sort_stats("cumulative").print_stats(22)
    stats.sort_stats("tottime").print_stats(12)
    return out.getvalue()


# -- the run ------------------------------------------------------------------


def prepare_databases(profiles: list[str]) -> None:
    for profile in profiles:
        env = PROFILES[profile]
        if env["DATABASE_URL"].startswith("postgres"):
            name = env["DATABASE_URL"].rsplit("/", 1)[1]
            exists = subprocess.run(
                [
                    "psql",
                    "-h",
                    "127.0.0.1",
                    "-U",
                    "postgres",
                    "-tAc",
                    f"SELECT 1 FROM pg_database WHERE datname = '{name}'",
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            if not exists:
                subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", name], check=True)
        Cluster(processes=1, database_url=env["DATABASE_URL"], redis_url=env["REDIS_URL"]).migrate()


# A person's pause before each action, in seconds, and what a paced step
# must show to count as held.
THINK = (1.0, 3.0)
# Human-paced games start spread over a warm-up at this many a second, and
# are measured once all are under way: at a person's pace a game lasts a few
# minutes, so even this rate is far above what a site of N tables sees.
# (When all N started within THINK[1] seconds, the window measured that
# burst: at 300 games, p99 up to 640 ms in its first seconds, mostly under
# 60 ms in the rest.)
STARTS_PER_SECOND = 20
PACED_P99_MS = 150.0


def holds(step: Step) -> bool:
    return (
        step.actions > 0
        and step.p99_ms <= PACED_P99_MS
        and not (step.lost_pushes or step.timeouts or step.errors)
    )


def setup_of(step: Step) -> str:
    processes = "1 process" if step.processes == 1 else f"{step.processes} processes"
    return f"{processes}, via nginx" if step.proxy else processes


def counts_of(text: str) -> list[int]:
    """The numbers of games in a comma-separated list; '' or 0 names none
    (a step of no games would wait forever for its first player)."""
    return [n for n in (int(part) for part in text.split(",") if part.strip()) if n > 0]


# Past this share of the window's CPU taken out as set-ups, the estimate's
# error outweighs what is left for the moves.
SETUP_SHARE_TRUSTED = 0.5


def fmt_ratio(value: float, floor: float) -> str:
    return f"{value / floor:.2f}x" if floor else "-"


def report(steps: list[Step]) -> None:
    print()
    for setup in dict.fromkeys(f"{s.profile}: {setup_of(s)}" for s in steps):
        print(f"{setup}")
    header = (
        f"{'profile':15} {'server':6} {'N':>4} {'act/s':>7} {'p50ms':>7} {'p95ms':>7} "
        f"{'p99ms':>7} {'err':>4} {'lost':>4} {'tmo':>4} {'daphne':>6} {'pg':>5} {'redis':>5} "
        f"{'nginx':>5} {'loadgen':>7} {'rssMB':>6} {'push':>6} {'cpu ms/act':>10} {'pg ms/act':>9} "
        f"{'steal%':>6}"
    )
    print(header)
    floors = {(s.profile, s.games): s for s in steps if s.server == "floor"}
    for s in steps:
        print(
            f"{s.profile:15} {s.server:6} {s.games:>4} {s.actions_per_s:>7.0f} {s.p50_ms:>7.1f} "
            f"{s.p95_ms:>7.1f} {s.p99_ms:>7.1f} {s.errors:>4} {s.lost_pushes:>4} {s.timeouts:>4} "
            f"{s.daphne_cores:>6.2f} {s.postgres_cores:>5.2f} {s.redis_cores:>5.2f} "
            f"{s.proxy_cores:>5.2f} {s.loadgen_cores:>7.2f} {s.daphne_peak_rss_mb:>6.0f} "
            f"{s.mean_push_chars:>6.0f} "
            f"{s.daphne_ms_per_action:>10.2f} {s.postgres_ms_per_action:>9.2f} {s.steal_pct:>6.1f}"
        )
    print(
        "\nratio to the floor (same profile, same N): "
        "throughput, p50, p95, p99, daphne CPU per action"
    )
    for s in steps:
        floor = floors.get((s.profile, s.games))
        if s.server != "yacht" or floor is None:
            continue
        print(
            f"{s.profile:15} N={s.games:<4} {fmt_ratio(s.actions_per_s, floor.actions_per_s):>7} "
            f"{fmt_ratio(s.p50_ms, floor.p50_ms):>7} {fmt_ratio(s.p95_ms, floor.p95_ms):>7} "
            f"{fmt_ratio(s.p99_ms, floor.p99_ms):>7} "
            f"{fmt_ratio(s.daphne_ms_per_action, floor.daphne_ms_per_action):>7}"
        )
        if s.error_codes:
            print(f"    error codes: {s.error_codes}")
    closed = [s for s in steps if s.server in ("yacht", "floor")]
    if closed:
        print(
            "\ndaphne CPU per move, the games' set-ups aside (a set-up: the game created and "
            "joined over HTTP,\nits two sockets opened; costed on the N set-ups before the "
            "window): set-ups in the window, ms each,\nms per action as above, ms per move, "
            "and that ratio to the floor's"
        )
        for s in closed:
            floor = floors.get((s.profile, s.games))
            if s.setup_share > SETUP_SHARE_TRUSTED:
                ratio = (
                    f"not measured: the set-ups' estimate is {100 * s.setup_share:.0f}% "
                    "of the window's CPU"
                )
            elif s.server == "yacht" and floor is not None:
                ratio = fmt_ratio(s.daphne_ms_per_move, floor.daphne_ms_per_move)
            else:
                ratio = ""
            print(
                f"{s.profile:15} {s.server:6} N={s.games:<4} {s.setups_in_window:>5} set-ups "
                f"{s.setup_ms:>6.2f} ms each  {s.daphne_ms_per_action:>5.2f} ms/act  "
                f"{s.daphne_ms_per_move:>5.2f} ms/move  {ratio}"
            )
    paced = [s for s in steps if s.server == "human"]
    if paced:
        print(
            f"\nhuman-paced, open loop (each player acts {THINK[0]:g}-{THINK[1]:g} s after "
            f"its turn's push; games start {STARTS_PER_SECOND:g} a second, measured once all "
            f"are under way): held = p99 <= {PACED_P99_MS:g} ms, nothing lost, no errors"
        )
        for s in paced:
            print(
                f"{s.profile:15} N={s.games:<4} {s.actions_per_s:>6.0f} act/s  "
                f"p50 {s.p50_ms:>6.1f}  p99 {s.p99_ms:>7.1f} ms  lost {s.lost_pushes}  "
                f"timeouts {s.timeouts}  errors {s.errors}  daphne {s.daphne_cores:.2f} cores  "
                f"{s.daphne_ms_per_action:.2f} ms/act"
                + (f"  nginx {s.proxy_cores:.2f} cores" if s.proxy else "")
                + f"  steal {s.steal_pct:.0f}%"
                + f"  {'held' if holds(s) else 'NOT held'}"
            )
        for profile in dict.fromkeys(s.profile for s in paced):
            held = [s.games for s in paced if s.profile == profile and holds(s)]
            setup = setup_of(next(s for s in paced if s.profile == profile))
            print(
                f"{profile} ({setup}): one run holds "
                f"{max(held) if held else 'fewer than the first'} games"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 s per step, 500 idle sockets")
    parser.add_argument("--seconds", type=float, default=None, help="window per step (default 5)")
    parser.add_argument("--games", default="1,50,200", help="comma-separated N ('' skips)")
    parser.add_argument("--profiles", default=",".join(PROFILES))
    parser.add_argument("--processes", type=int, default=1, help="daphne processes (Redis only)")
    parser.add_argument(
        "--database-url", default="", help="instead of the postgres+redis profile's database"
    )
    parser.add_argument("--redis-url", default="", help="instead of the postgres+redis profile's")
    parser.add_argument(
        "--proxy",
        action="store_true",
        help="put nginx (deploy/nginx.conf) in front of the processes, as in production",
    )
    parser.add_argument("--idle-sockets", type=int, default=None, help="default 2000")
    parser.add_argument(
        "--updates", type=int, default=200, help="updates to profile (0: no profile)"
    )
    parser.add_argument(
        "--human",
        default=None,
        help=f"human-paced ramp: comma-separated N (default {HUMAN_RAMP}; '' skips)",
    )
    parser.add_argument(
        "--human-seconds", type=float, default=None, help="window per paced step (default 30)"
    )
    parser.add_argument("--profile-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.profile_only:
        print(profile_updates(args.updates))
        return

    seconds = args.seconds or (2.0 if args.quick else 5.0)
    paced_seconds = args.human_seconds or (15.0 if args.quick else 30.0)
    human = args.human if args.human is not None else HUMAN_RAMP
    ramp = counts_of(human)
    idle = args.idle_sockets if args.idle_sockets is not None else (500 if args.quick else 2000)
    profiles = args.profiles.split(",")
    if args.database_url:
        PROFILES["postgres+redis"]["DATABASE_URL"] = args.database_url
    if args.redis_url:
        PROFILES["postgres+redis"]["REDIS_URL"] = args.redis_url
    counts = counts_of(args.games)
    prepare_databases(profiles)
    steps: list[Step] = []
    extras: dict[str, Any] = {}
    for profile in profiles:
        processes = args.processes if PROFILES[profile]["REDIS_URL"] else 1
        for games in counts:
            yacht = measure(profile, "yacht", games, seconds, processes, 0, proxy=args.proxy)
            steps.append(yacht)
            steps.append(
                measure(
                    profile,
                    "floor",
                    games,
                    seconds,
                    processes,
                    yacht.mean_push_chars,
                    proxy=args.proxy,
                )
            )
            print(f"{profile} N={games}: {yacht.actions_per_s:.0f} actions/s", file=sys.stderr)
        for games in ramp:
            paced = measure(
                profile,
                "human",
                games,
                paced_seconds,
                processes,
                0,
                THINK,
                proxy=args.proxy,
                warmup=games / STARTS_PER_SECOND,
            )
            steps.append(paced)
            print(
                f"{profile} N={games} human-paced: p99 {paced.p99_ms:.0f} ms, "
                f"lost {paced.lost_pushes}, timeouts {paced.timeouts}",
                file=sys.stderr,
            )
            if not holds(paced):
                break  # the ramp stops at the first N it does not hold
        if idle:
            extras[f"idle {profile}"] = idle_rss(profile, idle)
        if args.updates <= 0:
            continue
        child = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.live_play",
                "--profile-only",
                "--updates",
                str(args.updates),
            ],
            cwd=ROOT,
            env={**os.environ, **PROFILES[profile], "DJANGO_DEBUG": "0"},
            capture_output=True,
            text=True,
            timeout=300,
        )
        extras[f"profile {profile}"] = child.stdout + child.stderr[-2000:]

    report(steps)
    for key, value in extras.items():
        print(f"\n== {key}")
        print(json.dumps(value, indent=1) if isinstance(value, dict) else value)
    out = ROOT / "var" / "bench" / "live_play.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"steps": [asdict(s) for s in steps], **extras}, indent=1))
    print(f"\n(also in {out.relative_to(ROOT)})")


if __name__ == "__main__":
    main()
