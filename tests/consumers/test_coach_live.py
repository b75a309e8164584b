"""The coaching line over the socket: to the player who asked, in their language."""

import pytest
from asgiref.sync import sync_to_async

from games.play import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_coaching_line_goes_to_the_player_to_move_alone_in_their_language(connect):
    # Two people, hints on: coaching is a hint anyone at this table may ask for.
    game = await sync_to_async(services.game_create)(
        guest_id="ana", name="Ana", seat_count=2, hints=True
    )
    await sync_to_async(services.game_join)(token=game.token, guest_id="bo", name="Bo")
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    ana = await connect(game.token, "ana", lang="es")
    bo = await connect(game.token, "bo")
    watcher = await connect(game.token)
    table = await ana.table()
    await bo.table()
    await watcher.table()
    await ana.send({"action": "coach"})
    assert (await ana.error())["code"] == "must_roll_first"
    await ana.send({"action": "roll", "version": table["version"], "hold": []})
    table = await ana.table()
    await bo.table()
    await watcher.table()
    await ana.send({"action": "coach"})
    line = await ana.receive()
    assert line["type"] == "coach" and line["version"] == table["version"]
    assert line["text"].startswith(("Guarda ", "Vuelve a tirar", "Anota "))
    assert await bo.nothing_new()
    assert await watcher.nothing_new()
    await bo.send({"action": "coach"})
    assert (await bo.error())["code"] == "not_your_turn"
    await watcher.send({"action": "coach"})
    assert (await watcher.error())["code"] == "hints_off"


async def test_with_another_person_and_hints_off_nobody_is_coached(connect):
    game = await sync_to_async(services.game_create)(guest_id="ana", name="Ana", seat_count=2)
    await sync_to_async(services.game_join)(token=game.token, guest_id="bo", name="Bo")
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    ana = await connect(game.token, "ana")
    table = await ana.table()
    assert "data-coach-toggle" not in table["html"]
    await ana.send({"action": "roll", "version": table["version"], "hold": []})
    await ana.table()
    await ana.send({"action": "coach"})
    assert (await ana.error())["code"] == "hints_off"
