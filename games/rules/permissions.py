"""Who may take which action now: one pure check per action.

The services enforce these checks inside their transaction, rendering asks
them which controls to show, and the socket's tests predict refusals from
them, so "may this seat do that now" is decided in one place. A check sees
the table as a whole (lobby, seats, bots, hints), not only the dice and
scorecards of ``GameState``; what a message's own fields say (which box,
which dice, which bot level) is checked by whoever acts on them.

Each check answers the code of the first reason to refuse, in an order that
tells a player the most useful thing first (a spectator hears "you are
watching" before "stale version"), or None when the action may go ahead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from .engine import MAX_ROLLS, GameState
from .errors import GameError

Status = Literal["lobby", "playing", "finished"]
ActionName = Literal[
    "roll",
    "enter",
    "hold",
    "score",
    "start",
    "rematch",
    "sync",
    "add_bot",
    "remove_bot",
    "hand_to_bot",
    "take_back",
    "hint",
    "coach",
    "chat",
    "spectator_chat",
    "bot_pace",
    "presence",
]
ACTION_NAMES: tuple[ActionName, ...] = get_args(ActionName)


@dataclass(frozen=True)
class Seat:
    """What the checks need to know of one seat."""

    person: bool  # a person's seat; a bot's own seat otherwise
    bot: str = ""  # the level of the bot playing it now ("" when its person plays)


@dataclass(frozen=True)
class Table:
    """A game as the checks see it: everything but who is asking."""

    status: Status
    version: int
    seat_count: int
    seats: tuple[Seat, ...]
    game: GameState | None = None  # None in the lobby
    hints: bool = False
    # The seat to move has been idle past the grace period, so the others
    # may let a bot stand in for it.
    absent: bool = False
    # Spectators may write in the table's chat (the host decides).
    spectator_chat: bool = True
    # A duplicate game: each seat's own turn of the round (None once it has
    # scored in it), where a turn-based game has ``game`` alone.
    turns: tuple[GameState | None, ...] | None = None
    # In a duplicate game, from which version each seat's own turn is as it
    # is now (its last move, or the start): others' moves in between do not
    # make its action stale, since they change nothing it acted on.
    fresh_from: tuple[int, ...] | None = None
    # A turn clock runs in this game. When it runs out, the stand-in bot plays
    # the seat's turn (in a duplicate game, its round) to its end and leaves:
    # a person's seat a bot keeps is one whose time ran out, and nothing that
    # seat sends can take that turn back or give it more time.
    clock: bool = False
    # An entry to a daily challenge: one game a day, so it has no rematch.
    daily: bool = False
    # A companion game: the players throw real dice and enter the faces
    # ("enter"); the server rolls none, and no bot can play for a seat.
    entered: bool = False


Check = Callable[[Table, int | None, bool], str | None]


def _is_host(table: Table, seat: int | None) -> bool:
    return seat == 0 and bool(table.seats) and table.seats[0].person


def _seated(table: Table, seat: int | None) -> bool:
    return seat is not None and 0 <= seat < len(table.seats) and table.seats[seat].person


def _clocked_out(table: Table, seat: int | None) -> bool:
    """``seat``'s clock ran out, and the stand-in bot is playing its turn."""
    return table.clock and _seated(table, seat) and bool(table.seats[seat or 0].bot)


def _during_play(table: Table) -> str | None:
    if table.status == "lobby":
        return "not_started"
    if table.status == "finished":
        return "game_over"
    return None


def _in_lobby_as_host(table: Table, seat: int | None) -> str | None:
    if not _is_host(table, seat):
        return "not_host"
    if table.status != "lobby":
        return "already_started"
    return None


def _to_move(table: Table, seat: int | None) -> str | None:
    if table.turns is not None:
        return None if _turn_of(table, seat) is not None else "round_wait"
    assert table.game is not None
    return None if table.game.current == seat else "not_your_turn"


def _turn_of(table: Table, seat: int | None) -> GameState | None:
    """The turn ``seat`` is playing: its own in a duplicate game, the table's otherwise."""
    if table.turns is None:
        return table.game
    if seat is None or not 0 <= seat < len(table.turns):
        return None
    return table.turns[seat]


def _playing_seated(table: Table, seat: int | None, stale: bool) -> str | None:
    """The common part of an action of the seat to move, in play."""
    return (
        _during_play(table)
        or (None if _seated(table, seat) else "not_seated")
        # Before staleness: a move made just before the clock acted names
        # the version before it, and its sender must hear why it failed.
        or ("time_up" if _clocked_out(table, seat) else None)
        or ("stale_version" if stale else None)
        or _to_move(table, seat)
    )


def _throw(table: Table, seat: int | None, stale: bool) -> str | None:
    """The common part of a roll and an entry: the dice thrown again."""
    refused = _playing_seated(table, seat, stale)
    if refused:
        return refused
    turn = _turn_of(table, seat)
    assert turn is not None
    return "no_rolls_left" if turn.rolls >= MAX_ROLLS else None


def _roll(table: Table, seat: int | None, stale: bool) -> str | None:
    return _throw(table, seat, stale) or ("dice_are_entered" if table.entered else None)


def _enter(table: Table, seat: int | None, stale: bool) -> str | None:
    return _throw(table, seat, stale) or (None if table.entered else "dice_are_rolled")


def _hold(table: Table, seat: int | None, stale: bool) -> str | None:
    # Holding is part of the next roll: allowed between rolls, when a reroll is.
    return _throw(table, seat, stale) or _score(table, seat, stale)


def _score(table: Table, seat: int | None, stale: bool) -> str | None:
    refused = _playing_seated(table, seat, stale)
    if refused:
        return refused
    turn = _turn_of(table, seat)
    assert turn is not None
    return "must_roll_first" if turn.rolls == 0 else None


