"""One turn of optimal play, for a batch of turn-start states at once.

``Model`` is a rule set read into arrays: the points of every box for every
roll, and how the upper section, the extra yacht bonus and the forced joker
change what a box is worth. ``turn_values`` then runs the turn's decision tree
(score after the third roll, best keep before it, twice) for many states side
by side, reading the values of the states after the turn from ``future``.
Rolls are rows and states are columns, so every step is a gather of whole rows.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache

import numpy as np

from games.rules import DICE, RuleSet

from .dice import FACES, FIRST_ROLL, ROLLS, best_within, expect
from .state import YACHT_KEY, YACHT_POINTS, tracks_yacht50, upper_cap

NEG = -np.inf
FACE_RANGE = range(1, FACES + 1)


@dataclass(frozen=True)
class FiveAlikes:
    """What five of a kind may score, by face f + 1 (the extra yacht bonus
    and the forced joker ask): the five-alike's roll, its upper box (bit and
    candidate row), every upper box's candidate row for it, and the points
    of each plain box under the joker."""

    rows: np.ndarray
    own_bits: np.ndarray
    own_rows: np.ndarray
    upper_rows: np.ndarray
    plain_joker_points: np.ndarray

    @classmethod
    def of(
        cls,
        ruleset: RuleSet,
        points: np.ndarray,
        levels: np.ndarray,
        offsets: np.ndarray,
        upper_boxes: tuple[int, ...],
        plain: list[int],
    ) -> FiveAlikes:
        """``levels[b, r]``: the rank of roll r's points among box b's
        distinct points, so that ``offsets[b] + levels[b, r]`` is its
        candidate row."""
        categories = ruleset.categories
        fives = [ROLLS.index((f,) * DICE) for f in FACE_RANGE]
        own = [
            next((b for b in upper_boxes if categories[b].upper_face == f), -1) for f in FACE_RANGE
        ]
        if ruleset.forced_joker and -1 in own:
            raise ValueError(f"{ruleset.key}: the forced joker needs an upper box for every face")
        at_five = offsets[:, None] + levels[:, fives]
        return cls(
            rows=np.array(fives, dtype=np.intp),
            own_bits=np.left_shift(1, np.array(own, dtype=np.intp)),
            own_rows=at_five[own, range(FACES)],
            upper_rows=at_five[list(upper_boxes)].T,
            plain_joker_points=_joker_points(ruleset, points, plain, fives),
        )


@dataclass(frozen=True)
class Model:
    ruleset: RuleSet
    # points[b, r]: what categories[b]'s own scorer gives roll ROLLS[r].
    points: np.ndarray
    upper_boxes: tuple[int, ...]
    cap: int
    yacht50_states: int
    yacht_box: int | None
    # A box's value depends on the roll only through its points; each
    # (box, points) pair is a "candidate" row, ``offsets[b] + c`` for the c-th
    # lowest points of box b. "Moving" boxes, whose points change the state
    # beyond the filled mask (upper boxes; the yacht box when it can earn the
    # extra bonus), come first; each remaining "plain" box has one next state.
    classes: tuple[np.ndarray, ...]
    offsets: np.ndarray
    row_points: np.ndarray
    moving_rows: int
    row_bit: np.ndarray
    row_upper_gain: np.ndarray
    # Next yacht50 for moving rows: 0 or 1, or -1 to keep the current one.
    row_yacht50: np.ndarray
    plain_bits: np.ndarray
    row_plain: np.ndarray
    # Scoring handles the rolls with more boxes above their minimum first:
    # ``entries[i]`` are the candidate rows of those boxes for the i-th roll in
    # that order, valid in the prefix ``[:wide[s]]`` of column s, and
    # ``unorder`` puts the rolls back in ROLLS order.
    entries: np.ndarray
    wide: tuple[int, ...]
    unorder: np.ndarray
    five_alikes: FiveAlikes

    @classmethod
    def of(cls, ruleset: RuleSet) -> Model:
        categories = ruleset.categories
        boxes = range(len(categories))
        points = np.array([[c.scorer(r) for r in ROLLS] for c in categories], dtype=np.float64)
        tracking = tracks_yacht50(ruleset)
        needs_yacht = ruleset.forced_joker or tracking
        yacht_box = ruleset.category_keys.index(YACHT_KEY) if needs_yacht else None
        upper_boxes = tuple(b for b in boxes if categories[b].is_upper)
        moving = [b for b in boxes if b in upper_boxes or (tracking and b == yacht_box)]
        plain = [b for b in boxes if b not in moving]

        unique = [np.unique(row, return_inverse=True) for row in points]
        classes = tuple(distinct for distinct, _ in unique)
        levels = np.array([inverse for _, inverse in unique], dtype=np.intp)
        row_box = np.array([b for b in moving + plain for _ in classes[b]], dtype=np.intp)
        offsets = np.zeros(len(categories), dtype=np.intp)
        offsets[moving + plain] = np.cumsum([0] + [len(classes[b]) for b in moving + plain])[:-1]
        row_points = np.concatenate([classes[b] for b in moving + plain])
        n_moving = sum(len(classes[b]) for b in moving)
        moving_points = row_points[:n_moving]
        is_upper_row = np.isin(row_box[:n_moving], upper_boxes)

        entries, above, order = _entries(levels, offsets)
        return cls(
            ruleset=ruleset,
            points=points,
            upper_boxes=upper_boxes,
            cap=upper_cap(ruleset),
            yacht50_states=2 if tracking else 1,
            yacht_box=yacht_box,
            classes=classes,
            offsets=offsets,
            row_points=row_points,
            moving_rows=n_moving,
            row_bit=np.left_shift(1, row_box[:n_moving]),
            row_upper_gain=np.where(is_upper_row, moving_points, 0).astype(np.intp),
            row_yacht50=np.where(is_upper_row, -1, moving_points == YACHT_POINTS).astype(np.intp),
            plain_bits=np.left_shift(1, np.array(plain, dtype=np.intp)),
            row_plain=np.searchsorted(plain, row_box[n_moving:]).astype(np.intp),
            entries=entries,
            wide=tuple(int((above > s).sum()) for s in range(above.max())),
            unorder=np.argsort(order).astype(np.intp),
            five_alikes=FiveAlikes.of(ruleset, points, levels, offsets, upper_boxes, plain),
        )

    @property
    def boxes(self) -> int:
        return len(self.ruleset.categories)

    @property
    def shape(self) -> tuple[int, int, int]:
        """Shape of a value table: filled mask, capped upper total, yacht50."""
        return (1 << self.boxes, self.cap + 1, self.yacht50_states)

    def fingerprint(self) -> str:
        """Changes whenever anything the values depend on changes."""
        rs = self.ruleset
        h = hashlib.sha256()
        h.update(self.points.tobytes())
        h.update(self.five_alikes.plain_joker_points.tobytes())
        h.update(
            repr(
                (
                    rs.category_keys,
                    [c.upper_face for c in rs.categories],
                    [c.joker_points for c in rs.categories],
                    rs.upper_bonus_threshold,
                    rs.upper_bonus,
                    rs.extra_yacht_bonus,
                    rs.forced_joker,
                )
            ).encode()
        )
        return h.hexdigest()[:12]

    def _index(self, filled: np.ndarray, upper: np.ndarray, yacht50: np.ndarray) -> np.ndarray:
        """Positions in a flattened value table."""
        index: np.ndarray = (filled * (self.cap + 1) + upper) * self.yacht50_states + yacht50
        return index

    def _candidates(
        self, future: np.ndarray, filled: np.ndarray, upper: np.ndarray, yacht50: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Value of every candidate row, future included (-inf for a filled box),
        and the value of each plain box's next state."""
        flat = future.reshape(-1)
        threshold = self.ruleset.upper_bonus_threshold
        bit = self.row_bit[:, None]
        raw = upper[None, :] + self.row_upper_gain[:, None]
        next50 = np.where(
            self.row_yacht50[:, None] < 0, yacht50[None, :], self.row_yacht50[:, None]
        )
        moving = flat[self._index(filled[None, :] | bit, np.minimum(raw, self.cap), next50)]
        moving += self.row_points[: self.moving_rows, None]
        if threshold is not None:
            crossed = (upper[None, :] < threshold) & (raw >= threshold)
            moving += self.ruleset.upper_bonus * crossed
        moving[(filled[None, :] & bit) != 0] = NEG

        plain_bit = self.plain_bits[:, None]
        after = flat[self._index(filled[None, :] | plain_bit, upper[None, :], yacht50[None, :])]
        after[(filled[None, :] & plain_bit) != 0] = NEG
        plain = after[self.row_plain]
        plain += self.row_points[self.moving_rows :, None]
        return np.concatenate([moving, plain]), after

    def score_values(
        self, future: np.ndarray, filled: np.ndarray, upper: np.ndarray, yacht50: np.ndarray
    ) -> np.ndarray:
        """Best value of scoring each roll now: (252, states), future included.

        A box's value never falls as its points rise (more points, a higher
        upper total, a yacht box holding 50 are never worse), so the best of
        all boxes' lowest points is a floor under every roll, and each roll
        only needs the boxes where it scores above a box's minimum.
        """
        candidates, plain_after = self._candidates(future, filled, upper, yacht50)
        work = np.empty((len(ROLLS), filled.shape[0]))
        work[:] = candidates[self.offsets].max(axis=0)
        for s, n in enumerate(self.wide):
            np.maximum(work[:n], candidates[self.entries[:n, s]], out=work[:n])
        best: np.ndarray = work[self.unorder]
        if self.ruleset.forced_joker:
            self._force_joker(best, filled, candidates, plain_after)
        if self.yacht50_states == 2:
            best[self.five_alikes.rows] += self.ruleset.extra_yacht_bonus * yacht50
        return best

    def _force_joker(
        self,
        best: np.ndarray,
        filled: np.ndarray,
        candidates: np.ndarray,
        plain_after: np.ndarray,
    ) -> None:
        """Once the yacht box is filled, a five-alike may only go where the joker
        says: its own upper box, else an open lower box, else an open upper box."""
        assert self.yacht_box is not None
        in_force = (filled >> self.yacht_box) & 1 == 1
        if not in_force.any():
            return
        fives = self.five_alikes
        own_open = (filled[None, :] & fives.own_bits[:, None]) == 0
        # Plain boxes are lower boxes; the yacht box among them is filled (that is
        # what puts the joker in force), so it adds nothing.
        lower = (fives.plain_joker_points[:, :, None] + plain_after[:, None, :]).max(axis=0)
        uppers = candidates[fives.upper_rows].max(axis=1)
        forced = np.where(
            own_open, candidates[fives.own_rows], np.where(lower > NEG, lower, uppers)
        )
        rows = fives.rows
        best[rows] = np.where(in_force[None, :], forced, best[rows])

    def turn_values(
        self, future: np.ndarray, filled: np.ndarray, upper: np.ndarray, yacht50: np.ndarray
    ) -> np.ndarray:
        """Expected points from the start of the turn to the end of the game."""
        keep = expect(self.score_values(future, filled, upper, yacht50))
        keep = expect(best_within(keep))
        value: np.ndarray = FIRST_ROLL @ best_within(keep)
        return value


@cache
def model_for(ruleset: RuleSet) -> Model:
    """``Model.of``, once per rule set and process (it runs every scorer on every roll)."""
    return Model.of(ruleset)


def _entries(levels: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per roll, the rows it scores in (0 past its last), rolls ordered by
    how many boxes they score in, most first; with those counts and that
    order."""
    scoring = levels > 0
    above = scoring.sum(axis=0)
    order = np.argsort(-above, kind="stable")
    absent = np.iinfo(np.intp).max
    rows = np.where(scoring, offsets[:, None] + levels, absent)
    entries = np.sort(rows, axis=0)[: above.max()].T[order]
    entries[entries == absent] = 0
    return entries, above, order


def _joker_points(
    ruleset: RuleSet, points: np.ndarray, plain: list[int], fives: list[int]
) -> np.ndarray:
    """What each plain box scores for five of a kind of each face played as
    a joker (its own joker points where the rule set gives some)."""
    categories = ruleset.categories
    return np.array(
        [
            [
                points[b, r] if categories[b].joker_points is None else categories[b].joker_points
                for r in fives
            ]
            for b in plain
        ],
        dtype=np.float64,
    ).reshape(len(plain), FACES)
