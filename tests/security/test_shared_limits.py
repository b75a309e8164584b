"""No client takes more than its share: open sockets are capped per client
address, guest session and game, with a clear error and close code 4029;
messages are counted per session and per address across all of a client's
sockets, so reconnecting does not reset the rate; and a push is rendered
once per distinct view however many sockets watch."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings

from games.live import consumers, limits
from games.models import Game
from games.play import services
from games.present import rendering
from games.runtime import runtime
from games.store import quotas
from tests.clocks import HandClock
from tests.consumers.conftest import guest_cookie
from yachtsite.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@sync_to_async
def started(seats: int = 2) -> Game:
    game = services.game_create(guest_id="ana", name="Ana", seat_count=seats)
    if seats > 1:
        services.game_join(token=game.token, guest_id="bo", name="Bo")
    services.game_start(token=game.token, guest_id="ana")
    game.refresh_from_db()
    return game


class Sockets:
    """In-process sockets that come from a given client address."""

    def __init__(self) -> None:
        self.opened: list[WebsocketCommunicator] = []

    async def open(
        self, token: str, *, guest: str | None = None, address: str = "10.1.1.1"
    ) -> tuple[WebsocketCommunicator, dict[str, Any]]:
        """A socket and its first message (a table, or the error before a close)."""
        cookie = await sync_to_async(guest_cookie)(guest) if guest is not None else ""
        headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
        if cookie:
            headers.append((b"cookie", cookie.encode()))
        ws = WebsocketCommunicator(application, f"/ws/g/{token}/", headers=headers)
        ws.scope["client"] = (address, 40000 + len(self.opened))
        connected, _ = await ws.connect()
        assert connected
        self.opened.append(ws)
        return ws, json.loads(await ws.receive_from(timeout=3))

    async def close_all(self) -> None:
        for ws in self.opened:
            await ws.disconnect()


@pytest.fixture
async def sockets() -> Any:
    opened = Sockets()
    yield opened
    await opened.close_all()


async def refused(ws: WebsocketCommunicator, first: dict[str, Any]) -> bool:
    if first["type"] != "error":
        return False
    assert first["code"] == "too_many_sockets" and first["message"]
    closing = await ws.receive_output(timeout=3)
    assert closing == {"type": "websocket.close", "code": limits.CLOSE_TOO_MANY_SOCKETS}
    return True


async def test_sockets_past_the_cap_per_address_are_refused_with_4029_and_others_still_connect(
    sockets, settings
):
    settings.YACHT_SOCKETS_PER_ADDRESS = 5
    game = await started()
    # A bounded form of 6,000 cookie-less sockets from one client.
    answers = [await sockets.open(game.token) for _ in range(12)]
    outcomes = [await refused(ws, first) for ws, first in answers]
    assert outcomes == [False] * 5 + [True] * 7
    _, first = await sockets.open(game.token, address="10.2.2.2")
    assert first["type"] == "table"
    # Closing one makes room for one more.
    await answers[0][0].disconnect()
    _, first = await sockets.open(game.token)
    assert first["type"] == "table"
    assert await refused(*await sockets.open(game.token))


async def test_sockets_past_the_cap_per_session_are_refused_whatever_the_address(sockets, settings):
    settings.YACHT_SOCKETS_PER_SESSION = 3
    game = await started()
    for n in range(3):
        _, first = await sockets.open(game.token, guest="bo", address=f"10.3.0.{n}")
        assert first["seat"] == 1
    assert await refused(*await sockets.open(game.token, guest="bo", address="10.3.0.9"))
    _, first = await sockets.open(game.token, guest="ana", address="10.3.0.9")
    assert first["seat"] == 0


async def test_sockets_past_the_cap_per_game_are_refused_and_other_games_are_not(sockets, settings):
    settings.YACHT_SOCKETS_PER_GAME = 4
    game, other = await started(), await started()
    for n in range(4):
        _, first = await sockets.open(game.token, address=f"10.4.0.{n}")
        assert first["type"] == "table"
    assert await refused(*await sockets.open(game.token, address="10.4.1.1"))
    _, first = await sockets.open(other.token, address="10.4.1.1")
    assert first["type"] == "table"


async def test_sockets_opened_too_fast_from_one_address_are_refused_with_4029(
    sockets, settings, still_window
):
    settings.YACHT_CONNECTS_PER_ADDRESS = 5
    game = await started()
    refusals = []
    for _ in range(7):
        ws, first = await sockets.open(game.token, address="10.8.0.1")
        refusals.append(await refused(ws, first))
        await ws.disconnect()
    assert refusals == [False] * 5 + [True] * 2
    _, first = await sockets.open(game.token, address="10.8.0.2")
    assert first["type"] == "table"


async def test_what_a_refused_socket_sends_before_it_closes_is_not_answered(sockets, settings):
    settings.YACHT_SOCKETS_PER_ADDRESS = 1
    game = await started()
    await sockets.open(game.token, address="10.9.0.1")
    ws, first = await sockets.open(game.token, address="10.9.0.1")
    assert first["code"] == "too_many_sockets"
    await ws.send_to(text_data='{"action": "sync"}')
    assert (await ws.receive_output(timeout=3))["type"] == "websocket.close"
    assert await ws.receive_nothing(timeout=0.3)


async def flood(ws: WebsocketCommunicator, messages: int) -> tuple[int, int | None]:
    """Send ``messages`` at once; the tables answered, and the close code if closed."""
    for _ in range(messages):
        await ws.send_to(text_data='{"action": "sync"}')
    tables = 0
    # receive_nothing first: a receive that times out would cancel the consumer.
    while not await ws.receive_nothing(timeout=0.5):
        output = await ws.receive_output()
        if output["type"] == "websocket.close":
            return tables, output["code"]
        tables += json.loads(output["text"])["type"] == "table"
    return tables, None


@pytest.fixture
def still_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting windows that do not move while the test runs, so that the
    count is exact rather than a sliding estimate across two windows."""
    monkeypatch.setattr(runtime, "clock", HandClock(1e9))


