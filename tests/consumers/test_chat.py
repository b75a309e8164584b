"""The table's chat: lines reach every socket of the game in each reader's
language, free text is escaped, names come from the seat, spectators may be
shut out by the host, and a chat line never moves the game's version."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import Client as PageClient

from games.live.consumers import CLOSE_POLICY_VIOLATION, RATE_BURST
from games.models import ChatMessage, Game
from tests import factories

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def chat_of(client) -> dict:
    while True:
        message = await client.receive()
        if message["type"] == "chat":
            return message


async def a_table(connect, *, langs=("ca", "it")):
    game = await sync_to_async(factories.started_game)(2)
    ana = await connect(game.token, "ana", lang=langs[0])
    bo = await connect(game.token, "bo", lang=langs[1])
    await ana.table()
    await bo.table()
    return game, ana, bo


async def test_a_quick_phrase_reads_in_each_readers_own_language(connect):
    _game, ana, bo = await a_table(connect)
    await ana.send({"action": "chat", "phrase": "good_game"})
    to_ana, to_bo = await chat_of(ana), await chat_of(bo)
    assert "Bona partida!" in to_ana["html"]
    assert "Bella partita!" in to_bo["html"]
    assert to_ana["id"] == to_bo["id"]
    assert "Ana" in to_bo["html"]
    line = await sync_to_async(ChatMessage.objects.get)(pk=to_ana["id"])
    assert (line.code, line.text) == ("good_game", "")


async def test_a_reaction_is_drawn_and_labelled_in_the_readers_language(connect):
    _game, ana, bo = await a_table(connect, langs=("en", "es"))
    await bo.send({"action": "chat", "phrase": "heart"})
    to_bo = await chat_of(bo)
    assert "<svg" in to_bo["html"] and 'aria-label="Corazón"' in to_bo["html"]
    assert 'aria-label="Heart"' in (await chat_of(ana))["html"]


async def test_free_text_is_escaped_and_the_name_comes_from_the_seat_not_the_message(connect):
    game, ana, bo = await a_table(connect, langs=("en", "en"))
    await bo.send(
        {"action": "chat", "text": "<script>alert(1)</script> & <b>hi</b>", "name": "Ana"}
    )
    html = (await chat_of(ana))["html"]
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;hi&lt;/b&gt;" in html
    assert '<span class="chat-name">Bo<span aria-hidden="true">:</span></span>' in html
    # ...and escaped on the page too, after a refresh.
    page = await sync_to_async(lambda: PageClient().get(f"/en/g/{game.token}/"))()
    text = page.content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "<script>alert" not in text


async def test_chat_leaves_the_game_version_alone(connect):
    game, ana, bo = await a_table(connect, langs=("en", "en"))
    before = (await sync_to_async(Game.objects.get)(pk=game.pk)).version
    await ana.send({"action": "chat", "text": "hello"})
    await chat_of(bo)
    assert (await sync_to_async(Game.objects.get)(pk=game.pk)).version == before
    # A move made on the version shown before the chat is not stale.
    await bo.send({"action": "chat", "phrase": "your_turn"})
    await chat_of(ana)
    await ana.send({"action": "roll", "version": before, "hold": []})
    assert (await ana.table())["version"] == before + 1


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"text": "x" * 201}, "bad_message"),
        ({"text": "   "}, "bad_chat"),
        ({}, "bad_chat"),
        ({"text": "hi", "phrase": "good_game"}, "bad_chat"),
        ({"phrase": "shout"}, "bad_chat"),
        ({"text": "evil\u202etext"}, "bad_chat"),
        ({"text": "bell\x07"}, "bad_chat"),
    ],
)
async def test_a_chat_message_outside_its_limits_is_refused_without_a_table(connect, message, code):
    _game, ana, _bo = await a_table(connect, langs=("en", "en"))
    await ana.send({"action": "chat", **message})
    error = await ana.error()
    assert error["code"] == code
    assert await ana.nothing_new()
    assert not await sync_to_async(ChatMessage.objects.exists)()


async def test_two_hundred_characters_are_said_in_full(connect):
    _game, ana, bo = await a_table(connect, langs=("en", "en"))
    await ana.send({"action": "chat", "text": "y" * 200})
    assert "y" * 200 in (await chat_of(bo))["html"]


async def test_the_host_closes_and_opens_the_chat_to_spectators(connect):
    game, ana, bo = await a_table(connect, langs=("en", "en"))
    watcher = await connect(game.token, None)
    await watcher.table()
    await watcher.send({"action": "chat", "phrase": "nice_roll"})
    assert "Spectator" in (await chat_of(ana))["html"]
    await chat_of(bo)
    await chat_of(watcher)
    await bo.send({"action": "spectator_chat", "on": 0})
    assert (await bo.error())["code"] == "not_host"
    await ana.send({"action": "spectator_chat", "on": 0})
    closed = await watcher.table()
    assert closed["state"]["spectator_chat"] is False
    assert closed["state"]["last"]["kind"] == "chat"
    await watcher.send({"action": "chat", "text": "let me in"})
    assert (await watcher.error())["code"] == "chat_closed"
    # The players still talk, and the spectator still reads them.
    await bo.send({"action": "chat", "text": "just us"})
    assert "just us" in (await chat_of(watcher))["html"]
    await ana.send({"action": "spectator_chat", "on": 1})
    assert (await watcher.table())["state"]["spectator_chat"] is True
    await watcher.send({"action": "chat", "text": "thanks"})
    assert "just us" in (await chat_of(bo))["html"]
    assert "thanks" in (await chat_of(bo))["html"]


async def test_a_chat_flood_is_cut_off_by_the_sockets_rate_limit(connect, settings):
    # The table's own pace of chat would refuse most of the flood first
    # (tests/security/test_process_ceilings.py): this is the socket's limit.
    settings.YACHT_CHAT_LINES_PER_GAME = 10**6
    _game, ana, _bo = await a_table(connect, langs=("en", "en"))
    for n in range(RATE_BURST + 10):
        await ana.send({"action": "chat", "text": f"spam {n}"})
    codes = []
    while True:
        output = await ana.ws.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            assert output["code"] == CLOSE_POLICY_VIOLATION
            break
        message = json.loads(output["text"])
        if message["type"] == "error":
            codes.append(message["code"])
    assert "rate_limited" in codes
    # The burst, and what the bucket refilled while they were read, got
    # through; the rest of the flood did not.
    said = await sync_to_async(ChatMessage.objects.count)()
    assert RATE_BURST - 5 <= said < RATE_BURST + 10


async def test_the_chat_is_there_after_a_refresh_and_on_reconnect(connect):
    game, ana, bo = await a_table(connect, langs=("en", "it"))
    await ana.send({"action": "chat", "phrase": "thanks"})
    await ana.send({"action": "chat", "text": "see you"})
    await chat_of(bo)
    await chat_of(bo)
    page = await sync_to_async(lambda: PageClient().get(f"/it/g/{game.token}/"))()
    html = page.content.decode()
    assert "Grazie!" in html and "see you" in html
    assert html.index("Grazie!") < html.index("see you")
    again = await connect(game.token, "bo", lang="it")
    await again.table()
    log = await again.receive()
    assert log["type"] == "chat_log"
    assert "Grazie!" in log["html"] and "see you" in log["html"]
