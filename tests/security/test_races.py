"""Races: the same action at the same version from several places at the same
instant is applied exactly once; two guests taking the last seat at once get
one seat between them. Real threads on the service (each with its own
database connection), and real daphne processes for the socket path."""

from __future__ import annotations

import asyncio
import functools
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection

from games import rules
from games.models import Game, Move, Player
from games.play import services
from games.rules import GameError, Roll, Score
from games.store.selectors import game_players, game_state
from tests.consumers.conftest import guest_cookie
from tests.live import DaphneProcess
from tests.security.livesocket import Tab, socket_to

pytestmark = pytest.mark.django_db(transaction=True)


def at_once(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run ``work(i)`` in ``count`` threads released together; results or errors."""
    gate = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(i: int) -> None:
        try:
            gate.wait()
            results[i] = work(i)
        except Exception as error:
            results[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def same_action(token: str, version: int, action: rules.Action, _sender: int) -> Game:
    return services.game_act(token=token, guest_id="ana", version=version, action=action)


def latecomer_joins(token: str, n: int) -> Player:
    return services.game_join(token=token, guest_id=LATECOMERS[n], name=LATECOMERS[n].title())


def next_legal(game: Game) -> rules.Action:
    """Roll until the third roll, then score the first open box."""
    state = game_state(game, game_players(game))
    if state.rolls < rules.MAX_ROLLS:
        return Roll(frozenset({0, 1}) if state.rolls else frozenset())
    return Score(state.allowed_boxes()[0])


@pytest.mark.parametrize("senders", [2, 4])
def test_the_same_action_at_the_same_version_at_once_is_applied_exactly_once(senders):
    game = services.game_create(guest_id="ana", name="Ana", seat_count=1)
    services.game_start(token=game.token, guest_id="ana")
    rounds = 0
    while True:
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        version, moves = game.version, Move.objects.filter(game=game).count()
        action = next_legal(game)
        results = at_once(
            senders,
            functools.partial(same_action, game.token, version, action),
        )
        applied = [r for r in results if isinstance(r, Game)]
        refused = [r for r in results if not isinstance(r, Game)]
        assert len(applied) == 1, results
        game.refresh_from_db()
        # Once the last box is filled, the game being over is what a late copy hears.
        late = "game_over" if game.status == Game.Status.FINISHED else "stale_version"
        assert all(isinstance(r, GameError) and r.code == late for r in refused), refused
        assert game.version == version + 1
        assert Move.objects.filter(game=game).count() == moves + 1
        rounds += 1
    assert rounds == 12 * 4  # every turn: three rolls and a score, each raced


LATECOMERS = ["cy", "di", "ed"]


def test_two_guests_taking_the_last_seat_at_once_get_one_seat_between_them():
    for _ in range(20):
        game = services.game_create(guest_id="ana", name="Ana", seat_count=3)
        services.game_join(token=game.token, guest_id="bo", name="Bo")
        results = at_once(
            len(LATECOMERS),
            functools.partial(latecomer_joins, game.token),
        )
        seated = [r for r in results if isinstance(r, Player)]
        refused = [r for r in results if not isinstance(r, Player)]
        assert len(seated) == 1, results
        assert all(isinstance(r, GameError) and r.code == "game_full" for r in refused), refused
        players = list(Player.objects.filter(game=game).order_by("order"))
        assert [p.order for p in players] == [0, 1, 2]
        assert players[2].guest_id == seated[0].guest_id
        game.refresh_from_db()
        assert game.version == 3


@pytest.fixture
def two_servers(transactional_db: None) -> Iterator[tuple[DaphneProcess, DaphneProcess]]:
    servers = (DaphneProcess().start(), DaphneProcess().start())
    yield servers
    for server in servers:
        server.stop()


@pytest.mark.live
def test_two_tabs_on_two_server_processes_sending_one_action_at_once_apply_it_once(two_servers):
    game = services.game_create(guest_id="ana", name="Ana", seat_count=1)
    services.game_start(token=game.token, guest_id="ana")
    game.refresh_from_db()
    cookie = guest_cookie("ana")

    async def play() -> list[dict[str, Any]]:
        tabs = [Tab(await socket_to(server, game.token, cookie)) for server in two_servers]
        version = game.version
        for tab in tabs:
            await tab.until_shown(version)
        for turn in range(12):
            for step in range(3):
                message: dict[str, Any] = {"action": "roll", "version": version, "hold": []}
                if step == 2:
                    state = await asyncio.to_thread(game_state_of, game.token)
                    category = state.allowed_boxes()[0]
                    message = {"action": "score", "version": version, "category": category}
                await asyncio.gather(*(tab.ws.send(json.dumps(message)) for tab in tabs))
                version += 1
                for tab in tabs:
                    await tab.until_shown(version)
                assert await asyncio.to_thread(version_of, game.token) == version
                # One of the two copies was refused: its answer comes before
                # the next action is sent, so none is left to arrive late.
                refused = 3 * turn + step + 1
                await until(
                    functools.partial(refused_at_least, tabs, refused), f"{refused} refusals"
                )
        # Each socket answers its messages in order: a sync sent last is
        # answered after any refusal of the ones before it.
        for tab in tabs:
            await tab.send({"action": "sync", "version": version})
        await until(
            lambda: all(heard_current(tab, version) for tab in tabs), "an answer to the sync"
        )
        for tab in tabs:
            await tab.close()
        return errors_of(tabs)

    errors = asyncio.run(play())
    # Each of the 36 actions was sent twice at once: one applied, one refused
    # as stale (the very last one: as coming after the end).
    assert sorted(e["code"] for e in errors) == ["game_over"] + ["stale_version"] * 35
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert Move.objects.filter(game=game).count() == game.version


def errors_of(tabs: list[Tab]) -> list[dict[str, Any]]:
    return [m for tab in tabs for m in tab.messages if m["type"] == "error"]


def refused_at_least(tabs: list[Tab], count: int) -> bool:
    return len(errors_of(tabs)) >= count


def heard_current(tab: Tab, version: int) -> bool:
    return any(m["type"] == "current" and m["version"] == version for m in tab.messages)


async def until(done: Callable[[], bool], what: str, timeout: float = 20) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not done():
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"never {what}") from None


def game_state_of(token: str) -> rules.GameState:
    game = Game.objects.get(token=token)
    try:
        return game_state(game, game_players(game))
    finally:
        connection.close()


def version_of(token: str) -> int:
    try:
        return Game.objects.get(token=token).version
    finally:
        connection.close()
