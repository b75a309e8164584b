"""Pass and play over the socket, through the real routing: one device's
socket plays every person's turn in order, each behind the screen that asks
for the device to be passed on, and never a turn out of order; a spectator
follows by link without any of it."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async

from games.models import Game, Move
from games.play import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

DEVICE = "device"


def words(html: str) -> str:
    """The table's text as read, its markup aside (a name has a span of its own)."""
    return re.sub(r"<[^>]+>", "", html)


def shared_game() -> Game:
    return services.game_create_shared(guest_id=DEVICE, names=("Ana", "Ben", "Cai"))


async def roll_and_score(device, version: int) -> dict:
    """The device rolls and scores the first box offered; the table after it."""
    await device.send({"action": "roll", "version": version})
    rolled = await device.table_at(version + 1)
    box = rolled["html"].split('data-category="', 1)[1].split('"', 1)[0]
    await device.send({"action": "score", "version": version + 1, "category": box})
    return await device.table_at(version + 2)


async def test_one_socket_plays_every_persons_turn_in_order_each_behind_a_hand_over(connect):
    game = await sync_to_async(shared_game)()
    device = await connect(game.token, DEVICE)
    first = await device.table()
    assert first["seat"] == 0
    assert "data-handover=" in first["html"] and "Ana's turn" in first["html"]
    table = await roll_and_score(device, first["version"])
    # Ben's turn now: the same socket acts for Ben, named, never "you".
    assert table["seat"] == 1
    assert "data-handover=" in table["html"] and "Pass the device to Ben" in table["html"]
    assert "Your turn" not in table["html"]
    table = await roll_and_score(device, table["version"])
    assert table["seat"] == 2 and "Pass the device to Cai" in table["html"]
    scorers = await sync_to_async(
        lambda: list(
            Move.objects.filter(game=game, kind=Move.Kind.SCORE)
            .order_by("version")
            .values_list("player__order", flat=True)
        )
    )()
    assert scorers == [0, 1]


async def test_a_move_for_a_turn_already_played_is_refused_on_the_socket(connect):
    game = await sync_to_async(shared_game)()
    device = await connect(game.token, DEVICE)
    first = await device.table()
    await roll_and_score(device, first["version"])
    # Ana's roll sent again (a double tap as the device changed hands).
    await device.send({"action": "roll", "version": first["version"]})
    assert (await device.error())["code"] == "stale_version"


async def test_a_spectator_by_link_sees_whose_turn_it_is_and_no_hand_over_screen(connect):
    game = await sync_to_async(shared_game)()
    device = await connect(game.token, DEVICE)
    watcher = await connect(game.token, "friend")
    first = await device.table()
    seen = await watcher.table()
    assert seen["seat"] is None
    assert "data-handover=" not in seen["html"] and "Ana's turn" in words(seen["html"])
    await roll_and_score(device, first["version"])
    pushed = await watcher.table_at(first["version"] + 2)
    assert "data-handover=" not in pushed["html"] and "Ben's turn" in words(pushed["html"])
    await watcher.send({"action": "roll", "version": pushed["version"]})
    assert (await watcher.error())["code"] == "not_seated"
