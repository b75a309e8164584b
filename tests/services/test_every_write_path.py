"""One move, whichever way it is written, is the same move.

A move is decided by one function (``games.play.moves.decide``) and written
through the store's interface in one of two ways: under the game's row lock,
or guarded by the version this process committed last, the guarded write
run by a game's thread or by the sockets' loop (SQLite on the loop's own
thread, PostgreSQL through its asynchronous driver). Here the same seeded
games, in every rule set and as a duplicate game, are played on every path
from the same seed with the same choices, and what each leaves behind (the
game's row, the seats, the scorecards, the move log and every snapshot
pushed) must be the same."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games import rules
from games.live import loopmoves
from games.models import Game, Move, Player, ScoreEntry
from games.play import services
from games.runtime import runtime
from games.store import dbthreads, writes
from games.store.known import committed_seats
from games.store.selectors import duplicate_state, game_players, game_state

pytestmark = [pytest.mark.django_db(transaction=True)]

GUESTS = ("ana", "bo", "cy")
SEED = "5eed" * 16
SHAPES = [
    *[(ruleset, False) for ruleset in rules.RULESETS],
    ("yacht", True),
]


def _new_game(ruleset: str, duplicate: bool) -> Game:
    """Three people's game, started, every one from the same seed."""
    game = services.game_create(
        guest_id=GUESTS[0], name="Ana", seat_count=3, ruleset=ruleset, duplicate=duplicate
    )
    for guest in GUESTS[1:]:
        services.game_join(token=game.token, guest_id=guest, name=guest.title())
    Game.objects.filter(pk=game.pk).update(server_seed=SEED, seed_commitment="c" * 64)
    return services.game_start(token=game.token, guest_id=GUESTS[0])


Step = tuple[Callable[..., Game], dict[str, Any]]


def _next_move(game: Game, choose: random.Random) -> Step:
    """Who moves next and how, chosen by ``choose`` from what the rules allow:
    a roll keeping some dice, a hold, or a score in an open box."""
    players = game_players(game)
    scores = game_state(game, players)
    if game.duplicate:
        dup = duplicate_state(game, players, scores)
        seat, state = next((p, dup.view(p.order)) for p in players if dup.view(p.order))
        assert state is not None
    else:
        seat, state = players[game.current_seat], scores
    ruleset = rules.get_ruleset(game.ruleset)
    open_boxes = [c for c in ruleset.category_keys if c not in state.cards[seat.order].boxes]
    pick = choose.random()
    fields: dict[str, Any] = {"token": game.token, "guest_id": seat.guest_id}
    if state.rolls == 0 or (state.rolls < rules.MAX_ROLLS and pick < 0.45):
        keep = [] if state.rolls == 0 else [i for i in range(5) if choose.random() < 0.4]
        return services.game_roll, {**fields, "hold": keep}
    if state.rolls < rules.MAX_ROLLS and pick < 0.6:
        dice = [i for i in range(5) if choose.random() < 0.5]
        return services.game_hold, {**fields, "dice": dice}
    return services.game_score, {**fields, "category": choose.choice(open_boxes)}


def _moves(game: Game, seed: int) -> Iterator[Step]:
    """The game's moves to its end, each with the version to name."""
    choose = random.Random(seed)
    while True:
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return
        verb, fields = _next_move(game, choose)
        yield verb, {**fields, "version": game.version}


def _left_behind(game: Game) -> dict[str, Any]:
    """Everything a game's play wrote, without what names or times it."""
    row = Game.objects.values(
        "status", "version", "current_seat", "dice", "held", "rolls_used", "perfect_score"
    ).get(pk=game.pk)
    return {
        "game": row,
        "seats": list(
            Player.objects.filter(game=game)
            .order_by("order")
            .values_list("order", "bot", "dice", "held", "rolls_used")
        ),
        "boxes": sorted(
            ScoreEntry.objects.filter(player__game=game).values_list(
                "player__order", "category", "points", "extra_bonus"
            )
        ),
        "log": list(
            Move.objects.filter(game=game)
            .order_by("version")
            .values_list("version", "kind", "player__order", "dice", "held", "category", "points")
        ),
    }


def _timeless(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _timeless(v)
            for k, v in value.items()
            if k not in {"token", "acted_at", "deadline", "rematch", "commitment"}
        }
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


@pytest.fixture
def pushed() -> Iterator[dict[str, list[Any]]]:
    """Every snapshot published, by game, in order."""
    seen: dict[str, list[Any]] = {}

    def listen(snap: Any) -> None:
        seen.setdefault(snap["token"], []).append(_timeless(snap))

    runtime.commits.after_commit.insert(0, listen)
    yield seen
    runtime.commits.after_commit.remove(listen)


@pytest.fixture
def guarded(monkeypatch: pytest.MonkeyPatch) -> list[writes.Written]:
    """How each guarded write ended, whoever ran it."""
    seen: list[writes.Written] = []
    real = writes.write_guarded

    def write(*args: Any, **kwargs: Any) -> writes.Written:
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(writes, "write_guarded", write)
    return seen


def _played_locked(game: Game, seed: int) -> None:
    for verb, fields in _moves(game, seed):
        # Nothing remembered: every move locks the row and reads it.
        committed_seats().clear()
        try:
            verb(**fields)
        except rules.GameError as refused:
            pytest.fail(f"{verb.__name__} refused: {refused.code}")


def _played_guarded(game: Game, seed: int) -> None:
    for verb, fields in _moves(game, seed):
        verb(**fields)


def _next_or_none(moves: Iterator[Step]) -> Step | None:
    return next(moves, None)


async def _played_on_the_loop(game: Game, seed: int) -> int:
    """As a socket plays: on the loop where the remembered row settles the
    move, else on the game's thread. How many the loop wrote."""
    moves = _moves(game, seed)
    on_loop = 0
    while True:
        move = await sync_to_async(_next_or_none)(moves)
        if move is None:
            return on_loop
        verb, fields = move
        if await loopmoves.settle(verb, **fields) is None:
            await dbthreads.run(game.token, verb, **fields)
        else:
            on_loop += 1


@pytest.mark.parametrize("ruleset, duplicate", SHAPES)
@pytest.mark.parametrize("seed", [1, 2])
async def test_a_seeded_game_leaves_the_same_rows_and_pushes_on_every_write_path(
    ruleset, duplicate, seed, pushed, guarded
):
    # Pushes leave through the sockets' loop, as in a server.
    runtime.loop.remember(asyncio.get_running_loop())
    games = [await sync_to_async(_new_game)(ruleset, duplicate) for _ in range(3)]
    locked, by_thread, on_loop = games
    await sync_to_async(_played_locked)(locked, seed)
    assert guarded == [], "the locked path must not write guarded"
    await sync_to_async(_played_guarded)(by_thread, seed)
    thread_writes = list(guarded)
    settled_on_loop = await _played_on_the_loop(on_loop, seed)
    if duplicate:
        # A duplicate game's moves change the seats' hands: always locked.
        assert guarded == [] and settled_on_loop == 0
    else:
        # The guarded paths were really taken, most moves on each.
        assert thread_writes.count(writes.Written.DONE) > 20
        assert settled_on_loop > 20
    left = [await sync_to_async(_left_behind)(game) for game in games]
    assert left[0]["game"]["status"] == Game.Status.FINISHED
    assert len(left[0]["log"]) > 40
    assert left[1] == left[0], "the guarded write on a thread wrote other rows"
    assert left[2] == left[0], "the guarded write on the loop wrote other rows"
    assert pushed[by_thread.token] == pushed[locked.token]
    assert pushed[on_loop.token] == pushed[locked.token]
