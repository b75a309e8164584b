"""Deciding a move: the first step of decide → write → publish.

``decide`` takes what is known of a game at one version (``Known``: its row,
seats and rules state, read under the row lock or remembered from this
process's last commit) and a seat's action, and returns a ``Plan``: the rows
to write (``games.store.writes.Rows``) and what the push will announce. It
reads and writes nothing: whichever adapter writes the plan, the decision is
this one function, so a move is the same move on every path. The rules
decide; this module turns their answer into rows.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from games import rules
from games.models import Game, Move, Player, ScoreEntry
from games.rules import GameError, fairness
from games.store.known import copy_row
from games.store.selectors import Last, LastKind, duplicate_state, last_action, seat_among
from games.store.writes import Rows, saved_fields

if TYPE_CHECKING:
    import random

# Only for games created before dice were derived from a seed (blank seed).
_unseeded_dice = secrets.SystemRandom()


@dataclass(frozen=True)
class Known:
    """A game at one version, as the decision sees it. ``table`` is the
    rules' view of it (who may act); ``day_over`` says a daily challenge's
    day has ended, so its seed is public and no more dice may be rolled."""

    game: Game
    players: list[Player]
    state: rules.GameState
    table: rules.Table
    day_over: bool = False


@dataclass(frozen=True)
class Plan:
    """A decided move: the rows to write, and for the push the seats and
    state after it and what it was."""

    rows: Rows
    players: list[Player]
    state: rules.GameState
    last: Last


_LAST_OF: dict[str, LastKind] = {
    Move.Kind.ROLL: "roll",
    Move.Kind.HOLD: "hold",
    Move.Kind.SCORE: "score",
}


def decide(
    known: Known,
    *,
    guest_id: str,
    version: int,
    action: rules.Action,
    now: datetime,
    rng: rules.engine.DiceRoller | None = None,
) -> Plan:
    """The move of ``guest_id``'s seat made against ``version``, or the
    rules' refusal (``GameError``). Dice come from the game's seed unless
    ``rng`` is given (tests script them)."""
    if known.day_over:
        # Once the day is over its seed is revealed: an unfinished entry
        # could then know every die to come.
        raise GameError("daily_over")
    kind = _action_name(action)
    mine = seat_among(known.players, guest_id, known.game.current_seat)
    rules.require(known.table, mine.order if mine else None, kind, version=version)
    assert mine is not None
    # Acting takes the seat back from the bot that kept it (without a turn
    # clock: with one, the rules refused a seat whose time ran out).
    return _planned(known, mine.order, action, rng, now, takes_back=bool(mine.bot))


def _action_name(action: rules.Action) -> rules.ActionName:
    if isinstance(action, rules.Roll):
        return "roll"
    if isinstance(action, rules.Enter):
        return "enter"
    return "hold" if isinstance(action, rules.Hold) else "score"


def decide_bot(known: Known, *, whims: random.Random, now: datetime) -> Plan:
    """The next step of the bot whose turn it is (in a duplicate game: of
    the first bot with its round still to play), or ``GameError``."""
    from games.solver.bots import decide as bot_decides

    if known.game.duplicate:
        dup = duplicate_state(known.game, known.players, known.state)
        bot = next((p for p in known.players if p.bot and dup.view(p.order) is not None), None)
        if bot is None:
            raise GameError("round_wait")
        turn = dup.view(bot.order)
        assert turn is not None
        return _planned(known, bot.order, bot_decides(bot.bot, turn, whims), None, now)
    seat = known.players[known.game.current_seat]
    if not seat.bot:
        raise GameError("not_your_turn")
    return _planned(known, seat.order, bot_decides(seat.bot, known.state, whims), None, now)


def _planned(
    known: Known,
    order: int,
    action: rules.Action,
    rng: rules.engine.DiceRoller | None,
    now: datetime,
    *,
    takes_back: bool = False,
) -> Plan:
    """``action`` of seat ``order`` applied to copies of the known rows."""
    game = copy_row(known.game)
    players = [copy_row(p) for p in known.players]
    seat = players[order]
    changed: list[str] = []
    if takes_back:
        seat.bot = ""
        changed.append("bot")
    if game.duplicate:
        return _planned_duplicate(known, game, players, seat, action, rng, now, changed)
    return _planned_turn(known, game, players, seat, action, rng, now, changed)


def _planned_turn(
    known: Known,
    game: Game,
    players: list[Player],
    seat: Player,
    action: rules.Action,
    rng: rules.engine.DiceRoller | None,
    now: datetime,
    changed: list[str],
) -> Plan:
    """``_planned`` in a game of turns: the dice are the game's."""
    before, order = known.state, seat.order
    if isinstance(action, rules.Roll) and action.hold is None:
        # The roll keeps what the seat holds now: the log and the dice name it.
        action = rules.Roll(before.held)
    after = rules.apply(before, order, action, rng if rng is not None else _dice_for(game, action))
    move, score = _logged(
        game,
        seat,
        action,
        dice_before=before.dice,
        hand_after=(after.dice, after.held),
        cards=(before.cards[order], after.cards[order]),
    )
    if _stand_in_leaves(game, seat, action):
        changed.append("bot")
    game.current_seat = after.current
    game.dice = list(after.dice)
    game.held = sorted(after.held)
    game.rolls_used = after.rolls
    fields = ["current_seat", "dice", "held", "rolls_used"]
    if after.finished:
        fields += _finished(game, now)
    return _moved_on(
        game,
        players,
        after,
        fields,
        now=now,
        new_turn=isinstance(action, rules.Score),
        seats=[(seat, changed)] if changed else [],
        move=move,
        score=score,
    )


