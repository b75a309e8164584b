"""A hostile crowd for the game socket, and the oracle that judges it.

Shared by tests/security/test_hostile_sockets.py (a CI-sized run) and
bench/hostile.py (a long one). Several games are driven at once through the
real ASGI routing by sockets of every kind of sender; every message's outcome
is predicted from the rules and the game's stored state, then checked against
what the socket answered and what the database holds.

Messages are made from the action declarations (games/play/actions.py), so every
declared action is sent, well-formed and malformed, and a new one is sent as
soon as it is declared. The oracle predicts who may take it from the rules'
check and what its fields do from the rules engine. Bots never move on their
own here (the run sets a pause longer than itself) and a turn counts as
stalled at once, so every action can be accepted as well as refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import string
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection
from django.utils import translation
from hypothesis import strategies as st

from games import rules
from games.edge.guests import GUEST_KEY
from games.live import consumers
from games.models import BOT_LEVELS, BOT_PACES, Game, Move, Player, ScoreEntry
from games.play import actions, chat, services
from games.play.actions import Declaration, Faces, Positions, Text, Whole
from games.present.messages import MESSAGES, error_message
from games.rules import Enter, GameState, Hold, Roll, Score, ScriptedDice
from games.store.selectors import game_players, game_state
from yachtsite.asgi import application

LANGUAGES = ["en", "es", "it", "ca"]
ANSWER_TIMEOUT = 10.0
ALL_CATEGORIES = sorted({key for rs in rules.RULESETS.values() for key in rs.category_keys})
LEVELS = [level for level, _label in BOT_LEVELS]
PACES = [pace for pace, _label in BOT_PACES]


@dataclass
class Stats:
    tried: int = 0
    sent: dict[str, int] = field(default_factory=dict)  # well-formed messages, by action
    took: dict[str, int] = field(default_factory=dict)  # accepted changes, by action
    rejected: int = 0
    accepted: int = 0
    hints: int = 0
    coached: int = 0
    floods: int = 0
    reconnect_floods: int = 0
    codes: dict[str, int] = field(default_factory=dict)

    def reject(self, code: str) -> None:
        self.rejected += 1
        self.codes[code] = self.codes.get(code, 0) + 1


# What a message should lead to.
ACCEPT = "accept"  # a new version, pushed to every socket of the game
TABLE = "table"  # the current table, to the sender only
HINT = "hint"  # the advisor's answer, to the sender only
COACH = "coach"  # the coaching line, to the sender only
CURRENT = "current"  # "you show the game's version", to the sender only
NOTHING = "nothing"  # no answer at all (a repeated rematch)
CHAT = "chat"  # a chat line, to every socket of the game (the sender's too)


@dataclass(frozen=True)
class Outcome:
    kind: str  # ACCEPT, TABLE, NOTHING or "error"
    code: str = ""
    resync: bool = False  # an error that is followed by the current table


def parse_error(code: str) -> Outcome:
    return Outcome("error", code, resync=False)


def game_error(code: str) -> Outcome:
    return Outcome("error", code, resync=True)


@dataclass
class Sock:
    kind: str  # seat, tab, spectator, anonymous, forged, foreign, garbage
    guest: str  # what the server will see ("" for no session)
    seat: int | None
    language: str
    cookie: str | None
    ws: WebsocketCommunicator | None = None
    last_version: int = 0


@dataclass
class Table:
    """What the oracle knows of one game: its stored truth, kept in step."""

    token: str
    ruleset: str
    guests: list[str]  # by seat; "" for a bot's own seat
    status: str
    version: int
    state: GameState | None
    seat_count: int
    hints: bool = False
    entered: bool = False  # real dice: the players enter every throw
    bots: list[str] = field(default_factory=list)  # by seat: the level playing it, or ""
    rematched: bool = False
    spectator_chat: bool = True
    chats: int = 0  # lines said at this table
    sockets: list[Sock] = field(default_factory=list)

    def seat_of(self, guest: str) -> int | None:
        return self.guests.index(guest) if guest and guest in self.guests else None

    def rules_view(self) -> rules.Table:
        """The oracle's game as the rules' checks see it (every turn counts
        as stalled: the run sets no grace period)."""
        return rules.Table(
            status=self.status,  # type: ignore[arg-type]
            version=self.version,
            seat_count=self.seat_count,
            seats=tuple(
                rules.Seat(person=bool(g), bot=b)
                for g, b in zip(self.guests, self.bots, strict=True)
            ),
            game=self.state,
            hints=self.hints,
            absent=True,
            spectator_chat=self.spectator_chat,
            entered=self.entered,
        )


class NoDice:
    """Scoring never rolls: a roll here means the engine went wrong."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError("the engine rolled while scoring")


# --- database side (run through sync_to_async) ------------------------------


def row_counts() -> tuple[int, int, int, int]:
    # One round trip instead of four: this runs after every message.
    tables = [m._meta.db_table for m in (Game, Player, Move, ScoreEntry)]
    sql = "SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {t})" for t in tables)
    with connection.cursor() as cursor:
        cursor.execute(sql)
        games, players, moves, scores = cursor.fetchone()
    return games, players, moves, scores


