"""Provably fair dice: every die is derived from a secret seed the server
commits to before the first roll, so anyone can check the whole game once the
seed is revealed at the end.

The algorithm (also in docs/fairness.md, which is the reference):

- The seed is 32 random bytes; the commitment is the lowercase hex SHA-256 of
  those bytes.
- The die at position ``p`` (0-4) of the roll logged as move ``v`` is read from
  ``HMAC-SHA256(key=seed, msg=f"{v}:{p}:{c}")`` (ASCII, decimal integers),
  starting with counter ``c = 0``: the first byte ``b`` of the digest with
  ``b < 252`` gives the die ``b % 6 + 1``; if all 32 bytes are 252 or more,
  the next counter's digest is read the same way.
- Held dice are not derived: they keep the value of the previous roll.
- In a duplicate game the die at position ``p`` on roll ``r`` (1-3) of
  round ``t`` (from 1) is read the same way from
  ``msg=f"dup:{t}:{r}:{p}:{c}"``: every seat's roll ``r`` of round ``t``
  draws the same faces, whoever rolls first.

Rejecting bytes 252-255 keeps the faces exactly equally likely, since 252 is
the largest multiple of 6 below 256. Nothing here imports Django, so
``scripts/verify_game.py`` and anyone else can run the same check.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SEED_BYTES = 32
FACES = 6
DICE = 5
# The largest multiple of FACES that fits in a byte: bytes from here up are
# rejected, so each face is backed by exactly 42 byte values.
ACCEPT_BELOW = 256 - 256 % FACES


def new_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """What is published before the first roll: it binds the server to ``seed``."""
    return hashlib.sha256(seed).hexdigest()


def die(seed: bytes, version: int, position: int) -> int:
    """The face (1-6) of the die at ``position`` in the roll logged as move ``version``."""
    return _face(seed, f"{version}:{position}")


def duplicate_die(seed: bytes, round_: int, roll: int, position: int) -> int:
    """In a duplicate game, the face of the die at ``position`` on roll
    ``roll`` (1-3) of round ``round_`` (from 1): the same for every seat."""
    return _face(seed, f"dup:{round_}:{roll}:{position}")


def _face(seed: bytes, name: str) -> int:
    counter = 0
    while True:
        message = f"{name}:{counter}".encode("ascii")
        for byte in hmac.new(seed, message, hashlib.sha256).digest():
            if byte < ACCEPT_BELOW:
                return byte % FACES + 1
        # All 32 bytes rejected: about one chance in 10^57, but the rule must
        # say what happens so that every implementation agrees.
        counter += 1


class FairDice:
    """The engine's dice for one roll: ``randint(1, 6)`` yields the seed's die
    for each position not held, in position order, which is the order the
    engine rolls them in."""

    def __init__(self, seed: bytes, version: int, hold: Iterable[object] = ()) -> None:
        held = frozenset(hold)
        self._seed = seed
        self._version = version
        self._positions = iter([p for p in range(DICE) if p not in held])

    def randint(self, a: int, b: int) -> int:
        if (a, b) != (1, FACES):
            raise ValueError(f"fair dice only roll 1..{FACES}, not {a}..{b}")
        position = next(self._positions, None)
        if position is None:
            raise RuntimeError("more dice asked for than there are unheld positions")
        return die(self._seed, self._version, position)


class DuplicateDice:
    """The engine's dice for one roll of a duplicate game: the shared faces of
    that round and roll at every position not held, in position order."""

    def __init__(self, seed: bytes, round_: int, roll: int, hold: Iterable[object] = ()) -> None:
        held = frozenset(hold)
        self._faces = iter(
            [duplicate_die(seed, round_, roll, p) for p in range(DICE) if p not in held]
        )

    def randint(self, a: int, b: int) -> int:
        if (a, b) != (1, FACES):
            raise ValueError(f"fair dice only roll 1..{FACES}, not {a}..{b}")
        face = next(self._faces, None)
        if face is None:
            raise RuntimeError("more dice asked for than there are unheld positions")
        return face


@dataclass(frozen=True)
class SeatRoll:
    """One roll of a duplicate game from the log: the seat, and which round
    and roll of it, worked out from the seat's own moves."""

    seat: int
    round: int
    roll: int
    version: int
    held: tuple[int, ...]
    dice: tuple[int, ...]


def duplicate_rolls(
    moves: Iterable[tuple[int, int, str, Sequence[int], Sequence[int]]],
) -> list[SeatRoll]:
    """A duplicate game's log ``(version, seat, kind, held, dice)`` (rolls and
    scores, any order) as its rolls, each placed in its round and roll: a
    seat's round is one more than the boxes it has scored, its roll one more
    than the rolls since it last scored."""
    scored: dict[int, int] = {}
    rolled: dict[int, int] = {}
    rolls = []
    for version, seat, kind, held, dice in sorted(moves, key=lambda m: m[0]):
        if kind == "score":
            scored[seat] = scored.get(seat, 0) + 1
            rolled[seat] = 0
            continue
        rolled[seat] = rolled.get(seat, 0) + 1
        rolls.append(
            SeatRoll(
                seat,
                scored.get(seat, 0) + 1,
                rolled[seat],
                int(version),
                tuple(int(h) for h in held),
                tuple(int(d) for d in dice),
            )
        )
    return rolls


