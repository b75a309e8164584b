"""The bots: legal moves only, and perfect play scores what the table promises."""

from __future__ import annotations

import random
import statistics

import pytest

from games.rules import RULESETS, GameState, Roll, Score, apply, new_game, totals
from games.solver import Table
from games.solver.bots import BOTS, Bot, beginner, decide, perfect, solid

KEYS = list(RULESETS)
PERFECT_GAMES = 300


def play(key: str, seats: list[Bot], rng: random.Random) -> GameState:
    """A whole game in which every move goes through the engine, which
    raises on anything illegal."""
    state = new_game(key, len(seats))
    while not state.finished:
        action = seats[state.current](state, rng)
        state = apply(state, state.current, action, rng)
    return state


def final_scores(state: GameState) -> list[int]:
    return [totals(state.ruleset, card).total for card in state.cards]


@pytest.mark.parametrize("key", KEYS)
def test_perfect_play_averages_what_the_table_expects(tables: dict[str, Table], key: str) -> None:
    rng = random.Random(f"perfect-{key}")
    scores = [final_scores(play(key, [perfect], rng))[0] for _ in range(PERFECT_GAMES)]
    mean = statistics.fmean(scores)
    standard_error = statistics.stdev(scores) / len(scores) ** 0.5
    assert abs(mean - tables[key].value(0, 0, False)) < 4 * standard_error


@pytest.mark.parametrize("key", KEYS)
def test_no_bot_makes_an_illegal_move_in_any_seat(tables: dict[str, Table], key: str) -> None:
    rng = random.Random(f"legal-{key}")
    for _ in range(8):
        seats = [BOTS[level] for level in rng.sample(list(BOTS), 3)]
        state = play(key, seats, rng)
        assert all(len(card.boxes) == len(state.ruleset.categories) for card in state.cards)


@pytest.mark.parametrize("key", KEYS)
def test_the_beginner_and_the_solid_bot_play_many_legal_games_and_solid_wins_more(
    key: str,
) -> None:
    rng = random.Random(f"levels-{key}")
    games = [final_scores(play(key, [beginner, solid], rng)) for _ in range(60)]
    beginner_mean = statistics.fmean(g[0] for g in games)
    solid_mean = statistics.fmean(g[1] for g in games)
    assert beginner_mean + 20 < solid_mean


@pytest.mark.parametrize("bot", BOTS.values())
def test_every_bot_starts_its_turn_by_rolling_all_five(tables: dict[str, Table], bot: Bot) -> None:
    assert bot(new_game("classic13", 2), random.Random(1)) == Roll()


@pytest.mark.parametrize("bot", [solid, perfect])
def test_a_yacht_on_the_first_roll_goes_in_the_yacht_box(
    tables: dict[str, Table], bot: Bot
) -> None:
    state = GameState("yacht", (new_game("yacht", 1).cards[0],), dice=(3,) * 5, rolls=1)
    assert bot(state, random.Random(1)) == Score("yacht")


def test_the_beginner_takes_a_big_straight_when_it_sees_one() -> None:
    state = GameState("yacht", (new_game("yacht", 1).cards[0],), dice=(2, 4, 6, 3, 5), rolls=1)
    scored = {beginner(state, random.Random(seed)) for seed in range(40)}
    assert Score("big_straight") in scored
    assert all(isinstance(action, Score) for action in scored)


def test_an_unknown_bot_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        decide("grandmaster", new_game("yacht", 1), random.Random(1))
