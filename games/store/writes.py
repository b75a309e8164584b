"""The store's one write interface: the rows a decided change writes
(``Rows``), and the two ways they are written.

- ``write_locked``: inside the caller's transaction, which holds the
  game's row lock (``known.lock_game``). Every change can be written
  this way, and every change but the commonest is.
- ``write_guarded``: without the lock read, for a move decided on the
  version this process committed last (``known.remembered_game``).
  The game's ``UPDATE`` names the version the move was decided on, and the
  move's rows are inserted only with that update, so a game that moved on
  elsewhere changes nothing and the answer is ``Written.STALE``. On
  PostgreSQL that is one statement (the inserts ride in data-modifying
  ``WITH`` clauses) and one round trip where the locked way takes four;
  ``guarded_statement`` hands the same statement to the sockets' loop,
  which runs it through psycopg's asynchronous driver
  (``games.live.loopmoves``). Only rows that are the game and its move log
  can be written this way (``Rows.guardable``), and never a game's last
  move: the write that ends a game is followed by each person's review,
  worked out on the game's thread, never on the sockets' loop.

Through the ORM, a move was an ``INSERT`` per row and an ``UPDATE`` of the
game, each built afresh by the model's save machinery: together more of a
move's CPU than the rules, the lock and the commit. Here the statements are
written once per database vendor from the models' own field definitions,
and each value goes through its field's ``pre_save`` and
``get_db_prep_save`` as the ORM's would (``auto_now_add`` stamps, JSON
adapters). The constraints (one move per version, one score per box) hold
either way.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import OperationalError, connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

from games.models import Game, Move, Player, ScoreEntry
from games.runtime import runtime
from games.store import records


@dataclass(frozen=True)
class Rows:
    """What one decided change writes: ``game``'s ``fields`` (its version
    moved on by one, from ``since``), the seats' changed ``fields``, and the
    move log's entry (a score's filled box too)."""

    game: Game
    fields: tuple[str, ...]
    since: int
    seats: tuple[tuple[Player, tuple[str, ...]], ...] = ()
    move: Move | None = None
    score: ScoreEntry | None = None

    @property
    def ends(self) -> bool:
        """Whether this change ends the game."""
        return "status" in self.fields and self.game.status == Game.Status.FINISHED

    @property
    def guardable(self) -> bool:
        """Whether ``write_guarded`` can write these rows: the game and its
        move log only, so one version-guarded write settles them whole; and
        not the game's end, which is followed by each person's review
        (``write_locked``)."""
        return not self.seats and self.move is not None and not self.ends


class Written(enum.Enum):
    """How a guarded write ended."""

    #: The rows are committed.
    DONE = "done"
    #: The game was no longer at the version the change was decided on:
    #: nothing was written.
    STALE = "stale"
    #: SQLite's write lock was held by another thread: nothing was written,
    #: and the caller did not wait for it (see ``write_guarded``).
    BUSY = "busy"


def write_locked(rows: Rows, publisher: Callable[[], Callable[[], None]]) -> None:
    """Write ``rows`` in the caller's transaction, which holds the game's
    row lock (so the game is at ``rows.since``), then make what publishes
    them (``publisher()``, whose snapshot reads what was written) and run
    it once the write commits. A change that ends the game then keeps each
    person's points lost to optimal play, worked out from the whole move
    log, so that no page ever writes them.

    The review comes after the push, not in the write: it prices every
    decision of the game (25-40 ms of a game's thread, numpy and Python
    holding the interpreter's lock), and in the write it held the game's
    last push back that long and more (``bench.abuse``, four games of two
    played alone on PostgreSQL: push p99 268-339 ms in three runs with the
    review in the write, 35-59 ms in four with it after the push and the
    solver loaded as the process starts)."""
    for seat, fields in rows.seats:
        seat.save(update_fields=list(fields))
    if rows.move is None:
        rows.game.save(update_fields=list(rows.fields))
    else:
        updated = _run(connections[router.db_for_write(Game)], rows)
        # Under the row lock the version cannot have moved on.
        assert updated == 1, f"game {rows.game.pk} moved on under its lock"
    transaction.on_commit(publisher())
    if rows.ends:
        transaction.on_commit(functools.partial(records.keep_losses, rows.game))


def write_guarded(rows: Rows, *, wait: bool = True) -> Written:
    """Write ``rows`` (``guardable``) without the game's row lock, only if
    the stored game is still at ``rows.since``: one statement that commits
    by itself on PostgreSQL, a transaction of three elsewhere.

    With ``wait=False`` (SQLite, called on the sockets' loop) a write lock
    held by another thread is not waited for: the answer is
    ``Written.BUSY`` at once, for the caller to hand the change to a thread
    that may wait. The loop must never sleep out SQLite's busy timeout."""
    if not rows.guardable:
        raise ValueError("only a game's row and its move log can be written guarded")
    connection = connections[router.db_for_write(Game)]
    if connection.vendor == "postgresql":
        return Written.DONE if _run(connection, rows) == 1 else Written.STALE
    if not wait:
        _no_busy_wait(connection)
    try:
        with transaction.atomic(using=connection.alias):
            updated = _run(connection, rows)
    except OperationalError as failure:
        if wait or "locked" not in str(failure):
            raise
        return Written.BUSY
    return Written.DONE if updated == 1 else Written.STALE


def guarded_statement(rows: Rows) -> tuple[str, list[Any]]:
    """PostgreSQL's one statement for ``write_guarded`` and its parameters,
    for a connection of the caller's own to run; it returns one row whose
    one value is 1 if the rows were written, 0 if the game moved on."""
    connection = connections[router.db_for_write(Game)]
    statements, params = _prepared(connection, rows)
    if len(statements) != 1:
        raise ValueError("only PostgreSQL writes a move in one statement")
    return statements[0], [p for group in params for p in group]


def _run(connection: BaseDatabaseWrapper, rows: Rows) -> int:
    """The move's statements on ``connection``: 1 if the game's row was at
    ``rows.since`` and everything was written, else 0 with nothing written."""
    statements, params = _prepared(connection, rows)
    with connection.cursor() as cursor:
        if len(statements) == 1:
            cursor.execute(statements[0], [p for group in params for p in group])
            updated: int = cursor.fetchone()[0]
            return updated
        cursor.execute(statements[0], params[0])
        updated = cursor.rowcount
        if updated == 1:
            for sql, values in zip(statements[1:], params[1:], strict=True):
                cursor.execute(sql, values)
    return updated


def _prepared(connection: BaseDatabaseWrapper, rows: Rows) -> tuple[list[str], list[list[Any]]]:
    """The statements of ``rows``' move and each one's parameters."""
    assert rows.move is not None
    logged: list[Model] = [rows.move] if rows.score is None else [rows.move, rows.score]
    names = tuple(dict.fromkeys(rows.fields))
    update = [
        field.get_db_prep_save(field.pre_save(rows.game, False), connection)
        for field in map(_game_field, names)
    ]
    update += [rows.game.pk, rows.since]
    inserts = [_insert_params(connection, row) for row in logged]
    return _statements(connection, names, rows.score is not None), [update, *inserts]


def _no_busy_wait(connection: BaseDatabaseWrapper) -> None:
    """Make this thread's SQLite connection give up at once on a held write
    lock. Only the sockets' loop writes through a connection set so."""
    connection.ensure_connection()
    raw = connection.connection
    if raw is not None and getattr(connection, "_yacht_no_wait", None) is not raw:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA busy_timeout = 0")
        connection._yacht_no_wait = raw  # type: ignore[attr-defined]


def _inserted(model: type[Model]) -> list[Field[Any, Any]]:
    """The columns an insert of ``model`` names, in order (the key is the
    database's to pick)."""
    return [f for f in model._meta.concrete_fields if not f.primary_key]


def _insert_sql(connection: BaseDatabaseWrapper, model: type[Model], *, after: str = "") -> str:
    """The insert of one ``model`` row; with ``after``, only if the ``WITH``
    clause of that name returned a row (each value cast to its column's
    type, as ``VALUES`` would have inferred it)."""
    quote = connection.ops.quote_name
    fields = _inserted(model)
    columns = ", ".join(quote(_column(f)) for f in fields)
    into = f"INSERT INTO {quote(model._meta.db_table)} ({columns})"
    if not after:
        return f"{into} VALUES ({', '.join(['%s'] * len(fields))})"
    values = ", ".join(f"CAST(%s AS {f.db_type(connection)})" for f in fields)
    return f"{into} SELECT {values} FROM {after}"


class _Statements:
    """The SQL of one move by vendor, game fields and kind: the text depends
    on nothing else, so each is written once per process."""

    def __init__(self) -> None:
        self._written: dict[tuple[str, tuple[str, ...], bool], list[str]] = {}

    def __call__(
        self, connection: BaseDatabaseWrapper, fields: tuple[str, ...], with_score: bool
    ) -> list[str]:
        key = (connection.vendor, fields, with_score)
        known = self._written.get(key)
        if known is None:
            known = self._written[key] = _write_statements(connection, fields, with_score)
        return known


def _statements(
    connection: BaseDatabaseWrapper, fields: tuple[str, ...], with_score: bool
) -> list[str]:
    return runtime.part(_Statements)(connection, fields, with_score)


def _write_statements(
    connection: BaseDatabaseWrapper, fields: tuple[str, ...], with_score: bool
) -> list[str]:
    quote = connection.ops.quote_name
    table = Game._meta
    sets = ", ".join(f"{quote(_column(_game_field(name)))} = %s" for name in fields)
    key = table.pk
    assert key is not None
    update = (
        f"UPDATE {quote(table.db_table)} SET {sets}"
        f" WHERE {quote(_column(key))} = %s AND {quote(_column(_game_field('version')))} = %s"
    )
    models: list[type[Model]] = [Move, ScoreEntry] if with_score else [Move]
    if connection.vendor == "postgresql":
        inserts = [_insert_sql(connection, model, after="moved") for model in models]
        clauses = ", ".join(f"row{n} AS ({sql})" for n, sql in enumerate(inserts))
        return [f"WITH moved AS ({update} RETURNING 1), {clauses} SELECT count(*) FROM moved"]
    return [update, *(_insert_sql(connection, model) for model in models)]


def _column(field: Field[Any, Any]) -> str:
    column = field.column
    assert column is not None  # concrete fields all have one
    return column


def _game_field(name: str) -> Field[Any, Any]:
    field = Game._meta.get_field(name)
    assert isinstance(field, Field)
    return field


def _insert_params(connection: BaseDatabaseWrapper, row: Model) -> list[Any]:
    return [f.get_db_prep_save(f.pre_save(row, True), connection) for f in _inserted(type(row))]


def saved_fields(fields: Sequence[str]) -> tuple[str, ...]:
    """A change's game fields with what every change moves on."""
    return tuple(dict.fromkeys([*fields, "version", "acted_at", "turn_deadline"]))
