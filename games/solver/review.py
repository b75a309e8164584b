"""After a game: every decision a seat made, priced against optimal play.

A decision is what a player chose after seeing dice: which dice to hold for
another roll, or which box to score in (which also means not rolling again).
Its cost is the expected final score of the best choice minus that of the
choice made, both read from the rule set's table. Each seat is judged on its
own card: the table maximises a player's own expected total.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from games.rules import MAX_ROLLS, GameState, Roll, Score, ScriptedDice, apply, new_game

from .advice import evaluate_boxes, keep_values
from .table import Table

# Differences below this are rounding, not a mistake.
NOISE = 1e-6


@dataclass(frozen=True)
class LoggedMove:
    """One roll or score from the move log, as the server recorded it."""

    seat: int
    kind: str  # "roll" or "score"
    held: tuple[int, ...] = ()
    dice: tuple[int, ...] = ()
    category: str = ""


@dataclass(frozen=True)
class Decision:
    seat: int
    round: int
    dice: tuple[int, ...]
    # ("hold", dice values kept) or ("score", category key)
    chosen: tuple[str, tuple[int, ...] | str]
    best: tuple[str, tuple[int, ...] | str]
    chosen_value: float
    best_value: float

    @property
    def cost(self) -> float:
        return max(0.0, self.best_value - self.chosen_value)


def _options(
    table: Table, state: GameState
) -> tuple[dict[tuple[int, ...], float], dict[str, float]]:
    """Every hold (by the dice values kept) and every allowed box, with its value."""
    card = state.cards[state.current]
    holds = keep_values(table, card, state.dice, state.rolls) if state.rolls < MAX_ROLLS else {}
    return holds, evaluate_boxes(table, card, state.dice)


def _best(
    holds: dict[tuple[int, ...], float], boxes: dict[str, float]
) -> tuple[tuple[str, tuple[int, ...] | str], float]:
    box = max(boxes, key=boxes.__getitem__)
    best: tuple[tuple[str, tuple[int, ...] | str], float] = (("score", box), boxes[box])
    for kept, value in holds.items():
        if value > best[1] + NOISE:
            best = (("hold", kept), value)
    return best


def review(
    table: Table, seats: int, moves: Iterable[LoggedMove], judged: Sequence[int] | None = None
) -> list[Decision]:
    """Replay a game's rolls and scores and price each decision of the ``judged`` seats."""
    state = new_game(table.ruleset.key, seats)
    judged_seats = set(range(seats) if judged is None else judged)
    decisions: list[Decision] = []
    for move in moves:
        deciding = state.rolls > 0 and move.seat in judged_seats
        if deciding:
            holds, boxes = _options(table, state)
            best, best_value = _best(holds, boxes)
        if move.kind == "roll":
            kept = tuple(sorted(state.dice[i] for i in move.held))
            if deciding:
                chosen: tuple[str, tuple[int, ...] | str] = ("hold", kept)
                chosen_value = holds[kept]
            rerolled = [d for i, d in enumerate(move.dice) if i not in set(move.held)]
            next_state = apply(state, move.seat, Roll(frozenset(move.held)), ScriptedDice(rerolled))
            if tuple(next_state.dice) != tuple(move.dice) or Counter(kept) != Counter(
                next_state.dice[i] for i in move.held
            ):
                raise ValueError(f"the log's roll {move} does not follow from the state before it")
        else:
            if deciding:
                chosen = ("score", move.category)
                chosen_value = boxes[move.category]
            next_state = apply(state, move.seat, Score(move.category), ScriptedDice(()))
        if deciding:
            decisions.append(
                Decision(
                    seat=move.seat,
                    round=state.turn,
                    dice=tuple(state.dice),
                    chosen=chosen,
                    best=best,
                    chosen_value=chosen_value,
                    best_value=best_value,
                )
            )
        state = next_state
    return decisions


# Choices that cost less than this are as good as optimal, for a person.
MISTAKE = 0.5


@dataclass(frozen=True)
class SeatReview:
    """One seat's decisions, for the after-game review."""

    order: int
    name: str
    decisions: list[Decision]

    @property
    def cost(self) -> float:
        return sum(d.cost for d in self.decisions)

    @property
    def costly(self) -> list[Decision]:
        return [d for d in self.decisions if d.cost >= MISTAKE]