def _planned_duplicate(
    known: Known,
    game: Game,
    players: list[Player],
    seat: Player,
    action: rules.Action,
    rng: rules.engine.DiceRoller | None,
    now: datetime,
    changed: list[str],
) -> Plan:
    """``_planned`` in a duplicate game: the hand is the seat's and the dice
    are the round's shared ones."""
    before = duplicate_state(game, players, known.state)
    if isinstance(action, rules.Roll) and action.hold is None:
        # The roll keeps what the seat holds now in its own hand.
        action = rules.Roll(before.hands[seat.order].held)
    dice = rng if rng is not None else _round_dice(game, before, seat.order, action)
    after = rules.duplicate.apply(before, seat.order, action, dice)
    hand = after.hands[seat.order]
    move, score = _logged(
        game,
        seat,
        action,
        dice_before=before.hands[seat.order].dice,
        hand_after=(hand.dice, hand.held),
        cards=(before.cards[seat.order], after.cards[seat.order]),
    )
    seat.dice = list(hand.dice)
    seat.held = sorted(hand.held)
    seat.rolls_used = hand.rolls
    changed += ["dice", "held", "rolls_used"]
    if _stand_in_leaves(game, seat, action):
        changed.append("bot")
    fields = _finished(game, now) if after.finished else []
    if after.finished and game.perfect_reference and game.server_seed:
        from games.solver.reference import perfect_score

        game.perfect_score = perfect_score(game.ruleset, bytes.fromhex(game.server_seed))
        fields.append("perfect_score")
    return _moved_on(
        game,
        players,
        after.scores(),
        fields,
        now=now,
        new_turn=after.round != before.round,
        seats=[(seat, list(dict.fromkeys(changed)))],
        move=move,
        score=score,
    )


def _moved_on(
    game: Game,
    players: list[Player],
    state: rules.GameState,
    fields: Sequence[str],
    *,
    now: datetime,
    new_turn: bool,
    seats: Sequence[tuple[Player, Sequence[str]]],
    move: Move,
    score: ScoreEntry | None,
) -> Plan:
    since = game.version
    game.version += 1
    move.version = game.version
    game.acted_at = now
    wind_clock(game, players, new_turn=new_turn, state=state, now=now)
    kind = _LAST_OF[move.kind]
    return Plan(
        rows=Rows(
            game=game,
            fields=saved_fields(fields),
            since=since,
            seats=tuple((seat, tuple(changed)) for seat, changed in seats),
            move=move,
            score=score,
        ),
        players=players,
        state=state,
        last=last_action(kind, move.player.order if move.player else None, move),
    )


def _finished(game: Game, now: datetime) -> list[str]:
    """The game ends with this move: the fields that say so."""
    game.status = Game.Status.FINISHED
    game.finished_at = now
    return ["status", "finished_at"]


