"""The advisor's reads: a hint, a coaching line, a game's review, each
from the solver's tables. They write nothing and take no lock."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, TypedDict

from games import rules
from games.models import Game, Move, Player
from games.store.selectors import (
    game_by_token,
    game_players,
    game_state,
    rules_table,
    seat_among,
)

if TYPE_CHECKING:
    # Only for annotations: the solver loads numpy, which pages that never
    # review a game should not wait for.
    from games.solver.review import SeatReview


class HintBox(TypedDict):
    category: str
    points: int
    value: float
    loss: float


class HintHold(TypedDict):
    positions: list[int]
    dice: list[int]
    value: float
    loss: float


class Advice(TypedDict):
    version: int
    ruleset: str
    dice: list[int]
    best: float
    boxes: list[HintBox]
    holds: list[HintHold]


# The advisor shows the best few holds: the rest are noise to a player.
HINT_HOLDS = 5


def _asked_in_turn(
    token: str, guest_id: str, action: rules.ActionName
) -> tuple[Game, Player, rules.GameState]:
    """The game, the asker's seat and the state, once the rules allow the
    asker ``action`` (the advisor's answers: a hint, a coaching line)."""
    game = game_by_token(token)
    if game is None:
        raise rules.GameError("no_such_game")
    players = game_players(game)
    me = seat_among(players, guest_id, game.current_seat)
    state = game_state(game, players) if game.status != Game.Status.LOBBY else None
    rules.require(rules_table(game, players, state), me.order if me else None, action)
    assert me is not None and state is not None
    return game, me, state


def game_hint(*, token: str, guest_id: str) -> Advice:
    """The advisor, for the player to move in a game with hints on: every hold
    and every allowed box with its expected final score under optimal play.

    It reads and writes nothing but the solver's table, so it takes no lock.
    """
    from games.solver import evaluate_boxes, evaluate_keeps, get_table

    game, me, state = _asked_in_turn(token, guest_id, "hint")
    table = get_table(game.ruleset)
    card = state.cards[me.order]
    boxes = evaluate_boxes(table, card, state.dice)
    holds = (
        evaluate_keeps(table, card, state.dice, state.rolls)
        if state.rolls < rules.MAX_ROLLS
        else []
    )
    best = max([*boxes.values(), *(value for _hold, value in holds)])
    preview = state.preview()
    return {
        "version": game.version,
        "ruleset": game.ruleset,
        "dice": list(state.dice),
        "best": best,
        "boxes": sorted(
            (
                HintBox(category=key, points=preview[key], value=v, loss=best - v)
                for key, v in boxes.items()
            ),
            key=lambda row: -row["value"],
        ),
        "holds": [
            HintHold(
                positions=sorted(hold),
                dice=[state.dice[i] for i in sorted(hold)],
                value=v,
                loss=best - v,
            )
            for hold, v in holds[:HINT_HOLDS]
        ],
    }


class Coaching(TypedDict):
    version: int
    ruleset: str
    # games.solver.coach.Reason's fields, or None before the turn's first roll.
    kind: str
    boxes: list[str]
    keep: list[int]
    points: int
    loss: float


def game_coach(*, token: str, guest_id: str) -> Coaching:
    """Why the advisor's choice is best, for the player to move in a game
    where the advisor may coach them (``rules.coachable``)."""
    from games.solver import get_table
    from games.solver.coach import reason

    game, _me, state = _asked_in_turn(token, guest_id, "coach")
    why = reason(get_table(game.ruleset), state)
    # "coach" needs a roll, and the chooser answers every rolled state.
    assert why is not None
    return {
        "version": game.version,
        "ruleset": game.ruleset,
        "kind": why.kind,
        "boxes": list(why.boxes),
        "keep": list(why.keep),
        "points": why.points,
        "loss": why.loss,
    }


def game_roll_players(game: Game) -> dict[int, str]:
    """The name of who rolled, by the version of the roll."""
    rows = game.moves.filter(kind=Move.Kind.ROLL).values_list("version", "player__name")
    return {version: name or "" for version, name in rows}


def game_review(game: Game) -> list[SeatReview]:
    """Each person's decisions (bots are not reviewed), priced against optimal play."""
    from games.solver import get_table
    from games.solver.review import Decision, LoggedMove, SeatReview, review

    players = game_players(game)
    people = [p.order for p in players if p.guest_id]
    rows = (
        game.moves.filter(kind__in=[Move.Kind.ROLL, Move.Kind.SCORE])
        .order_by("version")
        .values_list("player__order", "kind", "held", "dice", "category")
    )
    moves = [
        LoggedMove(seat=order, kind=kind, held=tuple(held), dice=tuple(dice), category=category)
        for order, kind, held, dice, category in rows
    ]
    table = get_table(game.ruleset)
    if game.duplicate:
        # Each seat played its own game on the shared dice: review each alone.
        decisions: list[Decision] = []
        for order in people:
            own = [replace(m, seat=0) for m in moves if m.seat == order]
            decisions += [replace(d, seat=order) for d in review(table, 1, own, judged=[0])]
    else:
        decisions = review(table, len(players), moves, judged=people)
    return [
        SeatReview(
            order=p.order,
            name=p.name,
            decisions=[d for d in decisions if d.seat == p.order],
        )
        for p in players
        if p.order in people
    ]
