"""The rules pages on a phone: nothing scrolls sideways at 375 px, in any
language, and the dice examples are drawn as dice."""

import pytest

from games.rules import RULESETS

pytestmark = pytest.mark.browser

LANGUAGES = ["en", "es", "it", "ca"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_rules_page_scrolls_sideways_on_a_375_px_phone(new_page, screenshot, language: str):
    page = new_page(width=375, height=812)
    too_wide = {}
    for ruleset in RULESETS:
        page.goto(f"/{language}/rules/{ruleset}/")
        width = page.evaluate("document.documentElement.scrollWidth")
        table = page.locator(".score-table").evaluate("t => t.getBoundingClientRect().right")
        if width > 375 or table > 375:
            too_wide[ruleset] = (width, table)
        if ruleset in {"yacht", "classic13"}:
            screenshot(page, f"rules-{ruleset}-{language}-375")
    assert too_wide == {}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_example_dice_are_drawn_as_dice_faces(new_page, screenshot, language: str):
    page = new_page(width=1280, height=800)
    page.goto(f"/{language}/rules/yacht/")
    face = page.locator("#box-full_house + p + .examples .die-face").first
    box = face.bounding_box()
    assert box is not None
    # A bordered square about the height of a line of text, not a bare digit.
    assert abs(box["width"] - box["height"]) < 2
    assert box["height"] > 18
    assert face.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
    screenshot(page, f"rules-yacht-{language}-1280")
    page.goto(f"/{language}/rules/classic13/")
    screenshot(page, f"rules-classic13-{language}-1280")