async def test_a_reconnect_flood_from_one_session_is_held_to_the_sessions_rate(
    sockets, settings, still_window
):
    game = await started()
    answered = 0
    codes = []
    # Six sockets in turn, each within its own burst: the rate is the session's.
    for n in range(6):
        ws, _ = await sockets.open(game.token, guest="bo", address=f"10.5.0.{n}")
        tables, code = await flood(ws, consumers.RATE_BURST + 4)
        answered += tables
        codes.append(code)
    # Each socket cut off also gets the current table after its error.
    assert answered <= settings.YACHT_MESSAGES_PER_SESSION + 6
    assert consumers.CLOSE_POLICY_VIOLATION in codes
    # Another player is not held back by it.
    ws, _ = await sockets.open(game.token, guest="ana", address="10.5.1.1")
    assert await flood(ws, 5) == (5, None)


async def test_a_reconnect_flood_of_cookie_less_sockets_is_held_to_the_addresss_rate(
    sockets, settings, still_window
):
    # Sockets without a session are spectators: the process's budget for
    # their messages (tested in test_process_ceilings.py) would answer most
    # of the flood before the address's count is reached.
    settings.YACHT_SPECTATOR_MESSAGES_PER_SECOND = 10**9
    game = await started()
    answered = 0
    for _ in range(8):
        ws, _ = await sockets.open(game.token, address="10.6.0.1")
        tables, _code = await flood(ws, consumers.RATE_BURST + 4)
        answered += tables
        await ws.disconnect()
    assert answered <= settings.YACHT_MESSAGES_PER_ADDRESS + 8
    ws, _ = await sockets.open(game.token, address="10.6.0.2")
    assert await flood(ws, 5) == (5, None)


