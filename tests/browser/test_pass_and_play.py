"""Pass and play in the browser: three people share one page from the home
page's form to the end of the game, each turn behind the screen that asks
for the device to reach its person; and the screenshots of that screen and
of a turn, at a desk's and a phone's size (under artifacts/screens/)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.models import Game, Player
from games.store.selectors import game_players, game_state
from tests.browser import setups
from tests.live import ROOT

pytestmark = pytest.mark.browser

PEOPLE = ["Ana", "Ben", "Cai"]
SCREENS = ROOT / "artifacts" / "screens" / "pass-and-play"
SIZES = {"desk": (1280, 800), "phone": (375, 812)}


def start(page: Page) -> Game:
    """Three people named under "More options", started on this device."""
    page.goto("/en/")
    page.locator(".more-options > summary").click()
    page.locator("#id_people").fill("\n".join(PEOPLE))
    page.get_by_role("button", name="Start on this device").click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]+/$"))
    expect(page.locator("[data-connection=open]")).to_be_visible()
    return Game.objects.get(token=page.url.rstrip("/").rsplit("/", 1)[-1])


def play_turn(page: Page, name: str) -> None:
    """The hand-over for ``name``, tapped, then one roll and the box worth most."""
    screen = page.locator("[data-handover]")
    expect(screen.get_by_role("heading")).to_have_text(f"{name}'s turn")
    # Keys do nothing behind the screen, nor does a button under it reached
    # by Tab: the dice wait for the person.
    page.keyboard.press("r")
    page.locator("[data-action=roll]").dispatch_event("click")
    screen.get_by_role("button", name=f"{name} has it").click()
    expect(screen).to_have_count(0)
    title = page.locator("#turn-title")
    expect(title).to_contain_text(f"{name}'s turn")
    expect(page.locator(".dice .die")).to_have_count(0)
    page.locator("[data-action=roll]").click()
    expect(page.locator(".dice .die")).to_have_count(5)
    # This roll was the turn's first: nothing was rolled from behind the screen.
    expect(page.locator(".button-roll .rolls-left")).to_have_text("2 rolls left")
    page.locator("button[data-action=score]").first.click()


def test_three_people_play_a_whole_game_on_one_page_each_turn_handed_over(new_page):
    page = new_page()
    game = start(page)
    guests = set(Player.objects.filter(game=game).values_list("guest_id", flat=True))
    assert len(guests) == 1 and "" not in guests
    device = guests.pop()
    # The first round and the last are played on the page; the rounds
    # between are played for the device by the server's own verbs (as the
    # page would), so the whole game stays quick.
    for name in PEOPLE:
        play_turn(page, name)
    expect(page.locator("[data-handover]")).to_be_visible()
    rounds = len(game_state(game, game_players(game)).ruleset.categories)
    for _turn in range((rounds - 2) * len(PEOPLE)):
        setups.turn(game, device)
    page.reload()
    for name in PEOPLE:
        play_turn(page, name)
    expect(page.locator(".result-title")).to_contain_text("Final scores")
    places = page.locator(".places .place-name")
    expect(places).to_have_count(3)
    assert sorted(places.all_inner_texts()) == PEOPLE
    # Nobody at a shared device is "you", and the rematch is one button.
    expect(page.locator(".tag-me")).to_have_count(0)
    expect(page.get_by_role("button", name="Rematch")).to_be_visible()


def test_screens_of_the_hand_over_and_of_a_pass_and_play_turn(new_page):
    page = new_page()
    SCREENS.mkdir(parents=True, exist_ok=True)
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto("/en/")
        page.locator(".more-options > summary").click()
        page.locator("#id_people").fill("\n".join(PEOPLE))
        expect(page.locator(".passing-fields")).to_be_visible()
        page.locator(".passing-fields").scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENS / f"form-{size}.png"))
    start(page)
    play_turn(page, "Ana")
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.reload()
        screen = page.locator("[data-handover]")
        expect(screen.get_by_role("button", name="Ben has it")).to_be_focused()
        page.screenshot(path=str(SCREENS / f"handover-{size}.png"))
        screen.get_by_role("button", name="Ben has it").click()
        expect(screen).to_have_count(0)
        page.locator("[data-action=roll]").click()
        expect(page.locator(".dice .die")).to_have_count(5)
        expect(page.locator("button[data-action=score]").first).to_be_visible()
        page.screenshot(path=str(SCREENS / f"turn-{size}.png"))
        # Round on to Ben's next turn for the next size's pictures.
        page.locator("button[data-action=score]").first.click()
        expect(page.locator("[data-handover]")).to_be_visible()
        play_turn(page, "Cai")
        play_turn(page, "Ana")


def test_the_form_and_the_hand_over_pass_axe_in_every_language(new_page):
    from tests.browser.test_accessibility import violations

    page = new_page()
    start(page)
    token = page.url.rstrip("/").rsplit("/", 1)[-1]
    found = {}
    for language in ("en", "es", "it", "ca"):
        for width, height in SIZES.values():
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"/{language}/")
            page.locator(".more-options > summary").click()
            expect(page.locator("#id_people")).to_be_visible()
            found[f"form {language} {width}"] = violations(page)
            page.goto(f"/{language}/g/{token}/")
            expect(page.locator("[data-handover] [data-handover-ready]")).to_be_focused()
            found[f"hand-over {language} {width}"] = violations(page)
    assert {name: problems for name, problems in found.items() if problems} == {}
