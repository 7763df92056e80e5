"""`dipc sweep` on a box claim (issue 28, item 4): the best kappa over every real input of the box,
checked against the grid sweep of the same claim, an independent closed form (threshold_half),
the search against the exact kappa*, the JSON against docs/claims.md, and bad input."""
from __future__ import annotations

import json
import math
import re
from fractions import Fraction

import pytest
from conftest import ROOT, THEORIES, lap_cdf, run_main

from dipc_plus.accuracy.box_sweep import box_sweep
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.report import REFUTED
from dipc_plus.accuracy.sweep import sweep
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.execution.executor import Executor

F = Fraction


def claims(name: str, params: dict):
    sets = {k: F(v) for k, v in params.items()}
    return (load_claim(str(THEORIES / f"{name}_box.toml"), sets).accuracy,
            load_claim(str(THEORIES / f"{name}.toml"), sets).accuracy)


def assert_counterexample_in_box(claim, result):
    """The counterexample for best + 1 is a point of the box, refuted again by a fresh per-point check."""
    cex = result.counterexample
    assert cex.kappa == result.best_kappa + 1
    for n, (lo, hi) in claim.points.bounds.items():
        assert lo <= cex.input[n] <= hi
    reports = AccuracyChecker(claim).check_input(cex.input, result.best_kappa + 1)
    assert any(r.verdict == REFUTED for r in reports)


@pytest.mark.parametrize("name, params", [
    ("sparse", {"m": 3, "c": 1}), ("sparse", {"m": 3, "c": 2}),
    ("sparse", {"m": 4, "c": 1}), ("sparse", {"m": 4, "c": 2}),
    ("sparse_variant", {"m": 3, "c": 1}), ("sparse_variant", {"m": 3, "c": 2}),
])
def test_box_kappa_is_at_most_the_grids(name, params):
    box, grid = claims(name, params)
    result = box_sweep(box)
    on_grid = sweep(AccuracyChecker(grid), executor=Executor.local(1))
    assert result.best_kappa is not None and not result.capped
    assert result.best_kappa <= on_grid.best_kappa
    assert result.kappa_star.lo <= on_grid.kappa_star.hi        # the box contains the grid
    # With T = 0 and eps over (0, inf), each region's corner v(1) is a grid point with dd = 1 and
    # x = eps*1 sweeps all of (0, inf): the grid reaches the box's infimum, computed there by the
    # per-point route (P_err at each input, alpha = dd(u)), so the two enclosures must meet.
    assert on_grid.kappa_star.lo <= result.kappa_star.hi and result.star_is_box_inf
    assert math.floor(result.kappa_star.lo) == result.best_kappa
    assert_counterexample_in_box(box, result)


def test_threshold_half_box_kappa_strictly_below_the_grid():
    """docs/claims.md's worked example: P_err(q) = e^(-eps*dd)/2 and beta = 2/5 e^(-dd*eps/4), so
    beta/P_err = 4/5 e^(3/4 eps*dd).  On the grid of [-2, 2] eps*dd >= 1/2 (q = 0, 1 at eps = 1):
    kappa* = 4/5 e^(3/8) ~ 1.164, best kappa 1.  On the box eps*dd -> 0: kappa* = 4/5, best kappa 0."""
    box, grid = claims("threshold_half", {})
    result = box_sweep(box)
    on_grid = sweep(AccuracyChecker(grid), executor=Executor.local(1))
    grid_closed_form = 0.8 * math.exp(3 / 8)
    assert float(on_grid.kappa_star.lo) <= grid_closed_form <= float(on_grid.kappa_star.hi)
    assert on_grid.best_kappa == 1 and on_grid.base.verdict == "verified"
    assert result.kappa_star.exact and result.kappa_star.lo == F(4, 5) and result.star_is_box_inf
    assert result.best_kappa == 0 < on_grid.best_kappa and result.base.verdict == "refuted"
    assert_counterexample_in_box(box, result)
    # the counterexample, by the closed form with the independent Laplace oracle
    cex = result.counterexample
    q, eps = float(cex.input["q"]), float(cex.eps)
    dd = abs(q - 0.5)
    assert q != round(q)                                       # off the grid
    p_err = lap_cdf(0.5, q, eps) if q > 0.5 else 1 - lap_cdf(0.5, q, eps)
    assert p_err > 0.4 * math.exp(-dd * eps / 4) * 1.01


