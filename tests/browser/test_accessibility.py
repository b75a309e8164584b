"""axe-core over every page, at a desk's and a phone's width, in every
language: no violations. The same visit checks that no page scrolls sideways
on a 375 px phone. The table's states that only a player's steps reach (the
front door's options, a coached turn, presence, the phone's sheets and every
kind of end) are checked as a player reaches them."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from games.models import Game
from games.play import services
from games.rules import RULESETS
from games.store.selectors import game_players, game_state
from tests.browser import setups
from tests.live import ROOT
from tests.pages.test_daily import BOXES, play_to_the_end

pytestmark = pytest.mark.browser

LANGUAGES = ["en", "es", "it", "ca"]
SIZES = [(1280, 800), (375, 812)]
REPORT = ROOT / "artifacts" / "axe"


def violations(page: Page) -> list[dict[str, object]]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "nodes": [n["target"] for n in v["nodes"]][:5],
            "summary": v["nodes"][0].get("failureSummary", "")[:300],
        }
        for v in results.response["violations"]
    ]


def pages_to_check(page: Page, language: str) -> dict[str, str]:
    """Every kind of page, as the host of each game sees it."""
    lobby = setups.host(page, 3)
    playing = setups.mid_game(page, 2, rounds=1, hints=True)
    finished = setups.finished(page, 2)
    solo = setups.host(page, 1)
    # The host waits while Bo, having rolled, picks a box: previews in his column.
    waiting = setups.mid_game(page, 2, rounds=1)
    guests = setups.guests(waiting)
    open_box = game_state(waiting, game_players(waiting)).allowed_boxes()[0]
    services.game_score(
        token=waiting.token, guest_id=guests[0], version=waiting.version, category=open_box
    )
    waiting.refresh_from_db()
    services.game_roll(token=waiting.token, guest_id=guests[1], version=waiting.version)
    services.game_add_bot(token=lobby.token, guest_id=setups.guests(lobby)[0], level="solid")
    paths = {
        "home": "/",
        "rules": "/rules/",
        **{f"rules-{key}": f"/rules/{key}/" for key in RULESETS},
        "lobby": f"/g/{lobby.token}/",
        "table": f"/g/{playing.token}/",
        "solitaire": f"/g/{solo.token}/",
        "waiting": f"/g/{waiting.token}/",
        "end": f"/g/{finished.token}/",
        "review": f"/g/{finished.token}/review/",
        "verify": f"/g/{finished.token}/verify/",
        "missing": "/g/no-such-game-anywhere/",
    }
    return {name: f"/{language}{path}" for name, path in paths.items()}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_has_no_axe_violations_and_no_sideways_scroll_at_375(new_page, language):
    page = new_page(width=1280, height=800)
    found: dict[str, object] = {}
    too_wide: dict[str, int] = {}
    widths: dict[str, int] = {}
    for name, path in pages_to_check(page, language).items():
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.goto(path)
            if name in ("lobby", "table", "solitaire", "waiting", "end"):
                expect(page.locator("[data-connection=open]")).to_be_visible()
            if name == "table":
                # The advisor open, beside the dice.
                page.get_by_role("button", name=hint_label(language)).click()
                expect(page.locator("[data-hint] .advice")).to_be_visible(timeout=60_000)
            page.wait_for_timeout(100)  # the browser's transitions end before axe reads colours
            problems = violations(page)
            if problems:
                found[f"{name} {width}"] = problems
            scroll_width = page.evaluate("document.scrollingElement.scrollWidth")
            widths[f"{name} {width}"] = scroll_width
            if width == 375 and scroll_width > 375:
                too_wide[name] = scroll_width
    REPORT.mkdir(parents=True, exist_ok=True)
    (REPORT / f"{language}.json").write_text(json.dumps(found, indent=1))
    (REPORT / f"{language}-widths.json").write_text(json.dumps(widths, indent=1))
    assert found == {}
    assert too_wide == {}


def hint_label(language: str) -> str:
    return {"en": "Hint", "es": "Pista", "it": "Suggerimento", "ca": "Pista"}[language]


class Screens:
    """Runs axe on each state the page is brought to, at both sizes (or one)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.found: dict[str, object] = {}
        self.seen: list[str] = []

    def check(self, name: str, sizes: list[tuple[int, int]] = SIZES) -> None:
        for width, height in sizes:
            self.page.set_viewport_size({"width": width, "height": height})
            problems = violations(self.page)
            self.seen.append(f"{name} {width}")
            if problems:
                self.found[f"{name} {width}"] = problems

    def table(self, path: str) -> None:
        self.page.goto(path)
        expect(self.page.locator("[data-connection=open]")).to_be_visible()


