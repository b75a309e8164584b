"""Real daphne processes failing: killed mid-turn, stopped, or without a
database. Players reconnect to exactly the last committed state; nothing
is half-written; clients are told what happened."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from games import rules
from games.live import consumers
from games.models import Game, Move
from games.play import services
from games.present.messages import error_message
from games.store.selectors import game_players, game_state
from tests.consumers.conftest import guest_cookie
from tests.live import DaphneProcess, free_port
from tests.security.hostile import replay
from tests.security.livesocket import Tab

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.live]


def committed(token: str) -> tuple[int, list[int], int]:
    """The stored version, dice and rolls, after checking the Move log replays to them."""
    try:
        game = Game.objects.get(token=token)
        state = game_state(game, game_players(game))
        assert replay(game) == state, "the Move log does not replay to the stored state"
        return game.version, list(game.dice), game.rolls_used
    finally:
        connection.close()


def two_player_game() -> Game:
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    services.game_start(token=game.token, guest_id="ana")
    game.refresh_from_db()
    return game


def test_a_server_killed_mid_turn_comes_back_on_its_port_at_the_last_committed_state():
    game = two_player_game()
    cookies = {"ana": guest_cookie("ana"), "bo": guest_cookie("bo")}
    server = DaphneProcess().start()

    async def scenario() -> None:
        ana = await Tab.open(server, game.token, cookies["ana"])
        bo = await Tab.open(server, game.token, cookies["bo"])
        version = game.version
        await ana.send({"action": "roll", "version": version, "hold": []})
        for tab in (ana, bo):
            await tab.until_shown(version + 1)
        # The second roll and SIGKILL race: it may or may not have committed.
        await ana.send({"action": "roll", "version": version + 1, "hold": [0, 1]})
        await asyncio.to_thread(server.kill)
        await asyncio.wait_for(ana.closed.wait(), 10)
        await asyncio.wait_for(bo.closed.wait(), 10)
        assert ana.close_code is None, "a killed server cannot have said goodbye"

        stored_version, dice, rolls = await asyncio.to_thread(committed, game.token)
        assert stored_version in (version + 1, version + 2)
        assert rolls == stored_version - version

        restarted = DaphneProcess(port=server.port)
        await asyncio.to_thread(restarted.start)
        try:
            ana = await Tab.open(restarted, game.token, cookies["ana"])
            bo = await Tab.open(restarted, game.token, cookies["bo"])
            for tab in (ana, bo):
                table = await tab.until_shown(stored_version)
                assert table["state"]["dice"] == dice
                assert table["state"]["rolls_used"] == rolls
            # Play goes on from there: Ana scores, Bo takes his turn.
            category = table["state"]["categories"][0]
            await ana.send({"action": "score", "version": stored_version, "category": category})
            await bo.until_shown(stored_version + 1)
            await bo.send({"action": "roll", "version": stored_version + 1, "hold": []})
            for tab in (ana, bo):
                table = await tab.until_shown(stored_version + 2)
            assert table["state"]["current_seat"] == 1
            assert table["state"]["seats"][0]["boxes"].keys() == {category}
            await ana.close()
            await bo.close()
        finally:
            await asyncio.to_thread(restarted.stop)

    try:
        asyncio.run(scenario())
    finally:
        server.kill()
    version, _dice, _rolls = committed(game.token)
    assert Move.objects.filter(game=game).count() == version


def test_a_stopped_server_closes_every_socket_promptly_with_a_close_frame():
    game = two_player_game()
    cookies = [guest_cookie(guest) for guest in ("ana", "bo", "")]
    server = DaphneProcess().start()

    async def scenario() -> tuple[float, list[int | None]]:
        tabs = [await Tab.open(server, game.token, cookie) for cookie in cookies]
        for tab in tabs:
            await tab.until_shown(game.version)
        started = time.monotonic()
        assert server.process is not None
        server.process.terminate()
        for tab in tabs:
            await asyncio.wait_for(tab.closed.wait(), 10)
        return time.monotonic() - started, [tab.close_code for tab in tabs]

    try:
        elapsed, codes = asyncio.run(scenario())
    finally:
        server.stop()
    # "Going away" (daphne can only send it as 4001): clients reconnect at once.
    assert codes == [consumers.CLOSE_GOING_AWAY] * 3, codes
    assert elapsed < 5


@pytest.mark.parametrize(
    "database_url",
    [
        pytest.param("postgres://postgres@127.0.0.1:1/yacht", id="postgresql-wrong-port"),
        pytest.param("sqlite:////proc/no-such-dir/yacht.sqlite3", id="sqlite-unwritable-path"),
    ],
)
def test_without_a_database_a_socket_is_told_to_try_again_and_closed(database_url):
    cookie = guest_cookie("ana")
    server = DaphneProcess(env={"DATABASE_URL": database_url}).start()

    async def scenario() -> Tab:
        tab = await Tab.open(server, "any-game-token", cookie)
        await asyncio.wait_for(tab.closed.wait(), 40)
        return tab

    try:
        tab = asyncio.run(scenario())
    finally:
        server.stop()
    assert [m["code"] for m in tab.messages] == ["unavailable"]
    assert tab.messages[0]["message"] == error_message("unavailable")
    assert tab.close_code == 4013
    log = server.log.read_text()
    assert "Traceback" not in log.split("database unavailable")[0]
    assert "Exception inside application" not in log


def test_a_restart_mid_game_loses_no_committed_move_across_many_kills():
    """Kill the server at random moments of a solitaire, many times: every
    restart shows exactly what was committed, and the log always replays."""
    game = services.game_create(guest_id="ana", name="Ana", seat_count=1)
    services.game_start(token=game.token, guest_id="ana")
    game.refresh_from_db()
    cookie = guest_cookie("ana")
    port = DaphneProcess().port
    kills = 0

    async def scenario() -> None:
        nonlocal kills
        server = DaphneProcess(port=port)
        await asyncio.to_thread(server.start)
        try:
            for round_ in range(6):
                ana = await Tab.open(server, game.token, cookie)
                version, dice, rolls = await asyncio.to_thread(committed, game.token)
                table = await ana.until_shown(version)
                assert (table["state"]["dice"], table["state"]["rolls_used"]) == (dice, rolls)
                # A burst of legal-looking actions; the kill lands somewhere among them.
                state = table["state"]
                for step in range(3):
                    if state["rolls_used"] + step < rules.MAX_ROLLS:
                        message = {"action": "roll", "version": version + step, "hold": []}
                    else:
                        message = {
                            "action": "score",
                            "version": version + step,
                            "category": next(iter(state["preview"]), "choice"),
                        }
                    await ana.send(message)
                # Real time: each round's kill lands a little later among them.
                await asyncio.sleep(0.01 * round_)
                await asyncio.to_thread(server.kill)
                kills += 1
                await asyncio.wait_for(ana.closed.wait(), 10)
                server = DaphneProcess(port=port)
                await asyncio.to_thread(server.start)
        finally:
            await asyncio.to_thread(server.stop)

    asyncio.run(scenario())
    assert kills == 6
    version, _dice, _rolls = committed(game.token)
    assert Move.objects.filter(game=game).count() == version


class RedisServer:
    """A redis-server of this test's own, on its own port: never the shared one."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.pidfile = directory / "redis.pid"
        self.directory = directory

    def start(self) -> None:
        subprocess.run(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--daemonize", "yes",
             "--dir", str(self.directory), "--pidfile", str(self.pidfile)],
            check=True, capture_output=True,
        )  # fmt: skip
        for _ in range(100):
            ping = subprocess.run(
                ["redis-cli", "-p", str(self.port), "ping"], capture_output=True, check=False
            )
            if ping.stdout.strip() == b"PONG":
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if not self.pidfile.exists():
            return
        pid = int(self.pidfile.read_text())
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        self.pidfile.unlink(missing_ok=True)


