"""What a player feels at the table: holds, focus, keys, sounds, titles,
the end screen, and alerts that come and go at the right time."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db.models import F
from django.utils import timezone
from playwright.sync_api import Page, expect

from games.models import Game
from games.play import services
from tests.browser import setups
from tests.browser.test_live_game import version, wait_past

pytestmark = pytest.mark.browser


def solitaire(page: Page) -> Game:
    game = setups.host(page, 1)
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible()
    return game


def test_a_double_click_on_roll_rolls_once_and_shows_no_error(new_page):
    page = new_page()
    page.add_init_script(COUNT_SOCKET)
    solitaire(page)
    v = version(page)
    page.get_by_role("button", name=re.compile("^Roll")).dblclick()
    wait_past(page, v)
    # What waits for a push goes out as the push is shown: by now a second
    # roll has been sent, or never will be.
    assert actions_sent(page) == ["roll"]
    assert version(page) == v + 1
    expect(page.locator("[data-error]")).to_be_hidden()


@pytest.mark.parametrize("width, height", [(1280, 800), (375, 812)])
def test_the_first_roll_leaves_the_roll_button_where_it_was(new_page, width, height):
    page = new_page(width=width, height=height)
    solitaire(page)
    roll = page.get_by_role("button", name=re.compile("^Roll"))
    before = roll.bounding_box()
    v = version(page)
    roll.click()
    wait_past(page, v)
    expect(page.locator(".die")).to_have_count(5)
    after = roll.bounding_box()
    assert before and after
    # "Roll" becomes "Roll again": the button may grow, but from where it was.
    assert (after["x"], after["y"], after["height"]) == (before["x"], before["y"], before["height"])
    assert after["width"] >= before["width"]


def test_the_second_click_of_a_double_click_asks_nothing_of_another_control(new_page):
    # The push of the first click's roll lands before the second click, and
    # the second click lands on a die: a double click that straddles a push
    # must not hold a die the player never aimed at.
    page = new_page()
    page.add_init_script(COUNT_SOCKET)
    solitaire(page)
    v = version(page)
    roll = page.get_by_role("button", name=re.compile("^Roll")).bounding_box()
    assert roll
    page.mouse.move(roll["x"] + roll["width"] / 2, roll["y"] + roll["height"] / 2)
    page.mouse.down(click_count=1)
    page.mouse.up(click_count=1)
    wait_past(page, v)
    die = page.locator(".die").first.bounding_box()
    assert die
    page.mouse.move(die["x"] + die["width"] / 2, die["y"] + die["height"] / 2)
    page.mouse.down(click_count=2)
    page.mouse.up(click_count=2)
    # A click is handled as it lands: a hold it asked for would be sent by now.
    assert actions_sent(page) == ["roll"]
    assert version(page) == v + 1
    expect(page.locator(".die.held")).to_have_count(0)
    # A click of its own on the same die holds it.
    page.locator(".die").first.click()
    expect(page.locator(".die.held")).to_have_count(1)
    wait_past(page, v + 1)


def test_an_error_clears_when_the_next_push_arrives(new_page):
    page = new_page()
    solitaire(page)
    # A control the server refuses (no such box): its error shows...
    page.evaluate(
        """() => {
        const b = document.createElement("button");
        b.dataset.action = "score";
        b.dataset.args = '{"category": "no_such_box"}';
        b.id = "bogus";
        document.querySelector(".controls").append(b);
    }"""
    )
    v = version(page)
    page.locator("#bogus").click()
    expect(page.locator("[data-error]")).to_be_visible()
    # ... until the game moves on.
    page.get_by_role("button", name=re.compile("^Roll")).click()
    wait_past(page, v)
    expect(page.locator("[data-error]")).to_be_hidden()


def test_after_the_last_roll_a_keyboard_player_scores_with_one_key(new_page):
    page = new_page()
    solitaire(page)
    presses = 0
    for _ in range(3):
        v = version(page)
        page.keyboard.press("r")
        wait_past(page, v)
    # Focus waits on the box that scores most: Enter scores it.
    focused = page.evaluate("document.activeElement.dataset.category")
    best = page.locator(".box.best").first.get_attribute("data-category")
    assert focused == best
    v = version(page)
    page.keyboard.press("Enter")
    presses += 1
    wait_past(page, v)
    assert presses <= 3
    game = Game.objects.get(token=page.url.rstrip("/").rsplit("/", 1)[-1])
    assert game.moves.filter(kind="score", category=best).exists()
    # The new turn: focus is on the roll button, not lost to the page.
    expect(page.locator("[data-action=roll]")).to_be_focused()


def test_after_an_early_roll_one_tab_reaches_a_box(new_page):
    page = new_page()
    solitaire(page)
    v = version(page)
    page.keyboard.press("r")
    wait_past(page, v)
    expect(page.locator("[data-action=roll]")).to_be_focused()
    presses = 0
    while not page.evaluate("document.activeElement.classList.contains('box')"):
        page.keyboard.press("Tab")
        presses += 1
        assert presses <= 2, page.evaluate("document.activeElement.outerHTML.slice(0, 80)")
    v = version(page)
    page.keyboard.press("Enter")
    wait_past(page, v)
    assert presses + 1 <= 3


def test_focus_stays_on_the_table_after_holds_and_rolls(new_page):
    page = new_page()
    solitaire(page)
    roll = page.get_by_role("button", name=re.compile("^Roll"))
    roll.focus()
    v = version(page)
    page.keyboard.press("Enter")
    wait_past(page, v)
    expect(page.locator("[data-action=roll]")).to_be_focused()
    die = page.locator('.die[data-die="3"]')
    die.focus()
    v = version(page)
    page.keyboard.press("Space")
    wait_past(page, v)
    expect(die).to_be_focused()
    expect(die).to_have_attribute("aria-pressed", "true")
    expect(die).to_have_attribute("aria-label", re.compile("held$"))
    expect(die.locator(".die-held")).to_have_text("Held")
    # Key badges on the dice that can be pressed; none on a watcher's.
    assert page.locator(".die-key").count() == 5
    watcher = new_page()
    watcher.goto(page.url)
    expect(watcher.locator(".die")).to_have_count(5)
    assert watcher.locator(".die-key").count() == 0


def test_the_sound_toggle_is_remembered(new_page):
    page = new_page()
    solitaire(page)
    toggle = page.get_by_role("button", name="Sound")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    page.reload()
    expect(page.get_by_role("button", name="Sound")).to_have_attribute("aria-pressed", "false")


def test_the_tab_title_says_your_turn_when_it_comes(new_page):
    ana, bo = new_page(), new_page()
    game = setups.host(ana, 2)
    services.game_join(token=game.token, guest_id="feel-bo", name="Bo")
    seated = setups.guests(game)
    services.game_start(token=game.token, guest_id=seated[0])
    ana.reload()
    expect(ana).to_have_title("Your turn · Yacht")
    bo.goto(ana.url)
    expect(bo).to_have_title(re.compile("^Round 1 of 12"))
    v = version(ana)
    ana.get_by_role("button", name=re.compile("^Roll")).click()
    wait_past(ana, v)
    v = version(ana)
    ana.locator("button.box").first.click()
    wait_past(ana, v)
    expect(ana).to_have_title(re.compile("^Round 1 of 12"))


def test_the_away_notice_waits_for_the_grace_period(new_page):
    ana, bo = new_page(), new_page()
    from tests.browser.test_live_game import create_game, join_game, start

    # Bo's page keeps the time the test moves: the grace period passes
    # without the test waiting it out.
    bo.clock.install()
    invite = create_game(ana, "Ana")
    join_game(bo, invite, "Bo")
    start(ana)
    expect(bo.get_by_role("heading", name="Ana's turn")).to_be_visible()
    notice = bo.locator("[data-absent-from]")
    ends = float(notice.get_attribute("data-absent-from") or 0)
    # The page looks once a second: at each look up to a second before the
    # period ends the notice stays hidden, and the first look after shows it.
    bo.clock.pause_at(datetime.fromtimestamp(ends - 2, tz=UTC))
    bo.clock.run_for(1000)
    expect(notice).to_be_hidden()
    bo.clock.run_for(2000)
    expect(notice).to_be_visible()
    # Five idle minutes, written behind the server's back: as a new version,
    # or the server would go on showing the version it knows. A page opened
    # now (with Bo's session, on the real time) shows the notice at once.
    Game.objects.filter(token=invite.rstrip("/").rsplit("/", 1)[-1]).update(
        acted_at=timezone.now() - timedelta(minutes=5), version=F("version") + 1
    )
    again = new_page()
    again.context.add_cookies(bo.context.cookies())
    again.goto(bo.url)
    expect(again.locator("[data-absent-from]")).to_be_visible()
    expect(again.get_by_role("button", name="Let a bot play for Ana")).to_be_enabled()


def test_the_end_screen_gives_places_a_trophy_and_the_next_steps(new_page):
    page = new_page()
    setups.finished(page, 3)
    setups.show(page, 1280, 800)
    result = page.locator(".result")
    expect(result.locator("svg.trophy")).to_be_visible()
    assert "🏆" not in page.content()
    totals = [int(t) for t in result.locator(".place-total").all_inner_texts()]
    assert totals == sorted(totals, reverse=True) and len(totals) == 3
    expect(result.locator(".place").first).to_have_class(re.compile("place-winner"))
    names = [b.inner_text() for b in result.locator(".result-actions .button").all()]
    assert names == ["Rematch", "Review the game", "Check the dice", "New game"]


def test_lobby_seats_are_cards_with_avatars_and_free_seats_waiting(new_page):
    page = new_page()
    game = setups.host(page, 4)
    services.game_join(token=game.token, guest_id="feel-bo", name="Bo Li")
    page.reload()
    cards = page.locator(".lobby-seats .seat-card")
    expect(cards).to_have_count(4)
    expect(cards.nth(1).locator("svg.avatar text")).to_have_text("BL")
    expect(page.locator(".seat-free")).to_have_count(2)
    expect(page.get_by_role("button", name="Start the game")).to_be_visible()


# Counts the messages the page sends (and names their actions) and the
# closes its socket sees.
COUNT_SOCKET = """
window.socketLog = { sent: 0, actions: [], closes: [] };
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
    window.socketLog.sent += 1;
    window.socketLog.actions.push(JSON.parse(data).action);
    return send.call(this, data);
};
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
    constructor(...args) {
        super(...args);
        this.addEventListener("close", (event) => window.socketLog.closes.push(event.code));
    }
};
"""


# What a page asks that changes nothing of the game.
READS = ("sync", "presence", "hint", "coach")


def actions_sent(page: Page) -> list[str]:
    """The actions the page has sent that would change the game."""
    return [action for action in page.evaluate("window.socketLog.actions") if action not in READS]


def test_a_player_who_clicks_faster_than_the_server_allows_is_never_cut_off(new_page):
    # The server cuts off a socket past a burst of 30 messages and then 5 a
    # second. Clicks on a die every few hundredths of a second are holds the
    # page sends one at a time, each once the last one's push is in: they go
    # on until the page has sent well past that burst, and the player's last
    # wish must hold.
    page = new_page()
    page.add_init_script(COUNT_SOCKET)
    game = solitaire(page)
    page.get_by_role("button", name=re.compile("^Roll")).click()
    expect(page.locator(".die")).to_have_count(5)
    box = page.locator(".die").first.bounding_box()
    assert box
    clicks = 0
    give_up = timezone.now() + timedelta(seconds=30)
    while page.evaluate("window.socketLog.sent") < 40 and timezone.now() < give_up:
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        clicks += 1
        # Real time on purpose: what is tested is clicks coming faster than
        # the server's own clock lets a socket's messages through.
        page.wait_for_timeout(25)
    wanted = [0] if clicks % 2 else []
    deadline = timezone.now() + timedelta(seconds=20)
    while timezone.now() < deadline:
        game.refresh_from_db()
        if game.held == wanted:
            break
        page.wait_for_timeout(100)  # polled: the server's last hold, whenever it lands
    assert game.held == wanted
    log = page.evaluate("window.socketLog")
    assert log["closes"] == []
    assert log["sent"] >= 40, log
    die = page.locator(".die").first
    expect(die).to_have_attribute("aria-pressed", "true" if wanted else "false")
    expect(page.locator("[data-error]")).to_be_hidden()
    expect(page.locator("[data-connection=open]")).to_be_visible()


def from_the_page_start(page: Page) -> None:
    """The page as it opens: no focus, the next Tab its first stop."""
    page.reload()
    expect(page.locator("[data-connection=open]")).to_be_visible()


def tabs_to_roll(page: Page) -> int | None:
    """Tabs from the page's start until Roll has the focus (None: not within 30)."""
    from_the_page_start(page)
    for presses in range(1, 31):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('[data-action=roll]')"):
            return presses
    return None


@pytest.mark.parametrize("width, height", [(1280, 800), (375, 812)])
def test_the_skip_link_takes_a_keyboard_player_to_roll_from_the_page_start(new_page, width, height):
    page = new_page(width=width, height=height)
    setups.host(page, 1)
    roll = page.locator("[data-action=roll]")
    # Tab alone reaches it too, past the header and the bar's tools: 11 Tabs
    # at a desk and 10 on a phone before the skip link, one more with it;
    # through the link it is one Tab and Enter.
    by_tabs = tabs_to_roll(page)
    assert by_tabs is not None and by_tabs >= 10
    for _roll in range(3):
        from_the_page_start(page)
        page.keyboard.press("Tab")
        skip = page.get_by_role("link", name="Skip to Roll")
        expect(skip).to_be_focused()
        expect(skip).to_be_in_viewport()
        page.keyboard.press("Enter")
        expect(roll).to_be_focused()
        v = version(page)
        page.keyboard.press("Enter")
        wait_past(page, v)
    # No roll left: the first Tab goes to the page's content, not to a Roll that cannot roll.
    expect(roll).to_be_disabled()
    from_the_page_start(page)
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
