"""Redis goes away under two players' open pages and comes back: both pages
are playing again within seconds, by themselves. Real parts: a daphne
without DEBUG whose Redis is reached through a proxy the test cuts, and
Chromium. The pages keep trying while Redis is down; each try joins the
game's group and fails, and every one of those sockets must give back its
claims, or the same players are refused (4029) once Redis is back."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import Page, WebSocket, expect

from tests.browser.test_live_game import create_game, join_game, start, version, wait_past
from tests.live import DaphneProcess, RedisProxy

pytestmark = [
    pytest.mark.browser,
    pytest.mark.live,
    pytest.mark.skipif(
        not settings.REDIS_URL,
        reason="needs REDIS_URL: the outage is of the Redis channel layer "
        "(runs in CI's PostgreSQL + Redis pass)",
    ),
]

# As long as an outage that the pages retry through several times.
OUTAGE_SECONDS = 10
# Tries each page makes (and has refused) while Redis is down, at least.
FAILED_TRIES = 4
# A generous bound for being back: far beyond the page's longest wait
# between tries, short of "never".
BACK_WITHIN_MS = 30_000


@pytest.fixture
def proxy() -> Iterator[RedisProxy]:
    made = RedisProxy(settings.REDIS_URL).start()
    yield made
    made.stop()


@pytest.fixture
def server(proxy: RedisProxy, transactional_db: None) -> Iterator[DaphneProcess]:
    daphne = DaphneProcess(
        env={
            "REDIS_URL": proxy.url,
            # A socket per try: with claims kept, a few tries fill the cap.
            "YACHT_SOCKETS_PER_SESSION": str(FAILED_TRIES - 1),
        }
    ).start()
    yield daphne
    daphne.stop()


class Tries:
    """The sockets a page opens, and the close frames' codes it is sent."""

    def __init__(self, page: Page) -> None:
        self.opened = 0
        self.refusals: list[str] = []
        page.on("websocket", self._opened)

    def _opened(self, ws: WebSocket) -> None:
        self.opened += 1
        ws.on("framereceived", self._frame)

    def _frame(self, payload: Any) -> None:
        if isinstance(payload, str) and '"type": "error"' in payload:
            self.refusals.append(re.sub(r'.*"code": "(\w+)".*', r"\1", payload))


def wait_for_tries(page: Page, tries: Tries, count: int) -> None:
    while tries.opened < count:
        page.wait_for_event("websocket", timeout=BACK_WITHIN_MS)


def test_both_players_are_back_and_playing_within_seconds_of_redis_returning(
    browser: Any, server: DaphneProcess, proxy: RedisProxy
) -> None:
    contexts = [
        browser.new_context(viewport={"width": 1280, "height": 900}, base_url=server.url)
        for _ in range(2)
    ]
    try:
        ana, bo = (context.new_page() for context in contexts)
        invite = create_game(ana, "Ana")
        join_game(bo, invite, "Bo")
        start(ana)
        pages = {"Ana": ana, "Bo": bo}
        tries = {name: Tries(page) for name, page in pages.items()}

        proxy.cut()
        cut_at = time.monotonic()
        for name, page in pages.items():
            expect(page.locator("[data-connection=closed]")).to_be_visible()
            wait_for_tries(page, tries[name], FAILED_TRIES)
        # The outage lasts its length whatever the pages do meanwhile (a
        # wait in Playwright, which hears the pages' sockets meanwhile).
        left = OUTAGE_SECONDS - (time.monotonic() - cut_at)
        if left > 0:
            ana.wait_for_timeout(left * 1000)
        during = {name: list(t.refusals) for name, t in tries.items()}
        tried = {name: t.opened for name, t in tries.items()}

        proxy.restore()
        back_at = time.monotonic()
        try:
            for page in pages.values():
                expect(page.locator("[data-connection=open]")).to_be_visible(timeout=BACK_WITHIN_MS)
        except AssertionError as never:
            refused = {name: t.refusals[len(during[name]) :] for name, t in tries.items()}
            raise AssertionError(f"not back once Redis returned, refused: {refused}") from never
        took = time.monotonic() - back_at
        print(
            f"\nRedis cut for {back_at - cut_at:.1f} s; tries while cut: "
            f"{tried}, refused with {during}; "
            f"both pages live {took:.1f} s after Redis returned"
        )
        assert all(codes and set(codes) <= {"unavailable"} for codes in during.values()), during

        # And the game goes on: Ana rolls, both see it.
        v = version(ana)
        ana.get_by_role("button", name=re.compile("^Roll")).click()
        wait_past(ana, v)
        wait_past(bo, v)
        expect(ana.get_by_role("button", name=re.compile("^Roll again"))).to_be_visible()
        # However many tries the outage cost, none was refused for it.
        assert all("too_many_sockets" not in t.refusals for t in tries.values()), {
            name: t.refusals for name, t in tries.items()
        }
    finally:
        for context in contexts:
            context.close()
