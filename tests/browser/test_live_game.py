import re

import pytest
from playwright.sync_api import Page, expect

from games.models import Game
from tests.browser import setups
from tests.live import DaphneProcess

pytestmark = pytest.mark.browser


def version(page: Page) -> int:
    return int(page.locator("#game").get_attribute("data-version") or "")


def wait_past(page: Page, old: int) -> None:
    page.wait_for_function(
        "old => Number(document.getElementById('game').dataset.version) > old", arg=old
    )


def create_game(page: Page, name: str, seats: int = 2) -> str:
    setups.start_from_home(page, name=name, seats=seats)
    expect(page.locator("[data-connection=open]")).to_be_visible()
    return page.locator("#invite-link").input_value()


def join_game(page: Page, invite: str, name: str) -> None:
    page.goto(invite)
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Join as this name").click()
    expect(page.locator("[data-connection=open]")).to_be_visible()


def start(host: Page) -> None:
    # A solitaire table starts by itself; a lobby waits for its host.
    if host.locator("[data-status=lobby]").count():
        host.get_by_role("button", name="Start the game").click()
    expect(host.get_by_role("heading", name="Your turn")).to_be_visible()


def take_turn(page: Page, others: list[Page]) -> None:
    """Roll once, hold the first two dice, roll again, score the first open box."""
    v = version(page)
    page.get_by_role("button", name=re.compile("^Roll")).click()
    wait_past(page, v)
    for other in others:
        wait_past(other, v)
    v = version(page)
    page.keyboard.press("1")
    page.keyboard.press("2")
    expect(page.locator(".die.held")).to_have_count(2)
    # Holds are actions: everyone at the table sees them as they are made.
    for other in others:
        expect(other.locator(".die.held")).to_have_count(2)
        expect(other.locator('.die[data-die="0"]')).to_have_attribute("aria-pressed", "true")
    # R right after the holds: the roll waits for them and keeps those dice.
    page.keyboard.press("r")
    wait_past(page, v + 2)
    expect(page.locator(".die.held")).to_have_count(2)
    v = version(page)
    page.locator("button.box").first.click()
    wait_past(page, v)
    for other in others:
        wait_past(other, v)


def test_two_friends_play_a_whole_game_from_an_invite_link_with_a_spectator_watching(
    new_page, screenshot
):
    ana = new_page()
    bo = new_page(width=375, height=800)
    invite = create_game(ana, "Ana")
    # No language in the link: each friend lands in their own.
    assert re.search(r"^http://[^/]+/g/[\w-]{20,}/$", invite)

    join_game(bo, invite, "Bo")
    expect(ana.locator(".lobby-seats")).to_contain_text("Bo")
    expect(bo.get_by_text("Waiting for the host to start the game.")).to_be_visible()
    ana.get_by_role("button", name="Start the game").click()
    expect(ana.get_by_role("heading", name="Your turn")).to_be_visible()
    expect(bo.get_by_role("heading", name="Ana's turn")).to_be_visible()

    watcher = new_page()
    watcher.goto(invite)
    expect(watcher.get_by_text("You are watching this game")).to_be_visible()
    expect(watcher.get_by_role("button", name=re.compile("^Roll"))).to_have_count(0)

    players = {"Ana": ana, "Bo": bo}
    for turn in range(24):
        mover = ana if turn % 2 == 0 else bo
        other = bo if mover is ana else ana
        take_turn(mover, [other, watcher])
        if turn == 0:
            screenshot(ana, "table-desktop")
            screenshot(bo, "table-phone")
    for page in (*players.values(), watcher):
        expect(page.get_by_role("heading", name="Final scores")).to_be_visible()
        expect(page.locator(".result-line")).to_contain_text(re.compile("wins with|draw"))
    screenshot(ana, "end-desktop")
    game = Game.objects.get(token=invite.rstrip("/").rsplit("/", 1)[1])
    assert game.status == Game.Status.FINISHED
    assert game.moves.filter(kind="score").count() == 24


def test_a_refresh_mid_turn_resumes_exactly_where_the_game_is(new_page):
    ana = new_page()
    create_game(ana, "Ana", seats=1)
    start(ana)
    v = version(ana)
    ana.get_by_role("button", name=re.compile("^Roll")).click()
    wait_past(ana, v)
    ana.locator('.die[data-die="2"]').click()
    wait_past(ana, v + 1)
    dice = [d.get_attribute("aria-label") for d in ana.locator(".die").all()]
    assert dice[2].endswith("held")
    ana.reload()
    expect(ana.locator("[data-connection=open]")).to_be_visible()
    assert [d.get_attribute("aria-label") for d in ana.locator(".die").all()] == dice
    expect(ana.locator(".die.held")).to_have_count(1)
    expect(ana.get_by_role("button", name=re.compile("^Roll again"))).to_contain_text(
        "2 rolls left"
    )
    # Released again: the label says so at once, and so does the server's table.
    ana.locator('.die[data-die="2"]').click()
    expect(ana.locator('.die[data-die="2"]')).not_to_have_attribute("aria-label", dice[2])
    wait_past(ana, v + 2)
    expect(ana.locator(".die.held")).to_have_count(0)


def test_when_the_server_is_killed_mid_turn_the_page_reconnects_and_continues(
    browser, transactional_db
):
    daphne = DaphneProcess().start()
    context = browser.new_context(base_url=daphne.url)
    context.set_default_timeout(15_000)
    try:
        ana = context.new_page()
        create_game(ana, "Ana", seats=1)
        start(ana)
        v = version(ana)
        ana.get_by_role("button", name=re.compile("^Roll")).click()
        wait_past(ana, v)
        dice = [d.get_attribute("aria-label") for d in ana.locator(".die").all()]

        daphne.kill()
        expect(ana.locator("[data-connection=closed]")).to_be_visible()
        # While the server is away nothing can be clicked...
        expect(ana.locator('.die[data-die="0"]')).to_be_disabled()
        expect(ana.get_by_role("button", name=re.compile("^Roll again"))).to_be_disabled()
        daphne = DaphneProcess(port=daphne.port).start()
        expect(ana.locator("[data-connection=open]")).to_be_visible()
        # ... until the socket is back, showing the server's dice as they are.
        expect(ana.locator('.die[data-die="0"]')).to_be_enabled()
        expect(ana.locator(".die.held")).to_have_count(0)
        assert [d.get_attribute("aria-label") for d in ana.locator(".die").all()] == dice
        v = version(ana)
        ana.get_by_role("button", name=re.compile("^Roll again")).click()
        wait_past(ana, v)
        expect(ana.locator(".rolls-left")).to_contain_text("1 roll left")
    finally:
        context.close()
        daphne.stop()
