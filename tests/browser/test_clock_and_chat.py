"""Two friends at a table with a 30-second clock, chatting across
languages: the countdown on every page, quick phrases in each reader's
words, free text as typed, and chat hidden for one player only."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from games.models import Game
from tests.browser import setups
from tests.live import ROOT

pytestmark = pytest.mark.browser

SCREENS = ROOT / "artifacts" / "screens"


def shoot(page: Page, name: str, *, top: bool = True) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    if top:
        page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(Path(SCREENS) / f"{name}.png"), full_page=False)


def no_sideways_scroll(page: Page) -> None:
    viewport = page.viewport_size
    assert viewport is not None
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"], width


def test_two_friends_play_on_a_clock_and_chat_each_in_their_own_language(new_page):
    ana = new_page(width=1280, height=800)
    setups.start_from_home(ana, turn_seconds=30)
    expect(ana.locator("[data-connection=open]")).to_be_visible()
    # Invite links carry no language: each friend opens it in their own.
    invite = urlsplit(ana.locator("#invite-link").input_value()).path
    ana.goto(f"/ca{invite}")

    bo = new_page(width=375, height=812)
    bo.goto(f"/it{invite}")
    bo.locator("#id_name").fill("Bo")
    bo.locator("form.join button[type=submit]").click()
    expect(bo.locator("[data-connection=open]")).to_be_visible()
    expect(ana.locator(".lobby-seats")).to_contain_text("Bo")
    ana.locator('[data-action="start"]').click()

    # The clock counts down on both pages, and a spectator's too.
    for page in (ana, bo):
        expect(page.get_by_role("timer")).to_be_visible()
    timer = ana.get_by_role("timer")
    first = timer.inner_text()
    assert first.startswith("0:"), first
    expect(timer).not_to_have_text(first)
    assert timer.inner_text() < first, first

    # Ana's quick phrase reaches Bo in Italian; her text as she typed it.
    # The phrases and reactions wait folded under the message line.
    expect(ana.locator(".chat-quick").first).to_be_hidden()
    ana.locator(".chat-more > summary").click()
    ana.locator('.chat-quick [data-args*="good_game"]').click()
    expect(ana.locator(".chat-log")).to_contain_text("Bona partida!")
    expect(bo.locator(".chat-log")).to_contain_text("Bella partita!")
    ana.locator("#chat-text").fill("<b>som-hi</b>")
    ana.locator("#chat-text").press("Enter")
    expect(bo.locator(".chat-log")).to_contain_text("<b>som-hi</b>")
    assert bo.locator(".chat-log b").count() == 0
    bo.locator(".chat-more > summary").click()
    bo.locator('.chat-quick [data-args*="heart"]').click()
    expect(ana.locator(".chat-log [role=img]")).to_have_count(1)
    # Typing in the chat never rolls the dice (R is the roll key).
    assert ana.locator(".die").count() == 0

    watcher = new_page(width=1280, height=800)
    watcher.goto(invite)
    expect(watcher.get_by_role("timer")).to_be_visible()
    expect(watcher.locator(".chat-log")).to_contain_text("Good game!")

    shoot(ana, "table-clock-chat-1280-ca")
    shoot(bo, "table-clock-375-it")
    shoot(watcher, "table-clock-chat-1280-spectator-en")
    bo.locator(".chat-panel").scroll_into_view_if_needed()
    shoot(bo, "table-chat-375-it", top=False)
    for page in (ana, bo, watcher):
        no_sideways_scroll(page)

    # On Bo's phone the chat is below the table: a line said there is pointed at.
    bo.evaluate("window.scrollTo(0, 0)")
    ana.locator("#chat-text").fill("a te!")
    ana.locator("#chat-text").press("Enter")
    expect(bo.locator("[data-chat-jump]")).to_be_visible()
    shoot(bo, "table-chat-jump-375-it", top=False)
    bo.locator("[data-chat-jump]").click()
    expect(bo.locator("[data-chat-jump]")).to_be_hidden()
    expect(bo.locator(".chat-log")).to_contain_text("a te!")

    # Bo hides the chat; it stays hidden for him after a refresh, not for Ana.
    bo.locator("[data-chat-toggle]").click()
    expect(bo.locator(".chat-log")).to_be_hidden()
    bo.reload()
    expect(bo.locator("[data-connection=open]")).to_be_visible()
    expect(bo.locator(".chat-log")).to_be_hidden()
    expect(bo.locator("[data-chat-toggle]")).to_have_attribute("aria-expanded", "false")
    expect(ana.locator(".chat-log")).to_be_visible()
    # What is said while his chat is hidden is counted on its button.
    ana.locator('.chat-quick [data-args*="nice_roll"]').click()
    expect(bo.locator("[data-chat-toggle]")).to_have_text(re.compile(r"\(1\)$"))
    bo.locator("[data-chat-toggle]").click()
    expect(bo.locator(".chat-log")).to_contain_text("Bel lancio!")


def test_when_the_clock_runs_out_the_bot_plays_that_turn_and_the_player_plays_the_next(
    new_page,
):
    ana = new_page(width=1280, height=800)
    setups.start_from_home(ana, turn_seconds=30)
    expect(ana.locator("[data-connection=open]")).to_be_visible()
    invite = ana.locator("#invite-link").input_value()
    bo = new_page(width=375, height=812)
    bo.goto(invite)
    bo.get_by_label("Your name").fill("Bo")
    bo.get_by_role("button", name="Join as this name").click()
    expect(ana.locator(".lobby-seats")).to_contain_text("Bo")
    # Three seconds instead of thirty, so the test does not wait.
    Game.objects.filter(token=invite.rstrip("/").rsplit("/", 1)[1]).update(turn_seconds=3)
    ana.get_by_role("button", name="Start the game").click()
    expect(ana.get_by_role("heading", name="Your turn")).to_be_visible()
    expect(ana.locator(".turn-clock-low")).to_be_visible()
    shoot(ana, "table-clock-low-1280")
    # Ana does nothing: the bot plays her turn, and it is Bo's, on his clock.
    expect(bo.get_by_role("heading", name="Your turn")).to_be_visible(timeout=15_000)
    expect(bo.get_by_role("timer")).to_be_visible()
    # The bot has left Ana her seat: nothing to take back.
    expect(ana.get_by_role("button", name="Take my seat back")).to_have_count(0)
    # Bo's clock runs out too; Ana's next turn is hers to play, on a full clock.
    expect(ana.get_by_role("heading", name="Your turn")).to_be_visible(timeout=15_000)
    expect(ana.get_by_role("timer")).to_be_visible()
    ana.get_by_role("button", name=re.compile("^Roll")).click()
    expect(ana.locator(".dice .die")).to_have_count(5)
