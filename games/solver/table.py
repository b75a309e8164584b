"""Expected final scores under optimal play for every turn-start state.

Built by backward induction, one layer of "boxes filled" at a time from the
full card down to the empty one, and cached on disk as ``.npy`` named by rule
set, solver version and a fingerprint of the rule set's data, so a change to
either is a different file and a stale table is never read.

Two shortcuts keep Yatzy (2^15 cards by 64 upper totals) fast:

- only upper totals that some play can reach are computed;
- totals from which the bonus can no longer be reached all have the value of
  total 0 (nothing upper can matter any more), so only 0 is computed.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import tempfile
import threading
from contextlib import nullcontext
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from games.rules import RULESETS, RuleSet, Scorecard, get_ruleset
from games.runtime import runtime

from .dice import FIRST_ROLL, best_within, expect
from .model import Model, model_for
from .state import CardState, banked, card_state

# Bump whenever a change to the solver changes any value in a table.
VERSION = "1"
ENV_DIRECTORY = "YACHT_SOLVER_DIR"
# States per batch: large enough to amortise numpy's per-call cost, small
# enough for a batch's (252, states) arrays to stay in cache.
CHUNK = 256


def default_directory() -> Path:
    configured = os.environ.get(ENV_DIRECTORY)
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / "var" / "solver"


@dataclass(frozen=True)
class UpperPlan:
    """For one set of filled upper boxes: the totals to compute, and the
    reachable totals that are worth the same as total 0."""

    computed: np.ndarray
    as_zero: np.ndarray


def _upper_plans(model: Model) -> dict[int, UpperPlan]:
    """Keyed by the filled mask restricted to the upper boxes."""
    threshold = model.ruleset.upper_bonus_threshold
    boxes = model.upper_boxes
    plans = {}
    for combo in range(1 << len(boxes)):
        filled = [b for i, b in enumerate(boxes) if combo >> i & 1]
        still_open = [b for b in boxes if b not in filled]
        reach = {0}
        for b in filled:
            gains = model.classes[b].astype(int)
            reach = {min(model.cap, t + int(g)) for t in reach for g in gains}
        if threshold is None:
            live = reach
        else:
            most = sum(int(model.points[b].max()) for b in still_open)
            live = {t for t in reach if t + most >= threshold}
        dead = sorted(reach - live)
        computed = sorted(live | ({0} if dead else set()))
        key = sum(1 << b for b in filled)
        plans[key] = UpperPlan(np.array(computed, dtype=np.intp), np.array(dead, dtype=np.intp))
    return plans


def _layer_states(
    model: Model, plans: dict[int, UpperPlan], layer: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    upper_mask = sum(1 << b for b in model.upper_boxes)
    filled, upper = [], []
    for key, plan in plans.items():
        masks = layer[(layer & upper_mask) == key]
        filled.append(np.repeat(masks, len(plan.computed)))
        upper.append(np.tile(plan.computed, len(masks)))
    f, u = np.concatenate(filled), np.concatenate(upper)
    y = np.zeros_like(f)
    if model.yacht50_states == 2:
        assert model.yacht_box is not None
        with_yacht = (f >> model.yacht_box) & 1 == 1
        f = np.concatenate([f, f[with_yacht]])
        u = np.concatenate([u, u[with_yacht]])
        y = np.concatenate([y, np.ones(int(with_yacht.sum()), dtype=y.dtype)])
    return f, u, y


class _Building:
    """The build in progress, set before worker processes fork so that they
    inherit it: the model and a value table in memory shared with the parent."""

    now: tuple[Model, np.ndarray] | None = None


def _fill(part: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    building = runtime.part(_Building).now
    assert building is not None
    model, values = building
    filled, upper, yacht50 = part
    values[filled, upper, yacht50] = model.turn_values(values, filled, upper, yacht50)


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def build_values(ruleset: RuleSet, workers: int = 1) -> np.ndarray:
    """The value table: expected points still to come, by (filled, upper, yacht50).

    Unreachable states hold NaN. With ``workers`` > 1 each layer's states are
    shared out among forked processes; only fork from a process without
    threads (a command or a test run, not a running server).
    """
    model = Model.of(ruleset)
    workers = workers if _can_fork() else 1
    if workers > 1:
        shared = mmap.mmap(-1, int(np.prod(model.shape)) * 8)
        values = np.frombuffer(shared, dtype=np.float64).reshape(model.shape)
    else:
        values = np.empty(model.shape)
    values.fill(np.nan)
    plans = _upper_plans(model)
    upper_mask = sum(1 << b for b in model.upper_boxes)
    masks = np.arange(1 << model.boxes, dtype=np.intp)
    layers = np.bitwise_count(masks)
    building = runtime.part(_Building)
    building.now = (model, values)
    try:
        pool = multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None
        with pool or nullcontext():
            for size in range(model.boxes, -1, -1):
                layer = masks[layers == size]
                f, u, y = _layer_states(model, plans, layer)
                if size == model.boxes:
                    values[f, u, y] = 0.0
                else:
                    parts = [
                        (f[i : i + CHUNK], u[i : i + CHUNK], y[i : i + CHUNK])
                        for i in range(0, len(f), CHUNK)
                    ]
                    if pool is None:
                        for part in parts:
                            _fill(part)
                    else:
                        pool.map(_fill, parts, chunksize=max(1, len(parts) // (4 * workers)))
                for key, plan in plans.items():
                    if plan.as_zero.size:
                        same = layer[(layer & upper_mask) == key]
                        values[same[:, None], plan.as_zero[None, :], :] = values[same, 0, :][
                            :, None
                        ]
    finally:
        building.now = None
    return values.copy() if workers > 1 else values


@dataclass(frozen=True)
class Turn:
    """One state's turn, from the table: values exclude points already banked.

    ``score[r]``: scoring roll ``ROLLS[r]`` in its best allowed box now.
    ``before_third[size][i]`` / ``before_second[size][i]``: holding
    ``LEVELS[size].keeps[i]`` and rolling the rest, with one / two rolls left.
    """

    score: np.ndarray
    before_third: tuple[np.ndarray, ...]
    before_second: tuple[np.ndarray, ...]
    start: float


class Table:
    def __init__(self, ruleset: RuleSet, values: np.ndarray, model: Model | None = None) -> None:
        self.ruleset = ruleset
        self.model = model or model_for(ruleset)
        if values.shape != self.model.shape:
            raise ValueError(f"table shape {values.shape} is not {self.model.shape}")
        self.values = values
        # A turn is about 11 KB (13 arrays) and takes 0.39 ms to work out.
        # Its state is asked for again on each roll of a turn (a bot's, the
        # advisor's) and by the review as the game ends: the last 512 states
        # are kept. 4,096 made the cache up to 45 MB a rule set, filled over
        # hours of play: daphne's RSS grew all through a soak. Reviewing 400
        # random two-seat games in a row, 512 missed 5,563 times against
        # 2,955 in Yacht (about 2.5 ms more a game) and 8,563 against 7,355
        # in Classic 13.
        self.turn = lru_cache(maxsize=512)(self._turn)

    def value(self, filled: int, upper: int, yacht50: bool) -> float:
        """Expected points still to come from the start of a turn in this state."""
        v = float(self.values[filled, upper, int(yacht50)])
        if np.isnan(v):
            raise ValueError(f"no play reaches {CardState(filled, upper, yacht50)}")
        return v

    def state_of(self, card: Scorecard) -> CardState:
        return card_state(self.ruleset, card)

    def expected_final(self, card: Scorecard) -> float:
        """Final total expected with optimal play from the start of this card's next turn."""
        return banked(self.ruleset, card) + self.value(*self.state_of(card))

    def _turn(self, state: CardState) -> Turn:
        filled, upper, yacht50 = (np.array([v], dtype=np.intp) for v in state)
        score = self.model.score_values(self.values, filled, upper, yacht50)
        third = expect(score.copy())
        before_third = tuple(k[:, 0].copy() for k in third)
        second = expect(best_within(third))
        before_second = tuple(k[:, 0].copy() for k in second)
        start = float(FIRST_ROLL @ best_within(second)[:, 0])
        return Turn(score[:, 0], before_third, before_second, start)


