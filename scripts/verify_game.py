#!/usr/bin/env python3
"""Check a finished Yacht game's dice on your own machine.

    python scripts/verify_game.py https://example.org/en/g/<token>/verify.json
    python scripts/verify_game.py export.json --commitment <the hex you saw at the start>

It reads the JSON export of a finished game (seed, commitment, rolls) from a
file or a URL, recomputes every rolled die from the seed as docs/fairness.md
describes and checks the seed against the commitment. It imports nothing from
the server on purpose: it is a second implementation written from the
description, so a bug in either shows up as a disagreement. Python's standard
library is all it needs.

Exit status: 0 when everything matches, 1 when something does not, 2 when the
export cannot be read.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

DICE = 5


def derive_die(seed: bytes, version: int, position: int) -> int:
    counter = 0
    while True:
        block = hmac.digest(seed, f"{version}:{position}:{counter}".encode("ascii"), "sha256")
        accepted = [b for b in block if b < 252]
        if accepted:
            return accepted[0] % 6 + 1
        counter += 1


def derive_duplicate_die(seed: bytes, round_: int, roll: int, position: int) -> int:
    counter = 0
    while True:
        message = f"dup:{round_}:{roll}:{position}:{counter}".encode("ascii")
        accepted = [b for b in hmac.digest(seed, message, "sha256") if b < 252]
        if accepted:
            return accepted[0] % 6 + 1
        counter += 1


def load(source: str) -> dict[str, Any]:
    if source.startswith(("http://", "https://")):
        request = urllib.request.Request(source, headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)
    return json.loads(Path(source).read_text(encoding="utf-8"))


def check(export: dict[str, Any], commitment: str) -> tuple[bool, list[str]]:
    """(all good, one line per roll and one for the commitment)."""
    seed = bytes.fromhex(export["seed"])
    lines = []
    good = hashlib.sha256(seed).hexdigest() == commitment.strip().lower()
    lines.append(f"commitment {'OK' if good else 'MISMATCH'}")
    if export.get("duplicate"):
        ok, more = check_duplicate(seed, export["moves"])
        return good and ok, lines + more
    previous: list[int] | None = None
    for move in sorted(export["moves"], key=lambda m: m["version"]):
        version, held, dice = int(move["version"]), set(move["held"]), list(move["dice"])
        expected = [
            previous[p] if p in held and previous else derive_die(seed, version, p)
            for p in range(DICE)
        ]
        if expected == dice:
            lines.append(f"roll {version}: {dice} OK")
        else:
            good = False
            wrong = [p + 1 for p in range(DICE) if p >= len(dice) or dice[p] != expected[p]]
            lines.append(f"roll {version}: {dice} MISMATCH at dice {wrong}, seed gives {expected}")
        previous = dice
    return good, lines


def check_duplicate(seed: bytes, moves: list[dict[str, Any]]) -> tuple[bool, list[str]]:
    """A duplicate game: each seat's rolls, placed in their round (its
    scores so far, plus one) and roll (its rolls since it last scored)."""
    good = True
    lines = []
    rounds: dict[int, int] = {}
    rolls: dict[int, int] = {}
    last: dict[int, list[int]] = {}
    for move in sorted(moves, key=lambda m: m["version"]):
        seat = int(move["seat"])
        if move["kind"] == "score":
            rounds[seat] = rounds.get(seat, 0) + 1
            rolls[seat] = 0
            continue
        rolls[seat] = rolls.get(seat, 0) + 1
        round_, roll = rounds.get(seat, 0) + 1, rolls[seat]
        held, dice = set(move["held"]), list(move["dice"])
        before = last.get(seat) if roll > 1 else None
        expected = [
            before[p] if p in held and before else derive_duplicate_die(seed, round_, roll, p)
            for p in range(DICE)
        ]
        where = f"seat {seat + 1} round {round_} roll {roll}"
        if expected == dice:
            lines.append(f"{where}: {dice} OK")
        else:
            good = False
            lines.append(f"{where}: {dice} MISMATCH, seed gives {expected}")
        last[seat] = dice
    return good, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check a finished Yacht game's dice.")
    parser.add_argument("source", help="path or URL of the game's verify.json export")
    parser.add_argument(
        "--commitment",
        help="the commitment you saw before the first roll (default: the export's own)",
    )
    args = parser.parse_args(argv)
    try:
        export = load(args.source)
        good, lines = check(export, args.commitment or export["commitment"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"cannot read the export: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    rolls = sum(1 for m in export["moves"] if m.get("kind", "roll") == "roll")
    print(f"{rolls} rolls checked: {'all match' if good else 'MISMATCHES FOUND'}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
