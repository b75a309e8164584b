"""scripts/verify_game.py, run as a player would run it: a separate process
with nothing of the server imported."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from games.models import Game
from games.rules import fairness

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "verify_game.py"

pytestmark = pytest.mark.django_db


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def export(client: Client, finished_game: Game) -> dict[str, Any]:
    return client.get(f"/en/g/{finished_game.token}/verify.json").json()


def write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    return path


def test_the_script_verifies_an_honest_export(tmp_path: Path, export: dict[str, Any]):
    result = run(str(write(tmp_path, export)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(" OK") == 25  # 24 rolls and the commitment
    assert "24 rolls checked: all match" in result.stdout


def test_the_script_reports_the_one_tampered_roll(tmp_path: Path, export: dict[str, Any]):
    last = export["moves"][-1]
    position = next(p for p in range(5) if p not in last["held"])
    last["dice"][position] = last["dice"][position] % 6 + 1
    result = run(str(write(tmp_path, export)))
    assert result.returncode == 1
    bad = [line for line in result.stdout.splitlines() if "MISMATCH at" in line]
    assert len(bad) == 1 and bad[0].startswith(f"roll {last['version']}:")
    assert f"at dice [{position + 1}]" in bad[0]


def test_the_script_checks_the_commitment_the_player_noted(tmp_path: Path, export: dict[str, Any]):
    noted = fairness.commitment(b"not the seed")
    result = run(str(write(tmp_path, export)), "--commitment", noted)
    assert result.returncode == 1
    assert "commitment MISMATCH" in result.stdout


def test_the_script_says_when_it_cannot_read_the_export(tmp_path: Path):
    missing = tmp_path / "missing.json"
    result = run(str(missing))
    assert result.returncode == 2
    assert "cannot read the export" in result.stderr


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    handler = partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_script_reads_an_export_from_a_url(tmp_path: Path, export: dict[str, Any], served: str):
    write(tmp_path, export)
    result = run(f"{served}/export.json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all match" in result.stdout


def finished_duplicate_game() -> Game:
    from games.play import services
    from games.rules import Roll
    from games.store.selectors import game_players, game_state

    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, duplicate=True)
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    game = services.game_start(token=game.token, guest_id="ana")
    for _round in range(12):
        for guest, hold in (("bo", frozenset({2})), ("ana", frozenset({0, 1}))):
            for action in (Roll(), Roll(hold)):
                game = services.game_act(
                    token=game.token, guest_id=guest, version=game.version, action=action
                )
            players = game_players(game)
            me = next(p for p in players if p.guest_id == guest)
            card = game_state(game, players).cards[me.order]
            box = next(
                k
                for k in (
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
                )
                if not card.filled(k)
            )
            game = services.game_score(
                token=game.token, guest_id=guest, version=game.version, category=box
            )
    assert game.status == Game.Status.FINISHED
    return game


def test_the_script_recomputes_every_die_of_a_duplicate_game(tmp_path: Path, client: Client):
    game = finished_duplicate_game()
    export = client.get(f"/en/g/{game.token}/verify.json").json()
    assert export["duplicate"] is True
    result = run(str(write(tmp_path, export)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "48 rolls checked: all match" in result.stdout
    assert "seat 2 round 12 roll 2" in result.stdout
    # Both seats' first roll of a round is the same roll of the same stream.
    rolls = [m for m in export["moves"] if m["kind"] == "roll" and not m["held"]]
    by_round: dict[int, list[list[int]]] = {}
    for index, move in enumerate(rolls):
        by_round.setdefault(index // 2, []).append(move["dice"])
    assert all(a == b for a, b in by_round.values())
    page = client.get(f"/en/g/{game.token}/verify/").content.decode()
    assert "roll-bad" not in page and page.count('class="roll-ok"') == 48
    last = next(m for m in reversed(export["moves"]) if m["kind"] == "roll")
    position = next(p for p in range(5) if p not in last["held"])
    last["dice"][position] = last["dice"][position] % 6 + 1
    tampered = run(str(write(tmp_path, export)))
    assert tampered.returncode == 1 and tampered.stdout.count("MISMATCH") == 2
