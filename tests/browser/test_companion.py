"""Real dice in the browser: a Classic 13 solitaire from the home page's
option to the end, every throw tapped or typed in (a Yacht, then a five-alike
the joker sends to its upper box), a kept die, a take-back and a refused
entry that keeps what was typed; then the end's check-the-dice page and the
review saying the dice were entered. A phone's keypad in a four-person
Classic 13 game started from "On one device", on screen with the dice and
"Enter dice" in every language. And the screenshots of the option, a turn
with the keypad and those pages, at a desk's and a phone's size."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import F
from playwright.sync_api import Page, expect

from games.models import Game, Player, ScoreEntry
from games.play import services
from tests.browser import setups
from tests.browser.test_live_game import version, wait_past
from tests.live import ROOT

pytestmark = pytest.mark.browser

SCREENS = ROOT / "artifacts" / "screens" / "companion"
SIZES = {"desk": (1280, 800), "phone": (375, 812)}


def start(page: Page, **settings: Any) -> Game:
    token = setups.start_from_home(page, seats=1, dice_entered=True, **settings)
    expect(page.locator("[data-connection=open]")).to_be_visible()
    return Game.objects.get(token=token)


def slots(page: Page) -> list[str]:
    return page.locator("[data-keypad] [data-slot]").all_inner_texts()


def tap(page: Page, faces: str) -> None:
    for face in faces:
        page.locator(f"[data-keypad] [data-face='{face}']").click()


def enter(page: Page) -> None:
    v = version(page)
    page.locator("[data-keypad-enter]").click()
    wait_past(page, v)


def dice(page: Page) -> list[str]:
    """The faces on the table, from each die's drawing."""
    pips = page.locator(".dice .die .pips")
    return [
        (pips.nth(i).get_attribute("class") or "").rsplit("face-", 1)[1]
        for i in range(pips.count())
    ]


def score(page: Page, box: str) -> None:
    v = version(page)
    page.locator(f'button.box[data-category="{box}"]').click()
    wait_past(page, v)


def throw_and_keep_the_sixes(page: Page) -> None:
    """Type a first throw of 6 6 2 1 3, send it, and keep the two sixes."""
    tap(page, "66213")
    enter(page)
    for index in (0, 1):
        v = version(page)
        page.locator(f'.die[data-die="{index}"]').click()
        wait_past(page, v)


