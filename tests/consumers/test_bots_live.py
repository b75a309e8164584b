import pytest
from asgiref.sync import sync_to_async

from games.models import Game
from games.play import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def quick_bots(settings):
    settings.YACHT_BOT_PAUSE = (0.0, 0.01)


async def test_bots_take_their_turns_by_themselves_and_everyone_sees_each_step(connect, quick_bots):
    game = await sync_to_async(services.game_create)(
        guest_id="ana", name="Ana", seat_count=3, bot_level="solid"
    )
    ana = await connect(game.token, "ana")
    watcher = await connect(game.token, None)
    await ana.table()
    await watcher.table()
    await ana.send({"action": "start", "version": 1})
    await ana.table()
    version = (await watcher.table())["version"]
    await ana.send({"action": "roll", "version": version, "hold": []})
    table = await ana.table()
    await watcher.table()
    await ana.send({"action": "score", "version": table["version"], "category": "choice"})
    # Both bots now roll and score on their own until it is Ana's turn again.
    seen = []
    versions = []
    while True:
        table = await watcher.table(timeout=10)
        versions.append(table["version"])
        seen.append((table["state"]["last"]["seat"], table["state"]["last"]["kind"]))
        if table["state"]["current_seat"] == 0:
            break
    assert [kind for seat, kind in seen if seat == 1][-1] == "score"
    assert [kind for seat, kind in seen if seat == 2][-1] == "score"
    assert {seat for seat, kind in seen if kind == "roll"} == {1, 2}
    assert seen[0] == (0, "score")
    assert versions == list(range(versions[0], versions[0] + len(versions)))
    refreshed = await sync_to_async(Game.objects.get)(pk=game.pk)
    assert refreshed.version == table["version"] and refreshed.current_seat == 0


async def test_a_person_and_a_bot_play_a_whole_game_through_the_socket(connect, quick_bots):
    game = await sync_to_async(services.game_create)(
        guest_id="host", name="Host", seat_count=2, bot_level="beginner"
    )
    host = await connect(game.token, "host")
    await host.table()
    await host.send({"action": "start", "version": 1})
    table = await host.table()
    while True:
        state = table["state"]
        if state["status"] == "finished":
            break
        if state["current_seat"] == 0:
            if state["rolls_used"] == 0:
                await host.send({"action": "roll", "version": table["version"], "hold": []})
            else:
                box = next(iter(state["preview"]))
                await host.send({"action": "score", "version": table["version"], "category": box})
        table = await host.table(timeout=10)
    assert len(state["seats"][1]["boxes"]) == 12


async def test_a_hint_goes_to_the_player_who_asked_and_no_one_else(connect):
    game = await sync_to_async(services.game_create)(
        guest_id="ana", name="Ana", seat_count=2, hints=True
    )
    await sync_to_async(services.game_join)(token=game.token, guest_id="bo", name="Bo")
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    table = await ana.table()
    await bo.table()
    assert 'data-action="hint"' not in table["html"]
    await ana.send({"action": "roll", "version": table["version"], "hold": []})
    table = await ana.table()
    await bo.table()
    assert 'data-action="hint"' in table["html"]
    await ana.send({"action": "hint"})
    hint = await ana.receive()
    assert hint["type"] == "hint" and hint["version"] == table["version"]
    assert "Advisor" in hint["html"]
    assert await bo.nothing_new()
    await bo.send({"action": "hint"})
    assert (await bo.error())["code"] == "not_your_turn"


async def test_a_spectator_of_a_game_of_only_bots_watches_it_play_to_the_end(connect, quick_bots):
    game = await sync_to_async(services.game_create)(
        guest_id="ana", name="Ana", seat_count=2, bot_level="beginner", watch=True
    )
    ana = await connect(game.token, "ana")
    table = await ana.table()
    assert table["seat"] is None
    while table["state"]["status"] != "finished":
        table = await ana.table(timeout=10)
    assert [len(seat["boxes"]) for seat in table["state"]["seats"]] == [12, 12]
