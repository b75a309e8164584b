"""Random and hostile moves from the seats and a spectator of a duplicate
game: whatever is sent, no socket ever carries another seat's dice, holds
or this round's box before the round is over, and the stored game is one
the rules allow, on the seed's dice."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.models import Game, Move
from games.play import services
from games.rules import GameError, Roll, Score, ScriptedDice, fairness, new_duplicate
from games.rules import duplicate as dup
from games.store.selectors import game_players, game_seat_moves, game_state

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

BOXES = [
    "ones", "twos", "threes", "fours", "fives", "sixes", "full_house",
    "four_of_a_kind", "little_straight", "big_straight", "choice", "yacht", "nonsense",
]  # fmt: skip
# What a move of these kinds may be refused with; anything else is a bug.
REFUSALS = {
    "stale_version", "not_seated", "round_wait", "no_rolls_left", "must_roll_first",
    "category_filled", "unknown_category", "bad_hold", "game_over", "bad_message",
}  # fmt: skip


@sync_to_async
def duplicate_game() -> Game:
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, duplicate=True)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    return services.game_start(token=game.token, guest_id="ana")


def check_view(message: dict[str, Any], seat: int | None) -> None:
    state = message["state"]
    if state["status"] != "playing":
        return
    for hand, shown in zip(state["duplicate"]["hands"], state["seats"], strict=True):
        if hand["order"] == seat:
            assert state["dice"] == hand["dice"]
            continue
        assert hand["dice"] == [] and hand["held"] == [] and hand["preview"] == {}, hand
        assert shown["boxes"] == hand["settled"]["boxes"]
        assert shown["total"] == hand["settled"]["total"]
    last = state["last"]
    if last and last["seat"] != seat and last["kind"] in ("roll", "score"):
        assert last["dice"] == [] and last["category"] == "" and last["points"] is None
    if seat is None:
        assert state["dice"] == [] and state["current_seat"] is None
    assert len(re.findall(r'data-die="\d"', message["html"])) == len(state["dice"])


@sync_to_async
def check_stored(game: Game) -> None:
    game = Game.objects.get(pk=game.pk)
    seed = bytes.fromhex(game.server_seed)
    checked = fairness.check_duplicate_log(seed, game_seat_moves(game))
    assert all(mismatch is None for _roll, mismatch in checked)
    # The log replays through the pure engine to the stored cards and hands.
    players = game_players(game)
    state = new_duplicate(game.ruleset, len(players))
    for move in game.moves.filter(kind__in=["roll", "score"]).order_by("version"):
        seat = move.player.order  # type: ignore[union-attr]
        if move.kind == Move.Kind.ROLL:
            fresh = [d for i, d in enumerate(move.dice) if i not in move.held]
            state = dup.apply(state, seat, Roll(frozenset(move.held)), ScriptedDice(fresh))
        else:
            state = dup.apply(state, seat, Score(move.category), ScriptedDice([]))
    assert state.cards == game_state(game, players).cards
    assert [(list(h.dice), sorted(h.held), h.rolls) for h in state.hands] == [
        (p.dice, p.held, p.rolls_used) for p in players
    ]
    # The crowd did get moves through, not only refusals.
    assert sum(1 for r, _ in checked) >= 5 and state.round >= 2


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_hostile_moves_never_show_a_hidden_hand_or_break_the_game(connect, seed):
    chance = random.Random(seed)
    game = await duplicate_game()
    sockets: dict[int | None, Any] = {
        0: await connect(game.token, "ana"),
        1: await connect(game.token, "bo"),
        None: await connect(game.token, "someone"),
    }
    seen: dict[int | None, int] = {}
    rolled: dict[int | None, int] = {}

    async def drain() -> None:
        for seat, client in sockets.items():
            while not await client.ws.receive_nothing(timeout=0.05):
                message = json.loads(await client.ws.receive_from())
                if message["type"] == "table":
                    check_view(message, seat)
                    seen[seat] = message["version"]
                    rolled[seat] = message["state"]["rolls_used"]
                elif message["type"] == "error":
                    assert message["code"] in REFUSALS, message

    await drain()
    for _step in range(90):
        seat = chance.choice([0, 0, 1, 1, None])
        version = (
            seen[seat] - chance.choice([0, 0, 0, 0, 1, 3]) if chance.random() < 0.95 else 10**6
        )
        if rolled.get(seat) == 0 and chance.random() < 0.8:
            message = {"action": "roll", "version": version, "hold": []}
        elif chance.random() < 0.55:
            # Mostly holds a player could make; now and then an empty hold
            # (legal on a first roll) or a die that does not exist.
            faces = range(6) if chance.random() < 0.1 else range(5)
            hold = (
                [] if chance.random() < 0.4 else sorted(chance.sample(faces, chance.randint(1, 3)))
            )
            message = {"action": "roll", "version": version, "hold": hold}
        else:
            message = {"action": "score", "version": version, "category": chance.choice(BOXES)}
        await sockets[seat].ws.send_to(text_data=json.dumps(message))
        await drain()
    await check_stored(game)
    with pytest.raises(GameError):
        await sync_to_async(services.game_act)(
            token=game.token, guest_id="someone", version=seen[None], action=Roll()
        )