async def test_a_count_slides_over_the_window_before_whether_in_redis_or_here(monkeypatch):
    # In Redis on the PostgreSQL + Redis pass, in this process otherwise:
    # the same counts either way, from the async and the blocking counter.
    now = HandClock(1005.0)
    monkeypatch.setattr(runtime, "clock", now)
    counted = [("msg-guest", "g1"), ("msg-addr", "10.9.0.1")]
    assert await quotas._ahits(counted, 10) == [1, 1]
    assert await quotas._ahits(counted[:1], 10) == [2]
    # A fifth into the next window, four fifths of the last one still count.
    now.wall = 1012.0
    assert await quotas._ahits(counted, 10) == [pytest.approx(1 + 2 * 0.8), pytest.approx(1.8)]
    assert await sync_to_async(quotas._hit)("msg-guest", "g1", 10) == pytest.approx(2 + 1.6)
    if django_settings.REDIS_URL:
        # Counted in Redis, not in this process's fallback.
        assert not runtime.part(quotas._LocalWindows).counts
        client = redis.Redis.from_url(django_settings.REDIS_URL)
        assert client.get("yacht:limit:msg-guest:g1:101") == b"2"
        assert client.get("yacht:limit:msg-addr:10.9.0.1:100") == b"1"
        client.close()


async def test_counts_kept_here_forget_past_windows_and_keep_what_may_still_be_read(
    monkeypatch, settings
):
    # This process's counts (no Redis, or Redis away) keep a key through its
    # window and the next, where it is the previous window.
    settings.REDIS_URL = ""
    now = HandClock(1005.0)
    monkeypatch.setattr(runtime, "clock", now)
    local = runtime.part(quotas._LocalWindows)
    assert await quotas._ahits([("msg-guest", "g1")], 10) == [1]
    assert await quotas._ahits([("conn", "10.9.0.1")], 3600) == [1]
    now.wall = 1012.0
    assert await quotas._ahits([("msg-guest", "g1")], 10) == [pytest.approx(1 + 0.8)]
    # A minute on, the ten seconds' keys are gone and the hour's still counts.
    now.wall = 1065.0
    assert await quotas._ahits([("msg-guest", "g2")], 10) == [1]
    assert sorted(local.counts) == ["yacht:limit:conn:10.9.0.1:0", "yacht:limit:msg-guest:g2:106"]
    assert await quotas._ahits([("conn", "10.9.0.1")], 3600) == [2]
    # Past its most live keys, the process starts afresh.
    monkeypatch.setattr(local, "MOST", 4)
    assert await quotas._ahits([("msg-guest", f"h{n}") for n in range(3)], 10) == [1, 1, 1]
    assert len(local.counts) == 5
    assert await quotas._ahits([("msg-guest", "h9")], 10) == [1]
    assert list(local.counts) == ["yacht:limit:msg-guest:h9:106"]


async def test_a_push_is_rendered_once_per_distinct_view_however_many_watch(sockets, monkeypatch):
    game = await started()
    for n in range(20):
        await sockets.open(game.token, address=f"10.7.0.{n}")
    await sockets.open(game.token, address="10.7.1.1", guest="ana")
    await sockets.open(game.token, address="10.7.1.2", guest="bo")
    renders = []
    real = rendering.table_html

    def counting(context: dict[str, Any]) -> str:
        renders.append(context["me"])
        return real(context)

    monkeypatch.setattr(rendering, "table_html", counting)
    from games.rules import Roll

    await sync_to_async(services.game_act)(
        token=game.token, guest_id="ana", version=game.version, action=Roll(frozenset())
    )
    for ws in sockets.opened:
        push = json.loads(await ws.receive_from(timeout=3))
        while push["type"] == "presence":
            push = json.loads(await ws.receive_from(timeout=3))
        assert push["version"] == game.version + 1
    # The spectators' view, Ana's and Bo's: three renders for 22 sockets.
    assert sorted(renders, key=str) == [0, 1, None]


needs_redis = pytest.mark.skipif(
    not django_settings.REDIS_URL, reason="counts reach Redis only on the Redis pass"
)


