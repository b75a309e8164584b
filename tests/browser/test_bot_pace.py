"""A person alone against three bots: the bots play at the game's pace, the
host changes it from the table, and anyone may skip a bot's animation.

This module's server keeps the bots' real pauses (the other browser tests
shorten them to nothing), so the pace shows as it does to players. The time
each round took is printed (``-s``) as a measurement, never asserted.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from playwright.sync_api import Page, expect

from games.edge.guests import GUEST_KEY
from games.play import services
from tests.browser.test_live_game import version, wait_past
from tests.live import DaphneProcess

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker) -> Iterator[DaphneProcess]:
    daphne = DaphneProcess(
        env={
            "YACHT_BOT_PAUSE_MIN": "0.6",
            "YACHT_BOT_PAUSE_MAX": "1.2",
            "YACHT_BOT_FAST_SHARE": "0.25",
            "YACHT_GAMES_PER_HOUR_PER_ADDRESS": "100000",
            "YACHT_GAMES_PACE_PER_ADDRESS": "100000",
        }
    ).start()
    yield daphne
    daphne.stop()


# Every table the page swaps in, as it shows it once this page has handled
# the push: whose bot turn it is, the pace, and how the rolled dice animate.
WATCH_TABLE = """() => {
  window.shownTables = [];
  const table = document.getElementById("table");
  new MutationObserver(() => {
    const inner = table.firstElementChild;
    if (!inner) return;
    window.shownTables.push({
      version: Number(inner.dataset.version),
      botTurn: inner.dataset.botTurn === undefined ? null : Number(inner.dataset.botTurn),
      pace: inner.dataset.botPace,
      brisk: inner.classList.contains("brisk"),
      tumbles: [...inner.querySelectorAll(".die.rolled")].map(
        (die) => getComputedStyle(die).animationDuration),
    });
  }).observe(table, { childList: true });
}"""


def alone_against_three_bots(page: Page) -> None:
    """A started game of the page's guest against three beginner bots, shown."""

    def made() -> tuple[str, str]:
        store = SessionStore()
        store[GUEST_KEY] = "pace-ana"
        store.create()
        game = services.game_create(
            guest_id="pace-ana", name="Ana", seat_count=4, bot_level="beginner"
        )
        services.game_start(token=game.token, guest_id="pace-ana", version=game.version)
        return store.session_key or "", game.token

    # Off Playwright's thread, whose running loop the start's push must not meet.
    with ThreadPoolExecutor(1) as worker:
        session_key, token = worker.submit(made).result()
    page.context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": session_key,
                "domain": "127.0.0.1",
                "path": "/",
            }
        ]
    )
    page.goto(f"/en/g/{token}/")
    expect(page.locator("[data-connection=open]")).to_be_visible()
    page.evaluate(WATCH_TABLE)


def play_my_turn_and_wait_for_the_next(page: Page, label: str) -> list[dict[str, Any]]:
    """Roll once and score, then wait through the three bots' turns."""
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible()
    v = version(page)
    page.get_by_role("button", name=re.compile("^Roll")).click()
    wait_past(page, v)
    v = version(page)
    page.locator("button.box").first.click()
    wait_past(page, v)
    began = time.monotonic()
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible(timeout=60_000)
    print(f"\n{label}: the three bots' turns took {time.monotonic() - began:.1f} s")
    shown: list[dict[str, Any]] = page.evaluate("window.shownTables.splice(0)")
    return shown


def test_alone_against_three_bots_they_play_at_the_fast_pace_and_the_host_can_slow_them(
    new_page, screenshot
):
    page = new_page()
    alone_against_three_bots(page)
    pace = page.get_by_role("group", name="Bot pace")
    expect(pace.get_by_role("button", name="Fast")).to_have_attribute("aria-pressed", "true")
    screenshot(page, "bot-pace-desktop")

    shown = play_my_turn_and_wait_for_the_next(page, "Fast")
    bot_rolls = [t for t in shown if t["botTurn"] is not None and t["tumbles"]]
    assert {t["botTurn"] for t in bot_rolls} == {1, 2, 3}
    # Each bot's roll is shown at the fast pace: its dice tumble briefly.
    assert all(t["pace"] == "fast" and t["brisk"] for t in bot_rolls)
    assert {d for t in bot_rolls for d in t["tumbles"]} == {"0.15s"}

    v = version(page)
    pace.get_by_role("button", name="Normal").click()
    wait_past(page, v)
    expect(pace.get_by_role("button", name="Normal")).to_have_attribute("aria-pressed", "true")
    shown = play_my_turn_and_wait_for_the_next(page, "Normal")
    bot_rolls = [t for t in shown if t["botTurn"] is not None and t["tumbles"]]
    assert {t["botTurn"] for t in bot_rolls} == {1, 2, 3}
    assert not any(t["brisk"] for t in bot_rolls)
    assert {d for t in bot_rolls for d in t["tumbles"]} == {"0.4s"}


def test_a_skipped_bot_turn_shows_its_dice_at_once_and_the_next_bot_animates_again(
    new_page, screenshot
):
    page = new_page(width=375, height=812)
    alone_against_three_bots(page)
    page.get_by_role("group", name="Bot pace").get_by_role("button", name="Normal").click()
    expect(page.get_by_role("button", name="Normal")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible()
    v = version(page)
    page.get_by_role("button", name=re.compile("^Roll")).click()
    wait_past(page, v)
    v = version(page)
    page.locator("button.box").first.click()
    wait_past(page, v)
    # The first bot is thinking: skip its animation before it rolls.
    skip = page.get_by_role("button", name="Skip animation")
    expect(skip).to_be_visible()
    screenshot(page, "bot-pace-skip-phone")
    skip.click()
    expect(skip).to_be_hidden()
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible(timeout=60_000)
    shown: list[dict[str, Any]] = page.evaluate("window.shownTables")
    first = [t for t in shown if t["botTurn"] == 1]
    others = [t for t in shown if t["botTurn"] in (2, 3) and t["tumbles"]]
    assert len(first) >= 2, "the first bot's moves after the skip were shown"
    assert not any(t["tumbles"] for t in first)
    assert {t["botTurn"] for t in others} == {2, 3}
