from __future__ import annotations

from collections.abc import Callable

import pytest

from games.models import Game
from tests import factories

# The fairness tests name their seats g0, g1, ...
GUESTS = tuple(f"g{n}" for n in range(6))


def play_turns(game: Game, turns: int | None = None) -> Game:
    """Play with the game's own dice: roll, reroll all but the first two dice,
    score the first open box. ``None`` plays to the end."""
    return factories.play_turns(game, turns, guests=GUESTS, rolls=2)


def new_started_game(seats: int = 1) -> Game:
    return factories.started_game(seats, guests=GUESTS, host_name="Ana")


@pytest.fixture
def started_game() -> Callable[..., Game]:
    return new_started_game


@pytest.fixture
def finished_game(db: None) -> Game:
    return play_turns(new_started_game(1))
