"""Games in a given shape for browser tests, set up through the services as
the host's browser session (a page reload then shows them)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from games.models import Game, Player
from games.play import services
from games.store.selectors import game_players, game_state

NAMES = ["Ana", "Bo", "Carmen", "Dario", "Elena", "Farid"]


def host(page: Page, seats: int, *, ruleset: str = "yacht", hints: bool = False) -> Game:
    """A lobby the page's guest created from the home page."""
    page.goto("/en/")
    page.get_by_label("Your name").fill(NAMES[0])
    page.get_by_label("Seats").select_option(str(seats))
    page.locator(f'input[name=ruleset][value="{ruleset}"]').check()
    if hints:
        page.get_by_label("Allow hints").check()
    page.get_by_role("button", name="Start a game").click()
    expect(page.locator("[data-connection=open]")).to_be_visible()
    token = page.url.rstrip("/").rsplit("/", 1)[-1]
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
    page.goto("/en/")
    page.get_by_label("Your name").fill(NAMES[0])
    page.get_by_label("Seats").select_option("2")
    page.get_by_label("Turn clock").select_option(str(seconds))
    page.get_by_role("button", name="Start a game").click()
    expect(page.locator("[data-connection=open]")).to_be_visible()
    game = Game.objects.get(token=page.url.rstrip("/").rsplit("/", 1)[-1])
    seated = fill(game, 2)
    services.game_start(token=game.token, guest_id=seated[0])
    turn(game, seated[0])
    services.game_roll(token=game.token, guest_id=seated[1], version=game.version)
    game.refresh_from_db()
    return game


def duplicate_round_two(page: Page, *, seats: int = 3, clock: str = "60") -> Game:
    """A duplicate game on a clock in its second round: the others have
    played it, the host has rolled once, last round's results are shown."""
    from games.store.selectors import duplicate_state

    page.goto("/en/")
    page.get_by_label("Your name").fill(NAMES[0])
    page.get_by_label("Seats").select_option(str(seats))
    page.get_by_label("Turn clock").select_option(clock)
    page.get_by_label("Duplicate: everyone plays the same dice at once").check()
    page.get_by_role("button", name="Start a game").click()
    expect(page.locator("[data-connection=open]")).to_be_visible()
    game = Game.objects.get(token=page.url.rstrip("/").rsplit("/", 1)[-1])
    seated = fill(game, seats)
    services.game_start(token=game.token, guest_id=seated[0])

    def play_round(who: list[str]) -> None:
        for guest in who:
            game.refresh_from_db()
            services.game_roll(token=game.token, guest_id=guest, version=game.version)
            game.refresh_from_db()
            players = game_players(game)
            seat = next(p for p in players if p.guest_id == guest)
            view = duplicate_state(game, players, game_state(game, players)).view(seat.order)
            assert view is not None
            services.game_score(
                token=game.token,
                guest_id=guest,
                version=game.version,
                category=view.allowed_boxes()[0],
            )

    play_round(seated)
    play_round(seated[1:])
    game.refresh_from_db()
    services.game_roll(token=game.token, guest_id=seated[0], version=game.version)
    game.refresh_from_db()
    return game
