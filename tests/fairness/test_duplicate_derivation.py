"""The duplicate derivation: the faces of a round's roll, and checking a log."""

from __future__ import annotations

import hashlib
import hmac

from games.rules import fairness


def by_hand(seed: bytes, round_: int, roll: int, position: int) -> int:
    digest = hmac.new(seed, f"dup:{round_}:{roll}:{position}:0".encode(), hashlib.sha256).digest()
    return next(b for b in digest if b < 252) % 6 + 1


def test_a_duplicate_die_is_the_documented_hmac_of_round_roll_and_position() -> None:
    seed = bytes.fromhex("00" * 31 + "2a")
    for round_ in (1, 7, 15):
        for roll in (1, 2, 3):
            for position in range(5):
                assert fairness.duplicate_die(seed, round_, roll, position) == by_hand(
                    seed, round_, roll, position
                )


def test_a_duplicate_log_is_checked_roll_by_roll_per_seat() -> None:
    seed = bytes(range(32))
    d = fairness.duplicate_die
    first = [d(seed, 1, 1, p) for p in range(5)]
    second = [first[0], *(d(seed, 1, 2, p) for p in range(1, 5))]
    moves = [
        (2, 0, "roll", [], first),
        (3, 1, "roll", [], first),
        (4, 0, "roll", [0], second),
        (5, 0, "score", [], second),
        (6, 1, "score", [], first),
        (7, 1, "roll", [], [d(seed, 2, 1, p) for p in range(5)]),
        (8, 0, "roll", [], [(d(seed, 2, 1, 0) % 6) + 1, *(d(seed, 2, 1, p) for p in range(1, 5))]),
    ]
    checked = fairness.check_duplicate_log(seed, moves)
    assert [(r.seat, r.round, r.roll) for r, _ in checked] == [
        (0, 1, 1),
        (1, 1, 1),
        (0, 1, 2),
        (1, 2, 1),
        (0, 2, 1),
    ]
    assert [m is None for _, m in checked] == [True, True, True, True, False]
    assert checked[-1][1] is not None and checked[-1][1].positions == (0,)
