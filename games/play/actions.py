"""Every action a socket may send, declared once.

A declaration says what the message carries (each field's type and bounds),
which verb handles it, and what the sender hears back. The rules' check of
who may take it now lives beside the engine (``games.rules.permissions``),
under the same name. The consumer parses and dispatches through these
declarations, docs/protocol.md's table of actions is written from them
(``manage.py protocol_doc``; a test keeps the page in step), and the
hostile-socket test sends every one of them.

Adding an action: declare it here, write its verb (a service, or a selector
for a read), its check in ``games/rules/permissions.py`` and its controls in
the table template (a button with ``data-action`` and, for fixed fields,
``data-args``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from games.models import BOT_LEVELS, BOT_PACES, CHAT_MAX_LENGTH, MAX_SEATS, Game
from games.play import services
from games.play.chat import CODES as CHAT_CODES
from games.rules import ACTION_NAMES, DICE, ActionName
from games.store import advice, quotas, selectors

MAX_MESSAGE_CHARS = 2048


class BadMessage(Exception):
    """A message the declarations refuse, with the code the sender hears."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Whole:
    """A whole number (JSON's true and false are not numbers here), within bounds."""

    low: int | None = None
    high: int | None = None

    def read(self, value: object) -> int:
        if not _whole(value):
            raise BadMessage("bad_message")
        assert isinstance(value, int)
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            raise BadMessage("bad_message")
        return value

    def describe(self) -> str:
        if self.low is None or self.high is None:
            return "integer"
        return f"integer {self.low}-{self.high}"


@dataclass(frozen=True)
class Text:
    """A string of at most ``max_length`` characters."""

    max_length: int
    choices: tuple[str, ...] = ()  # only for the documentation: the verb checks them

    def read(self, value: object) -> str:
        if not isinstance(value, str) or len(value) > self.max_length:
            raise BadMessage("bad_message")
        return value

    def describe(self) -> str:
        if self.choices:
            return "one of " + ", ".join(f"`{c}`" for c in self.choices)
        return f"string, at most {self.max_length} characters"


@dataclass(frozen=True)
class Positions:
    """Die positions 0-4, each at most once."""

    def read(self, value: object) -> frozenset[int]:
        if not isinstance(value, list) or not all(_whole(i) for i in value):
            raise BadMessage("bad_message")
        if len(set(value)) != len(value) or any(not 0 <= i < DICE for i in value):
            raise BadMessage("bad_hold")
        return frozenset(value)

    def describe(self) -> str:
        return f"list of distinct die positions 0-{DICE - 1}"


@dataclass(frozen=True)
class Faces:
    """Five dice as they came up, left to right, each a face 1-6."""

    def read(self, value: object) -> tuple[int, ...]:
        if (
            not isinstance(value, list)
            or len(value) != DICE
            or not all(_whole(d) and 1 <= d <= 6 for d in value)
        ):
            raise BadMessage("bad_faces")
        return tuple(value)

    def describe(self) -> str:
        return f"list of {DICE} faces 1-6, in die order"


FieldKind = Whole | Text | Positions | Faces


@dataclass(frozen=True)
class Field:
    name: str
    kind: FieldKind
    # Absent from the message: this value (a missing field without one is refused).
    default: Any = None
    # Absent from the message: None, and the verb decides what that means.
    optional: bool = False

    def read(self, message: Mapping[str, Any]) -> Any:
        if self.name not in message:
            if self.default is not None:
                return self.default
            if self.optional:
                return None
            raise BadMessage("bad_message")
        return self.kind.read(message[self.name])

    @property
    def may_be_left_out(self) -> bool:
        return self.default is not None or self.optional


# What the sender hears when the action is accepted:
# "push": nothing of its own; the new version reaches every socket of the game;
# "table": the current table, to the sender only;
# "current": a short "current" message if the sender shows the game's version,
# else the current table, to the sender only;
# "hint": the advisor's answer, to the sender only;
# "coach": one line on why the advisor's choice is best, to the sender only;
# "chat": nothing of its own; the line reaches every socket of the game (the
# sender's too) as a ``chat`` message, and the game's version does not change.
# "presence": nothing of its own; if the seat's presence changes, every socket
# of the game hears a ``presence`` message, and the version does not change.
Answer = Literal["push", "table", "current", "hint", "coach", "chat", "presence"]


