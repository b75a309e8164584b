"""Mid-round in a duplicate game, nobody's socket or page carries another
seat's dice or holds, and a spectator sees nothing of the round."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import sync_to_async

from games.edge.guests import GUEST_KEY
from games.models import Game, Player
from games.play import services
from games.rules import Roll, Score

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@sync_to_async
def duplicate_game() -> Game:
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, duplicate=True)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    return services.game_start(token=game.token, guest_id="ana")


@sync_to_async
def hand(game: Game, guest: str) -> list[int]:
    return list(Player.objects.get(game=game, guest_id=guest).dice)


def dice_markup(html: str) -> list[str]:
    return re.findall(r'data-die="\d"', html)


async def raw_table(client) -> tuple[str, dict]:
    """The next table message exactly as it came over the socket."""
    while True:
        text = await client.ws.receive_from(timeout=3)
        message = json.loads(text)
        if message["type"] == "table":
            client.version = message["version"]
            return text, message


async def test_mid_round_a_seats_socket_and_a_spectators_carry_no_other_seats_dice(connect):
    game = await duplicate_game()
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    watcher = await connect(game.token, None)
    for client in (ana, bo, watcher):
        await raw_table(client)
    await ana.send({"action": "roll", "version": game.version, "hold": []})
    _text, mine = await raw_table(ana)
    ana_dice = await hand(game, "ana")
    assert mine["state"]["dice"] == ana_dice
    assert len(dice_markup(mine["html"])) == 5
    for client in (bo, watcher):
        text, message = await raw_table(client)
        state = message["state"]
        assert state["dice"] == [] and state["held"] == [] and state["preview"] == {}
        assert all(h["dice"] == [] for h in state["duplicate"]["hands"])
        assert state["last"]["dice"] == []
        assert dice_markup(message["html"]) == []
        assert json.dumps(ana_dice) not in text
        assert "rolled." in message["announce"] and "rolled 1" not in message["announce"]
        # Her progress shows; her dice do not.
        assert "roll 1 of 3" in message["html"]
    # Ana holds and scores: Bo still sees neither her dice nor her box.
    await ana.send({"action": "roll", "version": ana.version, "hold": [0, 1]})
    await raw_table(ana)
    await ana.send({"action": "score", "version": ana.version, "category": "choice"})
    _text, mine = await raw_table(ana)
    assert mine["state"]["seats"][0]["boxes"].get("choice") is not None
    for client in (bo, watcher):
        await raw_table(client)
        text, message = await raw_table(client)
        assert message["state"]["seats"][0]["boxes"] == {}
        assert message["state"]["seats"][0]["total"] == 0
        assert '"category": "choice"' not in text
        assert "has played this round" in message["html"]


async def test_a_seats_page_mid_round_shows_only_its_own_dice(client):
    game = await duplicate_game()

    @sync_to_async
    def play_and_read() -> tuple[str, str, str, list[int]]:
        services.game_act(token=game.token, guest_id="ana", version=game.version, action=Roll())
        ana_dice = list(Player.objects.get(game=game, guest_id="ana").dice)
        pages = []
        for guest in ("ana", "bo", None):
            client.cookies.clear()
            if guest:
                session = client.session
                session[GUEST_KEY] = guest
                session.save()
            pages.append(client.get(f"/en/g/{game.token}/").content.decode())
        return pages[0], pages[1], pages[2], ana_dice

    ana_page, bo_page, watcher_page, ana_dice = await play_and_read()
    assert len(dice_markup(ana_page)) == 5
    for label in (f"Die {n + 1}: {v}" for n, v in enumerate(ana_dice)):
        assert label in ana_page
    for page in (bo_page, watcher_page):
        assert dice_markup(page) == []
        assert "Die 1:" not in page
        assert "roll 1 of 3" in page


async def test_after_the_round_everyone_sees_it_side_by_side(connect):
    game = await duplicate_game()

    @sync_to_async
    def play_round() -> None:
        version = game.version
        for guest, box in (("ana", "choice"), ("bo", "yacht")):
            services.game_act(token=game.token, guest_id=guest, version=version, action=Roll())
            version += 1
            services.game_act(token=game.token, guest_id=guest, version=version, action=Score(box))
            version += 1

    await play_round()
    watcher = await connect(game.token, None)
    _text, message = await raw_table(watcher)
    results = message["state"]["duplicate"]["results"]
    assert [r["category"] for r in results] == ["choice", "yacht"]
    assert "Round 1, side by side" in message["html"]
    assert message["state"]["seats"][0]["boxes"] and message["state"]["seats"][1]["boxes"]


async def test_bots_alone_play_a_duplicate_game_to_the_end_while_someone_watches(connect, settings):
    settings.YACHT_BOT_PAUSE = (0.0, 0.01)
    game = await sync_to_async(services.game_create)(
        guest_id="ana", name="Ana", seat_count=3, bot_level="solid", watch=True, duplicate=True
    )
    watcher = await connect(game.token, "ana")
    rounds_seen = set()
    while True:
        _text, message = await raw_table(watcher)
        state = message["state"]
        # Mid-round a spectator never sees a bot's dice either.
        assert all(h["dice"] == [] for h in state["duplicate"]["hands"])
        if state["status"] == "finished":
            break
        rounds_seen.add(state["duplicate"]["round"])
    assert rounds_seen == set(range(1, 13))
    assert len(state["winners"]) >= 1
    assert all(len(seat["boxes"]) == 12 for seat in state["seats"])


async def test_a_round_in_play_resumes_for_a_socket_after_the_process_restarts(connect):
    game = await duplicate_game()
    ana = await connect(game.token, "ana")
    await raw_table(ana)
    await ana.send({"action": "roll", "version": game.version, "hold": []})
    _text, before = await raw_table(ana)

    @sync_to_async
    def restart() -> None:
        from games.present import viewcache
        from games.runtime import runtime
        from games.store.selectors import recent

        recent().clear()
        runtime.drop(viewcache.Views)

    await restart()
    again = await connect(game.token, "ana")
    _text, after = await raw_table(again)
    assert after["version"] == before["version"]
    assert after["state"]["dice"] == before["state"]["dice"] and after["state"]["rolls_used"] == 1
    await again.send({"action": "roll", "version": after["version"], "hold": [0]})
    _text, rolled = await raw_table(again)
    assert (
        rolled["state"]["rolls_used"] == 2
        and rolled["state"]["dice"][0] == after["state"]["dice"][0]
    )
