"""The health endpoint tells an operator whether the database and Redis
answer, with this process's open sockets and what it could not deliver.
(With either of them down: tests/deploy/test_outage.py.)"""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.runtime import runtime


def test_health_answers_with_the_processes_counts_after_one_question_to_the_database(
    client, db, settings
):
    settings.REDIS_URL = ""
    runtime.counts["pushes_failed"] += 1
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"] == "up"
    assert body["redis"] == "not used"
    assert body["counts"]["pushes_failed"] == runtime.counts["pushes_failed"]
    assert isinstance(body["sockets"], int)
    assert len(queries) == 1


def test_health_refuses_anything_but_get(client, db):
    assert client.post("/health/").status_code == 405