def replay(game: Game) -> GameState | None:
    """Rebuild a game from its Move log alone, checking the log as it goes."""
    players = game_players(game)
    state: GameState | None = None
    last_version = 0
    for move in game.moves.order_by("version").select_related("player"):
        assert move.version > last_version, "Move versions must strictly increase"
        last_version = move.version
        if move.kind == Move.Kind.JOIN:
            assert state is None, "a join after the start"
        elif move.kind == Move.Kind.START:
            assert state is None, "a second start"
            state = rules.new_game(game.ruleset, len(players))
        elif move.kind == Move.Kind.ROLL:
            assert state is not None
            state = replay_roll(state, move)
        elif move.kind == Move.Kind.HOLD:
            assert state is not None
            state = replay_hold(state, move)
        else:
            assert state is not None and move.kind == Move.Kind.SCORE
            state = replay_score(state, move)
    assert last_version <= game.version
    return state


def replay_roll(state: GameState, move: Move) -> GameState:
    hold = frozenset(move.held)
    assert all(1 <= d <= 6 for d in move.dice) and len(move.dice) == rules.DICE, move.dice
    if state.rolls:
        # A held die keeps its face: the log may not rewrite it.
        assert all(move.dice[i] == state.dice[i] for i in hold), (state.dice, move.dice, hold)
    fresh = ScriptedDice(move.dice[i] for i in range(rules.DICE) if i not in hold)
    assert move.player is not None
    after = rules.apply(state, move.player.order, Roll(hold), fresh)
    assert list(after.dice) == move.dice
    return after


def replay_hold(state: GameState, move: Move) -> GameState:
    assert list(state.dice) == move.dice, "a hold must not change the dice"
    assert move.player is not None
    return rules.apply(state, move.player.order, Hold(frozenset(move.held)), NoDice())


def replay_score(state: GameState, move: Move) -> GameState:
    assert list(state.dice) == move.dice, "a score must use the dice on the table"
    assert move.player is not None
    seat = move.player.order
    after = rules.apply(state, seat, Score(move.category), NoDice())
    gained = after.cards[seat].boxes[move.category] + (
        after.cards[seat].extra_bonus - state.cards[seat].extra_bonus
    )
    assert gained == move.points, (move.category, gained, move.points)
    return after


def stored(token: str) -> tuple[Game, GameState | None]:
    game = Game.objects.get(token=token)
    state = None if game.status == Game.Status.LOBBY else game_state(game, game_players(game))
    return game, state


def check_game(table: Table) -> None:
    """The stored game equals the oracle's, and its Move log replays to it."""
    game, state = stored(table.token)
    assert game.version == table.version, (game.version, table.version)
    assert game.status == table.status, (game.status, table.status)
    assert state == table.state, (state, table.state)
    seats = [(p.guest_id, p.bot) for p in game_players(game)]
    assert seats == list(zip(table.guests, table.bots, strict=True)), seats
    assert game.seat_count == table.seat_count
    assert replay(game) == state, "the Move log does not replay to the stored state"
    if state is not None:
        assert (game.status == Game.Status.FINISHED) == state.finished
        assert game.rolls_used <= rules.MAX_ROLLS


def check_rows(table: Table, counts: tuple[int, int, int, int], *, replayed: bool) -> None:
    """After every message: no row appeared or changed that the oracle did not expect."""
    now = row_counts()
    assert now == counts, ("rows changed", now, counts)
    if replayed:
        check_game(table)
        return
    game = Game.objects.get(token=table.token)
    assert (game.version, game.status) == (table.version, table.status)
    if table.state is not None and game.status == Game.Status.PLAYING:
        state = table.state
        assert (game.current_seat, tuple(game.dice), frozenset(game.held), game.rolls_used) == (
            state.current,
            state.dice,
            state.held,
            state.rolls,
        )


def latest_move(token: str) -> Move:
    return Move.objects.filter(game__token=token).select_related("player").latest("version")


@dataclass(frozen=True)
class Plan:
    ruleset: str
    seats: int  # people seated
    stage: str  # lobby, playing, late or finished
    free: int = 0  # seats left free (in the lobby)
    hints: bool = False
    entered: bool = False


def create_tables(prefix: str, plans: list[Plan]) -> list[Table]:
    """Games in the shapes asked for."""
    tables = []
    for n, plan in enumerate(plans):
        guests = [f"{prefix}-g{n}-s{s}" for s in range(plan.seats)]
        game = services.game_create(
            guest_id=guests[0],
            name=f"P{n}0",
            seat_count=plan.seats + plan.free,
            ruleset=plan.ruleset,
            hints=plan.hints,
            dice_entered=plan.entered,
        )
        for s in range(1, plan.seats):
            services.game_join(token=game.token, guest_id=guests[s], name=f"P{n}{s}")
        if plan.stage != "lobby":
            services.game_start(token=game.token, guest_id=guests[0])
        if plan.stage in ("late", "finished"):
            play_until(game.token, guests, boxes_left=0 if plan.stage == "finished" else 1)
        game.refresh_from_db()
        table = Table(
            game.token,
            plan.ruleset,
            guests,
            game.status,
            game.version,
            None,
            seat_count=game.seat_count,
            hints=game.hints,
            entered=plan.entered,
            bots=[""] * len(guests),
        )
        table.state = replay(game)
        check_game(table)
        tables.append(table)
    return tables