def check_duplicate_log(
    seed: bytes, moves: Iterable[tuple[int, int, str, Sequence[int], Sequence[int]]]
) -> list[tuple[SeatRoll, Mismatch | None]]:
    """Every roll of a duplicate game with what is wrong with it (None when
    it matches): each die not held is the round's and roll's shared die, each
    held one is the seat's own previous roll's."""
    checked: list[tuple[SeatRoll, Mismatch | None]] = []
    previous: dict[int, tuple[int, ...]] = {}
    for roll in duplicate_rolls(moves):
        before = previous.get(roll.seat) if roll.roll > 1 else None
        expected = tuple(
            before[p]
            if p in roll.held and before is not None
            else duplicate_die(seed, roll.round, roll.roll, p)
            for p in range(DICE)
        )
        wrong = tuple(p for p in range(DICE) if p >= len(roll.dice) or expected[p] != roll.dice[p])
        found = None
        if wrong:
            kind = "held" if all(p in roll.held for p in wrong) else "dice"
            found = Mismatch(kind, roll.version, wrong, expected, roll.dice)
        checked.append((roll, found))
        previous[roll.seat] = roll.dice
    return checked


@dataclass(frozen=True)
class LoggedRoll:
    """One roll from the move log: its version, the held positions and the dice after it."""

    version: int
    held: tuple[int, ...]
    dice: tuple[int, ...]


@dataclass(frozen=True)
class Mismatch:
    """Something the log says that the seed does not.

    ``kind`` is ``"commitment"`` (the seed does not hash to the commitment;
    ``version`` is None), ``"dice"`` (a rolled die differs from the seed's) or
    ``"held"`` (a held die differs from the previous roll's, so the log was
    changed between two rolls). ``positions`` are the dice concerned.
    """

    kind: str
    version: int | None = None
    positions: tuple[int, ...] = ()
    expected: tuple[int, ...] = ()
    logged: tuple[int, ...] = ()


def expected_dice(seed: bytes, roll: LoggedRoll, previous: Sequence[int] | None) -> tuple[int, ...]:
    """The dice ``roll`` should show: held ones from ``previous``, the rest from the seed."""
    return tuple(
        previous[p] if p in roll.held and previous is not None else die(seed, roll.version, p)
        for p in range(DICE)
    )


def check_roll(seed: bytes, roll: LoggedRoll, previous: Sequence[int] | None) -> Mismatch | None:
    """Compare one logged roll with the seed; ``previous`` is the dice before it
    in the same turn (None on a turn's first roll)."""
    if len(roll.dice) != DICE:
        return Mismatch("dice", roll.version, tuple(range(DICE)), (), roll.dice)
    expected = expected_dice(seed, roll, previous)
    wrong = tuple(p for p in range(DICE) if expected[p] != roll.dice[p])
    if not wrong:
        return None
    kind = "held" if all(p in roll.held for p in wrong) else "dice"
    return Mismatch(kind, roll.version, wrong, expected, roll.dice)


RollTriple = tuple[int, Sequence[int], Sequence[int]]


def as_rolls(moves: Iterable[RollTriple]) -> list[LoggedRoll]:
    """``(version, held, dice)`` triples as ``LoggedRoll`` values, in log order."""
    rolls = [
        LoggedRoll(int(v), tuple(int(h) for h in held), tuple(int(d) for d in dice))
        for v, held, dice in moves
    ]
    return sorted(rolls, key=lambda r: r.version)


def check_log(seed: bytes, moves: Iterable[RollTriple]) -> list[tuple[LoggedRoll, Mismatch | None]]:
    """Every logged roll with what is wrong with it (None when it matches the seed).

    ``moves`` are the game's rolls as ``(version, held, dice)``. A roll with
    nothing held starts a turn (the rules forbid holding on a first roll), so
    a held die is compared with the roll just before it.
    """
    checked: list[tuple[LoggedRoll, Mismatch | None]] = []
    previous: tuple[int, ...] | None = None
    for roll in as_rolls(moves):
        checked.append((roll, check_roll(seed, roll, previous if roll.held else None)))
        previous = roll.dice
    return checked


def commitment_matches(seed: bytes, published: str) -> bool:
    return hmac.compare_digest(commitment(seed), published.strip().lower())


def verify(seed: bytes, published: str, moves: Iterable[RollTriple]) -> list[Mismatch]:
    """Recompute every roll of a game from its seed; an empty list means all is well."""
    mismatches = [] if commitment_matches(seed, published) else [Mismatch("commitment")]
    mismatches += [found for _roll, found in check_log(seed, moves) if found]
    return mismatches
