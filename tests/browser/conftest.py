import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live import ROOT, DaphneProcess

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = ROOT / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    if os.environ.get("YACHT_REQUIRE_BROWSER"):
        raise pytest.UsageError(f"{CHROMIUM} is missing: install Debian's chromium")
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is not installed")
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def server(django_db_setup, django_db_blocker) -> Iterator[DaphneProcess]:
    # Every browser test creates its games from 127.0.0.1 on this one server,
    # which on the embedded profile counts them in its own memory for the
    # whole session (fresh_limits clears Redis and the test process only):
    # past 60 the hourly cap per address refused the suite's next game, and
    # joins are counted the same way. The caps are for the public;
    # tests/security/test_creation_limits.py and test_joins.py test them.
    daphne = DaphneProcess(
        env={
            "YACHT_GAMES_PER_HOUR_PER_ADDRESS": "100000",
            "YACHT_GAMES_PACE_PER_ADDRESS": "100000",
            "YACHT_JOINS_PER_ADDRESS": "100000",
        }
    ).start()
    yield daphne
    daphne.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Chromium for one test module.

    Playwright's sync API keeps an event loop running in the test's thread
    while it is open, so it must not outlive the module (asyncio tests after
    it could not start their own loop), and Django must be told that the
    ORM calls the test makes between page steps are safe there.
    """
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield chromium
        chromium.close()
    del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture
def new_page(browser, server, transactional_db):
    """Open a page in a fresh browser context (a new guest), at a given width."""
    contexts = []

    def open_page(*, width: int = 1280, height: int = 900, locale: str = "en-US"):
        context = browser.new_context(
            viewport={"width": width, "height": height}, locale=locale, base_url=server.url
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()
    bots_settled()


def bots_settled(*, quiet: float = 0.3, within: float = 15.0) -> None:
    """Wait until no game with a bot moves on the server any more.

    A game of bots alone stops once its last page is closed, but a step
    already under way on the server may still hold its row locks when the
    test's database is emptied after this fixture: on PostgreSQL that
    TRUNCATE and the step deadlocked once. Polled, so a test whose games
    have no bot or have settled pays one query."""
    from games.models import Game

    deadline = time.monotonic() + within
    seen = None
    while time.monotonic() < deadline:
        now = list(
            Game.objects.filter(status=Game.Status.PLAYING, players__bot__gt="")
            .distinct()
            .order_by("pk")
            .values_list("pk", "version")
        )
        if not now or now == seen:
            return
        seen = now
        time.sleep(quiet)


@pytest.fixture
def screenshot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def save(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save
