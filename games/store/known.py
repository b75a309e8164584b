"""What a move starts from: the game's row locked (``lock_game``), or the
row, seats and scorecards of the version this process committed last
(``committed_seats``), copied out so that a decision never changes what is
remembered."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, TypeVar

from django.db import transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.base import ModelState
from django.db.models.sql.compiler import SQLCompiler

from games import rules
from games.models import Game, Player
from games.runtime import runtime
from games.store.selectors import game_players, game_state, state_of


class _LockStatement(threading.local):
    """``SELECT … FOR UPDATE`` of one game by its token, compiled once per
    thread (each thread has its own database connection) and run straight on
    its cursor.

    Every move starts with it. Compiling the same ORM query again each time
    (two dozen columns, the model's ordering, the lock clause) cost a move
    more CPU than the rest of its statements together; the row read back
    goes through the same converters and ``from_db`` as the ORM's own read.
    Kept per thread, the compiled statement goes away with its thread and
    connection (a request's thread under ASGI), never outliving them.
    """

    compiled: tuple[BaseDatabaseWrapper, str, list[str], SQLCompiler, dict[int, Any]] | None = None

    def __call__(self, token: str) -> Game | None:
        connection = transaction.get_connection()
        if self.compiled is None or self.compiled[0] is not connection:
            query = Game.objects.select_for_update().filter(token=token)[:1].query
            compiler = query.get_compiler(connection=connection)
            sql, _ = compiler.as_sql()
            columns = [column.target.attname for column, _, _ in compiler.select]
            converters = compiler.get_converters([column for column, _, _ in compiler.select])
            self.compiled = (connection, sql, columns, compiler, converters)
        _, sql, columns, compiler, converters = self.compiled
        with connection.cursor() as cursor:
            cursor.execute(sql, [token])
            row = cursor.fetchone()
        if row is None:
            return None
        if converters:
            row = next(iter(compiler.apply_converters([row], converters)))
        return Game.from_db(connection.alias, columns, row)


def lock_game(token: str) -> Game | None:
    """``SELECT … FOR UPDATE`` of the game ``token``, in the caller's transaction."""
    return runtime.part(_LockStatement)(token)


Cards = tuple[rules.Scorecard, ...]


Row = TypeVar("Row", Game, Player)


def copy_row(row: Row) -> Row:
    """What ``copy.copy`` makes of a model instance (its own attributes and
    model state, the values shared), built directly. Through pickling's
    reduce a seat's copy took 5.7 us, this one 0.95 us, and every move
    copies its game and seats twice (handed out, then remembered). The
    values are shared: a move assigns new ones (dice, holds), never changes
    them in place."""
    state = ModelState.__new__(ModelState)
    state.__dict__.update(row._state.__dict__)
    state.fields_cache = dict(row._state.fields_cache)
    kept = type(row).__new__(type(row))
    kept.__dict__.update(row.__dict__)
    kept._state = state
    return kept


class CommittedSeats:
    """The game's row, seats and scorecards of each game's latest version
    this process committed or read under the game's lock, by game and
    version.

    A move locks the game's row, which says its version; when this process
    holds that version's seats and cards (it committed the move before, as
    it does for every move of a game whose players it serves), the move
    needs neither the seats nor the scores read again: one ``SELECT … FOR
    UPDATE``, the move log's insert and the game's update. A move made
    against the very version held here needs not even the lock read (see
    ``services.game_act``). Another process's commit moves the version on,
    and the next move here reads it all. Everything is handed out as
    copies: a move that changes its game or a seat and then rolls back (or
    finds the game moved on) must not leave its change here.

    Only games in play are held: a game that ends makes no more moves, so
    its version is dropped as it is committed. Held till the cache's bound
    instead, every game a process saw end stayed (about 8 KB each), and
    daphne's RSS grew about 0.35 MB a minute for the first hours of a soak
    (``bench.soak``: 4,096 games at about 60 a minute).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._known: OrderedDict[str, tuple[Game, list[Player], Cards]] = OrderedDict()

    def remember(self, game: Game, players: Sequence[Player], cards: Cards) -> None:
        """``game``'s row as it is now, committed or locked, with its seats
        and cards; a game out of play is forgotten instead."""
        if game.status != Game.Status.PLAYING:
            with self._lock:
                self._known.pop(game.token, None)
            return
        kept = (copy_row(game), [copy_row(p) for p in players], cards)
        with self._lock:
            known = self._known.get(game.token)
            if known is None or known[0].version < game.version:
                self._known[game.token] = kept
                self._known.move_to_end(game.token)
                if len(self._known) > self.size:
                    self._known.popitem(last=False)

    def get(self, token: str, version: int) -> tuple[Game, list[Player], Cards] | None:
        """Copies of the row, seats and cards of ``token`` at ``version``, if
        that is the latest version held."""
        with self._lock:
            known = self._known.get(token)
            if known is None or known[0].version != version:
                return None
            self._known.move_to_end(token)
            game, players, cards = known
        return copy_row(game), [copy_row(p) for p in players], cards

    def clear(self) -> None:
        with self._lock:
            self._known.clear()


def committed_seats() -> CommittedSeats:
    """This process's ``CommittedSeats``."""
    return runtime.part(CommittedSeats)


def locked_game_seats(game: Game) -> tuple[list[Player], rules.GameState | None]:
    """The seats and rules state of ``game``, whose row the caller holds
    locked, from ``committed_seats`` when it knows this version."""
    if game.status == Game.Status.LOBBY:
        return game_players(game), None
    known = committed_seats().get(game.token, game.version)
    if known is not None:
        _, players, cards = known
        return players, state_of(game, cards)
    players = game_players(game)
    state = game_state(game, players)
    committed_seats().remember(game, players, state.cards)
    return players, state


def remembered_game(token: str, version: int) -> tuple[Game, list[Player], rules.GameState] | None:
    """The row, seats and rules state of a game in play at ``version``, as
    this process committed or locked them, if it holds that version."""
    known = committed_seats().get(token, version)
    if known is None:
        return None
    game, players, cards = known
    if game.status != Game.Status.PLAYING:
        return None
    return game, players, state_of(game, cards)
