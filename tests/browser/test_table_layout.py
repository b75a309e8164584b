"""The table fits: a desk never scrolls, a phone never scrolls sideways and
keeps the dice in view; the invite link only where it is needed."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from games.play import services
from games.rules import get_ruleset
from tests.browser import setups
from tests.live import ROOT

pytestmark = pytest.mark.browser

PAGE_HEIGHT = "document.scrollingElement.scrollHeight"
PAGE_WIDTH = "document.scrollingElement.scrollWidth"
MEASURES = ROOT / "artifacts" / "measures"


def record(name: str, value: object) -> None:
    """Keep a measured figure beside the screenshots, for people to read."""
    MEASURES.mkdir(parents=True, exist_ok=True)
    (MEASURES / f"{name}.json").write_text(json.dumps(value))


def inside_viewport(page: Page, selector: str) -> list[str]:
    """The elements matching ``selector`` that are not wholly on screen."""
    return page.eval_on_selector_all(
        selector,
        """(elements) => elements.filter((e) => {
            const r = e.getBoundingClientRect();
            return r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth;
        }).map((e) => e.outerHTML.slice(0, 80))""",
    )


@pytest.mark.parametrize(("seats", "ruleset"), [(2, "yacht"), (3, "classic13"), (4, "yatzy")])
def test_at_1280_by_800_the_whole_table_and_the_advisor_fit_without_scrolling(
    new_page, seats, ruleset
):
    page = new_page(width=1280, height=800)
    setups.mid_game(page, seats, rounds=3, ruleset=ruleset, hints=True)
    setups.show(page, 1280, 800)
    page.get_by_role("button", name="Hint").click()
    expect(page.locator("[data-hint] .advice")).to_be_visible(timeout=60_000)
    height = page.evaluate(PAGE_HEIGHT)
    bottom = page.evaluate("document.getElementById('game').getBoundingClientRect().bottom")
    record(f"height-1280x800-{seats}p-{ruleset}-advisor", {"page": height, "table": bottom})
    assert height <= page.evaluate("innerHeight")
    for part in (".die", "[data-action=roll]", ".turn-title", ".scorecard td", ".advice-slot"):
        assert inside_viewport(page, part) == [], part
    assert page.locator(".scorecard tbody tr").count() >= len(get_ruleset(ruleset).categories)


@pytest.mark.parametrize("seats", [3, 6])
def test_on_a_375_px_phone_the_dice_stay_in_view_and_box_names_stay_put(new_page, seats):
    page = new_page(width=375, height=812)
    setups.mid_game(page, seats, rounds=2)
    setups.show(page, 375, 812)
    record(f"width-375-table-{seats}p", page.evaluate(PAGE_WIDTH))
    assert page.evaluate(PAGE_WIDTH) <= 375
    # Down to the last box: the dice and the roll button are still on screen.
    page.locator(".scorecard tfoot").scroll_into_view_if_needed()
    assert page.evaluate("scrollY") > 0
    assert inside_viewport(page, ".die") == []
    assert inside_viewport(page, "[data-action=roll]") == []
    # The players' columns scroll inside the card; the box names do not move.
    name = page.locator(".scorecard tbody th").first
    left = name.bounding_box()["x"]
    wrap = page.locator(".scorecard-wrap")
    if seats == 6:
        assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    assert name.bounding_box()["x"] == pytest.approx(left, abs=1)
    assert page.evaluate(PAGE_WIDTH) <= 375


@pytest.mark.parametrize("seats", [2, 4, 5, 6])
def test_on_a_375_px_phone_every_players_total_is_in_view_at_the_top(new_page, screenshot, seats):
    """The scorecard's Total row is far below on a phone; the seat strip
    above the card carries each player's total, and up to five seats share
    its width instead of running off its edge (six scroll inside it)."""
    page = new_page(width=375, height=812)
    setups.mid_game(page, seats, rounds=2)
    setups.show(page, 375, 812)
    screenshot(page, f"seat-strip-375-{seats}p")
    totals = page.locator(".seats .seat-total")
    expect(totals).to_have_count(seats)
    strip = page.locator(".seats")
    if seats <= 5:
        assert inside_viewport(page, ".seats .seat") == []
        assert strip.evaluate("s => s.scrollWidth <= s.clientWidth")
    else:
        # Six scroll inside the strip; the page itself never scrolls sideways.
        assert strip.evaluate("s => s.scrollWidth > s.clientWidth")
        assert page.evaluate(PAGE_WIDTH) <= 375
    # Each total is the one the card's Total row gives, and its name is there too.
    expected = page.locator(".scorecard tfoot .total").all_inner_texts()
    assert totals.all_inner_texts() == expected
    for name in page.locator(".seats .seat-name").all():
        assert name.bounding_box()["width"] > 20


def test_the_invite_link_is_in_the_lobby_and_behind_share_afterwards(new_page):
    page = new_page(width=1280, height=800)
    game = setups.host(page, 2)
    expect(page.locator("#invite-link")).to_be_visible()
    expect(page.locator(".share")).to_be_hidden()
    seated = setups.fill(game, 2)
    services.game_start(token=game.token, guest_id=seated[0])
    page.reload()
    expect(page.locator("#invite-link")).to_be_hidden()
    page.get_by_text("Share", exact=True).click()
    expect(page.locator("#share-link")).to_be_visible()
    # A spectator sees no invitation above the table either.
    spectator = new_page(width=1280, height=800)
    spectator.goto(page.url)
    expect(spectator.locator("[data-connection=open]")).to_be_visible()
    expect(spectator.locator("#invite-link")).to_be_hidden()
    # The dice commitment waits in a small disclosure.
    expect(page.locator(".fairness code.commitment")).to_be_hidden()
    page.get_by_text("Fair dice").click()
    expect(page.locator(".fairness code.commitment")).to_be_visible()


def test_a_solitaire_table_shows_no_invitation(new_page):
    page = new_page(width=1280, height=800)
    setups.host(page, 1)
    # All its seats taken at creation, a solitaire table starts at once.
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible()
    expect(page.locator("#invite-link")).to_be_hidden()
    expect(page.locator(".share")).to_be_hidden()


def test_a_spectator_of_four_at_yatzy_sees_the_whole_table_without_scrolling(new_page):
    page = new_page(width=1280, height=800)
    game = setups.mid_game(page, 4, rounds=3, ruleset="yatzy")
    watcher = new_page(width=1280, height=800)
    watcher.goto(f"/en/g/{game.token}/")
    expect(watcher.locator("[data-connection=open]")).to_be_visible()
    expect(watcher.get_by_text("You are watching this game")).to_be_visible()
    height = watcher.evaluate(PAGE_HEIGHT)
    bottom = watcher.evaluate("document.getElementById('game').getBoundingClientRect().bottom")
    record("height-1280x800-4p-yatzy-spectator", {"page": height, "table": bottom})
    assert height <= 800
    assert inside_viewport(watcher, ".scorecard td") == []