def test_a_classic13_game_of_real_dice_is_entered_scored_and_joker_ruled_to_the_end(new_page):
    page = new_page()
    game = start(page, ruleset="classic13")
    assert game.dice_entered and game.ruleset == "classic13"
    expect(page.locator("[data-action=roll]")).to_have_count(0)
    expect(page.locator("[data-keypad-enter]")).to_be_disabled()

    # A Yacht, tapped in: five quick taps on 5 are five dice.
    tap(page, "55555")
    expect(page.locator("[data-keypad-enter]")).to_be_enabled()
    expect(page.locator("[data-keypad] [data-face='1']")).to_be_disabled()
    enter(page)
    assert dice(page) == ["5"] * 5
    expect(page.locator(".keypad .rolls-left")).to_have_text("2 rolls left")
    score(page, "yacht")

    # A second five-alike, typed: the joker allows its own upper box only, with the bonus.
    page.keyboard.type("55555")
    page.keyboard.press("Enter")
    expect(page.locator("button.box")).to_have_count(1)
    expect(page.locator('button.box[data-category="fives"]')).to_contain_text("125")
    score(page, "fives")
    ana = Player.objects.get(game=game)
    assert ScoreEntry.objects.get(player=ana, category="fives").extra_bonus == 100

    # A throw, one die kept, the rest thrown again: a kept die keeps its face.
    page.keyboard.type("12346")
    page.keyboard.press("Backspace")
    assert slots(page) == ["1", "2", "3", "4", ""]
    page.keyboard.type("3")
    enter(page)
    for index in range(4):
        v = version(page)
        page.locator(f'.die[data-die="{index}"]').click()
        wait_past(page, v)
    expect(page.locator(".keypad-kept")).to_have_count(4)
    tap(page, "5")
    # The server refuses the first try (the table moved on meanwhile) and
    # sends the table as it is: what was typed is still there to send again.
    shown = version(page)
    Game.objects.filter(pk=game.pk).update(version=F("version") + 1)
    page.locator("[data-keypad-enter]").click()
    wait_past(page, shown)
    assert slots(page) == ["1", "2", "3", "4", "5"]
    game.refresh_from_db()
    assert (game.rolls_used, game.dice) == (1, [1, 2, 3, 4, 3])
    enter(page)
    assert dice(page) == ["1", "2", "3", "4", "5"]
    expect(page.locator('button.box[data-category="big_straight"]')).to_contain_text("40")
    score(page, "big_straight")

    # The rounds between are entered for the player by the server's own
    # verbs, as the page sends them; the last is the page's again.
    boxes = [
        "ones",
        "twos",
        "threes",
        "fours",
        "sixes",
        "three_of_a_kind",
        "four_of_a_kind",
        "full_house",
        "little_straight",
    ]
    for box in boxes:
        game.refresh_from_db()
        game = services.game_enter(
            token=game.token, guest_id=ana.guest_id, version=game.version, dice=[2, 2, 3, 3, 3]
        )
        services.game_score(
            token=game.token, guest_id=ana.guest_id, version=game.version, category=box
        )
    page.reload()
    tap(page, "66666")
    enter(page)
    # Sixes filled: the joker sends the five-alike to an open lower box,
    # Chance alone is left, at the dice's sum and the extra yacht bonus.
    expect(page.locator('button.box[data-category="choice"]')).to_contain_text("130")
    score(page, "choice")
    expect(page.locator(".result-title")).to_be_visible()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED

    page.locator(".verify-link").click()
    expect(page.locator(".entered-dice")).to_contain_text("entered these dice from real dice")
    page.go_back()
    page.locator(".review-link").click()
    expect(page.locator(".entered-dice")).to_contain_text("entered by the players")


def test_screens_of_the_option_a_turn_with_the_keypad_and_the_marked_pages(new_page):
    page = new_page()
    SCREENS.mkdir(parents=True, exist_ok=True)
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        setups.fill_home(page, seats=1, dice_entered=True)
        page.locator(".companion-field").scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENS / f"option-{size}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
    game = start(page, ruleset="yacht")
    throw_and_keep_the_sixes(page)
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.reload()
        expect(page.locator(".keypad-kept")).to_have_count(2)
        tap(page, "6")
        page.screenshot(path=str(SCREENS / f"turn-{size}.png"))
    ana = Player.objects.get(game=game)
    for box in [
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
        "full_house",
        "four_of_a_kind",
        "little_straight",
        "big_straight",
        "choice",
        "yacht",
    ]:
        game.refresh_from_db()
        if game.rolls_used == 0:
            game = services.game_enter(
                token=game.token, guest_id=ana.guest_id, version=game.version, dice=[4, 4, 4, 2, 1]
            )
        services.game_score(
            token=game.token, guest_id=ana.guest_id, version=game.version, category=box
        )
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"/en/g/{game.token}/verify/")
        expect(page.locator(".entered-dice")).to_be_visible()
        page.screenshot(path=str(SCREENS / f"verify-{size}.png"))
        page.goto(f"/en/g/{game.token}/review/")
        expect(page.locator(".entered-dice")).to_be_visible()
        page.screenshot(path=str(SCREENS / f"review-{size}.png"))


