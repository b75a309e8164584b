"""The after-game review of a stored game: the move log, priced by the solver."""

from __future__ import annotations

from dataclasses import dataclass

from games.models import Game, Move
from games.selectors import game_players
from games.solver import get_table
from games.solver.review import Decision, LoggedMove, review


@dataclass(frozen=True)
class SeatReview:
    order: int
    name: str
    decisions: list[Decision]

    @property
    def cost(self) -> float:
        return sum(d.cost for d in self.decisions)

    @property
    def costly(self) -> list[Decision]:
        return [d for d in self.decisions if d.cost >= MISTAKE]


# Choices that cost less than this are as good as optimal, for a person.
MISTAKE = 0.5


def game_review(game: Game) -> list[SeatReview]:
    """Each person's decisions (bots are not reviewed), priced against optimal play."""
    players = game_players(game)
    people = [p.order for p in players if p.guest_id]
    moves = [
        LoggedMove(
            seat=order,
            kind=kind,
            held=tuple(held),
            dice=tuple(dice),
            category=category,
        )
        for order, kind, held, dice, category in game.moves.filter(
            kind__in=[Move.Kind.ROLL, Move.Kind.SCORE]
        )
        .order_by("version")
        .values_list("player__order", "kind", "held", "dice", "category")
    ]
    decisions = review(get_table(game.ruleset), len(players), moves, judged=people)
    return [
        SeatReview(
            order=p.order,
            name=p.name,
            decisions=[d for d in decisions if d.seat == p.order],
        )
        for p in players
        if p.order in people
    ]