@needs_redis
async def test_a_process_adds_its_message_counts_to_redis_in_batches(
    settings, still_window, monkeypatch
):
    settings.YACHT_MESSAGES_PER_SESSION = 20
    trips = []
    real = quotas._async_script

    def counting():
        trips.append(1)
        return real()

    monkeypatch.setattr(quotas, "_async_script", counting)
    monkeypatch.setattr(quotas, "FLUSH_SECONDS", 3600)
    answers = [await quotas.message_allowed(address="", guest="g1") for _ in range(25)]
    # Exact within the process, though only the first message went to Redis.
    assert answers == [True] * 20 + [False] * 5
    assert len(trips) == 1
    client = redis.Redis.from_url(django_settings.REDIS_URL)
    key = f"yacht:limit:msg-guest:g1:{int(1e9 // quotas.MESSAGE_WINDOW)}"
    assert client.get(key) == b"1"
    # The next flush carries the other 24.
    monkeypatch.setattr(quotas, "FLUSH_SECONDS", 0)
    assert not await quotas.message_allowed(address="", guest="g1")
    assert len(trips) == 2
    assert client.get(key) == b"26"
    client.close()


@needs_redis
async def test_another_process_counts_arrive_with_the_next_flush(still_window, monkeypatch):
    monkeypatch.setattr(quotas, "FLUSH_SECONDS", 0)
    here, there = quotas.SharedMessageCounts(), quotas.SharedMessageCounts()
    window = int(1e9 // quotas.MESSAGE_WINDOW)
    key, before = (
        f"yacht:limit:msg-addr:10.9.9.9:{window}",
        f"yacht:limit:msg-addr:10.9.9.9:{window - 1}",
    )
    for _ in range(15):
        there.hit(key, before)
    await there.flush_if_due()
    assert here.hit(key, before) == (1, 0)
    await here.flush_if_due()
    # Its own message and the other process's fifteen.
    assert here.hit(key, before) == (17, 0)
    await here.flush_if_due()
    # The other process hears of them at its own next flush.
    assert there.hit(key, before) == (16, 0)
    await there.flush_if_due()
    assert there.hit(key, before) == (19, 0)


@needs_redis
async def test_a_burst_of_connects_is_counted_in_redis_however_many_come_at_once(
    settings, still_window
):
    # A crowd's sockets, or every page of a restarted process, all counting
    # their connect at once: more calls in flight than redis-py's pool of
    # 100 connections lets through, and than this pool keeps.
    settings.YACHT_REDIS_SHORT_CALL_CONNECTIONS = 8
    burst = 300
    answers = await asyncio.gather(
        *(quotas.connect_allowed(address="198.51.100.7") for _ in range(burst))
    )
    assert answers.count(True) == settings.YACHT_CONNECTS_PER_ADDRESS
    # Every one of them counted in Redis, where the other processes see it,
    # none around it in this process alone.
    client = redis.Redis.from_url(django_settings.REDIS_URL)
    key = f"yacht:limit:connect-addr:198.51.100.7:{int(1e9 // quotas.MESSAGE_WINDOW)}"
    assert client.get(key) == str(burst).encode()
    client.close()


@needs_redis
async def test_the_counters_and_presence_share_one_pool_per_loop():
    # So YACHT_REDIS_SHORT_CALL_CONNECTIONS bounds all of a loop's short calls.
    from games.live.presence import presence

    assert presence()._redis() is quotas.short_calls_client()


@pytest.mark.parametrize("failure", [redis.exceptions.ConnectionError, asyncio.CancelledError])
async def test_a_flush_that_fails_or_is_cancelled_keeps_its_hits_counted(monkeypatch, failure):
    # Redis gone, or the handler cancelled as its socket closed mid-flush.
    def script():
        async def run(**_: Any) -> list[int]:
            raise failure()

        return run

    monkeypatch.setattr(quotas, "_async_script", script)
    counts = quotas.SharedMessageCounts()
    current, previous, _ = quotas._windows("msg-guest", "g1", quotas.MESSAGE_WINDOW)
    for _ in range(3):
        counts.hit(current, previous)
    if failure is asyncio.CancelledError:
        with pytest.raises(asyncio.CancelledError):
            await counts.flush_if_due()
    else:
        await counts.flush_if_due()
    assert not counts.sending
    assert counts.hit(current, previous) == (4, 0)
