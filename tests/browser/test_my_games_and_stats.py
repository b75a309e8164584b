"""A returning guest finds an unfinished game from "My games" and reads
how they play on "My stats", at a desk and on a phone."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page, expect

from games.models import Player
from tests import factories
from tests.browser import setups
from tests.browser.test_clock_and_chat import no_sideways_scroll, shoot

pytestmark = pytest.mark.browser


def create_game(page: Page, name: str) -> str:
    setups.start_from_home(page, name=name)
    expect(page.locator("[data-connection=open]")).to_be_visible()
    return page.locator("#invite-link").input_value()


def test_a_guest_leaves_then_finds_the_unfinished_game_again_and_reads_their_stats(new_page):
    ana = new_page(width=1280, height=800)
    invite = create_game(ana, "Ana")
    guest = Player.objects.get(game__token=invite.rstrip("/").rsplit("/", 1)[1], order=0).guest_id
    # Ana's history: finished games in two rule sets, one in play on her turn.
    guests = (guest, "bo-x", "cy-x")
    for seed in range(4):
        game = factories.started_game(2, guests=guests, host_name="Ana")
        factories.play_turns(game, guests=guests, rng=random.Random(seed))
    solo = factories.started_game(1, guests=guests, host_name="Ana", ruleset="yacht_bonus")
    factories.play_turns(solo, guests=guests, rng=random.Random(7))
    playing = factories.started_game(3, guests=guests, host_name="Ana")

    ana.goto("/en/")
    expect(ana.get_by_role("heading", name="Your unfinished games")).to_be_visible()
    shoot(ana, "home-1280")
    ana.get_by_role("link", name="My games").first.click()
    expect(ana.get_by_role("heading", name="My games")).to_be_visible()
    turn = ana.locator(".my-game-turn")
    expect(turn).to_have_count(1)
    expect(turn).to_contain_text("Your turn")
    expect(ana.get_by_text("Waiting in the lobby: 1 of 2 seats taken")).to_be_visible()
    shoot(ana, "my-games-1280")
    turn.get_by_role("link").click()
    expect(ana).to_have_url(f"{ana.url.split('/en/')[0]}/en/g/{playing.token}/")
    expect(ana.get_by_role("heading", name="Your turn")).to_be_visible()

    ana.goto("/en/my/stats/")
    expect(ana.locator("#stats-yacht")).to_be_visible()
    expect(ana.locator("#stats-yacht ~ .stats-grid dd").first).to_have_text("4")
    expect(ana.locator(".stats-chart svg[role=img]")).to_have_count(2)
    shoot(ana, "my-stats-1280")

    phone = new_page(width=375, height=812)
    phone.context.add_cookies(ana.context.cookies())
    phone.goto("/ca/my/games/")
    expect(phone.get_by_role("heading", name="Les meves partides")).to_be_visible()
    shoot(phone, "my-games-375-ca")
    no_sideways_scroll(phone)
    phone.goto("/ca/my/stats/")
    expect(phone.locator("#stats-yacht")).to_be_visible()
    shoot(phone, "my-stats-375-ca")
    phone.locator(".stats-chart").first.scroll_into_view_if_needed()
    shoot(phone, "my-stats-375-ca-chart", top=False)
    no_sideways_scroll(phone)
    phone.goto("/ca/")
    expect(phone.get_by_role("heading", name="Les teves partides sense acabar")).to_be_visible()
    shoot(phone, "home-375-ca")
    no_sideways_scroll(phone)
