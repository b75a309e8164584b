"""The perfect player's reference in a duplicate game: the optimal strategy
on the game's own dice, shown at the end and in the review."""

from __future__ import annotations

import random

import pytest

from games.models import Game
from games.play import services
from games.present.rendering import table_message
from games.rules import GameState, Roll, apply, new_game, totals
from games.rules.fairness import DuplicateDice, duplicate_die
from games.solver.bots import decide
from games.solver.reference import perfect_score
from games.store.selectors import game_snapshot

pytestmark = pytest.mark.django_db


def test_the_reference_is_the_perfect_bots_own_choices_on_the_shared_dice() -> None:
    seed = bytes(range(32))
    state: GameState = new_game("yacht", 1)
    while not state.finished:
        action = decide("perfect", state, random.Random())
        if isinstance(action, Roll):
            held = action.hold or frozenset()
            before = state
            state = apply(
                state,
                0,
                action,
                DuplicateDice(seed, state.turn, state.rolls + 1, held),
            )
            assert state.dice == tuple(
                before.dice[p]
                if p in held
                else duplicate_die(seed, before.turn, before.rolls + 1, p)
                for p in range(5)
            )
        else:
            state = apply(state, 0, action, random.Random())
    assert perfect_score("yacht", seed) == totals(state.ruleset, state.cards[0]).total


def test_everyone_sees_the_perfect_players_score_at_the_end_and_in_the_review(client) -> None:
    game = services.game_create(
        guest_id="ana", name="Ana", seat_count=2, duplicate=True, perfect_reference=True
    )
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    game = services.game_start(token=game.token, guest_id="ana")
    for key in (
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
        "full_house",
        "four_of_a_kind",
        "little_straight",
        "big_straight",
        "choice",
        "yacht",
    ):
        for guest in ("ana", "bo"):
            game = services.game_roll(token=game.token, guest_id=guest, version=game.version)
            game = services.game_score(
                token=game.token, guest_id=guest, version=game.version, category=key
            )
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    expected = perfect_score("yacht", bytes.fromhex(game.server_seed))
    assert game.perfect_score == expected
    snap = game_snapshot(game)
    assert snap["duplicate"] is not None and snap["duplicate"]["perfect"] == expected
    for viewer in (0, 1, None):
        html = table_message(snap, viewer, "en")["html"]
        assert f"The perfect player scored {expected} on these same dice." in html
    review = client.get(f"/en/g/{game.token}/review/").content.decode()
    assert f"The perfect player scored {expected} on these same dice." in review
    assert f"against the perfect player's {expected}." in review