def play_until(token: str, guests: list[str], *, boxes_left: int) -> None:
    """Play legal turns (roll once, score the first open box) through the service."""
    while True:
        game, state = stored(token)
        assert state is not None
        per_seat = len(state.ruleset.categories)
        if all(per_seat - len(c.boxes) <= boxes_left for c in state.cards):
            return
        guest = guests[state.current]
        services.game_act(token=token, guest_id=guest, version=game.version, action=Roll())
        game, state = stored(token)
        assert state is not None
        services.game_act(
            token=token,
            guest_id=guest,
            version=game.version,
            action=Score(state.allowed_boxes()[0]),
        )


def session_cookie(guest: str) -> str:
    store = SessionStore()
    store[GUEST_KEY] = guest
    store.create()
    return f"{settings.SESSION_COOKIE_NAME}={store.session_key}"


# --- the oracle ---------------------------------------------------------------


def expect_action(table: Table, sock: Sock, message: dict[str, Any]) -> Outcome:
    """What a well-formed message must lead to: who may take it now from the
    rules' check, what its fields do from the rules engine and the stored game."""
    declaration = actions.ACTIONS[message["action"]]
    seat = table.seat_of(sock.guest)
    view = table.rules_view()
    if declaration.name == "add_bot" and message["level"] not in LEVELS:
        return game_error("unknown_bot")  # the level is checked before anything else
    if declaration.name == "bot_pace" and message["pace"] not in PACES:
        return game_error("unknown_pace")  # so is the pace
    code = rules.refusal(view, seat, declaration.name, version=message.get("version"))
    if code is None:
        code = field_refusal(table, seat, declaration, message)
    if code is not None:
        if declaration.answer == "push":
            return game_error(code)
        return parse_error(code)  # a refused read is not followed by the table
    if declaration.answer == "table":
        return Outcome(TABLE)
    if declaration.answer == "current":
        return Outcome(CURRENT if message.get("version") == table.version else TABLE)
    if declaration.answer == "hint":
        return Outcome(HINT)
    if declaration.answer == "coach":
        return Outcome(COACH)
    if declaration.name == "rematch" and table.rematched:
        return Outcome(NOTHING)
    if declaration.answer == "chat":
        return Outcome(CHAT)
    if declaration.answer == "presence":
        # Presence is no change of the game: no table, no version.
        return Outcome(NOTHING)
    return Outcome(ACCEPT)


def field_refusal(
    table: Table, seat: int | None, declaration: Declaration, message: dict[str, Any]
) -> str | None:
    """What the action's own fields make of an action the rules allow this seat."""
    name = declaration.name
    if name in ("roll", "enter", "hold", "score"):
        assert table.state is not None and seat is not None
        move: rules.Action
        if name == "roll":
            # Left out, the roll keeps the dice held now.
            move = Roll(frozenset(message.get("hold", table.state.held)))
        elif name == "enter":
            move = Enter(tuple(message["dice"]), frozenset(message.get("hold", table.state.held)))
        elif name == "hold":
            move = Hold(frozenset(message["dice"]))
        else:
            move = Score(message["category"])
        try:
            rules.apply(table.state, seat, move, ScriptedDice([1] * 5))
        except rules.GameError as error:
            return error.code
    elif name == "remove_bot":
        target = message["seat"]
        if target >= len(table.guests) or table.guests[target]:
            return "not_a_bot"
    elif name == "hand_to_bot":
        assert table.state is not None
        if message["seat"] != table.state.current:
            return "not_absent"
    elif name == "chat":
        try:
            chat.read_chat(message.get("text"), message.get("phrase"))
        except rules.GameError as error:
            return error.code
    return None


def advance(table: Table, message: dict[str, Any], sock: Sock) -> None:
    """Bring the oracle up to an accepted action, from the row it logged."""
    action = message["action"]
    table.version += 1
    if action == "rematch":
        table.rematched = True
        return
    if action == "add_bot":
        table.guests.append("")
        table.bots.append(message["level"])
        return
    if action == "remove_bot":
        del table.guests[message["seat"]]
        del table.bots[message["seat"]]
        # Later seats moved up: so did the sockets seated there.
        for other in table.sockets:
            other.seat = table.seat_of(other.guest)
        return
    if action == "hand_to_bot":
        table.bots[message["seat"]] = services.STAND_IN_LEVEL
        return
    if action == "take_back":
        table.bots[table.guests.index(sock.guest)] = ""
        return
    if action == "spectator_chat":
        table.spectator_chat = bool(message["on"])
        return
    if action == "bot_pace":
        return
    move = latest_move(table.token)
    assert move.version == table.version, (move.version, table.version)
    if action == "start":
        assert move.kind == Move.Kind.START
        table.status = Game.Status.PLAYING
        table.seat_count = len(table.guests)
        table.state = rules.new_game(table.ruleset, len(table.guests))
        return
    assert table.state is not None
    assert move.player is not None and move.player.order == sock.seat
    # Acting takes a seat back from the bot keeping it.
    table.bots[move.player.order] = ""
    if action in ("roll", "enter"):
        # An entered throw is logged as the roll it stands for.
        kept = message.get("hold", table.state.held)
        assert move.kind == Move.Kind.ROLL and set(move.held) == set(kept)
        table.state = replay_roll(table.state, move)
    elif action == "hold":
        assert move.kind == Move.Kind.HOLD and set(move.held) == set(message["dice"])
        table.state = replay_hold(table.state, move)
    else:
        assert move.kind == Move.Kind.SCORE and move.category == message["category"]
        table.state = replay_score(table.state, move)
    if table.state.finished:
        table.status = Game.Status.FINISHED


# --- what hostile clients send --------------------------------------------------