def test_search_agrees_with_the_exact_kappa_star():
    """The doubling/bisection search, run in full, finds floor(kappa*) (Sparse m = 3, c = 1: 6.3758...)."""
    box, _ = claims("sparse", {"m": 3, "c": 1})
    full, quick = box_sweep(box, search="always"), box_sweep(box)
    assert full.best_kappa == quick.best_kappa == math.floor(quick.kappa_star.lo) == 6
    searched = dict(full.searched)
    assert searched[6] == "verified" and searched[7] == "refuted" and len(searched) > 3
    assert [k for k, _ in quick.searched] == [1, 6, 7]


def test_kappa_max_caps_the_box_sweep():
    box, _ = claims("sparse", {"m": 3, "c": 1})
    result = box_sweep(box, kappa_max=3)
    assert result.capped and result.best_kappa == 3 and result.counterexample is None
    assert result.vacuity.field == "--kappa-max"
    full = box_sweep(box, kappa_max=3, search="always")
    assert full.capped and full.best_kappa == 3
    for mode in ("auto", "always"):     # kappa_max = best kappa: not capped, as the grid sweep
        exact = box_sweep(box, kappa_max=6, search=mode)
        assert not exact.capped and exact.best_kappa == 6 and exact.counterexample.kappa == 7


def documented_keys(column: int = 1) -> set:
    """The keys named in a column of docs/claims.md's table of the box sweep's JSON (1: top level)."""
    text = (ROOT / "docs" / "claims.md").read_text()
    section = text.split("### `dipc sweep --json` on a box claim", 1)[1].split("\n#", 1)[0]
    return {k for row in section.splitlines() if row.startswith("| `")
            for k in re.findall(r"`([a-z_]+)`", row.split("|")[column])}


def test_cli_json_and_exit_codes():
    keys = documented_keys()
    code, out, _ = run_main(["sweep", THEORIES / "sparse_box.toml", "--set", "c=1", "--json", "--no-progress"])
    data = json.loads(out)
    assert code == 0 and data["scope"]["kind"] == "box" and data["best_kappa"] == 6
    regions = data["region_kappa_star"]
    assert len(regions) == len(data["regions"]) and regions[0]["kappa_star"] == data["kappa_star"]
    assert [F(r["enclosure"][0]) for r in regions] == sorted(F(r["enclosure"][0]) for r in regions)
    assert data["kappa_star"].startswith("6.3758") and data["counterexample"]["eps"]
    assert set(data) <= keys, set(data) - keys
    detail = data["kappa_star_detail"]
    nested = documented_keys(3)
    for inner in (detail, detail["at"], detail["at"]["piece"], *data["region_kappa_star"]):
        assert set(inner) <= nested, set(inner) - nested
    code, out, _ = run_main(["sweep", THEORIES / "threshold_half_box.toml", "--no-progress"])
    assert code == 1 and "best kappa = 0" in out and "kappa* (the infimum over the box of beta/P[error]) = 4/5" in out
    code, out, _ = run_main(["sweep", THEORIES / "sparse_box.toml", "--kappa-max", "3", "--no-progress"])
    assert code == 5 and "--kappa-max" in out
    assert run_main(["sweep", THEORIES / "sparse_box.toml", "--kappa-max", "3", "--allow-vacuous",
                     "--no-progress"])[0] == 0


def test_undecided_region_stops_the_sweep(tmp_path):
    """q has both signs on the paths to (a, b) = (true, true), whose region 0 <= q <= 1 has share 1/2
    of the box (with `s >= q` that region was the point q = 0, share 0: not applicable, and the sweep
    rightly goes on)."""
    program = tmp_path / "mixed.dip"
    program.write_text("input q: real\noutput a: bool, b: bool\nr <- Lap(eps, q)\na <- r >= 0\n"
                       "s <- Lap(eps, 0)\nb <- s >= q - 1\n")
    claim = tmp_path / "mixed.toml"
    claim.write_text(f'[program]\npath = "{program}"\n[accuracy]\ninput_distance = "linf"\n'
                     'output_distance = "zero-one"\nalpha = "dd"\ngamma = 0\nbeta = "2*exp(-alpha*eps/2)"\n'
                     '[accuracy.inputs]\nbox = { q = [-1, 1] }\n')
    result = box_sweep(load_claim(str(claim)).accuracy)
    assert result.best_kappa is None and result.undecided is not None
    code, out, _ = run_main(["sweep", claim, "--no-progress"])
    assert code == 6 and "UNDECIDED" in out and "check 'monotone'" in out and "best kappa =" not in out
    code, out, _ = run_main(["sweep", claim, "--json", "--no-progress"])
    data = json.loads(out)
    assert code == 6 and data["best_kappa"] is None and data["undecided_regions"]


