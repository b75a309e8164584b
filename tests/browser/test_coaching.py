"""'Teach me' and the box names on a 375x812 phone: the coaching line comes
after a roll and is read out once, the toggle turns it off and on for the
session, and a tap on a box's name opens its rule on screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser import setups

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 375, 812
SCREENS = Path(__file__).resolve().parents[2] / "artifacts" / "screens"
LINE = re.compile(r"^(Hold \d|Roll all five again|Score \d+ in |Take the zero in )")


def beside_its_name(page: Page, key: str) -> None:
    """The open rule leaves its own name in view: it sits under it or above it."""
    rule = page.locator(f"#box-help-{key}").bounding_box()
    name = page.locator(f'[popovertarget="box-help-{key}"]').bounding_box()
    assert rule is not None and name is not None
    assert rule["y"] >= name["y"] + name["height"] or rule["y"] + rule["height"] <= name["y"]


def first_game(page: Page) -> None:
    """A solitaire game, this browser's first: it starts at once."""
    setups.host(page, 1)


def test_a_first_game_coaches_each_step_and_teach_me_turns_it_off_and_on(new_page):
    page = new_page(width=WIDTH, height=HEIGHT)
    first_game(page)
    toggle = page.get_by_role("button", name="Teach me")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    line = page.locator("[data-coach-line]")
    expect(line).to_be_hidden()
    page.locator("[data-action=roll]").click()
    expect(line).to_have_text(LINE)
    expect(page.locator("[data-coach-announce]")).to_have_text(line.inner_text())
    toggle = page.get_by_role("button", name="Teach me")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(line).to_be_hidden()
    # Kept for the session: a reload keeps it off.
    page.reload()
    expect(page.locator("[data-connection=open]")).to_be_visible()
    toggle = page.get_by_role("button", name="Teach me")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.locator("[data-coach-line]")).to_be_hidden()
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-coach-line]")).to_have_text(LINE)


def test_a_tap_on_a_box_name_opens_its_rule_on_a_phone(new_page):
    page = new_page(width=WIDTH, height=HEIGHT)
    first_game(page)
    page.locator("[data-action=roll]").click()
    score = page.locator(".box[data-category=full_house]")
    expect(score).to_be_visible()
    name = page.get_by_role("button", name="Full House", exact=True)
    name.scroll_into_view_if_needed()
    name.click()
    rule = page.locator("#box-help-full_house")
    expect(rule).to_be_visible()
    # The name sits over the row's score target: reading the rule scored nothing.
    expect(score).to_be_visible()
    assert page.locator(".filled").count() == 0
    expect(rule).to_contain_text("Three dice of one number")
    beside_its_name(page, "full_house")
    box = rule.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, box
    assert box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT, box
    page.keyboard.press("Escape")
    expect(rule).to_be_hidden()


@pytest.mark.parametrize("language", ["en", "es", "it", "ca"])
@pytest.mark.parametrize(("width", "height"), [(1280, 800), (375, 812)])
def test_screens_of_a_coached_turn(new_page, width: int, height: int, language: str):
    page = new_page(width=width, height=height)
    setups.start_from_home(page, lang=language, seats=1)
    expect(page.locator("[data-connection=open]")).to_be_visible()
    page.locator("[data-action=roll]").click()
    line = page.locator("[data-coach-line]")
    expect(line).to_have_text(LINE if language == "en" else re.compile(r"\w"))
    if language != "en":
        expect(line).not_to_have_text(LINE)
    # The line sits above the dock: it never covers Roll.
    said, roll = line.bounding_box(), page.locator("[data-action=roll]").bounding_box()
    assert said is not None and roll is not None
    assert said["y"] + said["height"] <= roll["y"] or said["y"] >= roll["y"] + roll["height"]
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"coached-turn-{language}-{width}x{height}.png"))
    if width < 900:
        # The line floats over the card above the dock: scrolled to its foot,
        # the card's last row clears it.
        page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
        foot = page.locator(".scorecard tr").last.bounding_box()
        said = line.bounding_box()
        assert foot is not None and said is not None
        assert foot["y"] + foot["height"] <= said["y"], (foot, said)
        page.evaluate("window.scrollTo(0, 0)")
    name = page.locator("[popovertarget=box-help-full_house]")
    name.scroll_into_view_if_needed()
    name.click()
    expect(page.locator("#box-help-full_house")).to_be_visible()
    beside_its_name(page, "full_house")
    page.screenshot(path=str(SCREENS / f"box-rule-{language}-{width}x{height}.png"))
