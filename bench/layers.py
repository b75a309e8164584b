"""The Redis channel layers side by side: pushes lost when a socket closes
while it waits, and the Redis commands each step of a socket's life sends.

    .venv/bin/python -m bench.layers [--trials 20] [--redis-url redis://127.0.0.1:6379/12]

Layers: channels-redis's core layer (``RedisChannelLayer``), its pub/sub
layer (``RedisPubSubChannelLayer``) and the project's
(``games/live/redislayer.py``), each made here as a server process makes
it, on keys of their own, in a Redis database nothing else uses (MONITOR
hears everything sent to it).

Loss: two sockets wait on one process, a push is sent to the group of one
of them, and the other is cancelled (closed) as Redis answers; a trial
loses when the push has not come 3 s later.

Commands: what Redis is asked (read from its MONITOR, for this database
only, script-internal commands included) for a socket's channel, its join,
a push to a group of two sockets on this process, then with a third on
another process, and a leave.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from redis.asyncio import Redis

LOSS_WAIT_SECONDS = 3.0
# Long enough for a command's echo on MONITOR to arrive.
SETTLE_SECONDS = 0.3


def layers(url: str) -> dict[str, Callable[[], Any]]:
    from channels_redis.core import RedisChannelLayer
    from channels_redis.pubsub import RedisPubSubChannelLayer

    from games.live.redislayer import OwnReaderRedisChannelLayer

    hosts = [{"address": url, "socket_timeout": 30}]
    return {
        "stock core": lambda: RedisChannelLayer(hosts=hosts, prefix="bench-core"),
        "stock pub/sub": lambda: RedisPubSubChannelLayer(hosts=hosts, prefix="bench-pubsub"),
        "project's": lambda: OwnReaderRedisChannelLayer(hosts=hosts, prefix="bench-own"),
    }


async def losses(make: Callable[[], Any], trials: int) -> int:
    layer = make()
    lost = 0
    for trial in range(trials):
        leaving, staying = await layer.new_channel(), await layer.new_channel()
        group = f"loss-{trial}"
        await layer.group_add(group, staying)
        waits = [asyncio.ensure_future(layer.receive(c)) for c in (leaving, staying)]
        for wait in waits:
            # What a receive ends with once its layer is flushed is no finding.
            wait.add_done_callback(lambda done: done.cancelled() or done.exception())
        await asyncio.sleep(0.05)  # both wait; a read is on the wire
        await layer.group_send(group, {"type": "push", "trial": trial})
        waits[0].cancel()
        done, _ = await asyncio.wait({waits[1]}, timeout=LOSS_WAIT_SECONDS)
        lost += not done
        waits[1].cancel()
        # Not gathered: a stock receive cancelled in a blocking read may
        # never return (redis-py retries the read, swallowing the cancel).
        await asyncio.wait(waits, timeout=LOSS_WAIT_SECONDS)
        await layer.group_discard(group, staying)
    await tidy(layer)
    return lost


async def tidy(layer: Any) -> None:
    """Empty the layer's keys, if it still can."""
    try:
        await asyncio.wait_for(layer.flush(), LOSS_WAIT_SECONDS)
    except TimeoutError:
        print("  (a flush did not finish: its keys are left behind)")


async def commands(make: Callable[[], Any], url: str) -> list[tuple[str, list[str]]]:
    here, there = make(), make()  # two server processes
    database = int(urlsplit(url).path.strip("/") or 0)
    heard: list[str] = []

    async def listen() -> None:
        async with Redis.from_url(url).monitor() as monitor:
            async for command in monitor.listen():
                if command.get("db") == database:
                    heard.append(command["command"].split()[0].upper())

    listener = asyncio.ensure_future(listen())
    await asyncio.sleep(SETTLE_SECONDS)
    steps: list[tuple[str, list[str]]] = []

    async def step(name: str, work: Awaitable[Any]) -> Any:
        await asyncio.sleep(SETTLE_SECONDS)
        heard.clear()
        result = await work
        await asyncio.sleep(SETTLE_SECONDS)
        # A new connection says which database it wants: not the step's own.
        steps.append((name, [c for c in heard if c != "SELECT"]))
        return result

    first = await step("a socket's channel", here.new_channel())
    await step("its join", here.group_add("game", first))
    second = await here.new_channel()
    await here.group_add("game", second)
    waits = [asyncio.ensure_future(here.receive(c)) for c in (first, second)]
    await step("a push, 2 sockets here", here.group_send("game", {"type": "push"}))
    await asyncio.gather(*waits)
    third = await there.new_channel()
    await there.group_add("game", third)
    waits = [asyncio.ensure_future(here.receive(c)) for c in (first, second)]
    waits.append(asyncio.ensure_future(there.receive(third)))
    await step("a push, 2 here and 1 elsewhere", here.group_send("game", {"type": "push"}))
    await asyncio.gather(*waits)
    await step("a leave", here.group_discard("game", second))
    listener.cancel()
    await asyncio.gather(listener, return_exceptions=True)
    await tidy(here)
    await tidy(there)
    return steps


async def run(url: str, trials: int) -> None:
    made = layers(url)
    print(f"pushes lost when the other waiting socket closes, of {trials} trials:")
    for name, make in made.items():
        print(f"  {name:14} {await losses(make, trials)}")
    print("\nRedis commands per step (script-internal ones included):")
    for name, make in made.items():
        for step, heard in await commands(make, url):
            print(f"  {name:14} {step:32} {len(heard):2}  {' '.join(heard)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/12")
    args = parser.parse_args(argv)

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yachtsite.settings")
    # Without DEBUG the settings refuse a missing secret key: any will do here.
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    django.setup()
    asyncio.run(run(args.redis_url, args.trials))


if __name__ == "__main__":
    main()
