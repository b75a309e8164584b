"""The health endpoint tells an operator the process is up, with its open
sockets and what it could not deliver, without touching the database."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.live import live


def test_health_answers_with_the_processes_counts_and_reads_no_database(client, db):
    live.counts["pushes_failed"] += 1
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["counts"]["pushes_failed"] == live.counts["pushes_failed"]
    assert isinstance(body["sockets"], int)
    assert len(queries) == 0


def test_health_refuses_anything_but_get(client, db):
    assert client.post("/health/").status_code == 405
