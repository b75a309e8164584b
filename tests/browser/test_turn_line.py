"""The turn's line says whose turn it is whatever the name: with the longest
name a player may give, in every language, on a desk and on a phone, the
line stays one line, the words around the name are whole and the name
shows (on a phone its end hidden when it must), both while another seat
rolls and above the keypad of real dice."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from games.models import NAME_MAX_LENGTH, Game
from games.play import services
from tests.browser import setups

pytestmark = pytest.mark.browser

# As wide as a name may be: the most letters allowed, none of them narrow,
# and no space to break the line at.
LONG = "Wolfeschlegelsteinhausen"
SIZES = [(375, 812), (1280, 800)]
LANGUAGES = ["en", "es", "it", "ca"]

# What the reader sees of the turn's line: the sentence cut or not, the
# width the name is given, its lines, and whether it stays on the screen.
MEASURE = """() => {
  const title = document.querySelector("#turn-title");
  const words = title.querySelector(".turn-words");
  const name = title.querySelector(".turn-name");
  const box = (e) => e.getBoundingClientRect();
  const stage = box(document.querySelector(".stage"));
  return {
    text: title.textContent.trim().replace(/\\s+/g, " "),
    wordsCut: words.scrollWidth > words.clientWidth + 1,
    nameShown: name ? Math.min(box(name).right, box(words).right) - box(name).left : 0,
    lines: box(words).height / parseFloat(getComputedStyle(words).fontSize),
    inside: box(title).left >= stage.left && box(title).right <= stage.right + 0.5,
    pageWidth: document.scrollingElement.scrollWidth,
  };
}"""


def assert_whole_line(page: Page, width: int, where: str) -> None:
    seen = page.evaluate(MEASURE)
    assert LONG in seen["text"], (where, seen)
    assert not seen["wordsCut"], (where, seen)
    # At least a few letters of the name, whatever the language's words take.
    assert seen["nameShown"] >= 48, (where, seen)
    assert seen["lines"] < 2, (where, seen)
    assert seen["inside"] and seen["pageWidth"] <= width, (where, seen)


def each_view(page: Page, token: str) -> Iterator[tuple[str, int]]:
    """The game's page in each language at each size, past any hand-over."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for language in LANGUAGES:
            page.goto(f"/{language}/g/{token}/")
            expect(page.locator("[data-connection=open]")).to_be_visible()
            ready = page.locator("[data-handover] [data-handover-ready]")
            if ready.count():
                ready.click()
            yield f"{language} {width}x{height}", width


def long_name_rolling(page: Page) -> str:
    """Ana's page, on a turn clock, while the long name has rolled once."""
    token = setups.start_from_home(page, seats=2, turn_seconds=60)
    game = Game.objects.get(token=token)
    services.game_join(token=token, guest_id="long", name=LONG)
    ana = setups.guests(game)[0]
    services.game_start(token=token, guest_id=ana)
    setups.turn(game, ana)
    services.game_roll(token=token, guest_id="long", version=game.version)
    return token


def test_while_the_longest_name_rolls_the_watching_line_names_them_on_one_line(new_page):
    page = new_page()
    token = long_name_rolling(page)
    for where, width in each_view(page, token):
        expect(page.locator(".dice .die")).to_have_count(5)
        expect(page.get_by_role("timer")).to_be_visible()
        assert_whole_line(page, width, where)


def test_above_the_keypad_of_real_dice_the_longest_name_keeps_its_turn_line(new_page):
    page = new_page()
    page.goto("/en/")
    page.locator(".more-options > summary").click()
    page.locator("#id_dice_entered").check()
    page.locator("#id_people").fill(f"{LONG}\nAna")
    page.get_by_role("button", name="Start on this device").click()
    expect(page.locator("[data-connection=open]")).to_be_visible()
    token = page.url.rstrip("/").rsplit("/", 1)[-1]
    for where, width in each_view(page, token):
        expect(page.locator("[data-keypad]")).to_be_visible()
        assert_whole_line(page, width, where)


def test_the_longest_name_is_as_long_as_a_name_may_be():
    assert len(LONG) == NAME_MAX_LENGTH