SENDER_KINDS = ["spectator", "anonymous", "forged", "foreign", "garbage"]
JUNK_TEXT = st.text(alphabet=string.printable + "éß中\u202e\x00", max_size=40)
# Values of the wrong type for each kind of field: each is refused as bad_message.
WRONG: dict[type, list[object]] = {
    Whole: ["3", 3.0, True, False, None, [], {}, [3], {"v": 3}, "", -1.5],
    Text: [7, None, ["ones"], {"k": 1}, True, 3.5],
    Positions: ["01", 0, {"0": 1}, True, 1.0, None, [0, "1"], [True], [1.0]],
    Faces: ["12345", 1, None, {"0": 1}, [1, 2, "3", 4, 5], [True, 1, 1, 1, 1], [1.0, 2, 3, 4, 5]],
}


def field_value(draw: st.DrawFn, table: Table, name: str, kind: object) -> Any:
    """A value of the right type for a declared field: legal or not for the game."""
    if name == "version":
        return table.version + draw(st.sampled_from([0, 0, 0, -1, 1, 10**12, -(10**12), 2**70]))
    if isinstance(kind, Whole):
        low = kind.low if kind.low is not None else -5
        high = kind.high if kind.high is not None else 5
        return draw(st.integers(low, high))
    if isinstance(kind, Text):
        known = list(kind.choices) or ALL_CATEGORIES
        junk = JUNK_TEXT.filter(lambda t: len(t) <= kind.max_length)
        return draw(st.one_of(st.sampled_from(known), junk))
    if isinstance(kind, Faces):
        return draw(st.lists(st.integers(1, 6), min_size=rules.DICE, max_size=rules.DICE))
    assert isinstance(kind, Positions)
    count = draw(st.integers(0, rules.DICE))
    return draw(st.permutations(range(rules.DICE)))[:count]


def declared_message(draw: st.DrawFn, table: Table, declaration: Declaration) -> dict[str, Any]:
    """Any declared action, each field of the right type (and in bounds)."""
    message: dict[str, Any] = {"action": declaration.name}
    for f in declaration.fields:
        if not f.may_be_left_out or draw(st.booleans()):
            message[f.name] = field_value(draw, table, f.name, f.kind)
    return message


def malformed_field(draw: st.DrawFn, table: Table) -> tuple[dict[str, Any], str]:
    """A declared action with one field wrong, and the code that refuses it."""
    declaration = draw(st.sampled_from([d for d in actions.DECLARATIONS if d.fields]))
    message = declared_message(draw, table, declaration)
    f = draw(st.sampled_from(declaration.fields))
    how = draw(st.sampled_from(["type", "missing", "bounds"]))
    if how == "missing" and not f.may_be_left_out:
        message.pop(f.name, None)
        return message, "bad_message"
    if how == "bounds" and isinstance(f.kind, Whole) and f.kind.high is not None:
        message[f.name] = draw(st.sampled_from([f.kind.high + 1, -1, 10**20]))
        return message, "bad_message"
    if how == "bounds" and isinstance(f.kind, Text):
        message[f.name] = "x" * (f.kind.max_length + 1)
        return message, "bad_message"
    if how == "bounds" and isinstance(f.kind, Positions):
        message[f.name] = draw(
            st.sampled_from([[5], [-1], [0, 0], [4, 4, 1], [10**20], [0, 1, 2, 3, 4, 5], [6, 0]])
        )
        return message, "bad_hold"
    if how == "bounds" and isinstance(f.kind, Faces):
        message[f.name] = draw(
            st.sampled_from(
                [[0, 1, 2, 3, 4], [1, 2, 3, 4, 7], [1, 2, 3], [1] * 6, [], [10**20] * 5]
            )
        )
        return message, "bad_faces"
    message[f.name] = draw(st.sampled_from(WRONG[type(f.kind)]))
    # Dice of the wrong kind are not five faces either: one code for them all.
    return message, "bad_faces" if isinstance(f.kind, Faces) else "bad_message"


