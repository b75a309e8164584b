"""Pushes committed in the database thread are sent by the sockets' event loop:
the thread does not wait for them, they leave in commit order, and a failed
one is logged rather than lost in a task nobody awaits."""

import asyncio
import gc
import logging
from typing import Any, cast

from asgiref.sync import sync_to_async

from games.live import botplay, broadcast
from games.runtime import runtime
from games.store.selectors import Snapshot


class HeldLayer:
    """A channel layer whose sends wait until the test lets them go."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.sent: list[int] = []
        self.failing: set[int] = set()
        # Only this game's sends wait, when set.
        self.held_game: str | None = None

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        snapshot = message["snapshot"]
        if self.held_game is None or group == broadcast.group_name(self.held_game):
            await self.go.wait()
        if snapshot["version"] in self.failing:
            raise RuntimeError("the layer broke")
        self.sent.append(snapshot["version"])


def snap(version: int, token: str = "handoff") -> Snapshot:
    # Only what a push reads on its way out: the rest of a snapshot is not looked at.
    return cast(Snapshot, {"token": token, "version": version})


async def test_the_committing_thread_does_not_wait_and_pushes_leave_in_commit_order(
    monkeypatch,
):
    layer = HeldLayer()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(runtime.loop, "loop", asyncio.get_running_loop())

    def commit_three() -> None:
        for version in (1, 2, 3):
            broadcast.push_snapshot(snap(version))

    # The layer holds every send, so this would hang if the thread waited for one.
    await asyncio.wait_for(sync_to_async(commit_three)(), timeout=3)
    assert layer.sent == []
    layer.go.set()
    await runtime.loop.settle()
    assert layer.sent == [1, 2, 3]


async def test_a_game_whose_push_is_slow_does_not_hold_up_another_games(monkeypatch):
    layer = HeldLayer()
    layer.held_game = "slow"
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(runtime.loop, "loop", asyncio.get_running_loop())

    await sync_to_async(broadcast.push_snapshot)(snap(1, "slow"))
    await sync_to_async(broadcast.push_snapshot)(snap(2, "fast"))
    for _ in range(100):
        if layer.sent:
            break
        await asyncio.sleep(0.01)
    assert layer.sent == [2]
    layer.go.set()
    await runtime.loop.settle()
    assert layer.sent == [2, 1]


async def test_a_push_that_fails_on_the_loop_is_logged_and_the_next_still_leaves(
    monkeypatch, caplog
):
    layer = HeldLayer()
    layer.failing.add(1)
    layer.go.set()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(runtime.loop, "loop", asyncio.get_running_loop())

    await sync_to_async(broadcast.push_snapshot)(snap(1))
    await sync_to_async(broadcast.push_snapshot)(snap(2))
    await runtime.loop.settle()
    assert layer.sent == [2]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert any("could not push version 1" in r.getMessage() for r in warnings)
    assert runtime.counts["pushes_failed"] >= 1


def test_without_a_running_server_loop_the_push_is_sent_before_the_call_returns(monkeypatch):
    layer = HeldLayer()
    layer.go.set()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: layer)
    # A loop that served sockets once but is not running now (a finished test's).
    loop = asyncio.new_event_loop()
    monkeypatch.setattr(runtime.loop, "loop", loop)
    try:
        broadcast.push_snapshot(snap(7))
    finally:
        loop.close()
    assert layer.sent == [7]


def test_a_bot_step_scheduled_as_the_loop_closes_is_dropped_without_failing_the_commit(
    monkeypatch,
):
    class Closing:
        """A loop that was running when looked at and refuses work when asked."""

        def is_closed(self) -> bool:
            return False

        def is_running(self) -> bool:
            return True

        def call_soon_threadsafe(self, *args: Any, **kwargs: Any) -> None:
            raise RuntimeError("Event loop is closed")

    monkeypatch.setattr(runtime.loop, "loop", Closing())
    bot_turn = cast(
        Snapshot,
        {
            "token": "t",
            "version": 4,
            "status": "playing",
            "current_seat": 0,
            "seats": [{"bot": "solid"}],
            "bot_pace": "normal",
            "duplicate": None,
        },
    )
    assert runtime.loop.call_soon(print) is False
    botplay.schedule(bot_turn)  # must not raise: it runs after the commit


async def test_work_handed_to_the_loop_that_crashes_is_logged_with_its_traceback(caplog):
    async def broken() -> None:
        raise ZeroDivisionError("a bug in a bot step")

    before = runtime.counts["bot_step_crashed"]
    runtime.loop.spawn(broken(), what="bot_step")
    await runtime.loop.settle()
    assert runtime.counts["bot_step_crashed"] == before + 1
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert any(r.exc_info and r.exc_info[0] is ZeroDivisionError for r in errors)


def test_a_failing_after_commit_listener_neither_escapes_nor_stops_the_next(monkeypatch):
    heard: list[int] = []

    def broken(snap: dict[str, Any]) -> None:
        raise RuntimeError("listener bug")

    monkeypatch.setattr(
        runtime.commits, "after_commit", [broken, lambda snap: heard.append(snap["version"])]
    )
    runtime.commits.committed(snap(3))  # must not raise: the action is already committed
    assert heard == [3]


def test_settling_forgets_work_stranded_on_a_loop_that_closed(caplog):
    # A push handed to a test's loop as it shut down, still waiting on Redis
    # when that loop closed: it can never finish, and nothing may wait for it.
    async def waiting_forever() -> None:
        await asyncio.get_running_loop().create_future()

    async def strand() -> asyncio.Task[Any]:
        task = runtime.loop.spawn(waiting_forever(), what="push")
        await asyncio.sleep(0)  # started, then left waiting
        return task

    gone = asyncio.new_event_loop()
    stranded = gone.run_until_complete(strand())
    gone.close()
    assert not stranded.done()

    finished: list[str] = []

    async def later_test() -> None:
        async def push() -> None:
            finished.append("push")

        runtime.loop.spawn(push(), what="push")
        await asyncio.wait_for(runtime.loop.settle(), timeout=5)

    asyncio.run(later_test())
    assert finished == ["push"]
    assert stranded not in runtime.loop.pending()
    # Forgotten, yet never freed: asyncio would log "Task was destroyed but it
    # is pending!" at whatever moment the collector got to it, as an error of
    # whichever test ran then.
    del stranded
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        gc.collect()
    assert not [r for r in caplog.records if "destroyed" in r.getMessage()]
