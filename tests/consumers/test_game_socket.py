import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games.models import Game, Move, ScoreEntry
from games.play import services
from tests import factories
from yachtsite.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


lobby = sync_to_async(factories.lobby_game)


@sync_to_async
def db_counts(game: Game) -> tuple[int, int, int]:
    game.refresh_from_db()
    return (
        game.version,
        Move.objects.filter(game=game).count(),
        ScoreEntry.objects.filter(player__game=game).count(),
    )


async def test_on_connect_each_viewer_gets_the_table_with_their_own_seat(connect):
    game = await lobby()
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    watcher = await connect(game.token, "someone-else")
    tables = {}
    for client, seat in ((ana, 0), (bo, 1), (watcher, None)):
        tables[seat] = await client.table()
        assert tables[seat]["seat"] == seat
        assert tables[seat]["version"] == 2
        assert tables[seat]["state"]["status"] == "lobby"
    assert 'data-action="start"' in tables[0]["html"]
    assert 'data-action="start"' not in tables[1]["html"]
    assert "You are watching this game" in tables[None]["html"]


async def test_both_players_receive_every_push_in_order_through_a_whole_game(connect):
    game = await lobby()
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    watcher = await connect(game.token, None)
    for client in (ana, bo, watcher):
        await client.table()
    await ana.send({"action": "start", "version": 2})
    seen: dict[str, list[int]] = {"ana": [], "bo": [], "watcher": []}
    for name, client in (("ana", ana), ("bo", bo), ("watcher", watcher)):
        seen[name].append((await client.table())["version"])
    players = {0: ana, 1: bo}
    # Play a whole game: each turn, the player to move rolls once and scores its best box.
    current = 0
    version = 3
    for _turn in range(24):
        mover = players[current]
        await mover.send({"action": "roll", "version": version, "hold": []})
        tables = {}
        for name, client in (("ana", ana), ("bo", bo), ("watcher", watcher)):
            tables[name] = await client.table()
            seen[name].append(tables[name]["version"])
        version = tables["watcher"]["version"]
        preview = tables["watcher"]["state"]["preview"]
        best = max(preview, key=preview.get)
        await mover.send({"action": "score", "version": version, "category": best})
        for name, client in (("ana", ana), ("bo", bo), ("watcher", watcher)):
            tables[name] = await client.table()
            seen[name].append(tables[name]["version"])
        version = tables["watcher"]["version"]
        current = tables["watcher"]["state"]["current_seat"]
    assert tables["ana"]["state"]["status"] == "finished"
    expected = list(range(3, 3 + 1 + 48))
    for name in seen:
        assert seen[name] == expected, name
    assert "Final scores" in tables["bo"]["html"]
    version_db, _moves, scores = await db_counts(game)
    assert (version_db, scores) == (51, 24)


async def test_only_the_player_to_move_gets_live_controls(connect):
    game = await lobby()
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    await ana.table()
    await bo.table()
    await ana.send({"action": "start", "version": 2})
    ana_table, bo_table = await ana.table(), await bo.table()
    assert 'data-action="roll"' in ana_table["html"]
    assert 'data-action="roll"' not in bo_table["html"]


async def test_a_spectator_cannot_act_and_is_told_why(connect):
    game = await lobby()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    watcher = await connect(game.token, "stranger")
    table = await watcher.table()
    assert "You are watching this game" in table["html"]
    await watcher.send({"action": "roll", "version": table["version"], "hold": []})
    error = await watcher.error()
    assert error["code"] == "not_seated"
    assert (await watcher.table())["version"] == table["version"]
    assert await db_counts(game) == (3, 3, 0)


async def test_a_stale_version_is_rejected_and_the_sender_gets_a_fresh_table(connect):
    game = await lobby()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    version = (await ana.table())["version"]
    await bo.table()
    await ana.send({"action": "roll", "version": version, "hold": []})
    await ana.table()
    await bo.table()
    await ana.send({"action": "roll", "version": version, "hold": []})
    assert (await ana.error())["code"] == "stale_version"
    assert (await ana.table())["version"] == version + 1
    assert await bo.nothing_new()
    assert (await db_counts(game))[0] == version + 1


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("not json at all", "bad_json"),
        ("[1, 2, 3]", "bad_message"),
        ('"roll"', "bad_message"),
        ('{"action": "teleport", "version": 3}', "unknown_action"),
        ('{"version": 3}', "unknown_action"),
        ('{"action": "roll", "version": "3"}', "bad_message"),
        ('{"action": "roll", "version": true}', "bad_message"),
        ('{"action": "roll", "version": 3, "hold": "01"}', "bad_message"),
        ('{"action": "roll", "version": 3, "hold": [9]}', "bad_hold"),
        ('{"action": "roll", "version": 3, "hold": [1, 1]}', "bad_hold"),
        ('{"action": "score", "version": 3, "category": 7}', "bad_message"),
        ('{"action": "score", "version": 3, "category": "ones", "seat": 1}', "must_roll_first"),
        ('{"action": "roll", "version": 3, "hold": [], "pad": "' + "x" * 5000 + '"}', "too_large"),
    ],
)
async def test_garbage_gets_a_clear_error_and_the_connection_and_game_survive(connect, raw, code):
    game = await lobby()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    ana = await connect(game.token, "ana")
    await ana.table()
    before = await db_counts(game)
    await ana.ws.send_to(text_data=raw)
    error = await ana.error()
    assert error["code"] == code
    assert error["message"] and "Traceback" not in error["message"]
    assert await db_counts(game) == before
    # Still connected and still playing.
    await ana.send({"action": "sync"})
    assert (await ana.table())["version"] == before[0]
    await ana.send({"action": "roll", "version": before[0], "hold": []})
    assert (await ana.table_at(before[0] + 1))["state"]["rolls_used"] == 1


