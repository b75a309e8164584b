"""What one rate-limit check costs: the project's counters against the
``limits`` package's strategies on the same storage.

    .venv/bin/python -m bench.limiter --redis-url redis://127.0.0.1:6379/14

Each figure is the median, over ``--rounds`` turns, of the time per check
measured by ``timeit`` (``--number`` checks a turn), with a key per
client so that no check ever refuses:

- a socket's own pace: ``games.live.consumers.TokenBucket.take`` against a
  moving window and a sliding window counter in ``limits``' memory storage;
- a plain window in this process (no Redis): ``quotas._hits`` on a join's
  two counts (address group and session) against two ``limits`` sliding
  window counters, one per count;
- the same two counts in Redis, blocking (a page's join): one call of the
  project's script against ``limits``' Redis storage, a call per count;
- one count in Redis from the event loop (a socket connecting):
  ``quotas._ahits`` against ``limits.aio``'s Redis storage.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import timeit
from collections.abc import Awaitable, Callable
from itertools import count
from typing import Any


def median_us(check: Callable[[], Any], number: int, rounds: int) -> float:
    """Microseconds per call of ``check``: the median of ``rounds`` turns."""
    turns = timeit.repeat(check, number=number, repeat=rounds)
    return statistics.median(turns) / number * 1e6


async def amedian_us(check: Callable[[], Awaitable[Any]], number: int, rounds: int) -> float:
    turns = []
    loop = asyncio.get_running_loop()
    for _ in range(rounds):
        start = loop.time()
        for _ in range(number):
            await check()
        turns.append(loop.time() - start)
    return statistics.median(turns) / number * 1e6


def in_process(number: int, rounds: int) -> dict[str, float]:
    from limits import RateLimitItemPerSecond
    from limits.storage import MemoryStorage
    from limits.strategies import MovingWindowRateLimiter, SlidingWindowCounterRateLimiter

    from games.live.consumers import TokenBucket
    from games.store import quotas

    # A client (a socket, an address) per check, turning over far more of
    # them than a run makes checks: every check passes, as nearly all do,
    # and a moving window holds one entry, not the run's every hit.
    clients = [str(n) for n in range(number * rounds)]
    turn = count()

    def client() -> str:
        return clients[next(turn) % len(clients)]

    buckets = [TokenBucket(30, 5) for _ in range(10_000)]
    moving = MovingWindowRateLimiter(MemoryStorage())
    sliding = SlidingWindowCounterRateLimiter(MemoryStorage())
    burst = RateLimitItemPerSecond(30, 6)
    joins = RateLimitItemPerSecond(20, quotas.JOIN_WINDOW)

    def both_counts() -> None:
        who = client()
        sliding.hit(joins, "join-addr", who)
        sliding.hit(joins, "join-guest", who)

    return {
        "socket pace: project's TokenBucket.take": median_us(
            lambda: buckets[next(turn) % len(buckets)].take(), number, rounds
        ),
        "socket pace: limits moving window, memory": median_us(
            lambda: moving.hit(burst, client()), number, rounds
        ),
        "socket pace: limits sliding window counter, memory": median_us(
            lambda: sliding.hit(burst, client()), number, rounds
        ),
        "join's 2 counts, no Redis: project's _hits": median_us(
            lambda: quotas._hits([("join-addr", client()), ("join-guest", client())], 600),
            number,
            rounds,
        ),
        "join's 2 counts, no Redis: limits sliding window counters, memory": median_us(
            both_counts, number, rounds
        ),
    }


def in_redis(url: str, number: int, rounds: int) -> dict[str, float]:
    from django.test import override_settings
    from limits import RateLimitItemPerSecond
    from limits.storage import RedisStorage
    from limits.strategies import SlidingWindowCounterRateLimiter

    from games.store import quotas

    sliding = SlidingWindowCounterRateLimiter(RedisStorage(url))
    joins = RateLimitItemPerSecond(10**9, quotas.JOIN_WINDOW)
    clients = count()

    def ours() -> None:
        n = next(clients) % 1000
        quotas._hits([("join-addr", f"192.0.2.{n}"), ("join-guest", f"g{n}")], 600)

    def theirs() -> None:
        n = next(clients) % 1000
        sliding.hit(joins, "join-addr", f"192.0.2.{n}")
        sliding.hit(joins, "join-guest", f"g{n}")

    with override_settings(REDIS_URL=url):
        return {
            "join's 2 counts, Redis: project's script, one call": median_us(ours, number, rounds),
            "join's 2 counts, Redis: limits sliding window counters": median_us(
                theirs, number, rounds
            ),
        }


async def in_redis_async(url: str, number: int, rounds: int) -> dict[str, float]:
    from django.test import override_settings
    from limits import RateLimitItemPerSecond
    from limits.aio.storage import RedisStorage
    from limits.aio.strategies import SlidingWindowCounterRateLimiter

    from games.store import quotas

    # The redis-py client, as the project uses (the default wants coredis).
    storage = RedisStorage(f"async+{url}", implementation="redispy")
    sliding = SlidingWindowCounterRateLimiter(storage)
    connects = RateLimitItemPerSecond(10**9, quotas.MESSAGE_WINDOW)
    clients = count()

    async def ours() -> None:
        await quotas._ahits([("connect-addr", f"192.0.2.{next(clients) % 1000}")], 10)

    async def theirs() -> None:
        await sliding.hit(connects, "connect-addr", f"192.0.2.{next(clients) % 1000}")

    with override_settings(REDIS_URL=url):
        # Connections opened before the clock starts.
        await ours()
        await theirs()
        return {
            "a connect's count, Redis, on the loop: project's _ahits": await amedian_us(
                ours, number, rounds
            ),
            "a connect's count, Redis, on the loop: limits.aio sliding window counter": (
                await amedian_us(theirs, number, rounds)
            ),
        }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis-url", default="", help="also measure the counts in this Redis")
    parser.add_argument("--number", type=int, default=20_000, help="checks a turn in process")
    parser.add_argument("--redis-number", type=int, default=2_000, help="checks a turn in Redis")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yachtsite.settings")
    # Without DEBUG the settings refuse a missing secret key: any will do here.
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    os.environ["REDIS_URL"] = ""
    django.setup()

    figures = in_process(args.number, args.rounds)
    if args.redis_url:
        figures |= in_redis(args.redis_url, args.redis_number, args.rounds)
        figures |= asyncio.run(in_redis_async(args.redis_url, args.redis_number, args.rounds))
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    for what, us in figures.items():
        print(f"{us:9.2f} us  {what}")


if __name__ == "__main__":
    main()