def _round_dice(
    game: Game, before: rules.DuplicateState, order: int, action: rules.Action
) -> rules.engine.DiceRoller:
    """A duplicate round's shared fair dice for seat ``order``'s next roll."""
    if not game.server_seed:
        return _unseeded_dice
    hold = (action.hold or frozenset()) if isinstance(action, rules.Roll) else frozenset()
    seed = bytes.fromhex(game.server_seed)
    return fairness.DuplicateDice(seed, before.round, before.roll_number(order), hold)


def _dice_for(game: Game, action: rules.Action) -> rules.engine.DiceRoller:
    """The game's own fair dice for the roll that will be logged as the next version."""
    if not game.server_seed:
        return _unseeded_dice
    hold = (action.hold if isinstance(action, rules.Roll) else None) or frozenset()
    return fairness.FairDice(bytes.fromhex(game.server_seed), game.version + 1, hold)


def _logged(
    game: Game,
    seat: Player,
    action: rules.Action,
    *,
    dice_before: Sequence[int],
    hand_after: tuple[Sequence[int], Collection[int]],
    cards: tuple[rules.Scorecard, rules.Scorecard],
) -> tuple[Move, ScoreEntry | None]:
    """``seat``'s action as the move log's next entry (a score also as its
    card's box). ``hand_after`` is the seat's dice and holds after it,
    ``cards`` its card before and after."""
    move = Move(game=game, player=seat, version=game.version + 1)
    if isinstance(action, rules.Roll | rules.Enter | rules.Hold):
        # Entered dice are logged as the roll they were: the game says whose
        # dice they are (``Game.dice_entered``), so review and replay read
        # them as any roll.
        move.kind = Move.Kind.HOLD if isinstance(action, rules.Hold) else Move.Kind.ROLL
        move.dice = list(hand_after[0])
        move.held = sorted(hand_after[1])
        return move, None
    before, after = cards
    points = after.boxes[action.category]
    bonus = after.extra_bonus - before.extra_bonus
    move.kind = Move.Kind.SCORE
    move.dice = list(dice_before)
    move.category = action.category
    move.points = points + bonus
    return move, ScoreEntry(player=seat, category=action.category, points=points, extra_bonus=bonus)


def _stand_in_leaves(game: Game, seat: Player, action: rules.Action) -> bool:
    """When the stand-in bot scores the turn (or round) a person's clock ran
    out on, it leaves the seat: the person keeps it and plays their next
    turn on a full period, and if they are still away the clock hands that
    turn to the bot again. True if it left."""
    if not (game.turn_seconds and seat.guest_id and seat.bot and isinstance(action, rules.Score)):
        return False
    seat.bot = ""
    return True


def still_to_play(players: Sequence[Player], state: rules.GameState | None) -> list[Player]:
    """In a duplicate game's round: the people (no bot playing for them) who
    have not played it yet."""
    if state is None or not players:
        return []
    done = min(len(card.boxes) for card in state.cards)
    return [
        p for p in players if p.guest_id and not p.bot and len(state.cards[p.order].boxes) == done
    ]


def wind_clock(
    game: Game,
    players: Sequence[Player],
    *,
    new_turn: bool,
    now: datetime,
    state: rules.GameState | None = None,
) -> None:
    """The deadline of the turn being played: a full period from the start of
    a person's turn, kept through their rolls; none while a bot plays or
    with no clock.

    Only the start of a turn sets it. Nothing said during the turn (a hold,
    a take back, anything) can set it again: once the clock ran out it stays
    off until the stand-in bot has played that turn, so a person acting as
    the clock runs out can never buy a fresh period for the turn.

    A duplicate game's clock runs per round: a full period from the start
    of the round, while any person has still to play it."""
    running = False
    if game.turn_seconds and game.status == Game.Status.PLAYING and players:
        if game.duplicate:
            running = bool(still_to_play(players, state))
        else:
            seat = players[game.current_seat]
            running = bool(seat.guest_id) and not seat.bot
    if not running:
        game.turn_deadline = None
    elif new_turn:
        game.turn_deadline = now + timedelta(seconds=game.turn_seconds)
