"""The database (or the channel layer) failing under a live socket: a clear
"try again", no half-written action, no traceback for the client and nothing
logged at ERROR."""

from __future__ import annotations

import logging
from typing import Any

import psycopg
import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError, connection
from django.utils import translation
from redis.exceptions import ConnectionError as RedisConnectionError

from games.live import broadcast, consumers
from games.models import Game, Move, ScoreEntry
from games.play import services
from games.present.messages import error_message
from games.rules import Score
from games.runtime import runtime
from games.store import writes
from games.store.known import committed_seats
from games.store.selectors import RecentSnapshots, game_players, game_state
from tests import factories

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


rolled_game = sync_to_async(factories.rolled_game)


@sync_to_async
def rows(game: Game) -> tuple[Any, ...]:
    game.refresh_from_db()
    return (
        game.version,
        game.current_seat,
        game.rolls_used,
        Move.objects.filter(game=game).count(),
        ScoreEntry.objects.filter(player__game=game).count(),
    )


def fail_when_the_version_is_bumped(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The connection dies as the game's update is written, before the move
    commits. Inside a transaction that is just after the update has run:
    what it wrote (the Move and ScoreEntry rows too, in the same statement on
    PostgreSQL) is never committed. PostgreSQL's move on a remembered
    version is one statement outside a transaction, its own commit, sent by
    the sockets' loop through the asynchronous driver (games.live.loopmoves):
    there the connection dies before the statement runs."""
    locked, guarded = writes.write_locked, writes.write_guarded
    execute = psycopg.AsyncConnection.execute

    in_transaction: list[bool] = []

    async def dies_before(self: Any, sql: Any, *args: Any, **kwargs: Any) -> Any:
        if 'UPDATE "games_game"' not in str(sql):
            return await execute(self, sql, *args, **kwargs)
        in_transaction.append(False)
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(psycopg.AsyncConnection, "execute", dies_before)

    def dies_after(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if 'UPDATE "games_game"' not in sql:
            return execute(sql, params, many, context)
        in_transaction.append(connection.in_atomic_block)
        if connection.in_atomic_block:
            execute(sql, params, many, context)
        raise OperationalError("server closed the connection unexpectedly")

    def failing(write: Any) -> Any:
        def fails(*args: Any, **kwargs: Any) -> Any:
            with connection.execute_wrapper(dies_after):
                return write(*args, **kwargs)

        return fails

    monkeypatch.setattr(writes, "write_locked", failing(locked))
    monkeypatch.setattr(writes, "write_guarded", failing(guarded))
    return in_transaction


@pytest.mark.parametrize("read", ["remembered", "locked"])
async def test_a_database_failure_mid_action_writes_nothing_and_the_player_may_retry(
    read, connect, monkeypatch, caplog
):
    game = await rolled_game()
    ana = await connect(game.token, "ana", lang="es")
    bo = await connect(game.token, "bo")
    version = (await ana.table())["version"]
    await bo.table()
    before = await rows(game)
    if read == "remembered":
        # The version the sockets were shown, as if this process had committed it.
        await sync_to_async(_remember)(game)
    else:
        committed_seats().clear()
    in_transaction = fail_when_the_version_is_bumped(monkeypatch)
    await ana.send({"action": "score", "version": version, "category": "choice"})
    error = await ana.error()
    with translation.override("es"):
        assert error == {
            "type": "error",
            "code": "unavailable",
            "message": error_message("unavailable"),
        }
    assert await rows(game) == before, "a failed action left rows behind"
    assert await bo.nothing_new(), "a change that never committed was pushed"
    # Only PostgreSQL writes a remembered version's move outside a transaction.
    alone = read == "remembered" and connection.vendor == "postgresql"
    assert in_transaction == [not alone]
    monkeypatch.undo()
    # The same action at the same version goes through once the database is back.
    await ana.send({"action": "score", "version": version, "category": "choice"})
    assert (await ana.table_at(version + 1))["state"]["seats"][0]["boxes"].keys() == {"choice"}
    assert (await rows(game))[3:] == (before[3] + 1, before[4] + 1)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def _remember(game: Game) -> None:
    game.refresh_from_db()
    players = game_players(game)
    committed_seats().remember(game, players, game_state(game, players).cards)


async def test_a_database_failure_on_sync_is_answered_not_crashed(connect, monkeypatch, caplog):
    game = await rolled_game()
    ana = await connect(game.token, "ana")
    await ana.table()

    def down(*args: object) -> None:
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(consumers, "game_viewed_by", down)
    # Nothing known in this process, so the sync must read the game.
    with runtime.swap(RecentSnapshots, RecentSnapshots()):
        await ana.send({"action": "sync"})
        assert (await ana.error())["code"] == "unavailable"
    monkeypatch.undo()
    await ana.send({"action": "sync"})
    assert (await ana.table())["version"] == game.version
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_database_failure_on_connect_says_try_again_and_closes_with_4013(
    connect, monkeypatch, caplog
):
    game = await rolled_game()

    def down(*args: object) -> None:
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(consumers, "game_viewed_by", down)
    ana = await connect(game.token, "ana", lang="it")
    error = await ana.error()
    with translation.override("it"):
        assert (error["code"], error["message"]) == ("unavailable", error_message("unavailable"))
    closing = await ana.ws.receive_output(timeout=3)
    assert (closing["type"], closing["code"]) == (
        "websocket.close",
        consumers.CLOSE_TRY_AGAIN_LATER,
    )
    assert consumers.CLOSE_TRY_AGAIN_LATER == 4013
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


class DownLayer:
    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        raise RedisConnectionError("Connection closed by server.")


async def test_a_push_that_cannot_leave_does_not_turn_a_committed_action_into_an_error(
    monkeypatch, caplog
):
    game = await rolled_game()
    before = await rows(game)
    monkeypatch.setattr(broadcast, "get_channel_layer", DownLayer)
    await sync_to_async(services.game_act)(
        token=game.token, guest_id="ana", version=game.version, action=Score("choice")
    )
    after = await rows(game)
    assert after[0] == before[0] + 1 and after[3:] == (before[3] + 1, before[4] + 1)
    assert "could not push" in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