def table_path(model: Model, directory: Path) -> Path:
    return directory / f"{model.ruleset.key}-v{VERSION}-{model.fingerprint()}.npy"


def _save(values: np.ndarray, path: Path, ruleset_key: str) -> None:
    """Write whole or not at all (another process may be loading it), then
    drop this rule set's tables from other versions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as out:
        np.save(out, values)
    os.replace(out.name, path)
    for other in path.parent.glob(f"{ruleset_key}-v*.npy"):
        if other != path:
            other.unlink(missing_ok=True)


def load_or_build(
    ruleset: RuleSet, directory: Path, rebuild: bool = False, workers: int = 1
) -> Table:
    """Load the cached table, building and saving it first if it is missing or stale.

    The file is memory-mapped: loading costs next to nothing, and processes
    on one machine share its pages.
    """
    model = model_for(ruleset)
    path = table_path(model, directory)
    if rebuild or not path.exists():
        _save(build_values(ruleset, workers), path, ruleset.key)
    return Table(ruleset, np.asarray(np.load(path, mmap_mode="r")), model)


class _Loaded:
    """The tables this process has loaded, by directory and rule set."""

    def __init__(self) -> None:
        self.tables: dict[tuple[Path, str], Table] = {}
        self.lock = threading.Lock()


def get_table(ruleset_key: str, directory: Path | str | None = None) -> Table:
    """The rule set's table: from memory, else from disk, else built (in this
    process, without forking) and saved."""
    where = Path(directory) if directory is not None else default_directory()
    memo = (where.resolve(), ruleset_key)
    loaded = runtime.part(_Loaded)
    with loaded.lock:
        table = loaded.tables.get(memo)
        if table is None:
            table = loaded.tables[memo] = load_or_build(get_ruleset(ruleset_key), where)
        return table


def build_all(
    directory: Path | str | None = None, rebuild: bool = False, workers: int | None = None
) -> dict[str, Table]:
    """Make sure every rule set's table is on disk, building only missing or
    stale ones (or all of them with ``rebuild``), with ``workers`` processes
    (default: one per CPU)."""
    where = Path(directory) if directory is not None else default_directory()
    workers = workers or os.cpu_count() or 1
    return {
        key: load_or_build(ruleset, where, rebuild=rebuild, workers=workers)
        for key, ruleset in RULESETS.items()
    }
