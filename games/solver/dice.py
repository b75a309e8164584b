"""The solver's view of five dice: 252 distinct rolls, 462 distinct keeps.

A keep is the multiset of dice held before a reroll, from none (reroll all)
to all five (a roll is a keep of five). Keeps are grouped in levels by size.
Holding ``k`` and rolling the rest is worth the same as adding the missing dice
one at a time, each face with chance 1/6, so a level's values follow from the
next level's by averaging six children: this is what keeps the per-state work
in the hundreds of row operations instead of a dense 462 x 252 product.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement, product
from math import factorial

import numpy as np

from games.rules import DICE

FACES = 6
Multiset = tuple[int, ...]


@dataclass(frozen=True)
class Level:
    """The keeps of one size, ordered most distinct faces first.

    That order puts every keep with more than ``s`` distinct faces in the
    prefix ``[:wide[s]]``, so "the best keep inside this one" is a few slices
    rather than ragged lists.
    """

    keeps: tuple[Multiset, ...]
    index: dict[Multiset, int]
    # children[i, f-1]: index in the next level of keeps[i] plus a die showing f.
    children: np.ndarray
    # parents[i, s]: index in the previous level of keeps[i] minus its s-th distinct face.
    parents: np.ndarray
    wide: tuple[int, ...]


def _distinct(keep: Multiset) -> tuple[int, ...]:
    return tuple(sorted(set(keep)))


def _build_levels() -> tuple[Level, ...]:
    raw: list[tuple[tuple[Multiset, ...], dict[Multiset, int]]] = []
    for size in range(DICE + 1):
        ordered = sorted(
            combinations_with_replacement(range(1, FACES + 1), size),
            key=lambda k: (-len(set(k)), k),
        )
        raw.append((tuple(ordered), {k: i for i, k in enumerate(ordered)}))
    levels = []
    for size, (keeps, index) in enumerate(raw):
        if size < DICE:
            up = raw[size + 1][1]
            children = np.array(
                [[up[tuple(sorted((*k, f)))] for f in range(1, FACES + 1)] for k in keeps],
                dtype=np.intp,
            )
        else:
            children = np.zeros((len(keeps), 0), dtype=np.intp)
        widest = len(_distinct(keeps[0])) if keeps[0] else 0
        parents = np.zeros((len(keeps), widest), dtype=np.intp)
        for i, k in enumerate(keeps):
            for s, face in enumerate(_distinct(k)):
                smaller = list(k)
                smaller.remove(face)
                parents[i, s] = raw[size - 1][1][tuple(smaller)]
        wide = tuple(sum(1 for k in keeps if len(set(k)) > s) for s in range(widest))
        levels.append(Level(keeps, index, children, parents, wide))
    return tuple(levels)


LEVELS = _build_levels()
ROLLS: tuple[Multiset, ...] = LEVELS[DICE].keeps
ROLL_INDEX: dict[Multiset, int] = LEVELS[DICE].index


def _chance(roll: Multiset) -> float:
    ways = factorial(len(roll))
    for count in Counter(roll).values():
        ways //= factorial(count)
    return float(ways / FACES ** len(roll))


# Chance of each roll when all five dice are thrown: shared by every
# expectation, so nothing may write into it.
FIRST_ROLL = np.array([_chance(r) for r in ROLLS])
FIRST_ROLL.flags.writeable = False


def expect(top: np.ndarray) -> list[np.ndarray]:
    """Value of every keep, given the value of each roll (rows of ``top``).

    Returns one array per level: ``result[size][i]`` is the expected value of
    holding ``LEVELS[size].keeps[i]`` and rolling the other dice once.
    """
    values = [top]
    for level in reversed(LEVELS[:DICE]):
        above = values[-1]
        acc = above[level.children[:, 0]]
        for f in range(1, FACES):
            acc += above[level.children[:, f]]
        acc *= 1 / FACES
        values.append(acc)
    values.reverse()
    return values


def best_within(values: list[np.ndarray]) -> np.ndarray:
    """For each roll, the best value of any keep it contains (itself included).

    ``values`` are per-level keep values as returned by ``expect``; they are
    overwritten with the best value of each keep's sub-keeps on the way up.
    """
    for size in range(1, DICE + 1):
        level, below, here = LEVELS[size], values[size - 1], values[size]
        for s, n in enumerate(level.wide):
            np.maximum(here[:n], below[level.parents[:n, s]], out=here[:n])
    return values[DICE]


@cache
def sub_keeps(roll: Multiset) -> tuple[Multiset, ...]:
    """Every distinct keep that can be held from sorted ``roll`` (empty and whole included)."""
    counts = Counter(roll)
    faces = sorted(counts)
    return tuple(
        tuple(f for f, n in zip(faces, take, strict=True) for _ in range(n))
        for take in product(*(range(counts[f] + 1) for f in faces))
    )


def hold_positions(dice: tuple[int, ...], keep: Multiset) -> frozenset[int]:
    """Die positions that hold ``keep``: for each face, its first occurrences."""
    wanted = Counter(keep)
    positions = []
    for i, d in enumerate(dice):
        if wanted[d]:
            wanted[d] -= 1
            positions.append(i)
    return frozenset(positions)