async def reconnect(server: DaphneProcess, token: str, cookie: str) -> Tab:
    """Reconnect with backoff, as the browser does, until a table arrives.

    Right after a Redis restart the channel layer's pooled connections are
    stale: the first sockets are told "unavailable" (4013) and try again.
    """
    for attempt in range(20):
        tab = await Tab.open(server, token, cookie)
        for _ in range(60):
            if tab.messages or tab.closed.is_set():
                break
            await asyncio.sleep(0.05)
        if tab.messages and tab.messages[0]["type"] == "table":
            return tab
        assert not tab.messages or tab.messages[0]["code"] == "unavailable", tab.messages
        await tab.close()
        await asyncio.sleep(0.1 * (attempt + 1))
    raise AssertionError("could not get back into the game after Redis came back")


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    redis = RedisServer(tmp_path)
    redis.start()
    yield redis
    redis.stop()


def test_a_redis_restart_mid_game_says_try_again_and_play_resumes_after_reconnect(own_redis):
    game = two_player_game()
    cookies = {"ana": guest_cookie("ana"), "bo": guest_cookie("bo")}
    server = DaphneProcess(env={"REDIS_URL": own_redis.url}).start()

    async def scenario() -> None:
        ana = await Tab.open(server, game.token, cookies["ana"])
        bo = await Tab.open(server, game.token, cookies["bo"])
        version = game.version
        await ana.send({"action": "roll", "version": version, "hold": []})
        for tab in (ana, bo):
            rolled = await tab.until_shown(version + 1)
        await asyncio.to_thread(own_redis.stop)
        for tab in (ana, bo):
            await asyncio.wait_for(tab.closed.wait(), 10)
            assert tab.close_code == consumers.CLOSE_TRY_AGAIN_LATER
            assert tab.messages[-1]["code"] == "unavailable"
        await asyncio.to_thread(own_redis.start)
        # The clients come back: the committed roll is there, and pushes flow again.
        ana = await reconnect(server, game.token, cookies["ana"])
        bo = await reconnect(server, game.token, cookies["bo"])
        for tab in (ana, bo):
            table = await tab.until_shown(version + 1)
            assert table["state"]["dice"] == rolled["state"]["dice"]
        await ana.send({"action": "roll", "version": version + 1, "hold": [0]})
        for tab in (ana, bo):
            assert (await tab.until_shown(version + 2))["state"]["rolls_used"] == 2
        await ana.close()
        await bo.close()

    try:
        asyncio.run(scenario())
    finally:
        server.stop()
    assert "Exception inside application" not in server.log.read_text()
