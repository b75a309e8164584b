"""A duplicate game of two people and a bot, played through the pages to the
end, with a spectator watching: what each of them sees mid-round, the rounds
side by side, and the perfect player's score at the end."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser import setups
from tests.live import ROOT

pytestmark = pytest.mark.browser

SCREENS = ROOT / "artifacts" / "screens"


def shoot(page: Page, name: str) -> None:
    """The page at a desk's width and a phone's, with no sideways scroll on the phone."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for width, height, suffix in ((1280, 800, "desktop"), (375, 812, "phone")):
        page.set_viewport_size({"width": width, "height": height})
        if width == 375:
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= 375, f"{name} scrolls sideways on a phone ({wide}px)"
        page.screenshot(path=str(SCREENS / f"{name}-{suffix}.png"), full_page=True)
    if size:
        page.set_viewport_size(size)


def play_my_turn(page: Page, round_: int, *, hold: bool) -> None:
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible(timeout=20_000)
    page.get_by_role("button", name=re.compile("^Roll")).click()
    expect(page.locator(".dice .die")).to_have_count(5)
    if hold:
        page.keyboard.press("1")
        expect(page.locator(".die.held")).to_have_count(1)
        page.keyboard.press("r")
        expect(page.locator(".rolls-left")).to_contain_text("1 roll left")
    page.locator("button.box").first.click()
    expect(page.locator(".dice .die")).to_have_count(0)


def test_two_people_and_a_bot_play_a_duplicate_game_to_the_end(new_page):
    ana = new_page()
    setups.fill_home(ana, seats=3, duplicate=True, perfect_reference=True)
    shoot(ana, "home-with-duplicate-settings")
    setups.choose(ana)
    expect(ana.locator("[data-connection=open]")).to_be_visible()
    invite = ana.locator("#invite-link").input_value()

    bo = new_page()
    bo.goto(invite)
    bo.get_by_label("Your name").fill("Bo")
    bo.get_by_role("button", name="Join as this name").click()
    expect(bo.locator("[data-connection=open]")).to_be_visible()
    expect(ana.locator(".lobby-seats")).to_contain_text("Bo")
    ana.get_by_role("button", name="Add a bot").click()
    expect(ana.locator(".lobby-seats")).to_contain_text("bot ·")
    expect(bo.locator(".lobby .duplicate-note")).to_be_visible()
    shoot(bo, "duplicate-lobby")
    ana.get_by_role("button", name="Start the game").click()

    watcher = new_page()
    watcher.goto(invite)
    expect(watcher.locator("[data-connection=open]")).to_be_visible()

    for round_ in range(1, 13):
        expect(ana.locator(".table-meta")).to_contain_text(f"Round {round_} of 12", timeout=20_000)
        if round_ == 1:
            # Ana has rolled; Bo and the spectator see her progress, not her dice.
            expect(ana.get_by_role("heading", name="Your turn")).to_be_visible()
            ana.get_by_role("button", name=re.compile("^Roll")).click()
            expect(ana.locator(".dice .die")).to_have_count(5)
            expect(bo.locator(".duplicate-progress")).to_contain_text("roll 1 of 3")
            expect(watcher.locator(".duplicate-progress")).to_contain_text("roll 1 of 3")
            assert bo.locator(".dice .die").count() == 0
            assert watcher.locator(".dice .die").count() == 0
            # A die Ana holds stays held while Bo's roll changes her table.
            ana.keyboard.press("1")
            expect(ana.locator(".die.held")).to_have_count(1)
            bo.get_by_role("button", name=re.compile("^Roll")).click()
            expect(ana.locator(".duplicate-progress")).to_contain_text("Bo roll 1 of 3")
            expect(ana.locator(".die.held")).to_have_count(1)
            shoot(ana, "duplicate-player-mid-round")
            shoot(watcher, "duplicate-spectator-mid-round")
            ana.locator("button.box").first.click()
            expect(
                ana.get_by_role("heading", name=re.compile("You have played round 1"))
            ).to_be_visible()
            shoot(ana, "duplicate-player-waiting")
        else:
            play_my_turn(ana, round_, hold=round_ % 2 == 0)
        play_my_turn(bo, round_, hold=round_ % 3 == 0)
        if round_ == 1:
            expect(ana.locator(".duplicate-results")).to_contain_text(
                "Round 1, side by side", timeout=20_000
            )
            expect(watcher.locator(".duplicate-results tbody tr")).to_have_count(3)
            shoot(watcher, "duplicate-round-results")

    for page in (ana, bo, watcher):
        expect(page.get_by_role("heading", name="Final scores")).to_be_visible(timeout=20_000)
        expect(page.locator(".duplicate-perfect")).to_contain_text("The perfect player scored")
    shoot(ana, "duplicate-end-with-perfect")
    ana.get_by_role("link", name="Review the game").click()
    expect(ana.locator(".review-against").first).to_contain_text("against the perfect player")
    shoot(ana, "duplicate-review")
    ana.go_back()
    ana.get_by_role("link", name="Check the dice").click()
    expect(ana.locator(".roll-bad")).to_have_count(0)
    assert ana.locator(".roll-ok").count() >= 36
