"""The dice algorithm itself, with no database: docs/fairness.md in code."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games import rules
from games.rules import fairness
from games.rules.fairness import FairDice, LoggedRoll, Mismatch

SEED = bytes(range(32))


def hmac_sha256_by_hand(key: bytes, message: bytes) -> bytes:
    """RFC 2104 spelled out with hashlib, so the test does not lean on the hmac module."""
    block = key.ljust(64, b"\0")
    inner = hashlib.sha256(bytes(k ^ 0x36 for k in block) + message).digest()
    return hashlib.sha256(bytes(k ^ 0x5C for k in block) + inner).digest()


def test_the_first_die_of_a_fixed_seed_matches_a_computation_by_hand():
    digest = hmac_sha256_by_hand(SEED, b"3:0:0")
    first_accepted = next(b for b in digest if b < 252)
    assert fairness.die(SEED, 3, 0) == first_accepted % 6 + 1
    # Pinned, so a change to the algorithm cannot pass unnoticed: 0xf7 = 247, 247 % 6 + 1.
    assert digest[0] == 0xF7
    assert fairness.die(SEED, 3, 0) == 2


def test_every_position_of_a_roll_matches_the_computation_by_hand():
    for position in range(5):
        digest = hmac_sha256_by_hand(SEED, f"41:{position}:0".encode())
        expected = next(b for b in digest if b < 252) % 6 + 1
        assert fairness.die(SEED, 41, position) == expected


def test_the_commitment_is_the_hex_sha256_of_the_seed_bytes():
    assert fairness.commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert len(fairness.commitment(fairness.new_seed())) == 64


def test_the_same_seed_version_and_position_always_give_the_same_die():
    seed = fairness.new_seed()
    first = [fairness.die(seed, v, p) for v in range(1, 40) for p in range(5)]
    again = [fairness.die(seed, v, p) for v in range(1, 40) for p in range(5)]
    assert first == again


def test_a_different_seed_gives_different_dice():
    a = [fairness.die(SEED, v, p) for v in range(1, 30) for p in range(5)]
    b = [fairness.die(bytes(32), v, p) for v in range(1, 30) for p in range(5)]
    assert a != b


class FixedDigests:
    """Stands in for hmac.new: hands out prepared digests, recording the messages."""

    def __init__(self, digests: list[bytes]) -> None:
        self.digests = iter(digests)
        self.messages: list[bytes] = []

    def __call__(self, key: bytes, message: bytes, digestmod: object) -> FixedDigests:
        self.messages.append(message)
        self._next = next(self.digests)
        return self

    def digest(self) -> bytes:
        return self._next


def test_each_face_is_backed_by_exactly_42_byte_values_and_the_top_four_are_rejected(
    monkeypatch: pytest.MonkeyPatch,
):
    faces: Counter[int] = Counter()
    rejected = []
    for byte in range(256):
        # A leading byte, then a byte 0 that gives face 1 if the first is rejected.
        fake = FixedDigests([bytes([byte, 0]) + bytes(30)])
        monkeypatch.setattr("games.rules.fairness.hmac.new", fake)
        face = fairness.die(SEED, 1, 0)
        if byte >= 252:
            rejected.append(byte)
            assert face == 1
        else:
            assert face == byte % 6 + 1
            faces[face] += 1
    assert rejected == [252, 253, 254, 255]
    assert faces == dict.fromkeys(range(1, 7), 42)


def test_a_block_of_only_rejected_bytes_moves_on_to_the_next_counter(
    monkeypatch: pytest.MonkeyPatch,
):
    fake = FixedDigests([bytes([255] * 32), bytes([252] * 31 + [9])])
    monkeypatch.setattr("games.rules.fairness.hmac.new", fake)
    assert fairness.die(SEED, 12, 4) == 9 % 6 + 1
    assert fake.messages == [b"12:4:0", b"12:4:1"]


@given(st.binary(min_size=32, max_size=32), st.integers(1, 10**6), st.integers(0, 4))
def test_a_die_is_always_a_face_from_one_to_six(seed: bytes, version: int, position: int):
    assert 1 <= fairness.die(seed, version, position) <= 6


def test_fair_dice_roll_the_unheld_positions_in_order_through_the_engine():
    state = rules.new_game("yacht", 1)
    state = rules.apply(state, 0, rules.Roll(), FairDice(SEED, 5))
    assert list(state.dice) == [fairness.die(SEED, 5, p) for p in range(5)]
    before = state.dice
    state = rules.apply(state, 0, rules.Roll(frozenset({1, 3})), FairDice(SEED, 6, {1, 3}))
    assert state.dice == (
        fairness.die(SEED, 6, 0),
        before[1],
        fairness.die(SEED, 6, 2),
        before[3],
        fairness.die(SEED, 6, 4),
    )


def test_fair_dice_refuse_more_dice_than_unheld_positions_and_other_ranges():
    dice = FairDice(SEED, 2, {0, 1, 2, 3})
    dice.randint(1, 6)
    with pytest.raises(RuntimeError):
        dice.randint(1, 6)
    with pytest.raises(ValueError):
        FairDice(SEED, 2).randint(1, 20)


def honest_log(seed: bytes) -> list[tuple[int, list[int], list[int]]]:
    """Two turns of rolls as the server would log them, with a score move between."""
    state = rules.new_game("yacht", 1)
    log = []
    version = 2
    for hold in (frozenset(), frozenset({0, 4}), frozenset({2})):
        version += 1
        state = rules.apply(state, 0, rules.Roll(hold), FairDice(seed, version, hold))
        log.append((version, sorted(hold), list(state.dice)))
    state = rules.apply(state, 0, rules.Score("choice"), FairDice(seed, version))
    version += 2  # the score took one version
    state = rules.apply(state, 0, rules.Roll(), FairDice(seed, version))
    log.append((version, [], list(state.dice)))
    return log


def test_an_honest_log_verifies_clean():
    log = honest_log(SEED)
    assert fairness.verify(SEED, fairness.commitment(SEED), log) == []


def test_a_seed_that_does_not_match_the_commitment_is_reported():
    log = honest_log(SEED)
    assert fairness.verify(SEED, fairness.commitment(bytes(32)), log) == [Mismatch("commitment")]


def test_changing_one_rolled_die_reports_exactly_that_roll_and_die():
    log = honest_log(SEED)
    version, _held, dice = log[-1]
    dice[2] = dice[2] % 6 + 1
    mismatches = fairness.verify(SEED, fairness.commitment(SEED), log)
    assert [(m.kind, m.version, m.positions) for m in mismatches] == [("dice", version, (2,))]
    assert mismatches[0].logged == tuple(dice)


def test_changing_a_held_die_is_reported_as_a_held_mismatch():
    log = honest_log(SEED)
    version, held, dice = log[1]
    dice[held[0]] = dice[held[0]] % 6 + 1
    mismatches = fairness.verify(SEED, fairness.commitment(SEED), log)
    assert [(m.kind, m.version, m.positions) for m in mismatches] == [("held", version, (held[0],))]


def test_a_roll_with_missing_dice_is_reported_rather_than_crashing():
    found = fairness.check_roll(SEED, LoggedRoll(3, (), (1, 2)), None)
    assert found is not None and found.kind == "dice" and found.version == 3
