"""The end as an event: the totals count up, a Yacht bursts (with motion
only), a phone shows the result's title, the daily ends with its place on
the day's board, and each kind of end is shot at a desk's size and a
phone's."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.models import Game
from games.play import services
from games.store.selectors import game_snapshot
from tests import factories
from tests.browser import setups
from tests.live import ROOT
from tests.pages.test_daily import BOXES, play_to_the_end

pytestmark = pytest.mark.browser

SCREENS = ROOT / "artifacts" / "screens"

# Every text the final score's number shows, from the push that ends the game.
RECORD_COUNT = """() => {
  window.counted = [];
  new MutationObserver(() => {
    const number = document.querySelector(".result-title [data-count-up]");
    if (number) window.counted.push(number.textContent);
  }).observe(document.getElementById("table"), {
    subtree: true, childList: true, characterData: true,
  });
}"""


def shoot(page: Page, name: str) -> None:
    """What the player sees (the screen, not the whole page) at this size."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    assert size is not None
    suffix = "desktop" if size["width"] >= 900 else "phone"
    page.screenshot(path=str(SCREENS / f"end-{name}-{suffix}.png"))


def solitaire_at_its_last_box(page: Page) -> Game:
    """A solitaire the page's guest plays, eleven rounds scored (set up here,
    then the page reloaded: only the page's own moves are pushed to it) and
    the last rolled on the page."""
    game = setups.host(page, 1)
    guest = setups.guests(game)[0]
    for _round in range(11):
        setups.turn(game, guest)
    last_round(page)
    return game


def last_round(page: Page) -> None:
    setups.show(page, *page.viewport_size.values())  # type: ignore[union-attr]
    page.get_by_role("button", name=re.compile("^Roll")).click()
    expect(page.locator("button.box")).to_have_count(1)


def score_last_box(page: Page, game: Game) -> int:
    page.evaluate(RECORD_COUNT)
    page.locator("button.box").click()
    expect(page.locator(".result")).to_be_visible()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game_snapshot(game)["seats"][0]["total"]


def test_the_final_score_counts_up_to_the_total(new_page):
    page = new_page(width=1280, height=800)
    game = solitaire_at_its_last_box(page)
    total = score_last_box(page, game)
    title = page.get_by_role("heading", name=f"Final score {total}")
    expect(title).to_be_visible()
    expect(page.locator(".result-title [data-count-up][data-counted]")).to_have_text(str(total))
    shown = [int(text) for text in page.evaluate("window.counted")]
    assert any(0 < n < total for n in shown), shown
    # The end's own line: the review's verdict, a link to the review.
    expect(page.locator(".end-review")).to_contain_text("perfect play")
    shoot(page, "solitaire")
    page.set_viewport_size({"width": 375, "height": 812})
    shoot(page, "solitaire")


def test_with_reduced_motion_the_final_score_is_shown_at_once(new_page):
    page = new_page()
    page.emulate_media(reduced_motion="reduce")
    game = solitaire_at_its_last_box(page)
    total = score_last_box(page, game)
    expect(page.locator(".result-title [data-count-up][data-counted]")).to_have_text(str(total))
    assert set(page.evaluate("window.counted")) == {str(total)}


def yacht_scored(page: Page) -> None:
    """The page's solitaire has rolled five sixes and scores them as a Yacht."""
    game = setups.host(page, 1)
    guest = setups.guests(game)[0]
    services.game_roll(token=game.token, guest_id=guest, version=game.version)
    Game.objects.filter(pk=game.pk).update(dice=[6, 6, 6, 6, 6])
    setups.show(page, 1280, 900)
    page.locator('button.box[data-category="yacht"]').click()
    expect(page.locator('[data-cell="0-yacht"]')).to_contain_text("50")


def test_a_yacht_bursts_on_its_box(new_page):
    page = new_page()
    yacht_scored(page)
    expect(page.locator('[data-cell="0-yacht"] .yacht-burst')).to_have_count(1)


def test_a_yacht_does_not_burst_with_reduced_motion(new_page):
    page = new_page()
    page.emulate_media(reduced_motion="reduce")
    yacht_scored(page)
    expect(page.locator('[data-cell="0-yacht"].landed')).to_have_count(1)
    expect(page.locator(".yacht-burst")).to_have_count(0)


def two_player_end(page: Page) -> None:
    """Ana hosts, Bo (the page) joins; they play to Bo's last turn, and Bo
    rolls and scores the last box of the game on the page."""
    game = factories.lobby_game(2, joined=1)
    page.goto(f"/en/g/{game.token}/")
    page.get_by_label("Your name").fill("Bo")
    page.get_by_role("button", name="Join as this name").click()
    expect(page.locator(".seat-card", has_text="Bo")).to_have_count(1)
    seated = setups.guests(game)
    services.game_start(token=game.token, guest_id=seated[0])
    game.refresh_from_db()
    for _round in range(12):
        setups.turn(game, seated[0])
        if _round < 11:
            setups.turn(game, seated[1])
    last_round(page)
    page.locator("button.box").click()


def test_on_a_phone_the_result_title_is_on_screen_when_the_game_ends(new_page):
    page = new_page(width=375, height=812)
    two_player_end(page)
    title = page.get_by_role("heading", name="Final scores")
    expect(title).to_be_in_viewport()
    expect(page.locator(".places [data-count-up][data-counted]")).to_have_count(2)
    expect(page.locator(".result-line")).to_contain_text(re.compile("wins with|share first place"))
    expect(page.locator(".end-review")).to_be_visible()
    shoot(page, "two-players")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.evaluate("window.scrollTo(0, 0)")
    shoot(page, "two-players")


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (375, 812)])
def test_the_daily_ends_with_its_place_on_the_board_and_no_rematch(new_page, width, height):
    page = new_page(width=width, height=height)
    page.goto("/en/daily/")
    page.get_by_label("Your name").fill("Dora")
    page.get_by_role("button", name="Play today's challenge").click()
    expect(page.locator("[data-connection=open]")).to_be_visible()
    game = Game.objects.get(token=page.url.rstrip("/").rsplit("/", 1)[-1])
    guest = setups.guests(game)[0]
    game = play_to_the_end(game, guest, BOXES[:-1])
    last_round(page)
    total = score_last_box(page, game)
    expect(page.get_by_role("heading", name=f"Final score {total}")).to_be_in_viewport()
    expect(page.get_by_role("button", name="Rematch")).to_have_count(0)
    place = page.get_by_role("link", name="Place 1 of 1 on the day's board")
    expect(place).to_be_visible()
    expect(page.locator(".chat-panel")).to_have_count(0)
    expect(page.locator(".result")).not_to_contain_text("wins")
    shoot(page, "daily")
    place.click()
    expect(page.locator(".daily-board tbody tr", has_text="Dora")).to_contain_text(str(total))


def test_a_player_who_beat_the_perfect_player_reads_it_on_the_end_screen(new_page):
    page = new_page(width=1280, height=800)
    game = setups.duplicate_with_perfect_played_out(page)
    total = game_snapshot(game)["seats"][0]["total"]
    # The perfect player's score on these dice is stored at the end; lowered
    # here to a total the page's player beat, as luck sometimes allows.
    Game.objects.filter(pk=game.pk).update(perfect_score=total - 8)
    for width, height in ((1280, 800), (375, 812)):
        setups.show(page, width, height)
        beaten = page.locator(".end-perfect-beaten")
        expect(beaten).to_have_text("You beat the perfect player by 8 points on these dice!")
        expect(beaten).to_be_in_viewport()
        shoot(page, "beat-the-perfect-player")