def beaten_perfect_player(page: Page) -> Game:
    """A duplicate game with the perfect player, played to its end through
    the services; its score lowered below the host's so the end says so."""
    game = setups.duplicate_with_perfect_played_out(page)
    Game.objects.filter(pk=game.pk).update(perfect_score=0)
    return game


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_screens_a_player_reaches_by_playing_have_no_axe_violations(new_page, language):
    page = new_page(width=1280, height=800)
    screens = Screens(page)
    phone = [(375, 812)]

    page.goto(f"/{language}/")
    page.locator(".more-options > summary").click()
    screens.check("front door, more options")
    page.goto(f"/{language}/daily/")
    screens.check("daily")

    # A guest's first game is coached; a tap on a box name opens its rule.
    solo = setups.start_from_home(page, lang=language, seats=1)
    screens.table(f"/{language}/g/{solo}/")
    page.locator("[data-action=roll]").click()
    expect(page.locator("[data-coach-line]")).to_be_visible()
    screens.check("coached turn")
    page.locator("[popovertarget=box-help-full_house]").click()
    expect(page.locator("[popover]:popover-open")).to_be_visible()
    screens.check("rule of a box", phone)

    # Bo's seat shows his presence (he has no page open: offline).
    duel = setups.mid_game(page, 2, rounds=1)
    screens.table(f"/{language}/g/{duel.token}/")
    expect(page.locator('.seats [data-presence="1"]')).to_have_attribute("data-state", "gone")
    screens.check("presence")
    page.locator(".share summary").click()
    screens.check("share", phone)

    waiting = setups.clock_waiting(page)
    screens.table(f"/{language}/g/{waiting.token}/")
    expect(page.get_by_role("timer")).to_be_visible()
    screens.check("another's turn on a clock")

    duplicate = setups.duplicate_round_two(page)
    screens.table(f"/{language}/g/{duplicate.token}/")
    screens.check("duplicate round")
    page.set_viewport_size({"width": 375, "height": 812})
    page.locator("[data-fold]").click()
    expect(page.locator(".duplicate-results")).to_be_visible()
    screens.check("duplicate round, folded results open", phone)

    # The ends, each with its own line fetched.
    lone = Game.objects.get(token=solo)
    guest = setups.guests(lone)[0]
    for _round in range(12):
        setups.turn(lone, guest)
    screens.table(f"/{language}/g/{solo}/")
    expect(page.locator(".end-review")).to_be_visible()
    screens.check("solitaire end")
    finished = setups.finished(page, 2)
    screens.table(f"/{language}/g/{finished.token}/")
    expect(page.locator(".end-review")).to_be_visible()
    screens.check("two players' end")
    beaten = beaten_perfect_player(page)
    screens.table(f"/{language}/g/{beaten.token}/")
    expect(page.locator(".end-perfect-beaten")).to_be_visible()
    screens.check("beat the perfect player")
    page.goto(f"/{language}/daily/")
    page.locator("#id_name").fill("Dora")
    page.locator(".daily-enter button[type=submit]").click()
    expect(page.locator("[data-connection=open]")).to_be_visible()
    daily = Game.objects.get(token=page.url.rstrip("/").rsplit("/", 1)[-1])
    play_to_the_end(daily, setups.guests(daily)[0], BOXES)
    screens.table(f"/{language}/g/{daily.token}/")
    expect(page.locator(".end-place")).to_be_visible()
    screens.check("daily end")

    page.goto(f"/{language}/my/games/")
    screens.check("my games")
    page.goto(f"/{language}/my/stats/")
    screens.check("my stats")
    REPORT.mkdir(parents=True, exist_ok=True)
    (REPORT / f"{language}-played.json").write_text(json.dumps(screens.found, indent=1))
    assert len(screens.seen) == 27
    assert screens.found == {}
