from __future__ import annotations

from collections.abc import Callable

import pytest

from games import services
from games.models import Game
from games.rules import Roll, Score
from games.selectors import game_players, game_state


def play_turns(game: Game, turns: int | None = None) -> Game:
    """Play with the game's own dice: roll, reroll all but the first two dice,
    score the first open box. ``None`` plays to the end."""
    played = 0
    while game.status == Game.Status.PLAYING and (turns is None or played < turns):
        guest = f"g{game.current_seat}"
        for action in (Roll(), Roll(frozenset({0, 1}))):
            game = services.game_act(
                token=game.token, guest_id=guest, version=game.version, action=action
            )
        state = game_state(game, game_players(game))
        game = services.game_act(
            token=game.token,
            guest_id=guest,
            version=game.version,
            action=Score(state.allowed_boxes()[0]),
        )
        played += 1
    return game


def new_started_game(seats: int = 1) -> Game:
    game = services.game_create(guest_id="g0", name="Ana", seat_count=seats)
    for i in range(1, seats):
        services.game_join(token=game.token, guest_id=f"g{i}", name=f"P{i}")
    return services.game_start(token=game.token, guest_id="g0")


@pytest.fixture
def started_game() -> Callable[..., Game]:
    return new_started_game


@pytest.fixture
def finished_game(db: None) -> Game:
    return play_turns(new_started_game(1))
