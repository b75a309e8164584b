"""Presence in the browser: each person's seat shows whether its player is
at the table, in view or not, and goes "offline" soon after their page
closes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games.play import services
from tests.browser.test_live_game import create_game, join_game, start
from tests.live import ROOT

pytestmark = pytest.mark.browser

SCREENS = ROOT / "artifacts" / "screens"
# The grace (5 s) and a tick: a bound on the wait, not a pause.
GONE_WITHIN_MS = 15_000


def hide(page: Page) -> None:
    """The page is hidden, as a tab in the background is."""
    page.evaluate(
        """() => {
            Object.defineProperty(document, "hidden", { value: true, configurable: true });
            document.dispatchEvent(new Event("visibilitychange"));
        }"""
    )


def seat_mark(page: Page, order: int):
    return page.locator(f'.seats [data-presence="{order}"]')


def test_bo_sees_anas_seat_go_from_online_to_away_to_offline_after_her_page_closes(new_page):
    ana = new_page()
    bo = new_page()
    invite = create_game(ana, "Ana")
    join_game(bo, invite, "Bo")
    bos_card = ana.locator('.lobby-seats [data-presence="1"]')
    expect(bos_card).to_have_attribute("data-state", "online")
    start(ana)
    expect(bo.get_by_role("heading", name="Ana's turn")).to_be_visible()

    expect(seat_mark(bo, 0)).to_have_attribute("data-state", "online")
    expect(seat_mark(bo, 0)).to_have_text("online")
    expect(seat_mark(bo, 1)).to_have_attribute("data-state", "online")

    hide(ana)
    expect(seat_mark(bo, 0)).to_have_attribute("data-state", "away")
    expect(seat_mark(bo, 0)).to_have_text("away")

    ana.close()
    expect(seat_mark(bo, 0)).to_have_attribute("data-state", "gone", timeout=GONE_WITHIN_MS)
    expect(seat_mark(bo, 0)).to_have_text("offline")
    expect(bo.locator('.seat[data-presence-state="gone"]')).to_contain_text("Ana")
    expect(seat_mark(bo, 1)).to_have_attribute("data-state", "online")


def test_screens_of_a_table_showing_each_state_of_presence(new_page, server):
    SCREENS.mkdir(parents=True, exist_ok=True)
    ana = new_page(width=1280, height=800)
    bo = new_page()
    carmen = new_page()
    invite = create_game(ana, "Ana", seats=4)
    token = invite.rstrip("/").rsplit("/", 1)[-1]
    # Dario takes his seat without ever opening the table (the others' joins
    # bring it to Ana's page).
    services.game_join(token=token, guest_id="dario-never-here", name="Dario")
    join_game(bo, invite, "Bo")
    join_game(carmen, invite, "Carmen")
    start(ana)
    hide(carmen)
    expect(seat_mark(ana, 1)).to_have_attribute("data-state", "gone")
    expect(seat_mark(ana, 2)).to_have_attribute("data-state", "online")
    expect(seat_mark(ana, 3)).to_have_attribute("data-state", "away")
    # A desk has room for the words beside each dot; a phone's seat strip only for the dot.
    for order, word in ((1, "offline"), (2, "online"), (3, "away")):
        expect(seat_mark(ana, order).locator(".presence-text")).to_have_text(word)
        assert word_width(ana, order) > 20
    ana.screenshot(path=str(SCREENS / "presence-1280x800.png"))
    ana.set_viewport_size({"width": 375, "height": 812})
    expect(seat_mark(ana, 3)).to_have_attribute("data-state", "away")
    assert word_width(ana, 3) <= 1
    ana.screenshot(path=str(SCREENS / "presence-375x812.png"))


def word_width(page: Page, order: int) -> float:
    box = seat_mark(page, order).locator(".presence-text").bounding_box()
    assert box is not None
    return box["width"]