@pytest.mark.parametrize("box, message", [
    ("q = [1, -1]", "empty (low > high)"),
    ("q = [-1, inf]", "infinite"),
    ("q = [\"-inf\", 1]", "infinite"),
])
def test_bad_boxes_exit_2(tmp_path, box, message):
    text = (THEORIES / "sparse_box.toml").read_text().replace("box = { q = [-1, 1] }", f"box = {{ {box} }}")
    text = text.replace('"../programs/sparse.dip"', f'"{ROOT / "programs" / "sparse.dip"}"')
    path = tmp_path / "bad.toml"
    path.write_text(text)
    code, _, err = run_main(["sweep", path, "--no-progress"])
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith("box ="))
    assert code == 2 and message in err and f"{path}:{line}" in err and "hint" in err and "Traceback" not in err


def test_box_on_a_finite_input_exits_2(tmp_path):
    program = tmp_path / "f.dip"
    program.write_text("input q: real\ninput h: bool\noutput b: bool\nr <- Lap(eps, q)\nb <- r >= 0\n")
    path = tmp_path / "f.toml"
    path.write_text(f'[program]\npath = "{program}"\n[accuracy]\ninput_distance = "linf"\n'
                    'output_distance = "zero-one"\nalpha = "dd"\ngamma = 0\nbeta = "exp(-alpha*eps)"\n'
                    '[accuracy.inputs]\nbox = { h = [0, 1] }\n')
    code, _, err = run_main(["sweep", path, "--no-progress"])
    assert code == 2 and "'h' is not a real input" in err and f"{path}:" in err and "hint" in err
    assert "Traceback" not in err


def test_box_sweep_options_refused():
    for extra, message in ((["--paper"], "Definition 2"), (["--json", "--reports"], "no per-input reports")):
        code, out, err = run_main(["sweep", THEORIES / "sparse_box.toml", "--no-progress", *extra])
        assert code == 2 and message in out + err and "Traceback" not in err


def one_input(tmp_path, body: str, beta: str, alpha: str = '"dd"'):
    program = tmp_path / "p.dip"
    program.write_text("input q: real\noutput b: bool\n" + body)
    path = tmp_path / "p.toml"
    path.write_text(f'[program]\npath = "{program}"\n[accuracy]\ninput_distance = "linf"\n'
                    f'output_distance = "zero-one"\nalpha = {alpha}\ngamma = 0\nbeta = "{beta}"\n'
                    '[accuracy.inputs]\nbox = { q = [-1, 1] }\n')
    return path


def test_search_alone_where_kappa_star_is_not_computed(tmp_path):
    """det ignores q (dd = inf, decided at a vertex): kappa* is left to the search.  By hand,
    P_err = P[Lap(1/eps) >= 1] = e^(-eps)/2 and beta = 3 e^(-eps): the ratio is 6 for every eps,
    so beta/6 holds (with equality) and beta/7 fails."""
    claim = load_claim(str(one_input(tmp_path, "r <- Lap(eps, q)\ns <- Lap(eps, 0)\nb <- s >= 1\n",
                                     "3*exp(-eps)"))).accuracy
    result = box_sweep(claim)
    assert result.kappa_star is None and "dd = inf" in result.star_note
    assert result.best_kappa == 6 and dict(result.searched) == {1: "verified", 2: "verified", 4: "verified",
                                                                8: "refuted", 6: "verified", 7: "refuted"}
    assert_counterexample_in_box(claim, result)


def test_box_where_the_claim_applies_nowhere(tmp_path):
    """alpha = 3, but no q of [-1, 1] is further than 3/2 from 1/2: no kappa fails, exit 5 naming alpha."""
    path = one_input(tmp_path, "r <- Lap(eps, q)\nb <- r >= 1/2\n", "exp(-eps)", alpha='"3"')
    result = box_sweep(load_claim(str(path)).accuracy)
    assert result.capped and result.vacuity.field == "alpha"
    code, out, _ = run_main(["sweep", path, "--no-progress"])
    assert code == 5 and "made vacuous by: alpha" in out
    assert run_main(["sweep", path, "--no-progress", "--allow-vacuous"])[0] == 0
    assert run_main(["sweep", path, "--no-progress", "--allow-vacuous", "--strict"])[0] == 4