@dataclass(frozen=True)
class Declaration:
    name: ActionName
    fields: tuple[Field, ...]
    # Called with the game's token, the guest asking and the message's fields
    # as keyword arguments, in a worker thread; raises GameError to refuse.
    verb: Callable[..., Any] | None
    answer: Answer
    doc: str  # what it asks, for docs/protocol.md
    # The verb is also given the sender's client address (``address``), for
    # the limits that count per address group.
    addressed: bool = False

    @property
    def versioned(self) -> bool:
        return any(f.name == "version" for f in self.fields)


VERSION = Field("version", Whole())
SEAT = Field("seat", Whole(0, MAX_SEATS - 1))


def rematch_counted(*, token: str, guest_id: str, address: str) -> Game:
    """A rematch asked on the socket: the new game counts against its
    maker's shares of games created, as one made on the home page does."""
    return services.game_rematch(
        token=token,
        guest_id=guest_id,
        counted=functools.partial(quotas.game_creation, address=address, guest=guest_id),
    )


def chat_paced(
    *, token: str, guest_id: str, text: str | None = None, phrase: str | None = None
) -> None:
    """A chat line said on the socket, counted against its game's pace
    across every process: each line goes to every socket of the game."""
    services.game_chat(
        token=token,
        guest_id=guest_id,
        text=text,
        phrase=phrase,
        paced=functools.partial(quotas.chat_allowed, token=token),
    )


DECLARATIONS: tuple[Declaration, ...] = (
    Declaration(
        "roll",
        (VERSION, Field("hold", Positions(), optional=True)),
        services.game_roll,
        "push",
        "roll the dice not held; `hold` lists die positions to keep (none on the first "
        "roll of a turn); left out, the dice held now (`state.held`, see `hold`) are kept",
    ),
    Declaration(
        "enter",
        (VERSION, Field("dice", Faces()), Field("hold", Positions(), optional=True)),
        services.game_enter,
        "push",
        "only in a game with `dice_entered` (real dice), in place of `roll`: the faces of all "
        "five dice after the player's throw, kept dice included, counted as a roll; `hold` "
        "lists the positions kept from the last throw, which must show the same faces "
        "(`held_changed`), and is `bad_hold` on a turn's first throw; left out, the dice "
        "held now are kept. Anything but a list of five faces 1-6 is `bad_faces`; `roll` "
        "there is `dice_are_entered`, and `enter` in any other game `dice_are_rolled`",
    ),
    Declaration(
        "hold",
        (VERSION, Field("dice", Positions())),
        services.game_hold,
        "push",
        "between rolls, the player to move: keep exactly the dice at these positions for "
        "the next roll (the whole set, so a repeated message changes nothing); everyone "
        "sees it, and like any action it makes a new version",
    ),
    Declaration(
        "score",
        (VERSION, Field("category", Text(24))),
        services.game_score,
        "push",
        "score the current dice in that box (a category key, see `state.categories`)",
    ),
    Declaration(
        "start",
        (VERSION,),
        services.game_start,
        "push",
        "host only: start the game with the seats taken so far",
    ),
    Declaration(
        "rematch",
        (),
        rematch_counted,
        "push",
        "after the end, any player: a new game with the same seats (the first to ask "
        "makes it, and it counts against their games an hour: `too_many_games`, "
        "`site_busy`, `creating_too_fast`; the others join it)",
        addressed=True,
    ),
    Declaration(
        "sync",
        (Field("version", Whole(), optional=True),),
        selectors.game_sync,
        "current",
        "am I current? With the `version` you show: a short `current` answer if it is "
        "the game's, else the table. Without: the table",
    ),
    Declaration(
        "add_bot",
        (Field("level", Text(16, tuple(level for level, _label in BOT_LEVELS))),),
        services.game_add_bot,
        "push",
        "host, in the lobby: fill the next free seat with a bot of that level",
    ),
    Declaration(
        "remove_bot",
        (SEAT,),
        services.game_remove_bot,
        "push",
        "host, in the lobby: take the bot off that seat (later seats move up)",
    ),
    Declaration(
        "hand_to_bot",
        (SEAT,),
        services.game_hand_to_bot,
        "push",
        "a player, when the seat to move has been idle for the grace period "
        "(60 s by default): a bot plays for it",
    ),
    Declaration(
        "take_back",
        (),
        services.game_take_back,
        "push",
        "the player whose seat a bot is keeping takes it back (acting does the same)",
    ),
    Declaration(
        "hint",
        (),
        advice.game_hint,
        "hint",
        "in a game with hints on, the player to move, after a roll: the advisor's figures",
    ),
    Declaration(
        "coach",
        (),
        advice.game_coach,
        "coach",
        "the player to move, after a roll, in a game with hints on or no other person "
        "seated: one line on why the advisor's choice is best",
    ),
    Declaration(
        "chat",
        (
            Field("text", Text(CHAT_MAX_LENGTH), optional=True),
            Field("phrase", Text(16, CHAT_CODES), optional=True),
        ),
        chat_paced,
        "chat",
        "a player, or a spectator unless the host closed the chat to them: say `text` "
        "(1-200 visible characters) or a quick phrase or reaction by its code (`phrase`), "
        "exactly one of the two",
    ),
    Declaration(
        "spectator_chat",
        (Field("on", Whole(0, 1)),),
        services.game_spectator_chat,
        "push",
        "host: open (1) or close (0) the table's chat to spectators",
    ),
    Declaration(
        "bot_pace",
        (VERSION, Field("pace", Text(8, tuple(pace for pace, _label in BOT_PACES)))),
        services.game_bot_pace,
        "push",
        "host, before the end: how long the bots pause before each of their steps "
        "(`normal`, or `fast`: a quarter of that by default); it takes effect from "
        "the next step, and a rematch keeps it",
    ),
    Declaration(
        "presence",
        (Field("away", Whole(0, 1)),),
        None,
        "presence",
        "a player: this page is hidden or idle (1), or in view and in use again (0); "
        "the seat is `away` while every open page of it says 1",
    ),
)
ACTIONS: dict[str, Declaration] = {d.name: d for d in DECLARATIONS}
assert tuple(ACTIONS) == ACTION_NAMES, "every action the rules check is declared, in order"


