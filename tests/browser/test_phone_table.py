"""The table on a 375x812 phone is made for the thumb: the dice and Roll in
the bottom third, whole score rows as targets, a pinned area that never
takes more than a third of the screen, Share on screen in every language,
and no control that looks live while the socket is down."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser import setups

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 375, 812
ROLL = "[data-action=roll]"

# The part of the screen taken by whatever is pinned to its top or bottom
# (sticky or fixed): each outermost pinned element's visible height, summed.
PINNED = """() => {
  const pinned = [...document.querySelectorAll("body *")].filter((e) => {
    const s = getComputedStyle(e);
    if (s.position === "fixed") return true;
    return s.position === "sticky" && (s.top !== "auto" || s.bottom !== "auto");
  });
  const outer = pinned.filter((e) => !pinned.some((o) => o !== e && o.contains(e)));
  return outer.reduce((sum, e) => {
    const r = e.getBoundingClientRect();
    return sum + Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
  }, 0);
}"""


def phone(new_page, locale: str = "en-US") -> Page:
    return new_page(width=WIDTH, height=HEIGHT, locale=locale)


def scrolled_to_the_foot(page: Page) -> None:
    page.locator(".scorecard tfoot").evaluate("f => f.scrollIntoView({block: 'end'})")
    assert page.evaluate("scrollY") > 0


def in_bottom_third(page: Page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    assert box is not None
    assert box["y"] >= HEIGHT * 2 / 3, box
    assert box["y"] + box["height"] <= HEIGHT, box


def test_on_a_phone_roll_is_in_the_bottom_third_at_the_top_of_the_page_and_scrolled(new_page):
    page = phone(new_page)
    setups.mid_game(page, 3, rounds=2)
    setups.show(page, WIDTH, HEIGHT)
    in_bottom_third(page, ROLL)
    scrolled_to_the_foot(page)
    in_bottom_third(page, ROLL)
    for die in page.locator(".die").all():
        box = die.bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= HEIGHT
        assert box["width"] >= 44


def test_on_a_phone_a_whole_score_row_is_the_target_and_at_least_44_px_tall(new_page):
    page = phone(new_page)
    setups.mid_game(page, 3, rounds=2)
    setups.show(page, WIDTH, HEIGHT)
    boxes = page.locator(".scorecard .box")
    assert boxes.count() >= 5
    for box in boxes.all():
        row = box.locator("xpath=ancestor::tr[1]")
        row.evaluate("r => r.scrollIntoView({block: 'center'})")
        rect = row.bounding_box()
        assert rect is not None
        assert rect["height"] >= 44, rect
        # Anywhere on the row but the box's name, from the name's cell to
        # the last seat's cell, a tap lands on the row's one button; the name
        # itself opens the box's rule and never scores.
        y = rect["y"] + rect["height"] / 2
        key = box.get_attribute("data-category")
        name = row.locator(".box-name-button").bounding_box()
        assert name is not None
        beside_name = name["x"] + name["width"] + 2
        if beside_name < rect["x"] + rect["width"] / 2 - 40:
            points = [beside_name, rect["x"] + rect["width"] / 2, rect["x"] + rect["width"] - 6]
        else:
            points = [rect["x"] + rect["width"] / 2, rect["x"] + rect["width"] - 6]
        for x in points:
            hit = page.evaluate(
                "([x, y]) => document.elementFromPoint(x, y)?.closest('.box')?.dataset.category",
                [x, y],
            )
            assert hit == key, (x, y)
        on_name = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y)?.getAttribute('popovertarget')",
            [name["x"] + 4, name["y"] + name["height"] / 2],
        )
        assert on_name == f"box-help-{key}"
    # One button per row, named by its points and its box.
    first = boxes.first
    expect(first).to_have_accessible_name(re.compile(r"^\d+ — score in \S"))


def test_on_a_phone_the_header_links_and_fair_dice_are_44_px_targets(new_page):
    page = phone(new_page)
    setups.mid_game(page, 2, rounds=1)
    setups.show(page, WIDTH, HEIGHT)
    targets = page.locator(".site-header nav a, .fairness summary, .bar-tools summary")
    assert targets.count() >= 5
    for target in targets.all():
        box = target.bounding_box()
        assert box is not None
        assert box["height"] >= 44 and box["width"] >= 44, (target.inner_text(), box)


def test_in_a_duplicate_round_the_pinned_area_is_at_most_a_third_and_folds_the_rest(new_page):
    page = phone(new_page)
    setups.duplicate_round_two(page)
    setups.show(page, WIDTH, HEIGHT)
    expect(page.get_by_text("Round 2 of 12")).to_be_visible()
    in_bottom_third(page, ROLL)
    assert page.evaluate(PINNED) <= HEIGHT / 3
    scrolled_to_the_foot(page)
    assert page.evaluate(PINNED) <= HEIGHT / 3
    in_bottom_third(page, ROLL)
    # Progress and last round's results wait behind one chip; a tap opens it.
    chip = page.locator("[data-fold]")
    expect(chip).to_have_count(1)
    expect(page.locator(".duplicate-results")).to_be_hidden()
    chip.click()
    expect(page.locator(".duplicate-results")).to_be_visible()
    expect(chip).to_have_attribute("aria-expanded", "true")
    chip.click()
    expect(page.locator(".duplicate-results")).to_be_hidden()


def test_during_another_players_turn_on_a_clock_the_pinned_area_is_a_thin_banner(new_page):
    page = phone(new_page)
    setups.clock_waiting(page)
    setups.show(page, WIDTH, HEIGHT)
    expect(page.get_by_role("timer")).to_be_visible()
    for scrolled in (False, True):
        if scrolled:
            scrolled_to_the_foot(page)
        pinned = page.evaluate(PINNED)
        assert pinned <= HEIGHT / 8, pinned
        clock = page.get_by_role("timer").bounding_box()
        assert clock is not None and clock["y"] >= HEIGHT * 2 / 3


@pytest.mark.parametrize(
    ("language", "locale"), [("en", "en-US"), ("es", "es-ES"), ("it", "it-IT"), ("ca", "ca-ES")]
)
def test_on_a_phone_without_a_share_sheet_the_share_and_keyboard_panels_stay_on_screen(
    new_page, language, locale
):
    page = phone(new_page, locale)
    game = setups.mid_game(page, 2, rounds=0)
    page.goto(f"/{language}/g/{game.token}/")
    expect(page.locator("[data-connection=open]")).to_be_visible()
    for details, panel in ((".share", ".share-panel"), (".keys", ".keys-panel")):
        page.locator(f"{details} summary").click()
        expect(page.locator(panel)).to_be_visible()
        for part in (panel, f"{panel} button", f"{panel} input"):
            if not page.locator(part).count():
                continue
            box = page.locator(part).bounding_box()
            assert box is not None
            assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, (part, box)
            assert box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT, (part, box)
        page.locator(f"{details} summary").click()
    page.locator(".share summary").click()
    page.locator(".share-panel button").click()
    expect(page.locator(".share-panel button")).not_to_have_text(re.compile("^$"))


def test_where_the_browser_has_a_share_sheet_share_opens_it_with_the_tables_link(new_page):
    page = phone(new_page)
    page.add_init_script(
        "navigator.share = async (data) => { window.sharedWith = data; };"
        "navigator.canShare = () => true;"
    )
    game = setups.mid_game(page, 2, rounds=0)
    setups.show(page, WIDTH, HEIGHT)
    page.locator(".share summary").click()
    page.wait_for_function("() => window.sharedWith")
    shared = page.evaluate("window.sharedWith")
    assert shared["url"].endswith(f"/g/{game.token}/")
    expect(page.locator(".share-panel")).to_be_hidden()


class SocketCutter:
    """Sits on the page's websocket: cuts it on demand and keeps refusing
    until told to let it through again."""

    def __init__(self, page: Page) -> None:
        self.refuse = False
        self.routes: list[Any] = []
        page.route_web_socket(re.compile(r"/ws/g/"), self._route)

    def _route(self, ws: Any) -> None:
        if self.refuse:
            ws.close()
            return
        ws.connect_to_server()
        self.routes.append(ws)

    def cut(self) -> None:
        self.refuse = True
        for ws in self.routes:
            ws.close()


def test_while_the_socket_is_down_every_control_is_disabled_and_looks_it(new_page):
    page = phone(new_page)
    cutter = SocketCutter(page)
    setups.mid_game(page, 2, rounds=1)
    setups.show(page, WIDTH, HEIGHT)
    roll = page.locator(ROLL)
    expect(roll).to_be_enabled()
    expect(page.locator(".die").first).to_be_enabled()
    before = roll.bounding_box()
    cutter.cut()
    expect(page.locator("[data-connection=closed]")).to_be_visible()
    expect(roll).to_be_disabled()
    for control in page.locator("#table .die, #table .box, #table [data-action]").all():
        expect(control).to_be_disabled()
    assert float(roll.evaluate("r => getComputedStyle(r).opacity")) <= 0.6
    assert float(page.locator(".die").first.evaluate("d => getComputedStyle(d).opacity")) <= 0.6
    # Nothing moved under the player's thumb.
    assert roll.bounding_box() == before
    cutter.refuse = False
    expect(page.locator("[data-connection=open]")).to_be_visible(timeout=20_000)
    expect(roll).to_be_enabled()
    expect(page.locator(".die").first).to_be_enabled()


CLS = """() => new Promise((resolve) => {
  let total = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) total += entry.value;
  });
  observer.observe({ type: "layout-shift", buffered: true });
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
    for (const entry of observer.takeRecords()) if (!entry.hadRecentInput) total += entry.value;
    observer.disconnect();
    resolve(total);
  })));
})"""


def test_the_phone_game_page_does_not_shift_as_its_socket_connects(new_page):
    page = phone(new_page)
    game = setups.mid_game(page, 2, rounds=1)
    page.goto(f"/en/g/{game.token}/")
    expect(page.locator("[data-connection=open]")).to_be_visible()
    assert page.evaluate(CLS) < 0.05


def test_a_held_die_says_it_is_held(new_page):
    page = phone(new_page)
    setups.mid_game(page, 2, rounds=0)
    setups.show(page, WIDTH, HEIGHT)
    held = page.locator(".die.held").first
    expect(held.locator(".die-held")).to_have_text("Held")


def test_a_phone_zoomed_to_200_percent_keeps_five_dice_across_and_the_pinned_area_a_third(
    new_page,
):
    page = new_page(width=188, height=406)
    setups.mid_game(page, 3, rounds=2)
    setups.show(page, 188, 406)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 188
    scrolled_to_the_foot(page)
    assert page.evaluate(PINNED) <= 406 / 3
    roll = page.locator(ROLL).bounding_box()
    assert roll is not None and roll["y"] + roll["height"] <= 406
    expect(page.locator(ROLL)).to_have_accessible_name(re.compile(r"1 roll left"))


def test_on_a_phone_the_advisor_opens_over_the_card_and_hint_again_closes_it(new_page):
    page = phone(new_page)
    setups.mid_game(page, 2, rounds=1, hints=True)
    setups.show(page, WIDTH, HEIGHT)
    hint = page.get_by_role("button", name="Hint")
    hint.click()
    expect(page.locator("[data-hint] .advice")).to_be_visible(timeout=60_000)
    # The advisor rises over the card; the dock itself stays as it was.
    assert page.evaluate(PINNED) <= HEIGHT / 3
    in_bottom_third(page, ROLL)
    hint.click()
    expect(page.locator("[data-hint] .advice")).to_have_count(0)
