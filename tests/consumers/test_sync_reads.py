"""A socket asking whether it is current faster than a page ever does is
answered from what it was last sent, not with a database read each time;
the sockets of one game share one read a second between them."""

import asyncio

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
    with runtime.swap(consumers.SyncReads, consumers.SyncReads()):
        yield now


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


async def watched_by_two(connect):
    game = await sync_to_async(factories.lobby_game)()
    await sync_to_async(services.game_start)(token=game.token, guest_id="ana")
    first, second = await connect(game.token, None), await connect(game.token, None)
    shown = await first.table()
    assert (await second.table())["version"] == shown["version"]
    return game.token, first, second, shown["version"]


async def test_the_sockets_of_one_game_share_a_read_a_second_between_them(connect, clock, reads):
    _, first, second, version = await watched_by_two(connect)
    reads.clear()
    for client in (first, second):
        await client.send({"action": "sync", "version": version})
        assert (await client.receive())["type"] == "current"
    assert reads == ["game_sync"], "the second socket's ask shared the first's read"
    clock.wall += 1.0
    await second.send({"action": "sync", "version": version})
    assert (await second.receive())["type"] == "current"
    assert reads == ["game_sync", "game_sync"]


async def test_a_socket_not_shown_the_version_another_read_found_reads_the_game_itself(
    connect, clock, reads
):
    token, _, second, version = await watched_by_two(connect)
    # The first socket's read found a version whose push never reached the
    # second (lost between processes, say): the second must not be told
    # it is current on the strength of that read.
    consumers.sync_reads().note(token, clock.wall, version + 1)
    reads.clear()
    await second.send({"action": "sync", "version": version})
    await second.receive()
    assert reads == ["game_sync"]


async def test_a_socket_still_reads_for_itself_once_a_minute_however_often_others_do(
    connect, clock, reads
):
    _, first, second, version = await watched_by_two(connect)
    reads.clear()
    read_for_second = 0
    for _ in range(70):
        for client in (first, second):
            before = len(reads)
            await client.send({"action": "sync", "version": version})
            assert (await client.receive())["type"] == "current"
            read_for_second += client is second and len(reads) > before
        clock.wall += 1.0
    # The first always asks first and reads for both, but the second's own
    # read (which renews its group membership) comes within the minute.
    assert read_for_second >= 1


async def test_sockets_of_one_game_asking_at_once_share_the_read_in_flight(
    connect, clock, monkeypatch
):
    _, first, second, version = await watched_by_two(connect)
    made: list[str] = []
    asked, release, joined = asyncio.Event(), asyncio.Event(), asyncio.Event()
    run = consumers.dbthreads.run

    async def held_back(key, work, /, *args, **kwargs):
        made.append(work.__name__)
        asked.set()
        await release.wait()
        return await run(key, work, *args, **kwargs)

    class Watched(dict):
        def get(self, key, default=None):
            found = super().get(key, default)
            if found is not None:
                joined.set()
            return found

    monkeypatch.setattr(consumers.dbthreads, "run", held_back)
    consumers.sync_reads().reading = Watched()
    await first.send({"action": "sync", "version": version})
    await asyncio.wait_for(asked.wait(), 3)
    await second.send({"action": "sync", "version": version})
    await asyncio.wait_for(joined.wait(), 3)
    release.set()
    for client in (first, second):
        assert await client.receive() == {"type": "current", "version": version}
    assert made == ["game_sync"]
