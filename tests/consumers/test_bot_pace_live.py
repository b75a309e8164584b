"""The host's bot pace through the real routing: everyone sees it, nobody
else may set it, and it takes effect on the bot's turn under way."""

import pytest
from asgiref.sync import sync_to_async

from games.play import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_the_host_speeds_up_a_bot_in_the_middle_of_its_turn_and_only_the_host_may(
    connect, settings
):
    # At the normal pace no bot would move during the test; at the fast pace
    # it moves at once.
    settings.YACHT_BOT_PAUSE = (1000.0, 1000.0)
    settings.YACHT_BOT_FAST_SHARE = 0.00001
    game = await sync_to_async(services.game_create)(
        guest_id="ana", name="Ana", seat_count=2, bot_level="solid"
    )
    ana = await connect(game.token, "ana")
    watcher = await connect(game.token, None)
    assert (await ana.table())["state"]["bot_pace"] == "fast"
    await watcher.table()
    await ana.send({"action": "bot_pace", "version": 1, "pace": "normal"})
    table = await ana.table()
    assert (table["state"]["bot_pace"], table["state"]["last"]["kind"]) == ("normal", "bot_pace")
    assert (await watcher.table())["state"]["bot_pace"] == "normal"
    await ana.send({"action": "start", "version": table["version"]})
    table = await ana.table()
    await ana.send({"action": "roll", "version": table["version"], "hold": []})
    table = await ana.table()
    await ana.send({"action": "score", "version": table["version"], "category": "choice"})
    table = await ana.table()
    assert table["state"]["current_seat"] == 1
    assert await ana.nothing_new()  # the bot waits its normal pause
    await watcher.table_at(table["version"])
    await watcher.send({"action": "bot_pace", "version": table["version"], "pace": "fast"})
    assert (await watcher.error())["code"] == "not_host"
    await ana.send({"action": "bot_pace", "version": table["version"], "pace": "fast"})
    sped = await ana.table()
    assert sped["state"]["bot_pace"] == "fast"
    moved = await ana.table(timeout=10)
    assert moved["version"] == sped["version"] + 1
    assert (moved["state"]["last"]["seat"], moved["state"]["last"]["kind"]) == (1, "roll")
