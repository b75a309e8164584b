"""The production topology: several daphne processes share one database and
one Redis channel layer, so a player on one process sees every move made on
another. Real processes, real HTTP with cookies and CSRF, real websockets."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from websockets.exceptions import ConnectionClosed

from bench.client import GameLog, Guest, play_seat
from games.live.consumers import CLOSE_POLICY_VIOLATION, RATE_BURST
from scripts.run_cluster import Cluster
from tests import live

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not settings.REDIS_URL,
        reason="needs REDIS_URL: the in-memory channel layer cannot carry a push "
        "from one process to another (runs in CI's PostgreSQL + Redis pass)",
    ),
]


@pytest.fixture
def two_processes(transactional_db: None) -> Iterator[Cluster]:
    cluster = Cluster(
        processes=2,
        database_url=live.test_database_url(),
        # The run's own Redis database, as for every server a test starts:
        # another run on this machine names another one in its REDIS_URL.
        redis_url=settings.REDIS_URL,
        name="two-processes",
    ).start()
    yield cluster
    cluster.stop()


async def next_table(ws: Any) -> dict[str, Any]:
    """The socket's next table (presence messages may come before it)."""
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] == "table":
            return message


async def play_whole_game(token: str, ana: Guest, bo: Guest) -> GameLog:
    log = GameLog(seats=2)
    everyone_here = asyncio.Event()
    sockets = [await ana.open_socket(token), await bo.open_socket(token)]
    try:
        await asyncio.wait_for(
            asyncio.gather(
                *(
                    play_seat(ws, seat, log, everyone_here=everyone_here, idle_timeout=10)
                    for seat, ws in enumerate(sockets)
                )
            ),
            timeout=120,
        )
    finally:
        for ws in sockets:
            await ws.close()
    return log


def test_players_on_two_server_processes_see_every_move_of_a_whole_game_in_order(
    two_processes: Cluster,
) -> None:
    process_a, process_b = two_processes.urls
    ana, bo = Guest(process_a), Guest(process_b)
    token = ana.create_game("Ana")
    bo.join(token, "Bo")

    log = asyncio.run(play_whole_game(token, ana, bo))

    assert not log.timed_out, "a push never arrived"
    assert log.errors == []
    assert log.gaps == 0
    ana_saw, bo_saw = log.seen[0], log.seen[1]
    final = log.finals[0]
    assert final["status"] == "finished"
    # Joined lobby, the start, then a roll and a score per player per box.
    moves = 1 + 2 * 2 * len(final["categories"])
    assert ana_saw == list(range(ana_saw[0], ana_saw[0] + moves + 1))
    assert bo_saw == ana_saw
    assert log.finals[1] == final
    assert [seat["name"] for seat in final["seats"]] == ["Ana", "Bo"]
    assert all(len(seat["boxes"]) == len(final["categories"]) for seat in final["seats"])


async def start_after_idling(token: str, ana: Guest, bo: Guest, idle: float) -> list[int]:
    sockets = [await ana.open_socket(token), await bo.open_socket(token)]
    try:
        tables = [json.loads(await ws.recv()) for ws in sockets]
        # Real silence: the blocking reads under test wait on Redis's clock.
        await asyncio.sleep(idle)
        await sockets[0].send(json.dumps({"action": "start", "version": tables[0]["version"]}))
        pushes = [await next_table(ws) for ws in sockets]
        return [
            push["version"] - table["version"] for push, table in zip(pushes, tables, strict=True)
        ]
    finally:
        for ws in sockets:
            await ws.close()


def test_sockets_left_idle_longer_than_the_channel_layers_poll_still_get_the_next_move(
    two_processes: Cluster,
) -> None:
    process_a, process_b = two_processes.urls
    ana, bo = Guest(process_a), Guest(process_b)
    token = ana.create_game("Ana")
    bo.join(token, "Bo")
    # channels-redis waits 5 s per blocking read of a process's messages; two
    # such waits pass in silence while the players look at the lobby.
    assert asyncio.run(start_after_idling(token, ana, bo, idle=11)) == [1, 1]


async def flood_across(urls: list[str], guest: Guest, token: str) -> tuple[int, int, float]:
    """Socket after socket, alternating processes, each sending fewer messages
    than its own burst allows, until one is cut off (or 40 were tried): the
    tables answered, the sockets used and the seconds it took."""
    answered = 0
    started = time.monotonic()
    for n in range(1, 41):
        ws = await _same_cookies(guest, urls[n % 2]).open_socket(token)
        await ws.recv()  # the table on connect
        sent = RATE_BURST - 5
        for _ in range(sent):
            await ws.send('{"action": "sync"}')
        tables = 0
        try:
            while tables < sent:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                tables += message["type"] == "table"
        except ConnectionClosed:
            received = ws.protocol.close_rcvd
            assert received is not None and received.code == CLOSE_POLICY_VIOLATION
            return answered + tables, n, time.monotonic() - started
        finally:
            await ws.close()
        answered += tables
    raise AssertionError(f"40 sockets, {answered} messages answered, and none was cut off")


def _same_cookies(guest: Guest, url: str) -> Guest:
    """The same browser profile (cookies), talking to another process."""
    other = Guest(url)
    other.jar = guest.jar
    return other


def test_one_sessions_messages_are_counted_together_across_two_processes(
    two_processes: Cluster,
) -> None:
    urls = two_processes.urls
    ana = Guest(urls[0])
    token = ana.create_game("Ana", seats=1)
    answered, sockets, seconds = asyncio.run(flood_across(urls, ana, token))
    # No socket went past its own burst: the cut came from the session's
    # count, kept across sockets and processes. A sliding 10 s window lets
    # through at most the limit for each window the flood spanned, plus one,
    # and each cut socket's resync.
    limit = settings.YACHT_MESSAGES_PER_SESSION
    assert answered <= limit * (seconds / 10 + 2) + sockets
