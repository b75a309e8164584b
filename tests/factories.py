"""Games in the shapes tests need, built through the services as players
would build them. One set for every layer's tests; the socket tests wrap them
in ``sync_to_async``.

Seats are taken by ``GUESTS`` in order (the host is "ana") unless a test
names its own guests.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from django.test import TestCase

from games.models import Game
from games.play import services
from games.rules import Roll, Score
from games.store.selectors import game_players, game_state

GUESTS = ("ana", "bo", "cy", "di", "ed", "flo")


def lobby_game(
    seats: int = 2,
    *,
    joined: int | None = None,
    guests: Sequence[str] = GUESTS,
    ruleset: str = "yacht",
    hints: bool = False,
    bot_level: str = "",
    host_name: str = "",
) -> Game:
    """A game in its lobby, its host and the next ``joined - 1`` guests seated
    (every seat, unless ``joined`` says fewer; with ``bot_level``, bots fill
    the seats nobody joined)."""
    game = services.game_create(
        guest_id=guests[0],
        name=host_name or guests[0].title(),
        seat_count=seats,
        ruleset=ruleset,
        hints=hints,
        bot_level=bot_level,
    )
    people = 1 if bot_level else seats if joined is None else joined
    for guest in guests[1:people]:
        services.game_join(token=game.token, guest_id=guest, name=guest.title())
    game.refresh_from_db()
    return game


def started_game(seats: int = 2, *, guests: Sequence[str] = GUESTS, **lobby: Any) -> Game:
    """A game just started by its host, every seat taken."""
    game = lobby_game(seats, guests=guests, **lobby)
    return services.game_start(token=game.token, guest_id=guests[0])


def play_turn(
    game: Game,
    *,
    guests: Sequence[str] = GUESTS,
    rng: random.Random | None = None,
    rolls: int = 1,
) -> Game:
    """The seat to move rolls ``rolls`` times (keeping the first two dice on
    rerolls) and scores the first box it may; a bot's seat takes its step."""
    game.refresh_from_db()
    if game_players(game)[game.current_seat].bot:
        return services.game_bot_step(token=game.token, version=game.version)
    guest = guests[game.current_seat]
    for n in range(rolls):
        game = services.game_act(
            token=game.token,
            guest_id=guest,
            version=game.version,
            action=Roll(frozenset({0, 1}) if n else frozenset()),
            rng=rng,
        )
    box = game_state(game, game_players(game)).allowed_boxes()[0]
    return services.game_act(
        token=game.token, guest_id=guest, version=game.version, action=Score(box), rng=rng
    )


def play_turns(
    game: Game,
    turns: int | None = None,
    *,
    guests: Sequence[str] = GUESTS,
    rng: random.Random | None = None,
    rolls: int = 1,
) -> Game:
    """``turns`` turns of ``play_turn`` (bots' steps included); None plays to the end."""
    played = 0
    while game.status == Game.Status.PLAYING and (turns is None or played < turns):
        game = play_turn(game, guests=guests, rng=rng, rolls=rolls)
        played += 1
    return game


def played_out(game: Game, **turns: Any) -> Game:
    """``game`` played to the end (``play_turns``) as a server plays it,
    with what follows each commit run: the pushes, and once the game ends
    each person's points lost kept on their seat."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return play_turns(game, **turns)


def rolled_game(seats: int = 2, **lobby: Any) -> Game:
    """A started game whose first player has rolled once and may now score."""
    game = started_game(seats, **lobby)
    game = services.game_act(
        token=game.token, guest_id=GUESTS[0], version=game.version, action=Roll()
    )
    game.refresh_from_db()
    return game
