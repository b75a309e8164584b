"""Presence across server processes sharing Redis: a player on one process
sees a seat held on another go gone when its socket closes, and when that
process dies without closing anything."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterator

import pytest
from django.conf import settings

from bench.client import Guest
from scripts.run_cluster import Cluster
from tests import live

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not settings.REDIS_URL,
        reason="needs REDIS_URL: presence is shared between processes through Redis",
    ),
]

# Short, so a dead process's seats run out within the test's bounds.
TTL_SECONDS = 3


@pytest.fixture
def two_processes(transactional_db: None) -> Iterator[Cluster]:
    cluster = Cluster(
        processes=2,
        database_url=live.test_database_url(),
        redis_url=settings.REDIS_URL,
        env={"YACHT_PRESENCE_TTL_SECONDS": str(TTL_SECONDS)},
        name="presence",
    ).start()
    yield cluster
    cluster.stop()


async def presence_shows(ws, wanted: dict[str, str], within: float) -> None:
    """Read the socket until a presence message shows ``wanted``."""
    async with asyncio.timeout(within):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "presence" and message["seats"] == wanted:
                return


async def ana_leaves(token: str, ana: Guest, bo: Guest, leave) -> None:
    ana_ws = await ana.open_socket(token)
    bo_ws = await bo.open_socket(token)
    try:
        await presence_shows(bo_ws, {"0": "online", "1": "online"}, within=10)
        await leave(ana_ws)
        await presence_shows(bo_ws, {"1": "online"}, within=20)
    finally:
        await bo_ws.close()


def test_a_player_on_one_process_sees_a_seat_on_another_go_when_its_socket_closes(
    two_processes: Cluster,
) -> None:
    process_a, process_b = two_processes.urls
    ana, bo = Guest(process_a), Guest(process_b)
    token = ana.create_game("Ana")
    bo.join(token, "Bo")

    async def close(ws) -> None:
        await ws.close()

    asyncio.run(ana_leaves(token, ana, bo, close))


def test_the_seats_of_a_process_that_dies_show_gone_once_their_presence_runs_out(
    two_processes: Cluster,
) -> None:
    process_a, process_b = two_processes.urls
    ana, bo = Guest(process_a), Guest(process_b)
    token = ana.create_game("Ana")
    bo.join(token, "Bo")

    async def kill_process_a(_ws) -> None:
        os.kill(two_processes.pids[0], signal.SIGKILL)

    asyncio.run(ana_leaves(token, ana, bo, kill_process_a))
