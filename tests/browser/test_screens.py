"""Screenshots of every screen a player meets, at a desk's and a phone's size.

CI keeps ``artifacts/screens/<label>/`` (label from ``YACHT_SCREENS``, "after"
by default) so a change to the table can be judged by looking at it.
"""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page, expect

from games.models import Game
from games.play import services
from games.store.selectors import duplicate_state, game_players, game_state
from tests.browser import setups
from tests.live import ROOT

pytestmark = pytest.mark.browser

SCREENS = ROOT / "artifacts" / "screens" / os.environ.get("YACHT_SCREENS", "after")
SIZES = {"desk": (1280, 800), "phone": (375, 812)}


def _shoot(page: Page, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    for size, (width, height) in SIZES.items():
        setups.show(page, width, height)
        page.wait_for_timeout(400)  # the browser's own transitions end, as a person would see
        page.screenshot(path=str(SCREENS / f"{name}-{size}.png"))
        page.screenshot(path=str(SCREENS / f"{name}-{size}-full.png"), full_page=True)


@pytest.mark.parametrize("seats", [2, 4])
def test_screens_of_a_table_in_the_middle_of_a_game(new_page, seats):
    page = new_page()
    setups.mid_game(page, seats)
    _shoot(page, f"table-{seats}p")


def test_screens_of_a_turn_before_its_first_roll(new_page):
    # Empty places where the dice will land: for the player to roll, and for
    # the one who waits for the other's roll.
    page = new_page()
    game = setups.host(page, 2)
    seated = setups.fill(game, 2)
    services.game_start(token=game.token, guest_id=seated[0])
    page.reload()
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible()
    _shoot(page, "turn-start")
    setups.turn(game, seated[0])
    page.reload()
    expect(page.get_by_text("Waiting for the first roll.")).to_be_visible()
    _shoot(page, "turn-start-waiting")


def test_screens_of_a_classic_13_table_with_its_upper_bonus(new_page):
    page = new_page()
    setups.mid_game(page, 3, rounds=6, ruleset="classic13")
    _shoot(page, "table-3p-classic13")


def test_screens_of_a_lobby(new_page):
    page = new_page()
    game = setups.host(page, 4)
    services.game_join(token=game.token, guest_id="screens-guest-1", name="Bo")
    services.game_add_bot(token=game.token, guest_id=setups.guests(game)[0], level="solid")
    _shoot(page, "lobby")


def test_screens_of_the_end_of_a_game(new_page):
    page = new_page()
    setups.finished(page, 3)
    _shoot(page, "end")


def test_screens_of_the_advisor_beside_the_dice(new_page):
    page = new_page()
    setups.mid_game(page, 4, rounds=3, hints=True)
    SCREENS.mkdir(parents=True, exist_ok=True)
    for size, (width, height) in SIZES.items():
        setups.show(page, width, height)
        page.get_by_role("button", name="Hint").click()
        page.locator("[data-hint] .advice").wait_for(timeout=60_000)
        page.screenshot(path=str(SCREENS / f"advisor-4p-{size}.png"))


def test_screens_of_a_duplicate_round_on_the_clock(new_page):
    # The duplicate panel and the clock are parts of the table partial that
    # the other screens never show.
    page = new_page()
    token = setups.start_from_home(page, seats=3, turn_seconds=60, duplicate=True)
    game = Game.objects.get(token=token)
    seated = setups.fill(game, 3)
    services.game_start(token=token, guest_id=seated[0])
    for guest in seated[1:]:
        # Bo and Cy play round 1 (roll, then their first open box); Ana is to roll.
        setups.duplicate_turn(game, guest)
    game.refresh_from_db()
    services.game_roll(token=token, guest_id=seated[0], version=game.version)
    _shoot(page, "duplicate-clock")
    # Ana scores: round 2 begins, without round 1's how-it-works line.
    game.refresh_from_db()
    players = game_players(game)
    view = duplicate_state(game, players, game_state(game, players)).view(0)
    assert view is not None
    services.game_score(
        token=token, guest_id=seated[0], version=game.version, category=view.allowed_boxes()[0]
    )
    # These services run in the test's process, not the server's: it has no
    # push to make, so the page is loaded again, as a refresh would (at desk
    # size: a phone folds the round's progress into a chip).
    setups.show(page, *SIZES["desk"])
    expect(page.get_by_text("Round 2 of 12")).to_be_visible()
    expect(page.locator(".duplicate-progress")).to_be_visible()
    expect(page.locator(".duplicate .duplicate-note")).to_have_count(0)
    _shoot(page, "duplicate-round-2")


def _shoot_scrolled(page: Page, name: str) -> None:
    """The phone once the card is scrolled to its foot, as a thumb leaves it."""
    setups.show(page, *SIZES["phone"])
    page.locator(".scorecard tfoot").evaluate("f => f.scrollIntoView({block: 'end'})")
    page.wait_for_timeout(400)  # the scroll and the browser's transitions end
    page.screenshot(path=str(SCREENS / f"{name}-phone-scrolled.png"))


def test_screens_of_the_table_from_the_thumbs_side(new_page):
    # Your turn, another's turn on a clock, a duplicate round, Share open.
    page = new_page()
    setups.mid_game(page, 3, rounds=4)
    _shoot(page, "thumb-your-turn")
    _shoot_scrolled(page, "thumb-your-turn")
    for size, (width, height) in SIZES.items():
        setups.show(page, width, height)
        page.locator(".share summary").click()
        expect(page.locator(".share-panel")).to_be_visible()
        page.screenshot(path=str(SCREENS / f"thumb-share-open-{size}.png"))
    waiting = new_page()
    setups.clock_waiting(waiting)
    _shoot(waiting, "thumb-other-turn-clock")
    _shoot_scrolled(waiting, "thumb-other-turn-clock")
    dup = new_page()
    setups.duplicate_round_two(dup)
    _shoot(dup, "thumb-duplicate")
    _shoot_scrolled(dup, "thumb-duplicate")
    spanish = new_page(locale="es-ES")
    game = setups.mid_game(spanish, 2, rounds=0)
    spanish.goto(f"/es/g/{game.token}/")
    for size, (width, height) in SIZES.items():
        setups.show(spanish, width, height)
        spanish.locator(".share summary").click()
        expect(spanish.locator(".share-panel")).to_be_visible()
        spanish.screenshot(path=str(SCREENS / f"thumb-share-open-es-{size}.png"))
