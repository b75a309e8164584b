import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_live_game import create_game, join_game, start, version, wait_past

pytestmark = pytest.mark.browser


def die_values(page: Page) -> list[str]:
    # "Die 2: 5" in English, "Dau 2: 5" in Catalan: the values are what must survive.
    return [
        (d.get_attribute("aria-label") or "").split(":")[1].strip()[0]
        for d in page.locator(".die").all()
    ]


def test_switching_language_mid_turn_keeps_the_seat_and_the_dice_and_translates_the_controls(
    new_page,
):
    # Ana's browser asks for Italian while she plays on the English page: the
    # switch must follow the page's prefix, not her browser, and land in Catalan.
    ana = new_page(locale="it-IT")
    bo = new_page()
    invite = create_game(ana, "Ana")
    token = invite.rstrip("/").rsplit("/", 1)[1]
    join_game(bo, invite, "Bo")
    start(ana)
    v = version(ana)
    ana.get_by_role("button", name=re.compile("^Roll")).click()
    wait_past(ana, v)
    wait_past(bo, v)
    dice = die_values(ana)
    # A hold made before the switch is the server's: the Catalan page shows it.
    v = version(ana)
    ana.keyboard.press("3")
    wait_past(ana, v)

    ana.get_by_label("Language").select_option("ca")
    expect(ana).to_have_url(re.compile(rf"/ca/g/{token}/$"))
    expect(ana.locator("html")).to_have_attribute("lang", "ca")
    expect(ana.locator("[data-connection=open]")).to_be_visible()
    expect(ana.get_by_role("heading", name="El teu torn")).to_be_visible()
    roll_again = ana.get_by_role("button", name=re.compile("^Torna a tirar"))
    expect(roll_again).to_contain_text("Queden 2 tirades")
    assert die_values(ana) == dice
    expect(ana.locator(".die").first).to_have_attribute("aria-label", re.compile("^Dau 1: "))
    expect(ana.locator(".die.held")).to_have_count(1)
    expect(ana.locator('.die[data-die="2"]')).to_have_class(re.compile("held"))
    expect(ana.locator('.die[data-die="2"] .die-held')).to_have_text("Guardat")

    v = version(ana)
    ana.keyboard.press("3")
    ana.keyboard.press("1")
    expect(ana.locator(".die.held")).to_have_count(1)
    roll_again.click()
    wait_past(ana, v)
    expect(ana.locator(".rolls-left")).to_contain_text("Queda 1 tirada")
    expect(ana.locator("[data-announce]")).to_contain_text("i has tret")
    # Bo's page is untouched by Ana's choice: still English, still waiting.
    wait_past(bo, v)
    expect(bo.get_by_role("heading", name="Ana's turn")).to_be_visible()

    v = version(ana)
    ana.locator("button.box").first.click()
    wait_past(ana, v)
    expect(ana.get_by_role("heading", name="Ara juga Bo")).to_be_visible()
    wait_past(bo, v)
    expect(bo.get_by_role("heading", name="Your turn")).to_be_visible()
