"""Tables on disk: loaded when current, rebuilt when stale, never half written."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from games.rules import get_ruleset
from games.solver import build_values, default_directory
from games.solver import table as table_module
from games.solver.model import Model
from games.solver.table import ENV_DIRECTORY, load_or_build, table_path


def test_a_current_table_on_disk_is_loaded_without_rebuilding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = load_or_build(get_ruleset("yacht"), tmp_path)

    def refuse(*args: object, **kwargs: object) -> np.ndarray:
        raise AssertionError("rebuilt a current table")

    monkeypatch.setattr(table_module, "build_values", refuse)
    again = load_or_build(get_ruleset("yacht"), tmp_path)
    assert again.value(0, 0, False) == first.value(0, 0, False)


def test_a_table_from_another_solver_version_is_replaced(tmp_path: Path) -> None:
    stale = tmp_path / "yacht-v0-000000000000.npy"
    np.save(stale, np.zeros(3))
    table = load_or_build(get_ruleset("yacht"), tmp_path)
    assert not stale.exists()
    assert [p.name for p in tmp_path.iterdir()] == [table_path(table.model, tmp_path).name]
    assert round(table.value(0, 0, False), 4) == 166.9551


def test_changing_a_rule_sets_data_changes_its_table_file(tmp_path: Path) -> None:
    ruleset = get_ruleset("yacht_bonus")
    richer = dataclasses.replace(ruleset, upper_bonus=50)
    assert table_path(Model.of(ruleset), tmp_path) != table_path(Model.of(richer), tmp_path)


def test_the_table_directory_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_DIRECTORY, str(tmp_path))
    assert default_directory() == tmp_path
    monkeypatch.delenv(ENV_DIRECTORY)
    assert default_directory().parts[-2:] == ("var", "solver")


def test_worker_processes_build_the_same_table_as_one_process() -> None:
    ruleset = get_ruleset("yacht_bonus")
    alone = build_values(ruleset, workers=1)
    shared = build_values(ruleset, workers=2)
    assert np.array_equal(alone, shared, equal_nan=True)
