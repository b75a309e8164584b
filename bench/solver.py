"""Benchmark of the solver: tables, hints and bots, for every rule set.

    .venv/bin/python -m bench.solver [--games 10000] [--rulesets yacht,yatzy] [--workers 2]

Reports per rule set: table build time (wall and CPU) and peak memory, each
build in a fresh process so that figures do not mix; table load time; bot and
hint decision latency (p50, p99); and the mean and standard deviation of each
bot's final score over ``--games`` solitaire games beside the optimal expected
value. Tables are built in a temporary directory unless ``--dir`` is given.
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from games.rules import MAX_ROLLS, RULESETS, GameState, apply, get_ruleset, new_game, totals
from games.solver import Table, evaluate_boxes, evaluate_keeps, get_table
from games.solver.bots import BOTS
from games.solver.table import ENV_DIRECTORY, load_or_build

LATENCY_GAMES = 100
LOADS = 20
T = TypeVar("T")


def memory_mb(field: str) -> float:
    """A figure of this process's memory from /proc (Linux), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def build_one(key: str, workers: int, directory: Path) -> dict[str, float]:
    """Build and save one table in this process and report its cost (run in a fresh process)."""
    before = memory_mb("VmRSS")
    wall, cpu = time.perf_counter(), time.process_time()
    table = load_or_build(get_ruleset(key), directory, rebuild=True, workers=workers)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall_s": wall,
        "cpu_s": cpu + children.ru_utime + children.ru_stime,
        "rss_before_mb": before,
        "rss_peak_mb": memory_mb("VmHWM"),
        "worker_rss_peak_mb": children.ru_maxrss / 1024,
        "table_mb": table.values.nbytes / 2**20,
    }


def measure_build(key: str, workers: int, directory: Path) -> dict[str, float]:
    command = [sys.executable, "-m", "bench.solver", "--build-one", key]
    command += ["--workers", str(workers), "--dir", str(directory)]
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_load(key: str, directory: Path) -> tuple[float, float]:
    """Milliseconds to open a cached table and read one value: the first time
    in this process (the rule set's model is built then), and the median after."""
    times = []
    for _ in range(LOADS):
        start = time.perf_counter()
        table = load_or_build(get_ruleset(key), directory)
        table.value(0, 0, False)
        times.append((time.perf_counter() - start) * 1000)
    return times[0], statistics.median(times[1:])


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def timed(call: Callable[[], T], wall: list[float], cpu: list[float]) -> T:
    """Run ``call``, adding its wall and CPU milliseconds to the samples."""
    w, c = time.perf_counter(), time.thread_time()
    result = call()
    cpu.append((time.thread_time() - c) * 1000)
    wall.append((time.perf_counter() - w) * 1000)
    return result


def measure_latency(key: str, directory: Path) -> dict[str, dict[str, tuple[float, float]]]:
    """Milliseconds per decision as met in play (a bot's first call in a turn
    pays for that turn's figures, later calls reuse them), and per hint on a
    turn not seen before (holds, if a roll is left, and boxes)."""
    table = get_table(key, directory)
    table.turn.cache_clear()
    rng = random.Random(f"latency-{key}")
    names = [*BOTS, "hint"]
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    seen = []
    for _ in range(LATENCY_GAMES):
        state = new_game(key, len(BOTS))
        while not state.finished:
            level = list(BOTS)[state.current]
            action = timed(functools.partial(BOTS[level], state, rng), wall[level], cpu[level])
            if state.rolls:
                seen.append(state)
            state = apply(state, state.current, action, rng)
    for state in seen:
        table.turn.cache_clear()
        timed(functools.partial(hint, table, state), wall["hint"], cpu["hint"])
    return {
        name: {"wall": percentiles(wall[name]), "cpu": percentiles(cpu[name])} for name in names
    }


def hint(table: Table, state: GameState) -> None:
    card = state.cards[state.current]
    if state.rolls < MAX_ROLLS:
        evaluate_keeps(table, card, state.dice, state.rolls)
    evaluate_boxes(table, card, state.dice)


def play_games(job: tuple[str, str, int, int]) -> list[int]:
    key, level, seed, games = job
    bot = BOTS[level]
    rng = random.Random(f"{key}-{level}-{seed}")
    scores = []
    for _ in range(games):
        state = new_game(key, 1)
        while not state.finished:
            state = apply(state, 0, bot(state, rng), rng)
        scores.append(totals(state.ruleset, state.cards[0]).total)
    return scores


def simulate(key: str, games: int, workers: int) -> dict[str, list[int]]:
    per_job = max(1, min(500, games // max(1, workers * 4)))
    results = {}
    for level in BOTS:
        jobs = [
            (key, level, seed, min(per_job, games - start))
            for seed, start in enumerate(range(0, games, per_job))
        ]
        if workers > 1:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                chunks = pool.map(play_games, jobs)
        else:
            chunks = [play_games(job) for job in jobs]
        results[level] = [score for chunk in chunks for score in chunk]
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--rulesets", default=",".join(RULESETS))
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--dir", type=Path, help="table directory (default: a temporary one)")
    parser.add_argument("--build-one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build_one:
        print(json.dumps(build_one(args.build_one, args.workers, args.dir)))
        return
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.dir or Path(scratch)
        # The perfect bot reads its tables from the default directory; workers inherit this.
        os.environ[ENV_DIRECTORY] = str(directory)
        for key in args.rulesets.split(","):
            report(key, args, directory)


def report(key: str, args: argparse.Namespace, directory: Path) -> None:
    build = measure_build(key, args.workers, directory)
    first_load_ms, load_ms = measure_load(key, directory)
    optimum = get_table(key, directory).value(0, 0, False)
    print(f"\n== {key}: optimal expected score {optimum:.4f}", flush=True)
    print(
        f"build {build['wall_s']:.2f} s wall, {build['cpu_s']:.2f} s CPU "
        f"({args.workers} worker(s)); peak RSS {build['rss_peak_mb']:.0f} MB "
        f"(from {build['rss_before_mb']:.0f} MB), worker peak "
        f"{build['worker_rss_peak_mb']:.0f} MB; table {build['table_mb']:.2f} MB; "
        f"load {first_load_ms:.2f} ms first in a process, then {load_ms:.2f} ms",
        flush=True,
    )
    for name, figures in measure_latency(key, directory).items():
        (wall50, wall99), (cpu50, cpu99) = figures["wall"], figures["cpu"]
        print(
            f"latency {name:9} wall p50 {wall50:7.3f} ms p99 {wall99:7.3f} ms | "
            f"CPU p50 {cpu50:7.3f} ms p99 {cpu99:7.3f} ms",
            flush=True,
        )
    start = time.perf_counter()
    results = simulate(key, args.games, args.workers)
    took = time.perf_counter() - start
    for level, scores in results.items():
        mean, sd = statistics.fmean(scores), statistics.stdev(scores)
        print(
            f"{level:9} mean {mean:8.2f}  sd {sd:6.2f}  se {sd / len(scores) ** 0.5:5.2f}  "
            f"(optimal {optimum:.2f}, {len(scores)} games)",
            flush=True,
        )
    print(f"simulated {len(BOTS) * args.games} games in {took:.1f} s", flush=True)


if __name__ == "__main__":
    main()
