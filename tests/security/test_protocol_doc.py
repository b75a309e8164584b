"""docs/protocol.md is what a client author reads: these hold it to the code."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.live import consumers, limits
from games.models import Game, ScoreEntry
from games.play import services
from games.play.actions import ACTIONS
from games.present.messages import MESSAGES
from games.rules import Roll, Score, get_ruleset
from games.store.selectors import game_snapshot

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()


def example_table() -> dict:
    block = DOC.split("### `table`", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    return json.loads(block.replace("…", "x"))


def test_every_error_code_is_documented_and_every_documented_code_exists():
    documented = set(re.findall(r"`([a-z_]+)`", DOC.split("### `error`", 1)[1]))
    assert set(MESSAGES) <= documented, set(MESSAGES) - documented
    table_rows = re.findall(r"^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \|", DOC, re.M)
    codes_in_tables = {c for row in table_rows for c in re.findall(r"`([a-z_]+)`", row)}
    actions = set(ACTIONS)
    assert codes_in_tables - actions - set(MESSAGES) == set()


def test_every_close_code_the_server_sends_is_in_the_close_code_table():
    for code in (
        consumers.CLOSE_NO_SUCH_GAME,
        consumers.CLOSE_POLICY_VIOLATION,
        consumers.CLOSE_TRY_AGAIN_LATER,
        consumers.CLOSE_GOING_AWAY,
        limits.CLOSE_TOO_MANY_SOCKETS,
        limits.CLOSE_SERVER_BUSY,
    ):
        assert f"| `{code}` |" in DOC, code


@pytest.mark.django_db
def test_the_example_table_has_every_field_of_the_real_state_and_no_other():
    game = services.game_create(guest_id="ana", name="Ana", seat_count=1)
    services.game_start(token=game.token, guest_id="ana")
    game.refresh_from_db()
    real = game_snapshot(game)
    example = example_table()["state"]
    assert set(example) == set(real)
    assert set(example["seats"][0]) == set(real["seats"][0])
    for key in real:
        assert f"`state.{key}`" in DOC or f'"{key}"' in DOC, key


@sync_to_async
def playing(**options: Any) -> Game:
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, **options)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    services.game_start(token=game.token, guest_id="ana")
    game.refresh_from_db()
    return game


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_last_is_null_on_connect_and_sync_and_set_in_pushes_as_documented(connect):
    assert '"last": null' in DOC
    game = await playing()
    ana = await connect(game.token, "ana")
    first = await ana.table()
    assert first["state"]["last"] is None
    await ana.send({"action": "roll", "version": game.version, "hold": []})
    push = await ana.table()
    assert push["state"]["last"]["kind"] == "roll" and push["announce"]
    await ana.send({"action": "sync"})
    again = await ana.table()
    assert again["version"] == push["version"] and again["state"]["last"] is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{", "bad_json"),
        ("[]", "bad_message"),
        ("x" * 3000, "too_large"),
        ('{"action": "fly"}', "unknown_action"),
        ('{"action": "roll", "version": 1, "hold": [7]}', "bad_hold"),
        ('{"action": "hint"}', "hints_off"),
    ],
)
async def test_the_refusals_the_doc_says_get_no_table_get_none(connect, frame, code):
    game = await playing()
    ana = await connect(game.token, "ana")
    await ana.table()
    await ana.ws.send_to(text_data=frame)
    assert (await ana.error())["code"] == code
    assert await ana.nothing_new()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_refusal_by_the_game_is_followed_by_the_table(connect):
    game = await playing()
    bo = await connect(game.token, "bo")
    await bo.table()
    await bo.send({"action": "roll", "version": game.version, "hold": []})
    assert (await bo.error())["code"] == "not_your_turn"
    assert (await bo.table())["version"] == game.version


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_spectator_gets_the_codes_the_doc_lists_not_only_not_seated(connect):
    lobby = await sync_to_async(services.game_create)(guest_id="ana", name="Ana", seat_count=2)
    watcher = await connect(lobby.token, None)
    await watcher.table()
    await watcher.send({"action": "start", "version": 1})
    assert (await watcher.error())["code"] == "not_host"
    await watcher.table()
    await watcher.send({"action": "rematch"})
    assert (await watcher.error())["code"] == "not_finished"


@pytest.mark.django_db
def test_a_rematch_is_a_new_token_already_playing_at_version_one_with_the_same_seats():
    game = services.game_create(guest_id="ana", name="Ana", seat_count=1)
    services.game_start(token=game.token, guest_id="ana")
    for key in get_ruleset(game.ruleset).category_keys:
        game.refresh_from_db()
        services.game_act(
            token=game.token, guest_id="ana", version=game.version, action=Roll(frozenset())
        )
        game.refresh_from_db()
        services.game_act(token=game.token, guest_id="ana", version=game.version, action=Score(key))
    assert ScoreEntry.objects.count() == len(get_ruleset(game.ruleset).category_keys)
    new = services.game_rematch(token=game.token, guest_id="ana")
    assert "**playing, at version\n1**" in DOC
    assert new.token != game.token
    assert (new.status, new.version, new.current_seat) == (Game.Status.PLAYING, 1, 0)
    assert list(new.players.values_list("name", "guest_id")) == [("Ana", "ana")]
    assert "`state.acted_at` is the moment it was made" in DOC
    assert new.started_at is not None
    assert game_snapshot(new)["acted_at"] == new.started_at.timestamp()