async def test_a_binary_frame_is_refused_without_closing_the_socket(connect):
    game = await lobby()
    ana = await connect(game.token, "ana")
    await ana.table()
    await ana.ws.send_to(bytes_data=b"\x00\x01")
    assert (await ana.error())["code"] == "bad_message"
    await ana.send({"action": "sync"})
    assert (await ana.table())["version"] == 2


async def test_nothing_in_a_message_can_claim_another_seat(connect):
    game = await lobby()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    bo = await connect(game.token, "bo")
    table = await bo.table()
    await bo.send(
        {"action": "roll", "version": table["version"], "hold": [], "seat": 0, "guest": "ana"}
    )
    assert (await bo.error())["code"] == "not_your_turn"


async def test_a_foreign_origin_is_refused():
    game = await lobby()
    communicator = WebsocketCommunicator(
        application, f"/ws/g/{game.token}/", headers=[(b"origin", b"https://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected


async def test_an_unknown_game_closes_with_a_clear_code():
    communicator = WebsocketCommunicator(
        application,
        "/ws/g/nope/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect()
    assert connected
    assert (await communicator.receive_output())["code"] == 4404


async def test_the_same_seat_open_in_two_tabs_works_in_both(connect):
    game = await lobby()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    first = await connect(game.token, "ana")
    second = await connect(game.token, "ana")
    version = (await first.table())["version"]
    assert (await second.table())["seat"] == 0
    await first.send({"action": "roll", "version": version, "hold": []})
    assert (await second.table())["version"] == version + 1
    await first.table()
    await second.send({"action": "score", "version": version + 1, "category": "choice"})
    for tab in (first, second):
        table = await tab.table()
        assert table["state"]["seats"][0]["boxes"].keys() == {"choice"}
    # The first tab's queued action, made against an old version, cannot apply twice.
    await first.send({"action": "score", "version": version + 1, "category": "ones"})
    assert (await first.error())["code"] == "stale_version"


async def test_a_hold_is_pushed_to_everyone_and_the_next_roll_keeps_those_dice(connect):
    game = await lobby()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    watcher = await connect(game.token, None)
    version = (await ana.table())["version"]
    await bo.table()
    await watcher.table()
    await ana.send({"action": "roll", "version": version})
    rolled = await ana.table()
    await bo.table()
    await watcher.table()
    await ana.send({"action": "hold", "version": rolled["version"], "dice": [0, 3]})
    for client in (ana, bo, watcher):
        table = await client.table()
        assert table["version"] == rolled["version"] + 1
        assert table["state"]["held"] == [0, 3]
        assert table["state"]["last"]["kind"] == "hold"
        assert 'data-die="0"' in table["html"] and 'class="die held" data-die="3"' in table["html"]
    # A hold is heard once, with the roll it is for: not a sentence per toggle.
    assert table["announce"] == ""
    # Holds belong to the player to move: another seat's is refused.
    await bo.send({"action": "hold", "version": table["version"], "dice": [1]})
    assert (await bo.error())["code"] == "not_your_turn"
    await bo.table()
    # A roll that leaves its holds out keeps the ones stored for it.
    await ana.send({"action": "roll", "version": table["version"]})
    after = await ana.table()
    dice = rolled["state"]["dice"]
    assert after["state"]["held"] == [0, 3]
    assert [after["state"]["dice"][i] for i in (0, 3)] == [dice[0], dice[3]]
    kept = f"{dice[0]}, {dice[3]}"
    fresh = ", ".join(str(after["state"]["dice"][i]) for i in (1, 2, 4))
    assert after["announce"] == f"You kept {kept} and rolled {fresh}."
    assert (await bo.table())["announce"] == f"Ana kept {kept} and rolled {fresh}."
    move = await sync_to_async(lambda: Move.objects.filter(game=game).latest("version"))()
    assert (move.kind, move.held) == ("roll", [0, 3])


async def test_a_refreshed_page_shows_the_dice_held_before_it(connect):
    game = await lobby()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    version = await sync_to_async(
        lambda: services.game_roll(token=game.token, guest_id="ana", version=3).version
    )()
    await sync_to_async(services.game_hold)(
        token=game.token, guest_id="ana", version=version, dice=[2]
    )
    for guest in ("ana", "bo", None):
        table = await (await connect(game.token, guest)).table()
        assert table["state"]["held"] == [2]
        assert 'class="die held" data-die="2"' in table["html"]
