"""The turn clock with two server processes: the deadline lives in the
database, every process with a socket of the game arms a timer for it, the
first to fire acts and the version turns the other into a no-op; and when
the process that committed the turn dies, the other still keeps the clock."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings

from bench.client import Guest
from games.models import Game, Player
from games.play import services
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

CLOCK_SECONDS = 2


@pytest.fixture
def two_processes(transactional_db: None) -> Iterator[Cluster]:
    cluster = Cluster(
        processes=2,
        database_url=live.test_database_url(),
        redis_url=settings.REDIS_URL,
        name="turn-clock-two-processes",
        env={"YACHT_BOT_PAUSE_MIN": "0.02", "YACHT_BOT_PAUSE_MAX": "0.05"},
    ).start()
    yield cluster
    cluster.stop()


def short_clock(token: str) -> None:
    # Shorter than any clock a player can choose, so the test does not wait.
    Game.objects.filter(token=token).update(turn_seconds=CLOCK_SECONDS)


async def next_table(ws: Any) -> dict[str, Any]:
    """The socket's next table (presence messages may come before it)."""
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] == "table":
            return message


async def tables_until_bos_turn(ws: Any) -> list[dict[str, Any]]:
    """Every table a socket is shown until it is Bo's turn (seat 1)."""
    seen = []
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 15))
        if message["type"] != "table":
            continue
        seen.append(message)
        if message["state"]["current_seat"] == 1:
            return seen


async def nobody_acts(token: str, ana: Guest, bo: Guest, *, kill: Cluster | None) -> list[Any]:
    sockets = [await ana.open_socket(token), await bo.open_socket(token)]
    try:
        tables = [json.loads(await ws.recv()) for ws in sockets]
        await sockets[0].send(json.dumps({"action": "start", "version": tables[0]["version"]}))
        starts = [await next_table(ws) for ws in sockets]
        assert all(s["state"]["deadline"] is not None for s in starts)
        if kill is not None:
            # The process that committed the start (and armed its timer) dies.
            kill.daphnes[0].kill()
            kill.daphnes[0].wait(10)
            return [starts[1], *await tables_until_bos_turn(sockets[1])]
        seen = await asyncio.gather(*(tables_until_bos_turn(ws) for ws in sockets))
        return [[starts[n], *seen[n]] for n in range(2)]
    finally:
        for ws in sockets:
            await ws.close()


def clock_versions(tables: list[dict[str, Any]]) -> list[int]:
    return [
        t["version"] for t in tables if t["state"]["last"] and t["state"]["last"]["kind"] == "clock"
    ]


def test_two_processes_both_watching_a_running_out_clock_act_on_it_once(
    two_processes: Cluster,
) -> None:
    process_a, process_b = two_processes.urls
    ana, bo = Guest(process_a), Guest(process_b)
    token = ana.create_game("Ana")
    bo.join(token, "Bo")
    short_clock(token)

    ana_saw, bo_saw = asyncio.run(nobody_acts(token, ana, bo, kill=None))

    for saw in (ana_saw, bo_saw):
        versions = [t["version"] for t in saw]
        assert versions == list(range(versions[0], versions[0] + len(versions)))
        assert len(clock_versions(saw)) == 1, "the clock ran out once, and was acted on once"
    assert clock_versions(ana_saw) == clock_versions(bo_saw)
    # The stand-in played Ana's turn: one roll at least, then her score.
    kinds = [t["state"]["last"]["kind"] for t in bo_saw[1:]]
    assert kinds[0] == "clock" and kinds[-1] == "score"
    assert bo_saw[1]["state"]["seats"][0]["bot"] == services.STAND_IN_LEVEL
    # Having played it, the stand-in left Ana her seat for her next turn.
    assert Player.objects.get(game__token=token, order=0).bot == ""


def test_the_other_process_keeps_the_clock_when_the_one_that_armed_it_first_dies(
    two_processes: Cluster,
) -> None:
    process_a, process_b = two_processes.urls
    ana, bo = Guest(process_a), Guest(process_b)
    token = ana.create_game("Ana")
    bo.join(token, "Bo")
    short_clock(token)

    bo_saw = asyncio.run(nobody_acts(token, ana, bo, kill=two_processes))

    assert len(clock_versions(bo_saw)) == 1
    versions = [t["version"] for t in bo_saw]
    assert versions == list(range(versions[0], versions[0] + len(versions)))
    assert bo_saw[-1]["state"]["deadline"] is not None, "Bo's own turn is on the clock"