@st.composite
def hostile_message(draw: st.DrawFn, table: Table, sock: Sock) -> tuple[str | bytes, Outcome]:
    """One message and what it must lead to. Shapes with one defect each, so
    the code to expect is known without asking the parser."""
    v = table.version
    kind = draw(
        st.sampled_from(
            [
                "legal", "legal", "legal", "legal", "declared", "declared", "declared",
                "version", "not_json", "binary", "huge", "unknown", "malformed",
                "not_object", "extra_fields", "nested",
            ]
        )
    )  # fmt: skip
    message: dict[str, Any]
    if kind == "not_json":
        text = draw(
            st.sampled_from(
                ["", "{", "roll", "{'action': 'roll'}", '{"action": "roll",}', "NaN]", "\ufeff"]
            )
        )
        return text, parse_error("bad_json")
    if kind == "binary":
        payload = draw(st.binary(min_size=1, max_size=64))
        return payload, parse_error("bad_message")
    if kind == "huge":
        size = draw(st.integers(actions.MAX_MESSAGE_CHARS + 1, 300_000))
        body = json.dumps({"action": "roll", "version": v, "hold": [], "pad": ""})
        return body[:-2] + "x" * size + '"}', parse_error("too_large")
    if kind == "not_object":
        text = draw(
            st.sampled_from(["[1, 2]", '"roll"', "3", "null", "true", "[" * 500 + "]" * 500])
        )
        return text, parse_error("bad_message")
    if kind == "nested":
        # Deep nesting inside the size cap must not reach the recursion limit
        # as a crash: it is either refused as JSON or read as an odd object.
        depth = draw(st.integers(100, 1000))
        text = '{"action": "sync", "x": ' + "[" * depth + "]" * depth + "}"
        if len(text) > actions.MAX_MESSAGE_CHARS:
            return text, parse_error("too_large")
        return text, Outcome(TABLE)
    if kind == "unknown":
        action = draw(
            st.one_of(
                st.sampled_from(["ROLL", "roll ", "", "join", "teleport", "set_dice", None, 7]),
                JUNK_TEXT.filter(lambda t: t not in actions.ACTIONS),
            )
        )
        message = {"action": action, "version": v}
        if draw(st.booleans()):
            del message["action"]
        return json.dumps(message), parse_error("unknown_action")
    if kind == "malformed":
        message, code = malformed_field(draw, table)
        return json.dumps(message), parse_error(code)
    if kind == "legal":
        message = legal_message(draw, table, sock)
    elif kind == "declared":
        message = declared_message(draw, table, draw(st.sampled_from(actions.DECLARATIONS)))
    elif kind == "version":
        base = legal_message(draw, table, sock)
        if "version" not in base:
            base = {"action": "roll", "hold": []}
        shift = draw(st.sampled_from([-1, -2, 1, 2, 10**12, -(10**12), 2**70]))
        message = {**base, "version": v + shift}
    else:
        # Fields a client must not be able to set: ignored, never obeyed
        # (a field the action declares, such as a hold's dice, keeps its value).
        message = {
            "guest": draw(st.sampled_from(table.guests)),
            "dice": [6, 6, 6, 6, 6],
            "points": 50,
            "player": 0,
            **legal_message(draw, table, sock),
        }
        # An undeclared seat must not change whose seat acts (declared, it names a target).
        message.setdefault("seat", draw(st.integers(0, 5)))
    return json.dumps(message), expect_action(table, sock, message)


def legal_message(draw: st.DrawFn, table: Table, sock: Sock) -> dict[str, Any]:
    """An action that is right for the game now (it is legal only from the right sender)."""
    v = table.version
    if table.status == Game.Status.LOBBY:
        # Starting ends the lobby: seat and unseat bots a while first.
        choice = draw(
            st.sampled_from(
                [
                    "start",
                    "add_bot",
                    "add_bot",
                    "remove_bot",
                    "remove_bot",
                    "chat",
                    "spectator_chat",
                    "bot_pace",
                ]
            )
        )
        if choice == "chat":
            return {"action": "chat", "phrase": draw(st.sampled_from(chat.CODES))}
        if choice == "spectator_chat":
            return {"action": "spectator_chat", "on": draw(st.integers(0, 1))}
        if choice == "add_bot":
            return {"action": "add_bot", "level": draw(st.sampled_from(LEVELS))}
        if choice == "bot_pace":
            return {"action": "bot_pace", "version": v, "pace": draw(st.sampled_from(PACES))}
        if choice == "remove_bot":
            # Mostly a bot's seat; a person's is refused.
            bots = [s for s, guest in enumerate(table.guests) if not guest]
            seats = list(range(len(table.guests)))
            if bots and draw(st.integers(0, 3)) != 0:
                seats = bots
            return {"action": "remove_bot", "seat": draw(st.sampled_from(seats))}
        return {"action": "start", "version": v}
    if table.status == Game.Status.FINISHED:
        if table.rematched:
            return {"action": "roll", "version": v, "hold": []}
        return {"action": "rematch"}
    state = table.state
    assert state is not None
    aside = draw(st.integers(0, 9))
    if aside == 0:
        return {"action": "hand_to_bot", "seat": state.current}
    if aside == 1 or (table.bots[state.current] and aside < 5):
        return {"action": "take_back"}
    if aside == 2 and state.rolls:
        return {"action": draw(st.sampled_from(["hint", "coach"]))}
    if aside == 3:
        return {"action": "chat", "text": draw(JUNK_TEXT)}
    if aside == 4 and draw(st.integers(0, 2)) == 0:
        return {"action": "bot_pace", "version": v, "pace": draw(st.sampled_from(PACES))}
    may_roll = state.rolls < rules.MAX_ROLLS
    if state.rolls == 0 or (may_roll and draw(st.booleans())):
        if state.rolls and may_roll and draw(st.booleans()):
            dice = sorted(draw(st.sets(st.integers(0, 4))))
            return {"action": "hold", "version": v, "dice": dice}
        if table.entered:
            return entered_throw(draw, state, v)
        if state.rolls and draw(st.booleans()):
            return {"action": "roll", "version": v}  # keeps the dice held now
        hold = [] if state.rolls == 0 else sorted(draw(st.sets(st.integers(0, 4))))
        return {"action": "roll", "version": v, "hold": hold}
    return {
        "action": "score",
        "version": v,
        "category": draw(st.sampled_from(state.allowed_boxes())),
    }


def entered_throw(draw: st.DrawFn, state: GameState, v: int) -> dict[str, Any]:
    """A throw of real dice, entered: the kept dice with their faces, the
    others as they came up (holds left out: those held now)."""
    faces = draw(st.lists(st.integers(1, 6), min_size=rules.DICE, max_size=rules.DICE))
    if state.rolls and draw(st.booleans()):
        kept = state.held
        message: dict[str, Any] = {"action": "enter", "version": v}
    else:
        kept = frozenset() if state.rolls == 0 else frozenset(draw(st.sets(st.integers(0, 4))))
        message = {"action": "enter", "version": v, "hold": sorted(kept)}
    message["dice"] = [state.dice[i] if i in kept else faces[i] for i in range(rules.DICE)]
    return message


