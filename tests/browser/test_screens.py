"""Screenshots of every screen a player meets, at a desk's and a phone's size.

CI keeps ``artifacts/screens/<label>/`` (label from ``YACHT_SCREENS``, "after"
by default) so a change to the table can be judged by looking at it. Games
are set up through the services, as the host's browser session, then shown
by reloading the page.
"""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.models import Game, Player
from games.rules import DEFAULT_RULESET
from tests.live import ROOT

pytestmark = pytest.mark.browser

SCREENS = ROOT / "artifacts" / "screens" / os.environ.get("YACHT_SCREENS", "after")
SIZES = {"desk": (1280, 800), "phone": (375, 812)}
NAMES = ["Ana", "Bo", "Carmen", "Dario"]


def _host(page: Page, seats: int) -> Game:
    page.goto("/en/")
    page.get_by_label("Your name").fill(NAMES[0])
    page.get_by_label("Seats").select_option(str(seats))
    page.get_by_role("button", name="Start a game").click()
    expect(page.locator("[data-connection=open]")).to_be_visible()
    token = page.url.rstrip("/").rsplit("/", 1)[-1]
    return Game.objects.get(token=token)


def _guests(game: Game) -> list[str]:
    return list(
        Player.objects.filter(game=game).order_by("order").values_list("guest_id", flat=True)
    )


def _fill(game: Game, seats: int) -> list[str]:
    for n in range(1, seats):
        services.game_join(token=game.token, guest_id=f"screens-guest-{n}", name=NAMES[n])
    return _guests(game)


def _turn(game: Game, guest: str) -> None:
    """Roll, keep the most common face, roll again, score the best box."""
    game.refresh_from_db()
    services.game_roll(token=game.token, guest_id=guest, version=game.version)
    game.refresh_from_db()
    face = max(set(game.dice), key=game.dice.count)
    keep = [i for i, d in enumerate(game.dice) if d == face]
    _hold_and_roll(game, guest, keep)
    from games.selectors import game_players, game_state

    state = game_state(game, game_players(game))
    preview = state.preview()
    best = max(preview, key=lambda key: preview[key])
    services.game_score(token=game.token, guest_id=guest, version=game.version, category=best)
    game.refresh_from_db()


def _hold_and_roll(game: Game, guest: str, keep: list[int]) -> None:
    hold = getattr(services, "game_hold", None)
    if hold is not None:
        for index in keep:
            game.refresh_from_db()
            hold(token=game.token, guest_id=guest, version=game.version, die=index)
        game.refresh_from_db()
        services.game_roll(token=game.token, guest_id=guest, version=game.version)
    else:
        services.game_roll(token=game.token, guest_id=guest, version=game.version, hold=keep)
    game.refresh_from_db()


def _shoot(page: Page, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.reload()
        expect(page.locator("[data-connection=open]")).to_be_visible()
        page.wait_for_timeout(400)
        page.screenshot(path=str(SCREENS / f"{name}-{size}.png"))
        page.screenshot(path=str(SCREENS / f"{name}-{size}-full.png"), full_page=True)


@pytest.mark.parametrize("seats", [2, 4])
def test_screens_of_a_table_in_the_middle_of_a_game(new_page, seats):
    page = new_page()
    game = _host(page, seats)
    guests = _fill(game, seats)
    services.game_start(token=game.token, guest_id=guests[0])
    game.refresh_from_db()
    for _round in range(5):
        for guest in guests:
            _turn(game, guest)
    # The host's turn, one roll made and two dice kept.
    services.game_roll(token=game.token, guest_id=guests[0], version=game.version)
    game.refresh_from_db()
    _hold_and_roll(game, guests[0], [0, 1])
    _shoot(page, f"table-{seats}p")


def test_screens_of_a_lobby(new_page):
    page = new_page()
    game = _host(page, 4)
    services.game_join(token=game.token, guest_id="screens-guest-1", name=NAMES[1])
    services.game_add_bot(token=game.token, guest_id=_guests(game)[0], level="solid")
    _shoot(page, "lobby")


def test_screens_of_the_end_of_a_game(new_page):
    page = new_page()
    game = _host(page, 3)
    guests = _fill(game, 3)
    services.game_start(token=game.token, guest_id=guests[0])
    game.refresh_from_db()
    while game.status == Game.Status.PLAYING:
        for guest in guests:
            if game.status == Game.Status.PLAYING:
                _turn(game, guest)
    assert game.ruleset == DEFAULT_RULESET
    _shoot(page, "end")
