"""What a socket's consumer loop costs per message: the project's
(``games.live.socketloop.dispatch_in_turn``) against channels' own
(``channels.utils.await_many_dispatch``), in the same run.

    .venv/bin/python -m bench.socket_loop [--sockets 2000] [--messages 20]

Each socket is a loop over two sources that are what a socket's are, a
queue's ``get`` (daphne's receive, the channel layer's inbox), and a
dispatch that does nothing, so that the loop is all that is measured. For
each loop:

- the collector's objects a message leaves alive until its source's next
  message (the objects of a move that the collector's young passes walk
  while the game waits for its next move): objects in the young generation
  after a round of one message per socket, with the collector held off
  during the round, per message;
- the objects a socket keeps while it waits (for its life, whatever it
  receives);
- the time per message: the median of ``--rounds`` rounds, the collector
  held off.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from channels.utils import await_many_dispatch

from games.live.socketloop import dispatch_in_turn

Loop = Callable[[Sequence[Callable[[], Awaitable[Any]]], Callable[[Any], Awaitable[None]]], Any]


async def measure(loop: Loop, sockets: int, messages: int, rounds: int) -> dict[str, float]:
    inboxes = [(asyncio.Queue[Any](), asyncio.Queue[Any]()) for _ in range(sockets)]
    dispatched = 0

    async def dispatch(message: Any) -> None:
        nonlocal dispatched
        dispatched += 1

    async def settle() -> None:
        for _ in range(5):
            await asyncio.sleep(0)

    gc.collect()
    without = len(gc.get_objects())
    served = [
        asyncio.ensure_future(loop([client.get, layer.get], dispatch)) for client, layer in inboxes
    ]
    await settle()
    gc.collect()
    waiting = len(gc.get_objects()) - without
    kept: list[float] = []
    times: list[float] = []
    try:
        for turn in range(rounds):
            gc.collect()
            gc.disable()
            before = dispatched
            start = time.perf_counter()
            for n in range(messages):
                for client, layer in inboxes:
                    (client if (n + turn) % 2 else layer).put_nowait({"type": "x"})
                await settle()
            times.append((time.perf_counter() - start) / (dispatched - before))
            # What the round made that is still alive: the last message of
            # each socket's two sources (made by either of its two last turns).
            kept.append(len(gc.get_objects(0)) / (2 * sockets))
            gc.enable()
    finally:
        gc.enable()
        for each in served:
            each.cancel()
        await asyncio.gather(*served, return_exceptions=True)
    if dispatched != sockets * messages * rounds:
        raise SystemExit(f"dispatched {dispatched} of {sockets * messages * rounds} messages")
    return {
        "kept per message": statistics.median(kept),
        "kept per waiting socket": waiting / sockets,
        "us per message": statistics.median(times) * 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=20, help="per socket and round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    loops: dict[str, Loop] = {
        "channels' await_many_dispatch (floor)": await_many_dispatch,
        "project's dispatch_in_turn": dispatch_in_turn,
    }
    results = {
        name: asyncio.run(measure(loop, args.sockets, args.messages, args.rounds))
        for name, loop in loops.items()
    }
    floor = results["channels' await_many_dispatch (floor)"]
    print(f"{'loop':40} {'kept/msg':>9} {'kept/socket':>12} {'us/msg':>8} {'ratio':>6}")
    for name, r in results.items():
        ratio = r["us per message"] / floor["us per message"]
        print(
            f"{name:40} {r['kept per message']:9.1f} {r['kept per waiting socket']:12.1f} "
            f"{r['us per message']:8.2f} {ratio:6.2f}"
        )


if __name__ == "__main__":
    main()
