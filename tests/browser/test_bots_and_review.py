import re

import pytest
from playwright.sync_api import expect

from tests.browser import setups
from tests.browser.test_live_game import version, wait_past

pytestmark = pytest.mark.browser


def test_a_person_plays_the_perfect_bot_to_the_end_and_reads_the_review(new_page, screenshot):
    page = new_page()
    setups.start_from_home(page, "perfect", hints=True)
    # Every seat is taken at creation (the bot's): the game starts at once.
    expect(page.locator(".seats")).to_contain_text("bot · Perfect")
    expect(page.locator("[data-connection=open]")).to_be_visible()
    for turn in range(12):
        expect(page.get_by_role("heading", name="Your turn")).to_be_visible(timeout=20_000)
        v = version(page)
        page.get_by_role("button", name=re.compile("^Roll")).click()
        wait_past(page, v)
        if turn == 0:
            page.get_by_role("button", name="Hint").click()
            expect(page.locator("[data-hint] .advice")).to_contain_text("Score now")
            screenshot(page, "hint-desktop")
        v = version(page)
        page.locator("button.box").first.click()
        wait_past(page, v)
    expect(page.get_by_role("heading", name="Final scores")).to_be_visible(timeout=20_000)
    page.get_by_role("link", name="Review the game").click()
    expect(page.get_by_role("heading", name="Ana")).to_be_visible()
    expect(page.locator(".review-total")).to_contain_text("Expected points given away")
    assert page.locator(".review-table tbody tr").count() >= 12
    screenshot(page, "review-desktop")
    # The chart's marks sit beside its top, middle and bottom, on a phone too.
    for width, height, name in ((1280, 800, "review-chart-1280"), (375, 812, "review-chart-375")):
        page.set_viewport_size({"width": width, "height": height})
        page.locator(".review-chart").scroll_into_view_if_needed()
        plot = page.locator(".review-chart svg").bounding_box()
        ticks = [t.bounding_box() for t in page.locator(".review-tick").all()]
        assert plot is not None and all(t is not None for t in ticks)
        for tick, y in zip(ticks, (0, 0.5, 1), strict=True):
            middle = tick["y"] + tick["height"] / 2
            assert middle == pytest.approx(plot["y"] + y * plot["height"], abs=2)
            assert tick["x"] + tick["width"] <= plot["x"]
        assert page.evaluate("document.scrollingElement.scrollWidth") <= width
        # The decisions' table fits too: its words wrap, it does not scroll.
        wrap = page.locator(".review-seat .table-scroll")
        assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth")
        screenshot(page, name)
