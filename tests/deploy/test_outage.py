"""A dependency down: no page answers 500. Real daphne processes, with the
database (or Redis) pointed at a loopback port where nothing listens."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
import yaml

from bench.client import Guest
from scripts.run_cluster import ROOT
from tests import live

pytestmark = pytest.mark.live

# More than the pool's wait for a connection (YACHT_DB_TIMEOUT, 3 s), far
# less than the 10 s a page used to wait for its 500.
FAST = 5.0


def nowhere() -> int:
    """A loopback port nobody listens on (bound and let go)."""
    return live.free_port()


def fetch(url: str, *, language: str = "") -> tuple[int, str, float]:
    headers = {"Accept-Language": language} if language else {}
    started = time.monotonic()
    try:
        with urlopen(Request(url, headers=headers), timeout=30) as response:
            status, body = response.status, response.read().decode()
    except HTTPError as error:
        status, body = error.code, error.read().decode()
    return status, body, time.monotonic() - started


def compose_health_check(port: int) -> subprocess.CompletedProcess[str]:
    """docker-compose's health check of an app container, run against ``port``."""
    compose: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    command = compose["services"]["app"]["healthcheck"]["test"]
    assert command[:3] == ["CMD", "python", "-c"]
    code = command[3].replace("localhost:8000", f"localhost:{port}")
    return subprocess.run(
        [sys.executable, "-c", code],
        env={"DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost"},
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.fixture
def no_database() -> Iterator[live.DaphneProcess]:
    server = live.DaphneProcess(
        env={"DATABASE_URL": f"postgres://postgres@127.0.0.1:{nowhere()}/yacht", "REDIS_URL": ""}
    ).start()
    yield server
    server.stop()


@pytest.fixture
def no_redis(transactional_db: None) -> Iterator[live.DaphneProcess]:
    server = live.DaphneProcess(env={"REDIS_URL": f"redis://127.0.0.1:{nowhere()}/0"}).start()
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("en", "database is not answering"),
        ("es", "no responde"),
        ("it", "non risponde"),
        ("ca", "no respon"),
    ],
)
def test_with_the_database_down_a_game_page_says_so_quickly_in_the_readers_language(
    no_database: live.DaphneProcess, language: str, says: str
) -> None:
    status, body, took = fetch(f"{no_database.url}/{language}/g/abcdefgh/")
    assert status == 503
    assert took < FAST, took
    assert f'<html lang="{language}">' in body
    assert says in body


def test_with_the_database_down_a_returning_players_home_page_is_a_503_not_a_500(
    no_database: live.DaphneProcess,
) -> None:
    # A session cookie makes the home page look up the player's games.
    request = Request(f"{no_database.url}/en/", headers={"Cookie": "sessionid=abcdefgh12345678"})
    started = time.monotonic()
    with pytest.raises(HTTPError) as refused:
        urlopen(request, timeout=30)
    assert refused.value.code == 503
    assert refused.value.headers["Retry-After"] == "5"
    assert time.monotonic() - started < FAST


def test_with_the_database_down_the_health_check_says_so_and_the_container_is_unhealthy(
    no_database: live.DaphneProcess,
) -> None:
    status, body, took = fetch(f"{no_database.url}/health/")
    assert status == 503
    assert took < FAST
    assert json.loads(body)["status"] == "down"
    assert json.loads(body)["database"] == "down"
    assert compose_health_check(no_database.port).returncode != 0


def test_with_redis_down_pages_and_the_new_game_form_work_and_health_says_degraded(
    no_redis: live.DaphneProcess,
) -> None:
    ana = Guest(no_redis.url)
    token = ana.create_game("Ana")
    _, page = ana.get(f"/en/g/{token}/")
    assert 'id="table"' in page
    status, body, _ = fetch(f"{no_redis.url}/health/")
    assert status == 200
    assert json.loads(body) | {"sockets": 0, "counts": {}} == {
        "status": "degraded",
        "database": "up",
        "redis": "down",
        "sockets": 0,
        "counts": {},
    }
    checked = compose_health_check(no_redis.port)
    assert checked.returncode == 0, checked.stderr
