"""Fair dice through the services, the pushes, the pages and the export."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from games.models import Game, Move
from games.play import services
from games.present.rendering import table_message
from games.rules import Roll, fairness
from games.runtime import runtime
from games.store.selectors import Snapshot, game_rolls, game_snapshot

from .conftest import play_turns

pytestmark = pytest.mark.django_db


def seed_of(game: Game) -> bytes:
    return bytes.fromhex(game.server_seed)


def tamper_last_roll(game: Game) -> Move:
    """Change one rolled die of the game's last roll (no roll follows it to disagree)."""
    move = game.moves.filter(kind=Move.Kind.ROLL).order_by("-version").first()
    assert move is not None
    position = next(p for p in range(5) if p not in move.held)
    move.dice = [d % 6 + 1 if i == position else d for i, d in enumerate(move.dice)]
    move.save(update_fields=["dice"])
    return move


def test_a_new_game_gets_a_secret_seed_and_its_commitment(started_game: Callable[..., Game]):
    game = started_game()
    assert len(game.server_seed) == 64
    assert game.seed_commitment == fairness.commitment(seed_of(game))
    other = started_game()
    assert other.server_seed != game.server_seed


def test_a_full_game_through_the_services_verifies_clean(finished_game: Game):
    rolls = game_rolls(finished_game)
    assert len(rolls) == 24
    assert fairness.verify(seed_of(finished_game), finished_game.seed_commitment, rolls) == []


def test_every_rolled_die_is_the_one_the_seed_gives_for_that_move(finished_game: Game):
    seed = seed_of(finished_game)
    for version, held, dice in game_rolls(finished_game):
        for position in set(range(5)) - set(held):
            assert dice[position] == fairness.die(seed, version, position)


def test_tampering_with_one_stored_die_reports_exactly_that_roll(finished_game: Game):
    move = tamper_last_roll(finished_game)
    mismatches = fairness.verify(
        seed_of(finished_game), finished_game.seed_commitment, game_rolls(finished_game)
    )
    assert [(m.kind, m.version) for m in mismatches] == [("dice", move.version)]


def test_injected_dice_still_override_the_seed_for_tests(started_game: Callable[..., Game]):
    game = started_game()
    game = services.game_act(
        token=game.token,
        guest_id="g0",
        version=game.version,
        action=Roll(),
        rng=random.Random(7),
    )
    scripted = random.Random(7)
    assert game.dice == [scripted.randint(1, 6) for _ in range(5)]


def test_a_rematch_gets_a_fresh_seed(finished_game: Game):
    rematch = services.game_rematch(token=finished_game.token, guest_id="g0")
    assert rematch.server_seed and rematch.server_seed != finished_game.server_seed
    assert rematch.seed_commitment == fairness.commitment(seed_of(rematch))


def pushed_text(snapshot: Snapshot) -> str:
    """Everything a push carries to a seated player and to a spectator."""
    return " ".join(json.dumps(table_message(snapshot, me, "en"), default=str) for me in (0, None))


def test_the_seed_is_in_no_push_until_the_game_ends_and_then_it_is(
    started_game: Callable[..., Game],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
):
    pushed: list[Snapshot] = []
    monkeypatch.setattr(runtime.commits, "after_commit", [pushed.append])
    with django_capture_on_commit_callbacks(execute=True):
        game = started_game(2)
        game = play_turns(game)
    assert game.status == Game.Status.FINISHED
    *during, last = pushed
    assert len(during) > 48
    for snapshot in during:
        assert snapshot["seed"] is None
        assert snapshot["commitment"] == game.seed_commitment
        text = pushed_text(snapshot)
        assert game.server_seed not in text
        assert game.seed_commitment in text
    assert last["seed"] == game.server_seed
    assert game.server_seed in pushed_text(last)


def test_the_game_page_shows_the_commitment_from_the_lobby_but_not_the_seed(client: Client):
    game = services.game_create(guest_id="g0", name="Ana", seat_count=2)
    html = client.get(f"/en/g/{game.token}/").content.decode()
    assert game.seed_commitment in html
    assert game.server_seed not in html


def test_the_end_screen_reveals_the_seed_and_links_to_the_check(
    client: Client, finished_game: Game
):
    html = client.get(f"/en/g/{finished_game.token}/").content.decode()
    assert finished_game.server_seed in html
    assert f'href="/en/g/{finished_game.token}/verify/"' in html
    assert game_snapshot(finished_game)["seed"] == finished_game.server_seed


def test_before_the_end_the_check_page_shows_the_commitment_and_keeps_the_seed(
    client: Client, started_game: Callable[..., Game]
):
    game = play_turns(started_game(), turns=2)
    response = client.get(f"/en/g/{game.token}/verify/")
    html = response.content.decode()
    assert response.status_code == 200
    assert game.seed_commitment in html
    assert game.server_seed not in html
    assert "revealed when the game is over" in html


def test_before_the_end_the_export_is_refused_without_the_seed(
    client: Client, started_game: Callable[..., Game]
):
    game = play_turns(started_game(), turns=1)
    response = client.get(f"/en/g/{game.token}/verify.json")
    assert response.status_code == 403
    assert response.json() == {"error": "not_finished", "commitment": game.seed_commitment}


def test_after_the_end_the_check_page_finds_every_roll_and_the_commitment_good(
    client: Client, finished_game: Game
):
    html = client.get(f"/en/g/{finished_game.token}/verify/").content.decode()
    assert finished_game.server_seed in html
    assert html.count('class="roll-ok"') == 24
    assert 'class="roll-bad"' not in html
    assert 'data-ok="true"' in html
    assert "Every roll matches the seed" in html


def test_the_check_page_marks_a_tampered_roll(client: Client, finished_game: Game):
    move = tamper_last_roll(finished_game)
    html = client.get(f"/en/g/{finished_game.token}/verify/").content.decode()
    assert html.count('class="roll-bad"') == 1
    assert f'class="roll-bad" data-version="{move.version}"' in html
    assert "1 roll does not match the seed." in html


def test_the_check_page_reports_a_seed_changed_after_the_commitment(
    client: Client, finished_game: Game
):
    Game.objects.filter(pk=finished_game.pk).update(server_seed=fairness.new_seed().hex())
    html = client.get(f"/en/g/{finished_game.token}/verify/").content.decode()
    assert 'data-ok="false"' in html
    assert "The seed does not match the commitment." in html


def test_after_the_end_the_export_carries_the_seed_and_every_roll(
    client: Client, finished_game: Game
):
    export = client.get(f"/en/g/{finished_game.token}/verify.json").json()
    assert export["seed"] == finished_game.server_seed
    assert export["commitment"] == finished_game.seed_commitment
    assert [(m["version"], m["held"], m["dice"]) for m in export["moves"]] == game_rolls(
        finished_game
    )


def test_a_game_without_a_seed_says_it_cannot_be_checked(client: Client, finished_game: Game):
    Game.objects.filter(pk=finished_game.pk).update(server_seed="", seed_commitment="")
    assert client.get(f"/en/g/{finished_game.token}/verify.json").status_code == 404
    html = client.get(f"/en/g/{finished_game.token}/verify/").content.decode()
    assert "nothing to verify" in html


def test_the_check_page_of_an_unknown_game_is_not_found(client: Client):
    assert client.get("/en/g/nope/verify/").status_code == 404
    assert client.get("/en/g/nope/verify.json").status_code == 404
