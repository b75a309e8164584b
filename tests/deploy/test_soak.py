"""Soak: several clients play game after game at a brisk pace, through real
daphne processes, while spectators' sockets come and go; every version the
database committed must have been pushed to every socket of its game.

Bounded in time (about 40 s per case); the long run with its figures is
``bench/soak.py``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from django.conf import settings

from bench.client import LOAD_TEST_LIMITS
from bench.soak import Soak, server_counts
from scripts.run_cluster import Cluster
from tests import live

pytestmark = pytest.mark.live

PLAY_SECONDS = 40.0


@pytest.fixture(params=[1, 2], ids=["one process", "two processes"])
def cluster(request: pytest.FixtureRequest, transactional_db: None) -> Iterator[Cluster]:
    processes: int = request.param
    if processes > 1 and not settings.REDIS_URL:
        pytest.skip("two processes need REDIS_URL (runs in CI's PostgreSQL + Redis pass)")
    started = Cluster(
        processes=processes,
        database_url=live.test_database_url(),
        redis_url=settings.REDIS_URL,
        name=f"soak-test-{processes}",
        env=LOAD_TEST_LIMITS,
    ).start()
    yield started
    started.stop()


def test_every_committed_version_reaches_every_socket_of_its_game(cluster: Cluster):
    soak = Soak(
        cluster.urls,
        games=10_000,  # the clock ends the run, not the count
        clients=6,
        pace=0.03,
        slow=5.0,
        lost_after=30.0,
        deadline=time.monotonic() + PLAY_SECONDS,
        churn=3,
    )
    totals = asyncio.run(soak.run())
    counts = server_counts(cluster.urls)

    assert totals.games >= 3, "the soak barely played: nothing was tested"
    assert totals.losses == []
    # A push that is late on a loaded machine is slow, not lost: only one that
    # never came (30 s of silence mid-game) counts.
    assert totals.lost == 0 and totals.syncs == 0
    assert totals.unfinished == 0
    assert totals.versions_delivered > 0
    assert counts.get("pushes_failed", 0) == 0
    assert counts.get("inbox_overflows", 0) == 0
