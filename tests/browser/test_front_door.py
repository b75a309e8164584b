"""The home page as a visitor meets it: five ways to play, each one press,
the first four inside the first screen of a desk and a phone ("On one
device" too on a desk, right after them on a phone), the settings folded
under "More options" with the defaults they always had, and the name given
last time waiting in its field."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import DailyEntry, Game, Player
from tests.browser import setups

pytestmark = pytest.mark.browser

SIZES = {"desk": (1280, 800), "phone": (375, 812)}
PRIMARY = [
    "Play now",
    "Get an invite link",
    "Beginner",
    "Solid",
    "Perfect",
    "Play today's challenge",
]


def game_of(token: str) -> Game:
    return Game.objects.get(token=token)


def bots_of(game: Game) -> list[str]:
    return [p.bot for p in Player.objects.filter(game=game).order_by("order")]


@pytest.mark.parametrize("size", SIZES)
def test_play_with_friends_opens_a_lobby_with_its_invite_link_in_view(new_page, size):
    width, height = SIZES[size]
    page = new_page(width=width, height=height)
    game = game_of(setups.start_from_home(page, "friends"))
    assert game.status == Game.Status.LOBBY and bots_of(game) == [""]
    invite = page.locator("#invite-link")
    expect(invite).to_be_visible()
    expect(invite).to_have_value(f"{page.url.split('/en/')[0]}/g/{game.token}/")
    box = invite.bounding_box()
    assert box is not None and box["y"] + box["height"] <= height


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("level", ["beginner", "solid", "perfect"])
def test_each_level_of_the_computer_starts_a_game_against_that_bot_at_once(new_page, size, level):
    width, height = SIZES[size]
    page = new_page(width=width, height=height)
    game = game_of(setups.start_from_home(page, level))
    assert game.status == Game.Status.PLAYING and bots_of(game) == ["", level]
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible()
    expect(page.get_by_role("button", name=re.compile("^Roll"))).to_be_enabled()


@pytest.mark.parametrize("size", SIZES)
def test_today_s_challenge_starts_the_day_s_game_from_the_home_page(new_page, size):
    width, height = SIZES[size]
    page = new_page(width=width, height=height)
    token = setups.start_from_home(page, "daily", name="Dora")
    entry = DailyEntry.objects.get(game__token=token)
    assert entry.game.status == Game.Status.PLAYING
    expect(page.locator("[data-connection=open]")).to_be_visible()
    # Back home, the same choice now leads to that game.
    page.goto("/en/")
    page.locator(".door-daily").get_by_role("link", name="Open my game").click()
    expect(page).to_have_url(f"{page.url.split('/en/')[0]}/en/g/{token}/")


@pytest.mark.parametrize(
    ("size", "lang"),
    [("desk", "en"), ("phone", "en"), ("phone", "es"), ("phone", "it"), ("phone", "ca")],
)
def test_every_choice_lies_inside_the_first_screen(new_page, size, lang):
    width, height = SIZES[size]
    page = new_page(width=width, height=height)
    page.goto(f"/{lang}/")
    buttons = page.locator(", ".join(setups.CHOICES.values()))
    expect(buttons).to_have_count(len(setups.CHOICES))
    assert page.evaluate("window.scrollY") == 0
    for i in range(len(setups.CHOICES)):
        box = buttons.nth(i).bounding_box()
        assert box is not None
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (i, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (i, box)
        assert box["height"] >= 44, (i, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if lang == "en":
        for name in PRIMARY:
            expect(page.get_by_role("button", name=name)).to_be_visible()


def test_more_options_is_folded_and_holds_the_defaults_games_always_had(new_page):
    page = new_page(width=1280, height=800)
    page.goto("/en/")
    expect(page.get_by_label("Seats")).to_be_hidden()
    page.get_by_text("More options").click()
    expect(page.get_by_label("Seats")).to_have_value("2")
    expect(page.get_by_label("Turn clock")).to_have_value("0")
    expect(page.get_by_label("Yacht The traditional game")).to_be_checked()
    for box in (
        "Allow hints",
        "Duplicate: everyone plays the same dice at once",
        "Compare with the perfect player",
        "Just watch",
    ):
        expect(page.get_by_label(box)).not_to_be_checked()


def test_every_option_reaches_the_game_the_choice_starts(new_page):
    page = new_page(width=375, height=812)
    token = setups.start_from_home(
        page,
        "friends",
        seats=3,
        ruleset="yatzy",
        turn_seconds=60,
        hints=True,
        duplicate=True,
        perfect_reference=True,
    )
    game = game_of(token)
    assert (game.seat_count, game.ruleset, game.turn_seconds) == (3, "yatzy", 60)
    assert (game.hints, game.duplicate, game.perfect_reference) == (True, True, True)
    assert game.status == Game.Status.LOBBY

    solo = game_of(setups.start_from_home(page, "friends", seats=1, ruleset="classic13"))
    assert (solo.seat_count, solo.ruleset, solo.status) == (1, "classic13", Game.Status.PLAYING)

    watched = game_of(setups.start_from_home(page, "perfect", seats=4, watch=True))
    assert watched.status == Game.Status.PLAYING
    assert bots_of(watched) == ["perfect"] * 4


def test_just_watch_without_a_level_says_where_to_pick_one(new_page):
    page = new_page(width=375, height=812)
    setups.fill_home(page, watch=True)
    page.get_by_role("button", name="Get an invite link").click()
    expect(page.locator(".door-bots")).to_contain_text("Choose which bots should play.")
    expect(page.get_by_label("Just watch")).to_be_checked()


def test_the_name_given_is_waiting_in_its_field_after_a_game(new_page):
    page = new_page(width=375, height=812)
    # A first visit: the field is empty, and a blank name plays as "Player".
    page.goto("/en/")
    expect(page.get_by_label("Your name")).to_have_value("")
    expect(page.get_by_label("Your name")).to_have_attribute("placeholder", "Player")
    expect(page.get_by_label("Your name")).to_have_accessible_description(
        "optional: blank plays as “Player”, or as an animal in Play now"
    )
    token = setups.start_from_home(page, "beginner", name=None)
    assert Player.objects.get(game__token=token, order=0).name == "Player"
    page.goto("/en/")
    expect(page.get_by_label("Your name")).to_have_value("")

    setups.start_from_home(page, "solid", name="Zoë")
    expect(page.locator(".seats")).to_contain_text("Zoë")
    page.goto("/en/")
    expect(page.get_by_label("Your name")).to_have_value("Zoë")
    expect(page.locator(".door-name")).to_contain_text("remembered from last time")
    # One press, no typing: the remembered name plays.
    token = setups.choose(page, "perfect")
    assert Player.objects.get(game__token=token, order=0).name == "Zoë"
    # A friend's invite offers it too.
    lobby = game_of(setups.start_from_home(page, "friends", name="Ana"))
    bo = new_page(width=375, height=812)
    setups.start_from_home(bo, "beginner", name="Bo")
    bo.goto(f"/en/g/{lobby.token}/")
    expect(bo.get_by_label("Your name")).to_have_value("Bo")
    bo.get_by_role("button", name="Join as this name").click()
    expect(bo.locator(".lobby-seats")).to_contain_text("Bo")


def test_without_javascript_each_choice_still_starts_its_game(browser, server, transactional_db):
    context = browser.new_context(
        java_script_enabled=False, base_url=server.url, viewport={"width": 375, "height": 812}
    )
    try:
        page = context.new_page()
        page.goto("/en/")
        page.locator(".more-options > summary").click()
        page.get_by_label("Seats").select_option("3")
        page.get_by_role("button", name="Solid").click()
        game = game_of(page.url.rstrip("/").rsplit("/", 1)[-1])
        assert game.status == Game.Status.PLAYING and bots_of(game) == ["", "solid", "solid"]
        page.goto("/en/")
        page.get_by_role("button", name="Play today's challenge").click()
        assert DailyEntry.objects.filter(game__token=page.url.rstrip("/").rsplit("/", 1)[-1])
        for button, entered in (("Start on this device", False), ("Start with real dice", True)):
            page.goto("/en/")
            page.get_by_label("People", exact=True).select_option("3")
            page.get_by_role("button", name=button).click()
            game = game_of(page.url.rstrip("/").rsplit("/", 1)[-1])
            assert (game.seat_count, game.dice_entered) == (3, entered)
            assert game.status == Game.Status.PLAYING
    finally:
        context.close()


def test_the_keyboard_reaches_every_choice_and_enter_in_the_name_plays_with_friends(new_page):
    page = new_page(width=1280, height=800)
    page.goto("/en/")
    page.get_by_label("Your name").focus()
    reached = []
    for _ in range(12):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.textContent.trim().split(/\\s+/)[0]"))
    for first_word in ("More", "Get", "Beginner", "Solid", "Perfect", "Play"):
        assert first_word in reached, reached
    page.get_by_label("Your name").fill("Kai")
    page.get_by_label("Your name").press("Enter")
    expect(page.locator("#invite-link")).to_be_visible()
    assert Player.objects.get(name="Kai").game.status == Game.Status.LOBBY


def test_the_header_is_as_tall_with_the_no_script_language_button_as_without_it(
    browser, server, transactional_db
):
    # Without a script the language menu needs its "Change" button; with one
    # it has none. Either way the page below starts at the same height.
    tops = {}
    for script in (False, True):
        context = browser.new_context(
            java_script_enabled=script, base_url=server.url, viewport={"width": 375, "height": 812}
        )
        try:
            page = context.new_page()
            page.goto("/en/")
            expect(page.locator(".language-switcher button")).to_be_visible(visible=not script)
            tops[script] = page.locator("main").bounding_box()["y"]
        finally:
            context.close()
    assert tops[True] == tops[False], tops


def people_of(game: Game) -> list[tuple[str, bool]]:
    return [(p.name, p.shared) for p in Player.objects.filter(game=game).order_by("order")]


@pytest.mark.parametrize("size", SIZES)
def test_on_one_device_starts_pass_and_play_in_one_press(new_page, size):
    width, height = SIZES[size]
    page = new_page(width=width, height=height)
    page.goto("/en/")
    token = setups.choose(page, "device")
    game = game_of(token)
    assert game.status == Game.Status.PLAYING and not game.dice_entered
    assert people_of(game) == [("Player 1", True), ("Player 2", True)]
    screen = page.locator("[data-handover]")
    expect(screen.get_by_role("heading")).to_have_text("Player 1's turn")
    screen.get_by_role("button", name="Player 1 has it").click()
    expect(page.locator("[data-action=roll]")).to_be_enabled()


@pytest.mark.parametrize("size", SIZES)
def test_real_dice_start_in_one_press_from_the_same_door(new_page, size):
    width, height = SIZES[size]
    page = new_page(width=width, height=height)
    page.goto("/en/")
    page.locator("#id_name").fill("Ana")
    page.get_by_label("People", exact=True).select_option("3")
    token = setups.choose(page, "real")
    game = game_of(token)
    assert game.dice_entered and game.status == Game.Status.PLAYING
    assert people_of(game) == [("Ana", True), ("Player 2", True), ("Player 3", True)]
    page.locator("[data-handover]").get_by_role("button", name="Ana has it").click()
    expect(page.locator("[data-keypad] [data-face='6']")).to_be_visible()
    expect(page.locator("[data-action=roll]")).to_have_count(0)


@pytest.mark.parametrize(
    ("size", "lang"), [("desk", "en"), ("desk", "ca"), ("phone", "en"), ("phone", "ca")]
)
def test_on_one_device_is_on_a_desk_s_first_screen_and_right_after_the_others_on_a_phone(
    new_page, size, lang
):
    width, height = SIZES[size]
    page = new_page(width=width, height=height)
    page.goto(f"/{lang}/")
    doors = page.locator(".doors > .door")
    expect(doors).to_have_count(5)
    tops = [doors.nth(i).bounding_box()["y"] for i in range(5)]
    # Play now reads first; the new door comes after the daily challenge.
    assert tops[0] == min(tops) and tops[4] == max(tops), tops
    device = page.locator(".door-device")
    for button in device.locator("button, select").all():
        box = button.bounding_box()
        assert box is not None and box["height"] >= 44, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
        if size == "desk":
            assert box["y"] + box["height"] <= height, box
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if size == "phone":
        # One door's height past the other four, and no more.
        door = device.bounding_box()
        daily = page.locator(".door-daily").bounding_box()
        assert door["y"] - (daily["y"] + daily["height"]) <= 12, (door, daily)
        assert door["height"] <= 180, door


def test_real_dice_refused_says_why_in_the_door_brought_into_view(new_page):
    page = new_page(width=375, height=812)
    setups.fill_home(page, turn_seconds=30)
    page.get_by_label("People", exact=True).select_option("4")
    page.get_by_role("button", name="Start with real dice").click()
    door = page.locator(".door-device")
    expect(door.locator(".errorlist")).to_contain_text("choose no clock for real dice")
    count = page.get_by_label("People", exact=True)
    expect(count).to_have_value("4")
    expect(count).to_be_focused()
    expect(count).to_have_accessible_description(re.compile("choose no clock for real dice"))
    # The door and its reason are on screen; the clock that stands in the
    # way waits, shown, under the opened "More options".
    for part in (door.locator(".errorlist"), count):
        box = part.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 812, box
    expect(page.locator("#id_turn_seconds")).to_have_value("30")
    expect(page.locator(".more-options")).to_have_attribute("open", "")
    assert not Game.objects.exists()


def test_the_doors_and_a_refused_start_pass_axe_in_every_language_at_both_sizes(new_page):
    from tests.browser.test_accessibility import violations

    page = new_page()
    found = {}
    for lang in ("en", "es", "it", "ca"):
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"/{lang}/")
            found[f"home {lang} {size}"] = violations(page)
            setups.fill_home(page, lang=lang, name=None, turn_seconds=30)
            page.locator(setups.DEVICE["real"]).click()
            expect(page.locator(".door-device .errorlist")).to_be_visible()
            found[f"refused {lang} {size}"] = violations(page)
    assert {name: problems for name, problems in found.items() if problems} == {}