def parse(text: str) -> tuple[Declaration, dict[str, Any]]:
    """A client message's declaration and its fields, or BadMessage."""
    if len(text) > MAX_MESSAGE_CHARS:
        raise BadMessage("too_large")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        raise BadMessage("bad_json") from None
    if not isinstance(message, dict):
        raise BadMessage("bad_message")
    name = message.get("action")
    declaration = ACTIONS.get(name) if isinstance(name, str) else None
    if declaration is None:
        raise BadMessage("unknown_action")
    # Fields a message must not set (a seat of its own, dice, points) are
    # simply not read: only the declared ones reach the verb.
    return declaration, {f.name: f.read(message) for f in declaration.fields}


PROTOCOL_DOC = "docs/protocol.md"


def protocol_sections() -> dict[str, str]:
    """The parts of docs/protocol.md written from the code, by their marker."""
    kinds = "\n".join(f"- `{kind}`: {text}" for kind, text in selectors.LAST_KINDS.items())
    return {"actions": protocol_table(), "push kinds": kinds}


def with_sections(page: str, sections: Mapping[str, str]) -> str:
    """``page`` with the text between each section's markers replaced."""
    for name, body in sections.items():
        start, end = f"<!-- {name}: begin -->\n", f"\n<!-- {name}: end -->"
        head, found, rest = page.partition(start)
        _old, found_end, tail = rest.partition(end)
        if not (found and found_end):
            raise ValueError(f"{PROTOCOL_DOC} lacks the markers of {name!r}")
        page = head + start + body + end + tail
    return page


def protocol_table() -> str:
    """docs/protocol.md's table of client actions, from the declarations."""
    lines = ["| action | fields | what it asks |", "|---|---|---|"]
    for d in DECLARATIONS:
        fields = "; ".join(
            f"`{f.name}`: {f.kind.describe()}" + (", may be left out" if f.may_be_left_out else "")
            for f in d.fields
        )
        lines.append(f"| `{d.name}` | {fields} | {d.doc} |")
    return "\n".join(lines)
