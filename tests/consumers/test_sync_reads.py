"""A socket asking whether it is current faster than a page ever does is
answered from what it was last sent, not with a database read each time."""

import pytest
from asgiref.sync import sync_to_async

from games.live import consumers
from games.play import services
from games.runtime import runtime
from tests import factories
from tests.clocks import HandClock

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def clock(monkeypatch):
    """The sockets' clock, moved by hand; syncs read the game once a second."""
    now = HandClock(1000.0, intervals_too=True)
    monkeypatch.setattr(runtime, "clock", now)
    monkeypatch.setattr(consumers, "SYNC_READS_EVERY", 1.0)
    return now


@pytest.fixture
def reads(monkeypatch):
    """The names of the database calls the sockets make."""
    made: list[str] = []
    run = consumers.dbthreads.run

    async def counted(key, work, /, *args, **kwargs):
        made.append(work.__name__)
        return await run(key, work, *args, **kwargs)

    monkeypatch.setattr(consumers.dbthreads, "run", counted)
    return made


async def watching(connect):
    game = await sync_to_async(factories.lobby_game)()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    watcher = await connect(game.token, None)
    return watcher, await watcher.table()


async def test_asks_within_a_second_are_answered_from_what_the_socket_was_sent(
    connect, clock, reads
):
    watcher, shown = await watching(connect)
    reads.clear()
    await watcher.send({"action": "sync", "version": shown["version"]})
    assert (await watcher.receive())["type"] == "current"
    assert reads == ["game_sync"], "the first ask reads the game"
    for _ in range(5):
        clock.wall += 0.1
        await watcher.send({"action": "sync", "version": 0})
        again = await watcher.receive()
        assert (again["type"], again["version"]) == ("table", shown["version"])
        await watcher.send({"action": "sync", "version": shown["version"]})
        assert (await watcher.receive())["type"] == "current"
    assert reads == ["game_sync"], "the asks within the second read nothing"


async def test_an_ask_a_second_later_reads_the_game_again(connect, clock, reads):
    watcher, shown = await watching(connect)
    reads.clear()
    await watcher.send({"action": "sync", "version": shown["version"]})
    await watcher.receive()
    clock.wall += 1.0
    await watcher.send({"action": "sync", "version": shown["version"]})
    assert (await watcher.receive())["type"] == "current"
    assert reads == ["game_sync", "game_sync"]
