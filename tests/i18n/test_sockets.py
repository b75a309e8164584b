"""One game, two sockets in two languages: each hears everything in its own."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async

from tests import factories

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


started_game = sync_to_async(factories.started_game)


async def test_a_spanish_and_an_italian_player_each_get_the_table_in_their_language(connect):
    game = await started_game()
    ana = await connect(game.token, "ana", lang="es")
    bo = await connect(game.token, "bo", lang="it")
    ana_table, bo_table = await ana.table(), await bo.table()
    assert "Tu turno" in ana_table["html"]
    assert "Quedan 3 tiradas" in ana_table["html"]
    # Read as text: the name in the turn's line has a span of its own.
    assert "Tocca a Ana" in re.sub(r"<[^>]+>", "", bo_table["html"])
    assert "Restano 3 lanci" in bo_table["html"]
    for html in (ana_table["html"], bo_table["html"]):
        assert "Your turn" not in html
        assert "rolls left" not in html

    await ana.send({"action": "roll", "version": ana_table["version"], "hold": []})
    ana_table, bo_table = await ana.table(), await bo.table()
    assert ana_table["version"] == bo_table["version"]
    assert ana_table["announce"].startswith("Has sacado ")
    assert bo_table["announce"].startswith("Ana ha ottenuto ")
    assert "Volver a tirar" in ana_table["html"]
    assert "Restano 2 lanci" in bo_table["html"]

    await ana.send({"action": "score", "version": ana_table["version"], "category": "choice"})
    ana_table, bo_table = await ana.table(), await bo.table()
    points = ana_table["state"]["seats"][0]["boxes"]["choice"]
    assert ana_table["announce"] == f"Anotas {points} puntos en Elección. Le toca a Bo."
    assert bo_table["announce"] == f"Ana segna {points} punti in Scelta. Tocca a te."


async def test_each_socket_gets_its_errors_in_its_own_language(connect):
    game = await started_game()
    ana = await connect(game.token, "ana", lang="es")
    bo = await connect(game.token, "bo", lang="it")
    version = (await ana.table())["version"]
    await bo.table()

    await bo.send({"action": "roll", "version": version, "hold": []})
    error = await bo.error()
    assert error["code"] == "not_your_turn"
    assert error["message"] == "Non è il tuo turno."

    await ana.send({"action": "score", "version": version, "category": "choice"})
    error = await ana.error()
    assert error["code"] == "must_roll_first"
    assert error["message"] == "Tira los dados antes de anotar."
    # A refused action is followed by a fresh table, also in Spanish.
    assert "Tu turno" in (await ana.table())["html"]

    await ana.send({"action": "jump"})
    assert (await ana.error())["message"] == "Esa acción no existe."


async def test_a_socket_asking_for_an_unknown_language_gets_english(connect):
    game = await started_game()
    watcher = await connect(game.token, "someone", lang="xx")
    table = await watcher.table()
    assert "You are watching this game" in table["html"]
