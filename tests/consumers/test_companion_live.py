"""Real dice over the socket, through the real routing: the player to move
enters the faces thrown, everyone sees them as that roll, and the socket
refuses what the declaration and the rules refuse, the faces unchanged."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games.models import Game
from games.play import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def companion_for_two() -> Game:
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, dice_entered=True)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    return services.game_start(token=game.token, guest_id="ana")


async def test_entered_faces_reach_every_socket_as_the_players_roll(connect):
    game = await sync_to_async(companion_for_two)()
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    first = await ana.table()
    await bo.table()
    assert "data-keypad" in first["html"] and 'data-action="roll"' not in first["html"]
    await ana.send({"action": "enter", "version": first["version"], "dice": [3, 3, 3, 5, 5]})
    seen = await bo.table_at(first["version"] + 1)
    assert seen["state"]["dice"] == [3, 3, 3, 5, 5]
    assert seen["state"]["last"]["kind"] == "roll"
    assert seen["state"]["dice_entered"] is True
    # Bo is not to move: no keypad on his table.
    assert "data-keypad" not in seen["html"]
    mine = await ana.table_at(first["version"] + 1)
    assert mine["state"]["preview"]["full_house"] == 19
    await ana.send(
        {"action": "enter", "version": mine["version"], "dice": [3, 3, 3, 3, 4], "hold": [0, 1, 2]}
    )
    again = await ana.table_at(mine["version"] + 1)
    assert again["state"]["dice"] == [3, 3, 3, 3, 4] and again["state"]["held"] == [0, 1, 2]


async def test_faces_out_of_range_are_a_malformed_message_and_a_changed_kept_die_a_refusal(
    connect,
):
    game = await sync_to_async(companion_for_two)()
    ana = await connect(game.token, "ana")
    first = await ana.table()
    await ana.send({"action": "enter", "version": first["version"], "dice": [1, 2, 3, 4, 7]})
    assert (await ana.error())["code"] == "bad_faces"
    await ana.send({"action": "enter", "version": first["version"], "dice": [1, 2, 3]})
    assert (await ana.error())["code"] == "bad_faces"
    for wrong in ("66261", [6, "6", 2, 2, 1], [6, 6, 2, 2, True], None):
        await ana.send({"action": "enter", "version": first["version"], "dice": wrong})
        assert (await ana.error())["code"] == "bad_faces", wrong
    await ana.send({"action": "enter", "version": first["version"], "dice": [6, 6, 2, 2, 1]})
    rolled = await ana.table_at(first["version"] + 1)
    await ana.send(
        {"action": "enter", "version": rolled["version"], "dice": [5, 6, 2, 2, 1], "hold": [0]}
    )
    refused = await ana.error()
    assert refused["code"] == "held_changed"
    assert "same face" in refused["message"]


async def test_a_roll_in_a_game_of_real_dice_and_an_entry_in_another_are_refused(connect):
    game = await sync_to_async(companion_for_two)()
    ana = await connect(game.token, "ana")
    first = await ana.table()
    await ana.send({"action": "roll", "version": first["version"]})
    assert (await ana.error())["code"] == "dice_are_entered"

    def normal() -> Game:
        game = services.game_create(guest_id="cy", name="Cy", seat_count=1)
        return services.game_start(token=game.token, guest_id="cy")

    other = await sync_to_async(normal)()
    cy = await connect(other.token, "cy")
    table = await cy.table()
    await cy.send({"action": "enter", "version": table["version"], "dice": [1, 2, 3, 4, 5]})
    assert (await cy.error())["code"] == "dice_are_rolled"
