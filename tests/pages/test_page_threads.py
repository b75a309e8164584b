"""Pages run whole under Django's WSGI handler on a few threads kept for
them (yachtsite/pages.py), through the site's own ASGI application."""

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from asgiref.testing import ApplicationCommunicator
from django.conf import settings
from django.core.signals import request_started
from django.core.wsgi import get_wsgi_application

from games.play import services
from games.runtime import runtime
from yachtsite import pages
from yachtsite.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def scope(
    path: str, method: str = "GET", headers: tuple[tuple[bytes, bytes], ...] = ()
) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"localhost"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("localhost", 80),
    }


async def fetch(app: Any, path: str, **request: Any) -> tuple[int, bytes]:
    talk = ApplicationCommunicator(app, scope(path, **request))
    await talk.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await talk.receive_output(timeout=5)
    body = b""
    while True:
        part = await talk.receive_output(timeout=5)
        body += part.get("body", b"")
        if not part.get("more_body", False):
            break
    await talk.wait(timeout=5)
    return start["status"], body


@pytest.fixture
def page_threads() -> Iterator[list[str]]:
    """The thread each request was handled on."""
    names: list[str] = []

    def note(**_: object) -> None:
        names.append(threading.current_thread().name)

    request_started.connect(note, weak=False)
    yield names
    request_started.disconnect(note)


async def test_a_page_is_served_on_the_page_threads_without_a_thread_of_its_own(page_threads):
    game = await sync_to_async(services.game_create)(
        guest_id="ana", name="Ana", seat_count=2, ruleset="yacht"
    )
    status, body = await fetch(application, "/en/")
    assert status == 200 and b"<form" in body
    for _ in range(20):
        status, body = await fetch(application, f"/en/g/{game.token}/")
        assert status == 200
        assert b'id="table"' in body
    # Django's ASGI handler made a thread for every request (and another to
    # wait for it): twenty-one requests ran on twenty-one threads. Here every
    # request ran on one of the few kept for pages.
    assert len(page_threads) == 21
    assert len(set(page_threads)) <= settings.YACHT_PAGE_THREADS
    assert threading.current_thread().name not in page_threads


async def test_a_view_s_commit_pushes_through_the_loop_that_serves_the_page():
    runtime.loop.loop = None
    status, _ = await fetch(application, "/health/")
    assert status == 200
    assert runtime.loop.running() is asyncio.get_running_loop()


async def test_a_body_sent_slowly_holds_no_page_thread():
    app = pages.Pages(get_wsgi_application(), threads=1)
    slow = ApplicationCommunicator(
        app, scope("/en/", method="POST", headers=((b"content-length", b"100"),))
    )
    await slow.send_input({"type": "http.request", "body": b"name=", "more_body": True})
    # The only page thread is free: another page is served meanwhile.
    status, _ = await fetch(app, "/health/")
    assert status == 200
    await slow.send_input({"type": "http.disconnect"})
    await slow.wait(timeout=5)


async def test_a_body_larger_than_any_page_takes_is_refused_unread(monkeypatch):
    app = pages.Pages(get_wsgi_application(), threads=1)
    ran: list[object] = []
    monkeypatch.setattr(app, "wsgi", lambda *args: ran.append(args))
    talk = ApplicationCommunicator(app, scope("/en/", method="POST"))
    chunk = b"x" * 1024 * 1024
    for _ in range(4):
        await talk.send_input({"type": "http.request", "body": chunk, "more_body": True})
    start = await talk.receive_output(timeout=5)
    assert start["status"] == 413
    await talk.wait(timeout=5)
    assert ran == []


async def one_page(turns: pages.FairTurns, served: list[str], group: str) -> None:
    """A request of ``group`` that takes a page thread in turn, notes it was
    served, yields once and gives the thread back."""
    await turns.enter(group)
    served.append(group)
    await asyncio.sleep(0)
    turns.leave()


async def test_a_free_page_thread_goes_to_the_group_served_longest_ago_not_to_the_longest_line():
    turns = pages.FairTurns(1)
    served: list[str] = []

    def page(group: str) -> Any:
        return one_page(turns, served, group)

    # A crowd's address has a line of pages when a visitor comes.
    await turns.enter("crowd")
    waiting = [asyncio.create_task(page("crowd")) for _ in range(3)]
    await asyncio.sleep(0)
    waiting.append(asyncio.create_task(page("visitor")))
    await asyncio.sleep(0)
    turns.leave()
    await asyncio.gather(*waiting)
    assert served == ["visitor", "crowd", "crowd", "crowd"]
    assert turns.busy == 0


async def test_a_request_gone_while_it_waited_for_a_page_thread_passes_its_turn_on():
    turns = pages.FairTurns(1)
    await turns.enter("a")
    gone = asyncio.create_task(turns.enter("b"))
    after = asyncio.create_task(turns.enter("c"))
    await asyncio.sleep(0)
    gone.cancel()
    turns.leave()
    await asyncio.wait_for(after, timeout=1)
    assert gone.cancelled()
    turns.leave()
    assert turns.busy == 0
    # Nobody waits: the next request has a thread at once.
    await asyncio.wait_for(turns.enter("d"), timeout=1)


async def test_a_visitor_served_a_page_just_now_still_goes_ahead_of_a_crowd_served_many():
    turns = pages.FairTurns(1)
    served: list[str] = []

    def page(group: str) -> Any:
        return one_page(turns, served, group)

    for group in ("crowd", "crowd", "crowd", "crowd", "visitor"):
        await page(group)
    served.clear()
    # The visitor's next page (its form's post) comes behind the crowd's.
    await turns.enter("crowd")
    waiting = [asyncio.create_task(page("crowd")) for _ in range(2)]
    await asyncio.sleep(0)
    waiting.append(asyncio.create_task(page("visitor")))
    await asyncio.sleep(0)
    turns.leave()
    await asyncio.gather(*waiting)
    assert served == ["visitor", "crowd", "crowd"]
