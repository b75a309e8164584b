"""A daphne process keeps a bounded number of PostgreSQL connections however
many requests it serves at once: under ASGI each request's sync code runs in
a thread of its own, and connections kept per thread piled up until
PostgreSQL refused new clients."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.request import urlopen

import pytest
from django.db import connection

from bench.client import Guest
from scripts.run_cluster import Cluster
from tests import live

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="about PostgreSQL connections (CI's second run)"
    ),
]

POOL_SIZE = 4


@pytest.fixture
def one_process(transactional_db: None) -> Iterator[Cluster]:
    cluster = Cluster(
        processes=1,
        database_url=live.test_database_url(),
        env={"YACHT_DB_POOL_SIZE": str(POOL_SIZE)},
        name="connections",
    ).start()
    yield cluster
    cluster.stop()


def server_connections(pid: int) -> int:
    """Connections to the test database from the daphne process: PostgreSQL
    sees their client ports, /proc tells whose sockets those are."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT client_port FROM pg_stat_activity "
            "WHERE datname = current_database() AND client_port IS NOT NULL"
        )
        ports = {row[0] for row in cursor.fetchall()}
    mine = 0
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = str(fd.readlink()) if fd.is_symlink() else ""
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if fields[9] in inodes and local_port in ports:
                mine += 1
    return mine


def test_many_page_views_at_once_keep_the_servers_database_connections_within_its_pool(
    one_process: Cluster,
) -> None:
    url = one_process.urls[0]
    token = Guest(url).create_game("Ana")

    def view(_: int) -> int:
        with urlopen(f"{url}/en/g/{token}/", timeout=30) as response:
            return response.status

    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(view, range(60))) == {200}
    assert 1 <= server_connections(one_process.pids[0]) <= POOL_SIZE
