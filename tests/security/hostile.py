"""A hostile crowd for the game socket, and the oracle that judges it.

Shared by tests/security/test_hostile_sockets.py (a CI-sized run) and
bench/hostile.py (a long one). Several games are driven at once through the
real ASGI routing by sockets of every kind of sender; every message's outcome
is predicted from the rules and the game's stored state, then checked against
what the socket answered and what the database holds.
"""

from __future__ import annotations

import asyncio
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

from games import consumers, rules, services
from games.errors import MESSAGES, error_message
from games.guests import GUEST_KEY
from games.models import Game, Move, Player, ScoreEntry
from games.rules import GameState, Roll, Score, ScriptedDice
from games.selectors import game_players, game_state
from yachtsite.asgi import application

LANGUAGES = ["en", "es", "it", "ca"]
ANSWER_TIMEOUT = 10.0
ALL_CATEGORIES = sorted({key for rs in rules.RULESETS.values() for key in rs.category_keys})


@dataclass
class Stats:
    tried: int = 0
    rejected: int = 0
    accepted: int = 0
    floods: int = 0
    reconnect_floods: int = 0
    codes: dict[str, int] = field(default_factory=dict)

    def reject(self, code: str) -> None:
        self.rejected += 1
        self.codes[code] = self.codes.get(code, 0) + 1


# What a message should lead to.
ACCEPT = "accept"  # a new version, pushed to every socket of the game
TABLE = "table"  # the current table, to the sender only
NOTHING = "nothing"  # no answer at all (a repeated rematch)


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
    guests: list[str]
    status: str
    version: int
    state: GameState | None
    rematched: bool = False
    sockets: list[Sock] = field(default_factory=list)


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
    after = rules.apply(state, move.player.order, Roll(hold), fresh)
    assert list(after.dice) == move.dice
    return after


def replay_score(state: GameState, move: Move) -> GameState:
    assert list(state.dice) == move.dice, "a score must use the dice on the table"
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


def create_tables(prefix: str, plans: list[tuple[str, int, str]]) -> list[Table]:
    """Games in the shapes asked for: (ruleset, seats, stage)."""
    tables = []
    for n, (ruleset, seats, stage) in enumerate(plans):
        guests = [f"{prefix}-g{n}-s{s}" for s in range(seats)]
        game = services.game_create(
            guest_id=guests[0], name=f"P{n}0", seat_count=seats, ruleset=ruleset
        )
        for s in range(1, seats):
            services.game_join(token=game.token, guest_id=guests[s], name=f"P{n}{s}")
        if stage != "lobby":
            services.game_start(token=game.token, guest_id=guests[0])
        if stage in ("late", "finished"):
            play_until(game.token, guests, boxes_left=0 if stage == "finished" else 1)
        game.refresh_from_db()
        table = Table(game.token, ruleset, guests, game.status, game.version, None)
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
    """What a well-formed message must lead to, from the rules and the stored game."""
    action = message["action"]
    guest = sock.guest
    seated = guest in table.guests and guest != ""
    if action == "sync":
        return Outcome(TABLE)
    if action == "start":
        if guest != table.guests[0]:
            return game_error("not_host")
        if table.status != Game.Status.LOBBY:
            return game_error("already_started")
        if message["version"] != table.version:
            return game_error("stale_version")
        return Outcome(ACCEPT)
    if action == "rematch":
        if table.status != Game.Status.FINISHED:
            return game_error("not_finished")
        if not seated:
            return game_error("not_seated")
        return Outcome(NOTHING) if table.rematched else Outcome(ACCEPT)
    if table.status == Game.Status.LOBBY:
        return game_error("not_started")
    if table.status == Game.Status.FINISHED:
        return game_error("game_over")
    if not seated:
        return game_error("not_seated")
    if message["version"] != table.version:
        return game_error("stale_version")
    assert table.state is not None
    move = Roll(frozenset(message["hold"])) if action == "roll" else Score(message["category"])
    try:
        rules.apply(table.state, table.guests.index(guest), move, ScriptedDice([1] * 5))
    except rules.GameError as error:
        return game_error(error.code)
    return Outcome(ACCEPT)


def advance(table: Table, message: dict[str, Any], sock: Sock) -> None:
    """Bring the oracle up to an accepted action, from the row it logged."""
    action = message["action"]
    table.version += 1
    if action == "rematch":
        table.rematched = True
        return
    move = latest_move(table.token)
    assert move.version == table.version, (move.version, table.version)
    if action == "start":
        assert move.kind == Move.Kind.START
        table.status = Game.Status.PLAYING
        table.state = rules.new_game(table.ruleset, len(table.guests))
        return
    assert table.state is not None
    assert move.player is not None and move.player.order == sock.seat
    if action == "roll":
        assert move.kind == Move.Kind.ROLL and set(move.held) == set(message["hold"])
        table.state = replay_roll(table.state, move)
    else:
        assert move.kind == Move.Kind.SCORE and move.category == message["category"]
        table.state = replay_score(table.state, move)
    if table.state.finished:
        table.status = Game.Status.FINISHED


