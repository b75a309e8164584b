"""Play now in the browser: two strangers pressing it on two different
server processes (PostgreSQL + Redis) are seated at one game and play it to
the end, each seeing the other's every move live; a lone one is offered a
bot when the countdown ends, keeps waiting, then plays the bot; leaving is
one press. The screenshots of each screen, at a desk's and a phone's size,
go under artifacts/screens/play-now/ (``YACHT_SHOTS`` names another folder).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from games.models import Game, Player, QueueTicket
from tests.live import ROOT, DaphneProcess

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ.get("YACHT_SHOTS") or ROOT / "artifacts" / "screens" / "play-now")
SIZES = {"1280x800": (1280, 800), "375x812": (375, 812)}
# The countdown of this module's servers: short, so the lone guest's test
# does not wait the public 20 s; the second process keeps the public one.
WAIT_SECONDS = 3
LIMITS = {
    "YACHT_GAMES_PER_HOUR_PER_ADDRESS": "100000",
    "YACHT_GAMES_PACE_PER_ADDRESS": "100000",
    "YACHT_PLAY_NOW_JOINS_PER_ADDRESS": "100000",
}


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker) -> Iterator[DaphneProcess]:
    daphne = DaphneProcess(env={**LIMITS, "YACHT_PLAY_NOW_WAIT_SECONDS": str(WAIT_SECONDS)})
    yield daphne.start()
    daphne.stop()


@pytest.fixture(scope="module")
def other_server(server: DaphneProcess) -> Iterator[DaphneProcess]:
    """A second process on the same database and Redis."""
    if not settings.REDIS_URL:
        pytest.skip(
            "needs REDIS_URL: the in-memory channel layer cannot carry a push from one "
            "process to another (runs in CI's PostgreSQL + Redis pass)"
        )
    daphne = DaphneProcess(env=LIMITS)
    yield daphne.start()
    daphne.stop()


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def press_play_now(page: Page, base: str = "") -> None:
    page.goto(f"{base}/en/")
    page.get_by_role("button", name="Play now").click()


def token_of(page: Page) -> str:
    expect(page).to_have_url(re.compile(r"/g/[\w-]+/$"))
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def version_of(page: Page) -> str:
    return page.locator("#table > .table-inner").get_attribute("data-version") or ""


def play_turn(mover: Page, watcher: Page) -> None:
    """The person to move rolls and scores the first box offered; the other
    page shows the dice of the roll and then the score, pushed."""
    expect(mover.locator("#table > .table-inner[data-my-turn]")).to_be_visible()
    mover.locator("[data-action=roll]").click()
    expect(mover.locator(".dice .die")).to_have_count(5)
    rolled = version_of(mover)
    expect(watcher.locator("#table > .table-inner")).to_have_attribute("data-version", rolled)
    expect(watcher.locator(".dice .die")).to_have_count(5)
    mover.locator("button[data-action=score]").first.click()
    expect(mover.locator("#table > .table-inner")).not_to_have_attribute("data-version", rolled)
    scored = version_of(mover)
    expect(watcher.locator("#table > .table-inner")).to_have_attribute("data-version", scored)


def test_the_home_page_shows_play_now_first_with_the_rule_set_under_it(new_page):
    page = new_page()
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto("/en/")
        door = page.locator(".door-now")
        expect(door.get_by_role("button", name="Play now")).to_be_in_viewport()
        expect(door.get_by_label("Rule set")).to_have_value("yacht")
        shoot(page, f"home-{size}")


def test_two_strangers_on_two_processes_are_paired_and_play_the_game_to_the_end(
    new_page, server, other_server
):
    ben = new_page(width=375, height=812)
    press_play_now(ben, other_server.url)
    expect(ben).to_have_url(re.compile(r"/en/now/wait/$"))
    expect(ben.locator(".play-now-seconds")).to_have_text(re.compile(r"0:(20|19|18)"))
    # The countdown runs in the page.
    expect(ben.locator(".play-now-seconds")).to_have_text(re.compile(r"0:1[0-7]"))
    shoot(ben, "waiting-375x812")
    ben.set_viewport_size({"width": 1280, "height": 800})
    shoot(ben, "waiting-1280x800")
    ben.set_viewport_size({"width": 375, "height": 812})
    ana = new_page(width=1280, height=800)
    press_play_now(ana, server.url)
    token = token_of(ana)
    # Ben's waiting page, on the other process, finds the game by itself.
    assert token_of(ben) == token
    game = Game.objects.get(token=token)
    assert game.status == Game.Status.PLAYING and game.turn_seconds == 30
    assert Player.objects.filter(game=game, bot="").count() == 2
    for page in (ana, ben):
        expect(page.locator("[data-connection=open]")).to_be_visible()
    shoot(ana, "paired-1280x800")
    shoot(ben, "paired-375x812")
    # Ben waited first and has seat 1; every turn, both see it live.
    turns = 2 * 12
    for n in range(turns):
        mover, watcher = (ben, ana) if n % 2 == 0 else (ana, ben)
        play_turn(mover, watcher)
    for page in (ana, ben):
        expect(page.locator(".result-title")).to_contain_text("Final scores")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert set(QueueTicket.objects.values_list("state", "game_id")) == {("paired", game.pk)}


def test_a_lone_guest_is_offered_a_bot_keeps_waiting_then_plays_it(new_page):
    page = new_page(width=1280, height=800)
    press_play_now(page)
    expect(page.locator(".play-now-seconds")).to_be_visible()
    offer = page.locator(".play-now-offer")
    expect(offer).to_contain_text("Nobody has come yet.")
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        shoot(page, f"offer-{size}")
    page.get_by_role("button", name="Keep waiting").click()
    expect(page.locator(".play-now-countdown")).to_have_text(
        "Still looking: you can play a bot at any time."
    )
    expect(offer).to_have_count(0)
    assert QueueTicket.objects.get().state == QueueTicket.State.WAITING
    page.get_by_role("button", name="Play a bot").click()
    token = token_of(page)
    game = Game.objects.get(token=token)
    assert list(Player.objects.filter(game=game).values_list("bot", flat=True)) == ["", "solid"]
    expect(page.locator("[data-connection=open]")).to_be_visible()
    # The guest plays a turn and the bot answers with its own.
    page.locator("[data-action=roll]").click()
    expect(page.locator(".dice .die")).to_have_count(5)
    rolled = int(version_of(page))
    page.locator("button[data-action=score]").first.click()
    # Past the guest's score (one version), the bot's turn, then the guest's again.
    page.wait_for_function(
        """(rolled) => {
            const table = document.querySelector("#table > .table-inner");
            return Number(table.dataset.version) > rolled + 1 && "myTurn" in table.dataset;
        }""",
        arg=rolled,
    )
    assert game.moves.filter(player__bot="solid", kind="score").exists()


def test_leaving_the_queue_is_one_press_and_pairs_nobody(new_page):
    page = new_page()
    press_play_now(page)
    expect(page).to_have_url(re.compile(r"/en/now/wait/$"))
    page.get_by_role("button", name="Leave the queue").click()
    expect(page).to_have_url(re.compile(r"/en/$"))
    expect(page.get_by_role("status")).to_have_text("You have left the Play now queue.")
    assert QueueTicket.objects.get().state == QueueTicket.State.LEFT


def test_the_door_the_waiting_page_and_the_offer_pass_axe_in_every_language(new_page):
    from tests.browser.test_accessibility import violations

    found = {}
    for language in ("en", "es", "it", "ca"):
        page = new_page()
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"/{language}/")
            expect(page.locator(".door-now")).to_be_visible()
            found[f"home {language} {size}"] = violations(page)
        page.locator(".door-now button[type=submit]").click()
        expect(page.locator(".play-now-seconds")).to_be_visible()
        found[f"waiting {language}"] = violations(page)
        expect(page.locator(".play-now-offer")).to_be_visible()
        found[f"offer {language}"] = violations(page)
        page.locator(".play-now-leave button").click()
    assert {name: problems for name, problems in found.items() if problems} == {}
