"""Writing a move: its row in the move log (a score's box too) and the
game's new state, in one statement where the database allows it.

Every roll, hold and score ends here, under the game's row lock. Through
the ORM that was an ``INSERT`` per row and an ``UPDATE`` of the game, each
built afresh by the model's save machinery: together more of a move's CPU
than the rules, the lock and the commit, and one round trip each. Here the
statements are written once per database vendor from the models' own field
definitions, and each value goes through its field's ``pre_save`` and
``get_db_prep_save`` as the ORM's would (``auto_now_add`` stamps, JSON
adapters). On PostgreSQL the inserts ride in data-modifying ``WITH``
clauses beside the game's ``UPDATE``, so a move is one statement; SQLite
has no such clauses and runs them one by one. The constraints (one move
per version, one score per box) hold either way.

The game's row is updated only while it is still at the version the move
was decided on, and the move's rows are inserted only with that update:
a game that moved on changes nothing and raises ``Stale``. Under the
game's row lock that cannot happen; a move decided on the version this
process remembers, without the lock read, relies on it (see
``services.game_act``).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

from games.models import Game, Move, ScoreEntry


class Stale(DatabaseError):
    """The game's row was no longer at the version the move was decided on:
    nothing was written."""


@dataclass(frozen=True)
class LoggedMove:
    """The rows a move adds: its log entry, and a score's filled box."""

    move: Move
    score: ScoreEntry | None = None


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


_written: dict[tuple[str, tuple[str, ...], bool], list[str]] = {}


def _statements(
    connection: BaseDatabaseWrapper, fields: tuple[str, ...], with_score: bool
) -> list[str]:
    """The SQL of one move, written once per vendor, game fields and kind
    (the text depends on nothing else)."""
    key = (connection.vendor, fields, with_score)
    known = _written.get(key)
    if known is None:
        known = _written[key] = _write_statements(connection, fields, with_score)
    return known


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


@dataclass
class Held:
    """A move decided but not yet written (``holding``): PostgreSQL's one
    statement and its parameters, and what must follow its commit."""

    sql: str = ""
    params: list[Any] = dataclasses.field(default_factory=list)
    after: list[Callable[[], Any]] = dataclasses.field(default_factory=list)


_holding: ContextVar[Held | None] = ContextVar("holding", default=None)


@contextlib.contextmanager
def holding(held: Held) -> Iterator[Held]:
    """Decide a move without writing it: its statement and the callbacks of
    its commit (``on_commit``) are kept in ``held`` instead, for the caller
    to run the statement itself (``games.live.loopmoves``). PostgreSQL only,
    whose move is one statement that commits on its own."""
    token = _holding.set(held)
    try:
        yield held
    finally:
        _holding.reset(token)


def on_commit(callback: Callable[[], Any]) -> None:
    """``callback`` once the move is committed: ``transaction.on_commit``,
    or after the held statement (``holding``)."""
    held = _holding.get()
    if held is not None:
        held.after.append(callback)
    else:
        transaction.on_commit(callback)


def write(game: Game, fields: Sequence[str], logged: LoggedMove) -> None:
    """Save ``fields`` of ``game``, whose version the move has just moved on
    by one, and insert ``logged``'s rows, if the stored row is still at the
    version before; else ``Stale``, having written nothing. Inside the
    caller's transaction, or (PostgreSQL's one statement) as one of its own;
    under ``holding``, the statement is kept instead of run."""
    connection = connections[router.db_for_write(Game)]
    rows: list[Model] = [logged.move] if logged.score is None else [logged.move, logged.score]
    names = tuple(dict.fromkeys(fields))
    update_params = [
        field.get_db_prep_save(field.pre_save(game, False), connection)
        for field in map(_game_field, names)
    ]
    update_params += [game.pk, game.version - 1]
    inserts = [_insert_params(connection, row) for row in rows]
    statements = _statements(connection, names, logged.score is not None)
    held = _holding.get()
    if held is not None:
        if len(statements) != 1:
            raise RuntimeError("only a move that is one statement can be held")
        held.sql = statements[0]
        held.params = update_params + [p for params in inserts for p in params]
        return
    with connection.cursor() as cursor:
        if len(statements) == 1:
            cursor.execute(statements[0], update_params + [p for params in inserts for p in params])
            updated = cursor.fetchone()[0]
        else:
            cursor.execute(statements[0], update_params)
            updated = cursor.rowcount
            if updated == 1:
                for sql, params in zip(statements[1:], inserts, strict=True):
                    cursor.execute(sql, params)
    if updated != 1:
        raise Stale(f"game {game.pk} is no longer at version {game.version - 1}")


def atomic_move() -> contextlib.AbstractContextManager[Any]:
    """What a move written without its game's row lock runs in: nothing on
    PostgreSQL, whose one statement is atomic and, outside a transaction,
    commits by itself (one round trip where a transaction takes three); a
    transaction elsewhere, where the move is several statements."""
    connection = connections[router.db_for_write(Game)]
    if connection.vendor == "postgresql":
        return contextlib.nullcontext()
    return transaction.atomic(using=connection.alias)