def test_the_option_and_a_turn_with_the_keypad_pass_axe_in_every_language(
    new_page,
):
    from tests.browser.test_accessibility import violations

    page = new_page()
    game = start(page)
    found = {}
    for language in ("en", "es", "it", "ca"):
        for width, height in SIZES.values():
            page.set_viewport_size({"width": width, "height": height})
            setups.fill_home(page, lang=language, seats=1, dice_entered=True)
            found[f"form {language} {width}"] = violations(page)
            page.goto(f"/{language}/g/{game.token}/")
            expect(page.locator("[data-keypad] [data-face='6']")).to_be_visible()
            tap(page, "61")
            expect(page.locator(".keypad-filled")).to_have_count(2)
            found[f"keypad {language} {width}"] = violations(page)
    assert {name: problems for name, problems in found.items() if problems} == {}


def test_one_phone_passed_round_the_table_enters_each_persons_real_dice_after_the_hand_over(
    new_page,
):
    page = new_page(width=375, height=812)
    page.goto("/en/")
    page.locator(".more-options > summary").click()
    page.locator("#id_dice_entered").check()
    page.locator("#id_people").fill("Ana\nBen")
    page.get_by_role("button", name="Start on this device").click()
    expect(page.locator("[data-connection=open]")).to_be_visible()
    for name, faces, box in [("Ana", "33355", "full_house"), ("Ben", "12345", "little_straight")]:
        screen = page.locator("[data-handover]")
        # Keys typed behind the hand-over screen enter nothing.
        page.keyboard.type("66666")
        screen.get_by_role("button", name=f"{name} has it").click()
        expect(page.locator("#turn-title")).to_contain_text(f"{name}'s turn")
        assert slots(page) == [""] * 5
        tap(page, faces)
        enter(page)
        assert dice(page) == list(faces)
        score(page, box)
    scored = ScoreEntry.objects.filter(player__game__dice_entered=True).order_by("created_at")
    assert [(s.player.name, s.category, s.points) for s in scored] == [
        ("Ana", "full_house", 19),
        ("Ben", "little_straight", 30),
    ]


def test_on_a_phone_the_keypad_the_dice_and_enter_fit_the_screen_in_every_language(new_page):
    from tests.browser.test_phone_table import PINNED

    width, height = SIZES["phone"]
    page = new_page(width=width, height=height)
    setups.fill_home(page, ruleset="classic13")
    page.get_by_label("People", exact=True).select_option("4")
    token = setups.choose(page, "real")
    game = Game.objects.get(token=token)
    assert (game.ruleset, game.seat_count, game.dice_entered) == ("classic13", 4, True)
    expect(page.locator("[data-connection=open]")).to_be_visible()
    page.locator("[data-handover] [data-handover-ready]").click()
    throw_and_keep_the_sixes(page)
    for language in ("en", "es", "it", "ca"):
        page.goto(f"/{language}/g/{token}/")
        ready = page.locator("[data-handover] [data-handover-ready]")
        if ready.count():
            ready.click()
        expect(page.locator(".keypad-kept")).to_have_count(2)
        tap(page, "4")
        assert page.evaluate("scrollY") == 0
        targets = {
            "die": page.locator(".dice .die"),
            "face": page.locator("[data-keypad] [data-face]"),
            "undo": page.locator("[data-keypad-undo]"),
            "enter": page.locator("[data-keypad-enter]"),
            "hint": page.locator("[data-action=hint]"),
        }
        counts = {name: found.count() for name, found in targets.items()}
        assert counts == {"die": 5, "face": 6, "undo": 1, "enter": 1, "hint": 1}, language
        for name, found in [*targets.items(), ("slot", page.locator(".keypad-slot"))]:
            for part in found.all():
                box = part.bounding_box()
                assert box is not None, (language, name)
                assert box["x"] >= 0 and box["x"] + box["width"] <= width, (language, name, box)
                assert box["y"] >= 0 and box["y"] + box["height"] <= height, (language, name, box)
                if name != "slot":
                    assert min(box["width"], box["height"]) >= 44, (language, name, box)
        # The dock keeps to the bottom third, as Roll's does.
        assert page.evaluate(PINNED) <= height / 3, language
        assert page.evaluate("document.scrollingElement.scrollWidth") <= width, language
