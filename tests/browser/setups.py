"""Games in a given shape for browser tests, set up through the services as
the host's browser session (a page reload then shows them)."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from games.models import Game, Player
from games.play import services
from games.store.selectors import game_players, game_state

NAMES = ["Ana", "Bo", "Carmen", "Dario", "Elena", "Farid"]


# The home page's choices inside the first screen of a desk and of a phone:
# Play now, friends, a bot level, or the daily challenge.
CHOICES = {
    "now": ".door-now button[type=submit]",
    "friends": ".door-friends button[type=submit]",
    "beginner": "button[name=opponents][value=beginner]",
    "solid": "button[name=opponents][value=solid]",
    "perfect": "button[name=opponents][value=perfect]",
    "daily": ".door-daily button[type=submit]",
}
# "On one device": inside a desk's first screen, after the others on a phone.
DEVICE = {
    "device": ".door-device button[name=pass_and_play][value='1']",
    "real": ".door-device button[name=pass_and_play][value=real]",
}


def fill_home(
    page: Page,
    *,
    name: str | None = NAMES[0],
    lang: str = "en",
    seats: int | None = None,
    ruleset: str | None = None,
    turn_seconds: int | None = None,
    hints: bool = False,
    duplicate: bool = False,
    perfect_reference: bool = False,
    watch: bool = False,
    dice_entered: bool = False,
) -> None:
    """The home page with a name given and, under "More options" (opened only
    when one is asked for), the settings that differ from the defaults.
    Fields are found by id, so the same steps serve every language."""
    page.goto(f"/{lang}/")
    if name is not None:
        page.locator("#id_name").fill(name)
    ticks = {
        "#id_hints": hints,
        "#id_duplicate": duplicate,
        "#id_perfect_reference": perfect_reference,
        "#id_watch": watch,
        "#id_dice_entered": dice_entered,
    }
    if seats is None and ruleset is None and turn_seconds is None and not any(ticks.values()):
        return
    page.locator(".more-options > summary").click()
    if seats is not None:
        page.locator("#id_seats").select_option(str(seats))
    if ruleset is not None:
        page.locator(f'input[name=ruleset][value="{ruleset}"]').check()
    if turn_seconds is not None:
        page.locator("#id_turn_seconds").select_option(str(turn_seconds))
    for field, tick in ticks.items():
        if tick:
            page.locator(field).check()


def choose(page: Page, choice: str = "friends") -> str:
    """Press one of the home page's choices; the token of the game it opened."""
    page.locator({**CHOICES, **DEVICE}[choice]).click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]+/$"))
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def start_from_home(page: Page, choice: str = "friends", **settings: Any) -> str:
    """A game started from the home page as a player starts one (``fill_home``
    takes the settings); the token of the game."""
    fill_home(page, **settings)
    return choose(page, choice)


def host(page: Page, seats: int, *, ruleset: str = "yacht", hints: bool = False) -> Game:
    """A lobby the page's guest created from the home page."""
    token = start_from_home(page, seats=seats, ruleset=ruleset, hints=hints)
    expect(page.locator("[data-connection=open]")).to_be_visible()
    return Game.objects.get(token=token)


def guests(game: Game) -> list[str]:
    players = Player.objects.filter(game=game).order_by("order")
    return list(players.values_list("guest_id", flat=True))


def fill(game: Game, seats: int) -> list[str]:
    """Every free seat taken by a person (a guest of its own)."""
    for n in range(len(guests(game)), seats):
        services.game_join(token=game.token, guest_id=f"setup-guest-{n}", name=NAMES[n])
    return guests(game)


def turn(game: Game, guest: str) -> None:
    """Roll, keep the most common face, roll again, score the box worth most."""
    game.refresh_from_db()
    services.game_roll(token=game.token, guest_id=guest, version=game.version)
    game.refresh_from_db()
    face = max(set(game.dice), key=game.dice.count)
    hold_and_roll(game, guest, [i for i, d in enumerate(game.dice) if d == face])
    preview = game_state(game, game_players(game)).preview()
    best = max(preview, key=lambda key: preview[key])
    services.game_score(token=game.token, guest_id=guest, version=game.version, category=best)
    game.refresh_from_db()


