"""Per-socket limits: a flood is cut off with 4008 after a clear error while the
game's other sockets play on; oversize frames are refused; names in pushes
are text."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games.live import consumers
from games.play import actions
from games.runtime import runtime
from tests import factories
from tests.clocks import HandClock
from yachtsite.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


started = sync_to_async(factories.started_game)


async def test_a_flood_closes_that_socket_with_4008_after_saying_why_and_no_other(connect):
    game = await started()
    flooder = await connect(game.token, "bo")
    other_tab = await connect(game.token, "bo")
    ana = await connect(game.token, "ana")
    watcher = await connect(game.token, None)
    for client in (flooder, other_tab, ana, watcher):
        await client.table()
    # The whole flood arrives at once, as from a script.
    for _ in range(consumers.RATE_BURST + 20):
        await flooder.ws.send_to(text_data='{"action": "sync"}')
    outputs = []
    while True:
        output = await flooder.ws.receive_output(timeout=3)
        outputs.append(output)
        if output["type"] == "websocket.close":
            break
    answers = [json.loads(o["text"]) for o in outputs[:-1]]
    assert sum(a["type"] == "table" for a in answers) >= consumers.RATE_BURST
    assert answers[-2:][0]["code"] == "rate_limited" or answers[-1]["code"] == "rate_limited"
    assert outputs[-1]["code"] == consumers.CLOSE_POLICY_VIOLATION == 4008
    assert outputs[-1]["reason"]
    # The player's other tab, the opponent and the spectator are untouched.
    await ana.send({"action": "roll", "version": game.version, "hold": []})
    for client in (other_tab, ana, watcher):
        assert (await client.table())["version"] == game.version + 1
    await other_tab.send({"action": "sync"})
    assert (await other_tab.table())["seat"] == 1


async def test_a_socket_that_keeps_within_the_rate_is_never_cut_off(connect, monkeypatch):
    # A fast but fair client: a burst, then messages spaced at the refill rate.
    # The socket's own rate and the counts shared across a client's sockets
    # run on the same clock.
    clock = HandClock(1000.0, intervals_too=True)
    monkeypatch.setattr(runtime, "clock", clock)
    game = await started()
    bo = await connect(game.token, "bo")
    await bo.table()
    for n in range(consumers.RATE_BURST * 3):
        if n >= consumers.RATE_BURST:
            clock.wall += 1 / consumers.RATE_PER_SECOND
        await bo.send({"action": "sync"})
        assert (await bo.table())["seat"] == 1


async def test_a_frame_over_the_size_cap_is_refused_and_the_socket_stays(connect):
    game = await started()
    ana = await connect(game.token, "ana")
    await ana.table()
    padding = "x" * (actions.MAX_MESSAGE_CHARS + 1)
    for frame in (padding, json.dumps({"action": "sync", "pad": padding}), "€" * 2049):
        await ana.ws.send_to(text_data=frame)
        assert (await ana.error())["code"] == "too_large"
    fits = json.dumps({"action": "sync", "pad": "x" * (actions.MAX_MESSAGE_CHARS - 40)})
    assert len(fits) <= actions.MAX_MESSAGE_CHARS
    await ana.ws.send_to(text_data=fits)
    assert (await ana.table())["version"] == game.version


async def test_a_hostile_name_reaches_every_push_as_text(connect):
    name = "\"'><svg/onload=alert(1)>"
    game = await started(host_name=name)
    ana = await connect(game.token, "ana")
    bo = await connect(game.token, "bo")
    await ana.table()
    await bo.table()
    await ana.send({"action": "roll", "version": game.version, "hold": []})
    push = await bo.table()
    assert "<svg/onload" not in push["html"]
    assert "&lt;svg/onload=alert(1)&gt;" in push["html"]
    # The announcement and the state are data, put in the page as text.
    assert push["state"]["seats"][0]["name"] == name
    assert push["announce"].startswith(name)


@pytest.mark.parametrize(
    "origin",
    [None, b"null", b"http://localhost.evil.example", b"http://127.0.0.1.nip.io", b"file://"],
)
async def test_a_socket_without_an_origin_of_this_site_is_refused(origin):
    # A page on another site (or a sandboxed frame) must not be able to open
    # a socket riding on the player's cookie.
    game = await started()
    headers = [(b"host", b"localhost")]
    if origin is not None:
        headers.append((b"origin", origin))
    communicator = WebsocketCommunicator(application, f"/ws/g/{game.token}/", headers=headers)
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()