def _start(table: Table, seat: int | None, stale: bool) -> str | None:
    return _in_lobby_as_host(table, seat) or ("stale_version" if stale else None)


def _rematch(table: Table, seat: int | None, stale: bool) -> str | None:
    if table.status != "finished":
        return "not_finished"
    if table.daily:
        return "daily_entered"
    return None if _seated(table, seat) else "not_seated"


def _sync(table: Table, seat: int | None, stale: bool) -> str | None:
    return None


def _add_bot(table: Table, seat: int | None, stale: bool) -> str | None:
    refused = _in_lobby_as_host(table, seat)
    if refused:
        return refused
    if table.entered:
        # A bot would need the server's dice.
        return "dice_are_entered"
    return "game_full" if len(table.seats) >= table.seat_count else None


def _remove_bot(table: Table, seat: int | None, stale: bool) -> str | None:
    refused = _in_lobby_as_host(table, seat)
    if refused:
        return refused
    return None if any(not s.person for s in table.seats) else "not_a_bot"


def _hand_to_bot(table: Table, seat: int | None, stale: bool) -> str | None:
    refused = _during_play(table) or (None if _seated(table, seat) else "not_seated")
    if refused:
        return refused
    if table.entered:
        return "dice_are_entered"
    if table.turns is not None or table.clock:
        # Nobody waits on one seat's turn: each plays its own round; and
        # with a clock, the clock hands an idle seat's turn to the bot.
        return "not_absent"
    assert table.game is not None
    current = table.game.current
    target = table.seats[current]
    if current == seat or not target.person or target.bot or not table.absent:
        return "not_absent"
    return None


def _take_back(table: Table, seat: int | None, stale: bool) -> str | None:
    if not _seated(table, seat):
        return "not_seated"
    assert seat is not None
    if _clocked_out(table, seat):
        return "time_up"
    return None if table.seats[seat].bot else "not_absent"


def _hint(table: Table, seat: int | None, stale: bool) -> str | None:
    if not table.hints or table.turns is not None:
        return "hints_off"
    return _score(table, seat, stale)


def coachable(table: Table, seat: int | None) -> bool:
    """The advisor may coach ``seat`` in this game: hints are on for everyone,
    or no other person sits at the table (solitaire, or only bots), so the
    coaching helps nobody against another person. Never in a duplicate game,
    where everyone plays the same dice for a comparable score."""
    if table.turns is not None or not _seated(table, seat):
        return False
    return table.hints or not any(
        other.person for order, other in enumerate(table.seats) if order != seat
    )


def _coach(table: Table, seat: int | None, stale: bool) -> str | None:
    if not coachable(table, seat):
        return "hints_off"
    return _score(table, seat, stale)


def _chat(table: Table, seat: int | None, stale: bool) -> str | None:
    if _seated(table, seat):
        return None
    return None if table.spectator_chat else "chat_closed"


def _spectator_chat(table: Table, seat: int | None, stale: bool) -> str | None:
    return None if _is_host(table, seat) else "not_host"


def _bot_pace(table: Table, seat: int | None, stale: bool) -> str | None:
    if not _is_host(table, seat):
        return "not_host"
    if table.status == "finished":
        return "game_over"
    return "stale_version" if stale else None


def _presence(table: Table, seat: int | None, stale: bool) -> str | None:
    return None if _seated(table, seat) else "not_seated"


CHECKS: dict[ActionName, Check] = {
    "roll": _roll,
    "enter": _enter,
    "hold": _hold,
    "score": _score,
    "start": _start,
    "rematch": _rematch,
    "sync": _sync,
    "add_bot": _add_bot,
    "remove_bot": _remove_bot,
    "hand_to_bot": _hand_to_bot,
    "take_back": _take_back,
    "hint": _hint,
    "coach": _coach,
    "chat": _chat,
    "spectator_chat": _spectator_chat,
    "bot_pace": _bot_pace,
    "presence": _presence,
}


def refusal(
    table: Table, seat: int | None, action: ActionName, *, version: int | None = None
) -> str | None:
    """Why ``seat`` (None: a spectator) may not take ``action`` now, as an
    error code, or None if it may. ``version`` is the one the action was made
    against, for the actions that carry one."""
    return CHECKS[action](table, seat, _stale(table, seat, version))


def _stale(table: Table, seat: int | None, version: int | None) -> bool:
    if version is None:
        return False
    fresh = table.fresh_from
    if fresh is not None and seat is not None and 0 <= seat < len(fresh):
        return not fresh[seat] <= version <= table.version
    return version != table.version


def require(
    table: Table, seat: int | None, action: ActionName, *, version: int | None = None
) -> None:
    """Raise the refusal's ``GameError``, if there is one."""
    code = refusal(table, seat, action, version=version)
    if code is not None:
        raise GameError(code)


def seat_acting(owned: Sequence[int], to_move: int | None) -> int | None:
    """The seat a session holding the seats ``owned`` (in order) acts for now.

    A session holds one seat, except in pass and play, where one browser
    holds every person's seat and is passed round the table: it acts for the
    seat to move when that is one of its own, and otherwise (a bot's turn,
    the lobby, the end) for its first, so that it can never act out of turn
    for another of its seats. None for a session that holds no seat."""
    if not owned:
        return None
    return to_move if to_move in owned else owned[0]


def allowed_actions(table: Table, seat: int | None) -> frozenset[ActionName]:
    """Every action ``seat`` may take in ``table`` as it is now."""
    return frozenset(name for name, check in CHECKS.items() if check(table, seat, False) is None)