# --- the driver ----------------------------------------------------------------


class Crowd:
    """Several games and their sockets, driven one message at a time."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self.tables: list[Table] = []
        self.counts = (0, 0, 0, 0)

    async def open(self, draw: st.DrawFn) -> None:
        prefix = secrets.token_hex(4)
        rulesets = st.sampled_from(sorted(rules.RULESETS))
        # A lobby with free seats for bots, a game under way (hints on or
        # off), and a solitaire about to end or ended. Hints only in Yacht:
        # its advisor's table builds in a blink, Yatzy's would take seconds.
        # A game of real dice (whose hints are always on) now and then.
        hints = draw(st.booleans())
        entered = hints and draw(st.booleans())
        plans = [
            Plan("yacht", draw(st.integers(1, 3)), "lobby", free=draw(st.integers(0, 2))),
            Plan(
                "yacht" if hints else draw(rulesets),
                draw(st.integers(1, 3)),
                "playing",
                hints=hints,
                entered=entered,
            ),
            Plan(draw(rulesets), 1, draw(st.sampled_from(["late", "late", "finished"]))),
        ]
        self.tables = await sync_to_async(create_tables)(prefix, plans)
        cookies = await sync_to_async(
            lambda: {g: session_cookie(g) for t in self.tables for g in [*t.guests, f"{prefix}-x"]}
        )()
        for n, table in enumerate(self.tables):
            other = self.tables[(n + 1) % len(self.tables)].guests[0]
            socks = [
                Sock("seat", g, s, draw(st.sampled_from(LANGUAGES)), cookies[g])
                for s, g in enumerate(table.guests)
            ]
            socks.append(Sock("tab", table.guests[0], 0, "en", cookies[table.guests[0]]))
            for kind in draw(st.lists(st.sampled_from(SENDER_KINDS), min_size=1, max_size=3)):
                socks.append(self.stranger(kind, other, f"{prefix}-x", cookies, draw))
            for sock in socks:
                await self.connect(table, sock)
            table.sockets = socks
        self.counts = await sync_to_async(row_counts)()

    def stranger(
        self, kind: str, other: str, watcher: str, cookies: dict[str, str], draw: st.DrawFn
    ) -> Sock:
        language = draw(st.sampled_from(LANGUAGES))
        name = settings.SESSION_COOKIE_NAME
        if kind == "spectator":
            return Sock(kind, watcher, None, language, cookies[watcher])
        if kind == "foreign":
            # A real session, seated at another game: it earns nothing here.
            return Sock(kind, other, None, language, cookies[other])
        if kind == "forged":
            return Sock(kind, "", None, language, f"{name}={secrets.token_hex(16)}")
        if kind == "garbage":
            junk = draw(st.sampled_from(['"', "<script>", "a;b=c", "%00", "ä", ";;;=", " "]))
            return Sock(kind, "", None, language, f"{name}={junk}")
        return Sock(kind, "", None, language, None)

    async def connect(self, table: Table, sock: Sock) -> None:
        headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
        if sock.cookie is not None:
            headers.append((b"cookie", sock.cookie.encode("utf-8")))
        sock.ws = WebsocketCommunicator(
            application, f"/ws/g/{table.token}/?lang={sock.language}", headers=headers
        )
        connected, _ = await sock.ws.connect(timeout=ANSWER_TIMEOUT)
        assert connected
        first = await self.receive(sock)
        self.check_table(first, table, sock)
        if table.chats:
            said = await self.receive(sock)
            assert said["type"] == "chat_log" and "Traceback" not in said["html"], said

    async def close(self) -> None:
        for table in self.tables:
            for sock in table.sockets:
                if sock.ws is not None:
                    await sock.ws.disconnect()

    async def output(self, sock: Sock) -> dict[str, Any]:
        """The socket's next output that is not a presence message (a frame
        or its close)."""
        assert sock.ws is not None
        while True:
            output: dict[str, Any] = await sock.ws.receive_output(timeout=ANSWER_TIMEOUT)
            text = output.get("text") if output["type"] == "websocket.send" else None
            if not (text and json.loads(text).get("type") == "presence"):
                return output

    async def receive(self, sock: Sock) -> dict[str, Any]:
        assert sock.ws is not None
        while True:
            raw = await sock.ws.receive_from(timeout=ANSWER_TIMEOUT)
            message = json.loads(raw)
            assert isinstance(message, dict), raw[:300]
            if message.get("type") != "presence":
                break
            # Presence comes whenever a socket of a seat opens or closes,
            # answering nothing: its shape is checked, then it is passed over.
            seats = message["seats"]
            assert all(
                seat.isdigit() and state in ("online", "away") for seat, state in seats.items()
            ), raw[:300]
        answers = ("table", "error", "hint", "coach", "current", "chat", "chat_log")
        assert message.get("type") in answers, raw[:300]
        return message

    def check_table(self, message: dict[str, Any], table: Table, sock: Sock) -> None:
        assert message["type"] == "table", message
        assert message["version"] == table.version, (message["version"], table.version)
        assert message["state"]["version"] == table.version
        assert message["version"] >= sock.last_version, "a socket was shown an older version"
        sock.last_version = message["version"]
        assert message["seat"] == sock.seat, (message["seat"], sock.kind)
        assert "Traceback" not in message["html"]

    def check_error(self, message: dict[str, Any], code: str, sock: Sock) -> None:
        assert message == {"type": "error", "code": code, "message": message["message"]}, (
            message,
            code,
        )
        assert code in MESSAGES
        with translation.override(sock.language):
            assert message["message"] == error_message(code)

    async def step(self, draw: st.DrawFn) -> None:
        table = self.tables[draw(st.integers(0, len(self.tables) - 1))]
        # Hypothesis favours small and boundary values: ask for a middle one,
        # so that about one step in 300 is a flood.
        pick = draw(st.integers(0, 299))
        if pick == 150:
            await self.flood(table, draw)
            return
        if pick == 151:
            await self.reconnect_flood(table)
            return
        if draw(st.booleans()):
            sock = self.actor(table)
        else:
            sock = table.sockets[draw(st.integers(0, len(table.sockets) - 1))]
        payload, outcome = draw(hostile_message(table, sock))
        if outcome.kind == ACCEPT and draw(st.integers(0, 3)) == 0:
            # The right move from every other socket of the game first: at
            # most one of them may get it applied, and only if it may act.
            assert isinstance(payload, str)
            message = json.loads(payload)
            for other in table.sockets:
                if other is not sock:
                    await self.send(table, other, payload, expect_action(table, other, message))
            outcome = expect_action(table, sock, message)
        await self.send(table, sock, payload, outcome)

    def actor(self, table: Table) -> Sock:
        """The socket that may act now: the host in the lobby, else the seat to
        move (or, when a bot's own seat is to move, the host's)."""
        seat = 0
        if table.status == Game.Status.PLAYING:
            assert table.state is not None
            seat = table.state.current
        return next(
            (s for s in table.sockets if s.seat == seat),
            next(s for s in table.sockets if s.seat == 0),
        )

    async def send(self, table: Table, sock: Sock, payload: str | bytes, outcome: Outcome) -> None:
        assert sock.ws is not None
        # send_input, not send_to: an empty text frame is a hostile message too.
        frame = "bytes" if isinstance(payload, bytes) else "text"
        await sock.ws.send_input({"type": "websocket.receive", frame: payload})
        self.stats.tried += 1
        if isinstance(payload, str):
            with contextlib.suppress(actions.BadMessage):
                name = actions.parse(payload)[0].name
                self.stats.sent[name] = self.stats.sent.get(name, 0) + 1
        if outcome.kind == "error":
            self.stats.reject(outcome.code)
            self.check_error(await self.receive(sock), outcome.code, sock)
            if outcome.resync:
                self.check_table(await self.receive(sock), table, sock)
        elif outcome.kind == TABLE:
            self.check_table(await self.receive(sock), table, sock)
        elif outcome.kind == CURRENT:
            current = await self.receive(sock)
            assert current == {"type": "current", "version": table.version}, current
        elif outcome.kind == HINT:
            hint = await self.receive(sock)
            assert hint["type"] == "hint" and hint["version"] == table.version, hint
            assert "Traceback" not in hint["html"]
            self.stats.hints += 1
        elif outcome.kind == COACH:
            coach = await self.receive(sock)
            assert coach["type"] == "coach" and coach["version"] == table.version, coach
            assert coach["text"] and "%(" not in coach["text"], coach
            self.stats.coached += 1
        elif outcome.kind == NOTHING:
            # Nothing to answer, but the server must still be answering.
            await sock.ws.send_to(text_data='{"action": "sync"}')
            self.stats.tried += 1
            self.check_table(await self.receive(sock), table, sock)
        elif outcome.kind == CHAT:
            # A line said reaches every socket of the game, and changes nothing else.
            self.stats.accepted += 1
            self.stats.took["chat"] = self.stats.took.get("chat", 0) + 1
            for other in table.sockets:
                line = await self.receive(other)
                assert line["type"] == "chat" and "Traceback" not in line["html"], line
                assert "<script" not in line["html"].lower()
            table.chats += 1
        if outcome.kind == ACCEPT:
            # Pushes leave only after the commit: once one arrives, the rows are there.
            self.stats.accepted += 1
            assert isinstance(payload, str)
            message = json.loads(payload)
            self.stats.took[message["action"]] = self.stats.took.get(message["action"], 0) + 1
            pushes = [await self.receive(other) for other in table.sockets]
            await sync_to_async(advance)(table, message, sock)
            for push, other in zip(pushes, table.sockets, strict=True):
                self.check_table(push, table, other)
            self.counts = self.expected_counts(table, message)
        await sync_to_async(check_rows)(table, self.counts, replayed=outcome.kind == ACCEPT)

    def expected_counts(self, table: Table, message: dict[str, Any]) -> tuple[int, int, int, int]:
        games, players, moves, scores = self.counts
        action = message["action"]
        if action == "rematch":
            return games + 1, players + len(table.guests), moves + 1, scores
        if action in ("add_bot", "remove_bot"):
            return games, players + (1 if action == "add_bot" else -1), moves, scores
        if action in ("hand_to_bot", "take_back", "spectator_chat", "bot_pace"):
            # A seat changes hands, or a setting changes: no move is logged.
            return games, players, moves, scores
        return games, players, moves + 1, scores + (action == "score")

    async def flood(self, table: Table, draw: st.DrawFn) -> None:
        """A socket past its rate limit is closed with 1008; the others play on."""
        sock = table.sockets[draw(st.integers(0, len(table.sockets) - 1))]
        flooder = Sock("flood", sock.guest, sock.seat, sock.language, sock.cookie)
        with real_rate_limit():
            await self.connect(table, flooder)
        assert flooder.ws is not None
        self.stats.floods += 1
        burst = REAL_RATE_LIMIT[0]
        for sent in range(1, burst * 3):  # noqa: B007 - read after the loop
            await flooder.ws.send_to(text_data="{")
            self.stats.tried += 1
            answer = await self.receive(flooder)
            if answer["code"] == "rate_limited":
                self.stats.reject("rate_limited")
                self.check_error(answer, "rate_limited", flooder)
                break
            self.stats.reject("bad_json")
            self.check_error(answer, "bad_json", flooder)
        else:
            raise AssertionError("a flood was never cut off")
        assert sent > burst, "the burst allowance was not honoured"
        closing = await self.output(flooder)
        if closing["type"] == "websocket.send":
            # The refusal is followed by the table, like any refusal, then the close.
            self.check_table(json.loads(closing["text"]), table, flooder)
            closing = await self.output(flooder)
        assert closing["type"] == "websocket.close", closing
        assert closing["code"] == consumers.CLOSE_POLICY_VIOLATION and closing.get("reason")
        await flooder.ws.disconnect()
        # Every other socket of the game still answers.
        for other in table.sockets:
            await self.send(table, other, '{"action": "sync"}', Outcome(TABLE))

    async def reconnect_flood(self, table: Table) -> None:
        """Socket after socket from one session, each flooding until cut off:
        the session's count goes on across them, so reconnecting does not
        buy a fresh allowance, and the game's other sockets play on."""
        self.stats.reconnect_floods += 1
        guest = f"reflood-{secrets.token_hex(6)}"
        cookie = await sync_to_async(session_cookie)(guest)
        limit = REAL_SHARED_LIMIT
        answered = 0
        cut_early = False
        with real_shared_limit():
            for _ in range(2 * limit // REAL_RATE_LIMIT[0] + 3):
                flooder = Sock("reflood", guest, None, "en", cookie)
                await self.connect(table, flooder)
                assert flooder.ws is not None
                for sent in range(1, REAL_RATE_LIMIT[0] + 1):  # noqa: B007
                    await flooder.ws.send_to(text_data="{")
                    self.stats.tried += 1
                    answer = await self.receive(flooder)
                    if answer["code"] == "rate_limited":
                        self.stats.reject("rate_limited")
                        self.check_error(answer, "rate_limited", flooder)
                        self.check_table(await self.receive(flooder), table, flooder)
                        closing = await self.output(flooder)
                        assert closing["code"] == consumers.CLOSE_POLICY_VIOLATION, closing
                        break
                    self.stats.reject("bad_json")
                    self.check_error(answer, "bad_json", flooder)
                    answered += 1
                await flooder.ws.disconnect()
                if sent < REAL_RATE_LIMIT[0]:
                    # Cut off within what one socket alone could have sent.
                    cut_early = True
                    break
        assert cut_early, "reconnecting reset the session's message count"
        # A sliding estimate over two windows: at most twice the limit.
        assert limit <= answered <= 2 * limit, answered
        for other in table.sockets:
            await self.send(table, other, '{"action": "sync"}', Outcome(TABLE))

    async def finish(self) -> None:
        """No socket holds an answer nobody expected, and every log replays.

        Each socket is asked for the table: its answer must be the very next
        message, so anything unexpected that was sent before it is caught
        without waiting for it.
        """
        for table in self.tables:
            for sock in table.sockets:
                await self.send(table, sock, '{"action": "sync"}', Outcome(TABLE))
            await sync_to_async(check_game)(table)


class real_rate_limit:
    """Open one socket with the production limits while the rest have none."""

    def __enter__(self) -> None:
        self.saved = consumers.RATE_BURST, consumers.RATE_PER_SECOND
        consumers.RATE_BURST, consumers.RATE_PER_SECOND = REAL_RATE_LIMIT

    def __exit__(self, *exc: object) -> None:
        consumers.RATE_BURST, consumers.RATE_PER_SECOND = self.saved


REAL_RATE_LIMIT = consumers.RATE_BURST, consumers.RATE_PER_SECOND
REAL_SHARED_LIMIT = settings.YACHT_MESSAGES_PER_SESSION


class real_shared_limit:
    """The production limit on one session's messages across its sockets,
    while the rest of the crowd has none."""

    def __enter__(self) -> None:
        self.saved = settings.YACHT_MESSAGES_PER_SESSION
        settings.YACHT_MESSAGES_PER_SESSION = REAL_SHARED_LIMIT

    def __exit__(self, *exc: object) -> None:
        settings.YACHT_MESSAGES_PER_SESSION = self.saved


def run_crowd(draw: st.DrawFn, steps: int, stats: Stats) -> None:
    """One hypothesis example: a fresh crowd, ``steps`` messages, all checked."""

    async def scenario() -> None:
        crowd = Crowd(stats)
        await crowd.open(draw)
        try:
            for _ in range(steps):
                await crowd.step(draw)
            await crowd.finish()
        finally:
            await crowd.close()

    asyncio.run(scenario())
