"""A rematch that makes a new game counts against the games an hour of the
player who asked, per session and per address group, like a game made on
the home page; following a rematch already made counts nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client
from django.utils import translation

from games.models import Game
from games.present.messages import error_message
from tests.consumers.conftest import guest_cookie
from tests.factories import play_turns, started_game
from yachtsite.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

FORM = {"name": "Cy", "seats": 1, "ruleset": "yacht"}


@sync_to_async
def finished_game() -> Game:
    """A two-player game of "ana" and "bo" played to its end through the
    services (which count nothing)."""
    return play_turns(started_game(2))


@sync_to_async
def create(address: str, *, guest: str | None = None) -> int:
    """A game from the home page, from a browser of ``guest`` or a fresh one."""
    browser = Client(REMOTE_ADDR=address)
    if guest is not None:
        browser.cookies[django_settings.SESSION_COOKIE_NAME] = guest_cookie(guest).split("=")[1]
    return browser.post("/en/", FORM).status_code


@sync_to_async
def games() -> int:
    return Game.objects.count()


@sync_to_async
def rematch_of(game: Game) -> str | None:
    game.refresh_from_db()
    return game.rematch.token if game.rematch else None


class Player:
    """A seated player's socket, from a client address of its own."""

    def __init__(self, ws: WebsocketCommunicator) -> None:
        self.ws = ws
        self.version = 0

    @classmethod
    async def open(cls, token: str, guest: str, address: str) -> Player:
        cookie = await sync_to_async(guest_cookie)(guest)
        headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
        ws = WebsocketCommunicator(
            application, f"/ws/g/{token}/?lang=es", headers=[*headers, (b"cookie", cookie.encode())]
        )
        ws.scope["client"] = (address, 40000)
        connected, _ = await ws.connect()
        assert connected
        player = cls(ws)
        assert (await player.receive())["type"] == "table"
        return player

    async def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await self.ws.receive_from(timeout=5))
        while message["type"] == "presence":
            # Comes as seats arrive and leave, answering nothing.
            message = json.loads(await self.ws.receive_from(timeout=5))
        if message["type"] == "table":
            self.version = message["version"]
        return message

    async def send(self, action: str, **fields: Any) -> None:
        await self.ws.send_to(text_data=json.dumps({"action": action, **fields}))

    async def rematch_table(self) -> dict[str, Any]:
        """Tables until the one that sends the players to the rematch."""
        while True:
            message = await self.receive()
            assert message["type"] != "error", message
            if message["type"] == "table" and message["rematch"]:
                return message


@pytest.fixture
async def players() -> Any:
    opened: list[Player] = []

    async def open_player(token: str, guest: str, address: str) -> Player:
        player = await Player.open(token, guest, address)
        opened.append(player)
        return player

    yield open_player
    for player in opened:
        await player.ws.disconnect()


async def test_a_rematch_past_its_address_groups_share_is_refused_and_makes_no_game(
    settings, players
):
    settings.YACHT_GAMES_PER_HOUR_PER_ADDRESS = 2
    game = await finished_game()
    # Ana's address has used its share on the home page.
    assert [await create("10.30.0.1"), await create("10.30.0.1")] == [302, 302]
    ana = await players(game.token, "ana", "10.30.0.1")
    made = await games()
    await ana.send("rematch")
    refused = await ana.receive()
    assert refused["type"] == "error" and refused["code"] == "too_many_games"
    with translation.override("es"):
        assert refused["message"] == error_message("too_many_games")
    assert (await ana.receive())["type"] == "table"
    assert await games() == made and await rematch_of(game) is None
    # Bo, from an address of their own, makes it; both are sent to it.
    bo = await players(game.token, "bo", "10.30.0.2")
    await bo.send("rematch")
    token = (await bo.rematch_table())["rematch"]
    assert (await ana.rematch_table())["rematch"] == token == await rematch_of(game)
    assert await games() == made + 1


async def test_a_rematch_past_its_sessions_share_is_refused_from_any_address(settings, players):
    settings.YACHT_GAMES_PER_HOUR = 1
    game = await finished_game()
    # Ana's session has made its game of the hour on the home page.
    assert await create("10.31.0.1", guest="ana") == 302
    ana = await players(game.token, "ana", "10.31.0.2")
    await ana.send("rematch")
    refused = await ana.receive()
    assert refused["type"] == "error" and refused["code"] == "too_many_games"
    assert await rematch_of(game) is None


async def test_a_rematch_counts_once_for_its_maker_and_never_for_those_who_follow(
    settings, players
):
    settings.YACHT_GAMES_PER_HOUR_PER_ADDRESS = 3
    game = await finished_game()
    assert await create("10.32.0.1") == 302
    ana = await players(game.token, "ana", "10.32.0.1")
    bo = await players(game.token, "bo", "10.32.0.1")
    await ana.send("rematch")
    await ana.rematch_table()
    await bo.rematch_table()
    # Bo's ask follows the rematch made: no answer of its own, and nothing
    # counted (the sync after it is answered "current", with no error first).
    await bo.send("rematch")
    await bo.send("sync", version=bo.version)
    assert await bo.receive() == {"type": "current", "version": bo.version}
    # One home-page game and one rematch so far: the address has one left.
    assert [await create("10.32.0.1"), await create("10.32.0.1")] == [302, 429]
