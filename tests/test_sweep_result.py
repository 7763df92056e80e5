"""The one sweep result (dipc_plus.accuracy.sweep_result.SweepResult) on a grid and on a box."""
from __future__ import annotations

from pathlib import Path

from dipc_plus.accuracy.box_sweep import box_sweep
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.sweep import sweep
from dipc_plus.accuracy.sweep_result import SweepResult
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.execution.executor import Executor

THEORIES = Path(__file__).resolve().parent.parent / "theories"


def test_grid_and_box_sweeps_return_the_one_type():
    """Both routes answer with SweepResult; the base (kappa = 1) says the scope, and only the box
    sweep has a search and kappa* per region."""
    grid = sweep(AccuracyChecker(load_claim(str(THEORIES / "threshold_half.toml")).accuracy),
                 executor=Executor.local(1))
    box = box_sweep(load_claim(str(THEORIES / "threshold_half_box.toml")).accuracy)
    assert type(grid) is SweepResult and type(box) is SweepResult
    assert not grid.base.on_a_box and box.base.on_a_box
    assert grid.base.kappa == box.base.kappa == 1
    assert grid.best_kappa == 1 and box.best_kappa == 0        # the box sees what the grid misses
    assert box.searched and box.region_stars and not grid.searched and not grid.region_stars
    grid_json, box_json = grid.to_json(), box.to_json()
    assert "search" not in grid_json and "region_kappa_star" not in grid_json
    assert box_json["search"] == [{"kappa": 1, "verdict": "refuted"}]
    assert box_json["kappa_star_detail"]["box_infimum"] is True and "piece" in box_json["kappa_star_detail"]["at"]
    assert "per det region" in box.report() and "every number below is over these inputs only" in grid.report()


def test_capped_sweeps_name_the_option_on_both_scopes():
    """A sweep that finds no kappa that fails up to --kappa-max is vacuous by --kappa-max, on a grid and a box."""
    grid = sweep(AccuracyChecker(load_claim(str(THEORIES / "sparse.toml")).accuracy), kappa_max=3,
                 executor=Executor.local(1))
    box = box_sweep(load_claim(str(THEORIES / "sparse_box.toml")).accuracy, kappa_max=3)
    assert grid.capped and box.capped and grid.best_kappa == box.best_kappa == 3
    assert grid.vacuity.field == box.vacuity.field == "--kappa-max"
    assert "best kappa >= 3 (--kappa-max)" in grid.report() and "is verified on the box" in box.report()
