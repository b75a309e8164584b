"""What the review of a finished game costs, against replaying its moves.

    .venv/bin/python -m bench.review [--games 150] [--rounds 5] [--rulesets yacht,classic13]

A game's end reviews every person's decisions on a game's thread
(``games.store.records.keep_losses``), holding the interpreter's lock
while it works. For each rule set, ``--games`` seeded two-seat games of
random play (each roll holds a random set of dice, about two rolls in
three are followed by another, each score goes in a random open box) are
reviewed by ``games.solver.review.review`` for both seats. Reported per
game, each the median of ``--rounds`` turns of CPU time:

- the floor: the same call judging nobody, which only replays the moves
  through the rules engine, as every review does first;
- warm: every state's turn already in the table's cache;
- cold: the cache emptied before each game, as for a game whose states no
  game has reached lately (the table's cache keeps the last 512);

and each as a ratio to the floor, which is what compares across machines.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from games.rules import MAX_ROLLS, Roll, Score, ScriptedDice, apply, new_game
from games.solver import get_table
from games.solver.review import LoggedMove, review

SEATS = 2


def random_game(ruleset_key: str, rng: random.Random) -> list[LoggedMove]:
    """One game of random play, as the move log records it."""
    state = new_game(ruleset_key, SEATS)
    moves: list[LoggedMove] = []
    while not state.finished:
        seat = state.current
        if state.rolls == 0 or (state.rolls < MAX_ROLLS and rng.random() < 2 / 3):
            held = frozenset(i for i in range(5) if state.rolls and rng.random() < 0.5)
            dice = [rng.randint(1, 6) for _ in range(5 - len(held))]
            state = apply(state, seat, Roll(held), ScriptedDice(dice))
            moves.append(LoggedMove(seat, "roll", held=tuple(sorted(held)), dice=tuple(state.dice)))
        else:
            box = rng.choice(state.allowed_boxes())
            state = apply(state, seat, Score(box), ScriptedDice(()))
            moves.append(LoggedMove(seat, "score", category=box))
    return moves


def per_game_ms(
    one: Callable[[list[LoggedMove]], float], played: list[list[LoggedMove]], rounds: int
) -> float:
    """CPU milliseconds a game: the median of ``rounds`` turns over every game."""
    return statistics.median(sum(map(one, played)) for _ in range(rounds)) / len(played) * 1e3


def measure(ruleset_key: str, games: int, rounds: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    played = [random_game(ruleset_key, rng) for _ in range(games)]
    table = get_table(ruleset_key)

    def timed(moves: list[LoggedMove], judged: list[int] | None = None) -> float:
        start = time.process_time()
        review(table, SEATS, moves, judged)
        return time.process_time() - start

    def warm(moves: list[LoggedMove]) -> float:
        review(table, SEATS, moves)  # the game's states in the cache
        return timed(moves)

    def cold(moves: list[LoggedMove]) -> float:
        table.turn.cache_clear()
        return timed(moves)

    return {
        "floor": per_game_ms(lambda moves: timed(moves, []), played, rounds),
        "warm": per_game_ms(warm, played, rounds),
        "cold": per_game_ms(cold, played, rounds),
        "moves": sum(map(len, played)) / games,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rulesets", default="yacht,classic13")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    for key in args.rulesets.split(","):
        f = measure(key, args.games, args.rounds, args.seed)
        print(
            f"{key:>10}: {f['moves']:.0f} moves a game; floor {f['floor']:.2f} ms, "
            f"warm {f['warm']:.2f} ms ({f['warm'] / f['floor']:.1f}x), "
            f"cold {f['cold']:.2f} ms ({f['cold'] / f['floor']:.1f}x)"
        )


if __name__ == "__main__":
    main()
