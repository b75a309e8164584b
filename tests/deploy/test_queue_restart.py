"""Play now's queue is rows in the database, not a process's memory: a
person waiting when the server restarts keeps their place, and is seated
once, with the next person to come, by the process that follows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from bench.client import Guest
from games.models import QueueTicket
from scripts.run_cluster import Cluster
from tests import live

pytestmark = [pytest.mark.live]


def server(name: str) -> Cluster:
    return Cluster(processes=1, database_url=live.test_database_url(), name=name).start()


def press_play_now(guest: Guest, name: str) -> str:
    url, _ = guest.post_form("/en/", "/en/now/", {"name": name, "play_ruleset": "yacht"})
    return url


def status(guest: Guest) -> dict[str, object]:
    _, body = guest.get("/en/now/status.json")
    answer: dict[str, object] = json.loads(body)
    return answer


@pytest.fixture
def restarted(transactional_db: None) -> Iterator[list[Cluster]]:
    started: list[Cluster] = []
    yield started
    for cluster in started:
        cluster.stop()


def test_a_person_waiting_through_a_restart_is_paired_once_by_the_next_process(
    restarted: list[Cluster],
) -> None:
    first = server("queue-before")
    restarted.append(first)
    ana = Guest(first.urls[0])
    assert press_play_now(ana, "Ana").endswith("/en/now/wait/")
    assert status(ana)["state"] == "waiting"
    first.stop()

    second = server("queue-after")
    restarted.append(second)
    ana.base = second.urls[0].rstrip("/")
    # Ana's page asks again on the new process: still waiting, place kept.
    assert status(ana)["state"] == "waiting"
    bo = Guest(second.urls[0])
    seated = press_play_now(bo, "Bo")
    assert "/en/g/" in seated
    answer = status(ana)
    assert answer["state"] == "paired"
    assert answer["url"] == urlsplit(seated).path
    # One game for the two of them, and no ticket left waiting to seat Ana twice.
    tickets = list(QueueTicket.objects.all())
    assert sorted(t.state for t in tickets) == ["paired", "paired"]
    assert len({t.game_id for t in tickets}) == 1
