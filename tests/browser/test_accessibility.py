"""axe-core over every page, at a desk's and a phone's width, in every
language: no violations. The same visit checks that no page scrolls sideways
on a 375 px phone."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from games.play import services
from games.rules import RULESETS
from games.store.selectors import game_players, game_state
from tests.browser import setups
from tests.live import ROOT

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
            page.wait_for_timeout(100)
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
