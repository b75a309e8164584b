import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import redis
from hypothesis import settings as hypothesis_settings

if TYPE_CHECKING:
    from tests.clocks import TravelClock

LOCALE = Path(__file__).resolve().parent.parent / "locale"

# Property tests print, on failure, the blob that replays the failing example
# (@reproduce_failure); in CI they also run from the seed .ci/run prints.
hypothesis_settings.register_profile("yacht", print_blob=True)
hypothesis_settings.load_profile("yacht")


@pytest.fixture
def rng() -> random.Random:
    """Seeded dice, so a failing game can be replayed."""
    return random.Random(20261129)


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    # Persistent connections are right for the server, but in tests they keep
    # thread-pool connections open and block dropping the test database.
    settings.DATABASES["default"]["CONN_MAX_AGE"] = 0
    compile_stale_catalogs()


def compile_stale_catalogs() -> None:
    """Compile any .po newer than its .mo, as ./dev does before the suite.

    The .mo files are not in git, and a stale one makes pages (and the live
    servers the browser tests start) show old or English text.
    """
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in LOCALE.glob("*/LC_MESSAGES/django.po"):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as source:
            catalog = read_po(source)
        # Write aside and rename, so a parallel run never reads half a file.
        partial = mo.with_suffix(f".mo.{os.getpid()}")
        with partial.open("wb") as target:
            write_mo(target, catalog)
        partial.replace(mo)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Browser tests last: they are the slowest, and a failure in a fast layer
    # should be reported before them.
    items.sort(key=lambda item: "tests/browser/" in str(item.path))


@pytest.fixture(autouse=True)
def forget_snapshots() -> None:
    """Tokens and versions repeat across tests whose database was emptied in
    between: no test may be shown another's snapshot, or play from its seats."""
    from games.store.known import committed_seats
    from games.store.selectors import recent

    recent().clear()
    committed_seats().clear()


@pytest.fixture(autouse=True)
def close_helper_connections() -> Iterator[None]:
    """Close the connections left open in other threads: a test database
    with open connections cannot be dropped at the end. Channels' test
    communicator turns off the closing that follows each database call in
    production, so the games' database threads keep theirs, and a test's
    own ``sync_to_async`` calls keep one on asgiref's shared thread."""
    from asgiref.sync import SyncToAsync
    from django.db import connections

    from games.live import loopmoves
    from games.store import dbthreads

    yield
    dbthreads.close_connections()
    loopmoves.close_connections()
    SyncToAsync.single_thread_executor.submit(connections.close_all).result(timeout=30)


@pytest.fixture(autouse=True)
def every_sync_reads_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sync is how the socket tests ask the database what was committed
    (``Client.nothing_new``, the hostile oracle): in-process sockets read it
    on every ask. Sockets' memory of what they were sent is tested on its own
    (tests/consumers/test_sync_reads.py), and servers the tests start keep it."""
    from games.live import consumers

    monkeypatch.setattr(consumers, "SYNC_READS_EVERY", 0.0)


@pytest.fixture(autouse=True)
def fresh_limits() -> Iterator[None]:
    """Every test starts with no messages, games or sockets counted against anyone."""
    from django.conf import settings

    from games.live import limits
    from games.runtime import runtime
    from games.store import quotas

    def clear() -> None:
        for counts in (
            quotas._LocalWindows,
            quotas._LocalCreations,
            quotas.SharedMessageCounts,
            # The process's budgets per second: one left with a clock's stamp
            # from a test's hand clock (set at the epoch's seconds, far past the
            # real monotonic clock's) would earn nothing back for days after.
            limits.SpectatorMessages,
            limits.SpectatorChat,
            limits.ChatDeliveries,
        ):
            runtime.drop(counts)
        limits.sockets().open.clear()
        if settings.REDIS_URL:
            client = redis.Redis.from_url(settings.REDIS_URL, **settings.REDIS_CLIENT_OPTIONS)
            keys = list(client.scan_iter("yacht:limit:*"))
            if keys:
                client.delete(*keys)
            client.close()

    clear()
    yield
    clear()


@pytest.fixture(autouse=True)
def default_language() -> Iterator[None]:
    """Every test starts in the default language. A page fetched with the
    test client runs in the test's own thread, and Django's locale
    middleware leaves the page's language active there: a Catalan page
    made a later test read its expected messages in Catalan."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture
def travel(time_machine: Any, monkeypatch: pytest.MonkeyPatch) -> "TravelClock":
    """The time stands still until the test moves it, and the runtime's
    timers (the turn clock's deadlines, the bots' pauses) wait on it: a
    deadline passes, or a bot takes its step, without the test waiting."""
    from django.utils import timezone

    from games.runtime import runtime
    from tests.clocks import TravelClock

    time_machine.move_to(timezone.now(), tick=False)
    clock = TravelClock(time_machine)
    monkeypatch.setattr(runtime, "clock", clock)
    return clock
