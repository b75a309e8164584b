"""Today's daily challenge, played through the pages and found on its
board; and the board once its day is over."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from games.models import DailyChallenge
from games.play import daily
from tests.browser.test_duplicate_game import shoot

pytestmark = pytest.mark.browser


def test_a_player_plays_todays_challenge_and_finds_it_on_the_board(new_page):
    page = new_page()
    page.goto("/en/")
    page.get_by_role("link", name="Today's board").click()
    expect(page.get_by_role("heading", name="Daily challenge")).to_be_visible()
    shoot(page, "daily-challenge")
    page.get_by_label("Your name").fill("Dora")
    page.get_by_role("button", name="Play today's challenge").click()
    expect(page.locator("[data-connection=open]")).to_be_visible()
    for round_ in range(1, 13):
        expect(page.locator(".table-meta")).to_contain_text(f"Round {round_} of 12")
        page.get_by_role("button", name=re.compile("^Roll")).click()
        expect(page.locator(".dice .die")).to_have_count(5)
        page.locator("button.box").first.click()
        if round_ < 12:
            expect(page.locator(".table-meta")).to_contain_text(f"Round {round_ + 1} of 12")
    # One player: the end says the score, not a place or a win.
    expect(page.get_by_role("heading", name=re.compile(r"^Final score \d+$"))).to_be_visible()
    assert page.locator(".seed").count() == 0
    total = page.locator("tfoot .total").first.inner_text()
    page.get_by_role("link", name="See the day's board").click()
    row = page.locator(".daily-board tbody tr", has_text="Dora")
    expect(row).to_contain_text(total)
    assert page.locator(".daily-board a").count() == 0
    expect(page.locator(".daily-proof")).to_contain_text("One entry per browser and per network")
    shoot(page, "daily-board-during-the-day")

    # Another browser on the same network (every page here comes from
    # 127.0.0.1) is told so, and offered an ordinary game instead.
    other = new_page()
    other.goto("/en/daily/")
    expect(other.get_by_role("status")).to_contain_text("already been played from your network")
    expect(other.get_by_label("Your name")).to_have_count(0)
    shoot(other, "daily-challenge-network-entered")
    other.get_by_role("link", name="Play an ordinary game").click()
    expect(other).to_have_url(re.compile(r"/en/$"))

    # The day passes: its board says the points lost and the perfect player's
    # score are being worked out, and tells them once the cleanup has.
    day = daily.today()
    DailyChallenge.objects.filter(day=day).update(day=day - timedelta(days=1))
    page.goto(f"/en/daily/{(day - timedelta(days=1)).isoformat()}/")
    expect(page.locator(".daily-working-out")).to_contain_text("being worked out")
    expect(page.locator(".duplicate-perfect")).to_have_count(0)
    call_command("clean_stale", stdout=StringIO())
    page.reload()
    expect(page.locator(".duplicate-perfect")).to_contain_text("The perfect player scored")
    expect(page.locator(".daily-working-out")).to_have_count(0)
    expect(page.get_by_role("link", name="Review of Dora")).to_be_visible()
    shoot(page, "daily-board-day-over")
    page.goto("/en/daily/")
    expect(page.get_by_role("link", name="Yesterday's board")).to_be_visible()
    shoot(page, "daily-challenge-next-day")