# --- what hostile clients send --------------------------------------------------

SENDER_KINDS = ["spectator", "anonymous", "forged", "foreign", "garbage"]
JUNK_TEXT = st.text(alphabet=string.printable + "éß中\u202e\x00", max_size=40)
WRONG_TYPES = st.sampled_from(["3", 3.0, True, False, None, [], {}, [3], {"v": 3}, "", -1.5])


@st.composite
def hostile_message(draw: st.DrawFn, table: Table, sock: Sock) -> tuple[str | bytes, Outcome]:
    """One message and what it must lead to. Shapes with one defect each, so
    the code to expect is known without asking the parser."""
    v = table.version
    kind = draw(
        st.sampled_from(
            [
                "legal", "legal", "legal", "legal", "roll", "score", "start", "rematch",
                "sync", "version", "not_json", "binary", "huge", "unknown", "wrong_type",
                "not_object", "bad_hold", "extra_fields", "nested",
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
        size = draw(st.integers(consumers.MAX_MESSAGE_CHARS + 1, 300_000))
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
        if len(text) > consumers.MAX_MESSAGE_CHARS:
            return text, parse_error("too_large")
        return text, Outcome(TABLE)
    if kind == "unknown":
        action = draw(
            st.one_of(
                st.sampled_from(["ROLL", "roll ", "", "join", "teleport", "set_dice", None, 7]),
                JUNK_TEXT.filter(lambda t: t not in consumers.ACTIONS),
            )
        )
        message = {"action": action, "version": v}
        if draw(st.booleans()):
            del message["action"]
        return json.dumps(message), parse_error("unknown_action")
    if kind == "wrong_type":
        which = draw(
            st.sampled_from(["version", "version_missing", "hold", "hold_item", "category"])
        )
        if which == "version":
            action = draw(st.sampled_from(["roll", "score", "start"]))
            message = {"action": action, "version": draw(WRONG_TYPES), "hold": [], "category": "a"}
        elif which == "version_missing":
            action = draw(st.sampled_from(["roll", "score", "start"]))
            message = {"action": action, "hold": [], "category": "ones"}
        elif which == "hold":
            hold = draw(st.sampled_from(["01", 0, {"0": 1}, True, 1.0]))
            message = {"action": "roll", "version": v, "hold": hold}
        elif which == "hold_item":
            bad = draw(st.sampled_from(["0", 1.0, True, None, [0], {}]))
            message = {"action": "roll", "version": v, "hold": [0, bad]}
        else:
            category = draw(st.sampled_from([7, None, ["ones"], {"k": 1}, True]))
            message = {"action": "score", "version": v, "category": category}
        return json.dumps(message), parse_error("bad_message")
    if kind == "bad_hold":
        hold = draw(
            st.sampled_from([[5], [-1], [0, 0], [4, 4, 1], [10**20], [0, 1, 2, 3, 4, 5], [6, 0]])
        )
        return json.dumps({"action": "roll", "version": v, "hold": hold}), parse_error("bad_hold")
    if kind == "legal":
        message = legal_message(draw, table, sock)
    elif kind == "roll":
        count = draw(st.integers(0, 5))
        hold = draw(st.permutations(range(5)))[:count]
        message = {"action": "roll", "version": v, "hold": hold}
    elif kind == "score":
        category = draw(st.one_of(st.sampled_from(ALL_CATEGORIES), JUNK_TEXT))
        message = {"action": "score", "version": v, "category": category}
    elif kind == "start":
        message = {"action": "start", "version": v}
    elif kind == "rematch":
        message = {"action": "rematch"}
    elif kind == "sync":
        message = {"action": "sync"}
    elif kind == "version":
        base = legal_message(draw, table, sock)
        if "version" not in base:
            base = {"action": "roll", "hold": []}
        shift = draw(st.sampled_from([-1, -2, 1, 2, 10**12, -(10**12), 2**70]))
        message = {**base, "version": v + shift}
    else:
        # Fields a client must not be able to set: ignored, never obeyed.
        message = {
            **legal_message(draw, table, sock),
            "seat": draw(st.integers(0, 5)),
            "guest": draw(st.sampled_from(table.guests)),
            "dice": [6, 6, 6, 6, 6],
            "points": 50,
            "player": 0,
        }
    return json.dumps(message), expect_action(table, sock, message)


def legal_message(draw: st.DrawFn, table: Table, sock: Sock) -> dict[str, Any]:
    """An action that is right for the game now (it is legal only from the right sender)."""
    v = table.version
    if table.status == Game.Status.LOBBY:
        return {"action": "start", "version": v}
    if table.status == Game.Status.FINISHED:
        if table.rematched:
            return {"action": "roll", "version": v, "hold": []}
        return {"action": "rematch"}
    state = table.state
    assert state is not None
    may_roll = state.rolls < rules.MAX_ROLLS
    if state.rolls == 0 or (may_roll and draw(st.booleans())):
        hold = [] if state.rolls == 0 else sorted(draw(st.sets(st.integers(0, 4))))
        return {"action": "roll", "version": v, "hold": hold}
    return {
        "action": "score",
        "version": v,
        "category": draw(st.sampled_from(state.allowed_boxes())),
    }


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
        # A lobby, a game under way, and a solitaire about to end or ended.
        plans = [
            ("yacht", draw(st.integers(1, 3)), "lobby"),
            (draw(rulesets), draw(st.integers(1, 3)), "playing"),
            (draw(rulesets), 1, draw(st.sampled_from(["late", "late", "finished"]))),
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

    async def close(self) -> None:
        for table in self.tables:
            for sock in table.sockets:
                if sock.ws is not None:
                    await sock.ws.disconnect()

    async def receive(self, sock: Sock) -> dict[str, Any]:
        assert sock.ws is not None
        raw = await sock.ws.receive_from(timeout=ANSWER_TIMEOUT)
        message = json.loads(raw)
        assert isinstance(message, dict) and message.get("type") in ("table", "error"), raw[:300]
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
        """The socket that may act now: the host in the lobby, else the seat to move."""
        seat = 0
        if table.status == Game.Status.PLAYING:
            assert table.state is not None
            seat = table.state.current
        return next(s for s in table.sockets if s.seat == seat)

    async def send(self, table: Table, sock: Sock, payload: str | bytes, outcome: Outcome) -> None:
        assert sock.ws is not None
        # send_input, not send_to: an empty text frame is a hostile message too.
        frame = "bytes" if isinstance(payload, bytes) else "text"
        await sock.ws.send_input({"type": "websocket.receive", frame: payload})
        self.stats.tried += 1
        if outcome.kind == "error":
            self.stats.reject(outcome.code)
            self.check_error(await self.receive(sock), outcome.code, sock)
            if outcome.resync:
                self.check_table(await self.receive(sock), table, sock)
        elif outcome.kind == TABLE:
            self.check_table(await self.receive(sock), table, sock)
        elif outcome.kind == NOTHING:
            # Nothing to answer, but the server must still be answering.
            await sock.ws.send_to(text_data='{"action": "sync"}')
            self.stats.tried += 1
            self.check_table(await self.receive(sock), table, sock)
        if outcome.kind == ACCEPT:
            # Pushes leave only after the commit: once one arrives, the rows are there.
            self.stats.accepted += 1
            assert isinstance(payload, str)
            message = json.loads(payload)
            pushes = [await self.receive(other) for other in table.sockets]
            await sync_to_async(advance)(table, message, sock)
            for push, other in zip(pushes, table.sockets, strict=True):
                self.check_table(push, table, other)
            self.counts = self.expected_counts(table, message)
        await sync_to_async(check_rows)(table, self.counts, replayed=outcome.kind == ACCEPT)

    def expected_counts(self, table: Table, message: dict[str, Any]) -> tuple[int, int, int, int]:
        games, players, moves, scores = self.counts
        if message["action"] == "rematch":
            return games + 1, players + len(table.guests), moves + 1, scores
        return games, players, moves + 1, scores + (message["action"] == "score")

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
        closing = await flooder.ws.receive_output(timeout=ANSWER_TIMEOUT)
        if closing["type"] == "websocket.send":
            # The refusal is followed by the table, like any refusal, then the close.
            self.check_table(json.loads(closing["text"]), table, flooder)
            closing = await flooder.ws.receive_output(timeout=ANSWER_TIMEOUT)
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
                        closing = await flooder.ws.receive_output(timeout=ANSWER_TIMEOUT)
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
        """No socket holds an answer nobody expected, and every log replays."""
        await asyncio.sleep(0.05)
        for table in self.tables:
            for sock in table.sockets:
                assert sock.ws is not None
                assert await sock.ws.receive_nothing(timeout=0.01), sock.kind
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