def hold_and_roll(game: Game, guest: str, keep: list[int]) -> None:
    services.game_hold(token=game.token, guest_id=guest, version=game.version, dice=keep)
    game.refresh_from_db()
    services.game_roll(token=game.token, guest_id=guest, version=game.version)
    game.refresh_from_db()


def mid_game(page: Page, seats: int, *, rounds: int = 5, **options: object) -> Game:
    """``rounds`` rounds played, then the host's turn: one roll, two dice kept."""
    game = host(page, seats, **options)  # type: ignore[arg-type]
    seated = fill(game, seats)
    services.game_start(token=game.token, guest_id=seated[0])
    game.refresh_from_db()
    for _round in range(rounds):
        for guest in seated:
            turn(game, guest)
    services.game_roll(token=game.token, guest_id=seated[0], version=game.version)
    game.refresh_from_db()
    hold_and_roll(game, seated[0], [0, 1])
    return game


def finished(page: Page, seats: int) -> Game:
    game = host(page, seats)
    seated = fill(game, seats)
    services.game_start(token=game.token, guest_id=seated[0])
    game.refresh_from_db()
    while game.status == Game.Status.PLAYING:
        for guest in seated:
            if game.status == Game.Status.PLAYING:
                turn(game, guest)
    return game


def show(page: Page, width: int, height: int) -> None:
    """The page at this size, reloaded, its socket open."""
    page.set_viewport_size({"width": width, "height": height})
    page.reload()
    expect(page.locator("[data-connection=open]")).to_be_visible()


def clock_waiting(page: Page, *, seconds: int = 60) -> Game:
    """Two seats on a turn clock; the host has played and Bo is to move."""
    token = start_from_home(page, seats=2, turn_seconds=seconds)
    expect(page.locator("[data-connection=open]")).to_be_visible()
    game = Game.objects.get(token=token)
    seated = fill(game, 2)
    services.game_start(token=game.token, guest_id=seated[0])
    turn(game, seated[0])
    services.game_roll(token=game.token, guest_id=seated[1], version=game.version)
    game.refresh_from_db()
    return game


def duplicate_turn(game: Game, guest: str) -> None:
    """The guest's turn of a duplicate round: one roll, then its first open box."""
    from games.store.selectors import duplicate_state

    game.refresh_from_db()
    services.game_roll(token=game.token, guest_id=guest, version=game.version)
    game.refresh_from_db()
    players = game_players(game)
    seat = next(p for p in players if p.guest_id == guest)
    view = duplicate_state(game, players, game_state(game, players)).view(seat.order)
    assert view is not None
    services.game_score(
        token=game.token, guest_id=guest, version=game.version, category=view.allowed_boxes()[0]
    )


def duplicate_with_perfect_played_out(page: Page) -> Game:
    """A two-seat duplicate game with the perfect player alongside, started
    from the home page shown in ``page`` and played to its end through the
    services."""
    token = start_from_home(page, seats=2, duplicate=True, perfect_reference=True)
    game = Game.objects.get(token=token)
    seated = fill(game, 2)
    services.game_start(token=game.token, guest_id=seated[0])
    game.refresh_from_db()
    while game.status == Game.Status.PLAYING:
        for guest in seated:
            duplicate_turn(game, guest)
        game.refresh_from_db()
    return game


def duplicate_round_two(page: Page, *, seats: int = 3, clock: int = 60) -> Game:
    """A duplicate game on a clock in its second round: the others have
    played it, the host has rolled once, last round's results are shown."""
    token = start_from_home(page, seats=seats, turn_seconds=clock, duplicate=True)
    expect(page.locator("[data-connection=open]")).to_be_visible()
    game = Game.objects.get(token=token)
    seated = fill(game, seats)
    services.game_start(token=game.token, guest_id=seated[0])
    for guest in [*seated, *seated[1:]]:
        duplicate_turn(game, guest)
    game.refresh_from_db()
    services.game_roll(token=game.token, guest_id=seated[0], version=game.version)
    game.refresh_from_db()
    return game
