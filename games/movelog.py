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
clauses of the game's ``UPDATE``, so a move is one statement between the
lock and the commit; SQLite has no such clauses and runs them one by one.
The constraints (one move per version, one score per box) hold either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

from games.models import Game, Move, ScoreEntry


@dataclass(frozen=True)
class LoggedMove:
    """The rows a move adds: its log entry, and a score's filled box."""

    move: Move
    score: ScoreEntry | None = None


def _inserted(model: type[Model]) -> list[Field[Any, Any]]:
    """The columns an insert of ``model`` names, in order (the key is the
    database's to pick)."""
    return [f for f in model._meta.concrete_fields if not f.primary_key]


def _insert_sql(connection: BaseDatabaseWrapper, model: type[Model]) -> str:
    quote = connection.ops.quote_name
    fields = _inserted(model)
    columns = ", ".join(quote(_column(f)) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({marks})"


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
    update = f"UPDATE {quote(table.db_table)} SET {sets} WHERE {quote(_column(key))} = %s"
    inserts = [_insert_sql(connection, Move)]
    if with_score:
        inserts.append(_insert_sql(connection, ScoreEntry))
    if connection.vendor == "postgresql":
        clauses = ", ".join(f"row{n} AS ({sql})" for n, sql in enumerate(inserts))
        return [f"WITH {clauses} {update}"]
    return [*inserts, update]


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


def write(game: Game, fields: Sequence[str], logged: LoggedMove) -> None:
    """Save ``fields`` of the locked ``game`` and insert ``logged``'s rows,
    inside the caller's transaction."""
    connection = connections[router.db_for_write(Game)]
    rows: list[Model] = [logged.move] if logged.score is None else [logged.move, logged.score]
    names = tuple(dict.fromkeys(fields))
    update_params = [
        field.get_db_prep_save(field.pre_save(game, False), connection)
        for field in map(_game_field, names)
    ]
    update_params.append(game.pk)
    inserts = [_insert_params(connection, row) for row in rows]
    statements = _statements(connection, names, logged.score is not None)
    with connection.cursor() as cursor:
        if len(statements) == 1:
            cursor.execute(statements[0], [p for params in inserts for p in params] + update_params)
        else:
            for sql, params in zip(statements, [*inserts, update_params], strict=True):
                cursor.execute(sql, params)
        updated = cursor.rowcount
    if updated != 1:
        # The row is locked by the caller: it cannot have gone, unless it never was.
        raise DatabaseError(f"game {game.pk} was not updated")
