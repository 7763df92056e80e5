"""`dipc sweep` on a box whose det regions are polyhedra, not boxes (issue 39): kappa* from the
polyhedral worst point (`accuracy.polyhedral`) instead of "a det region is not a box".  kappa* is
checked against the per-point sweep on a lattice of the box (the box's lower end is at most the
least per-point kappa*) and against points that approach the worst point (not far above)."""
from __future__ import annotations

import math
from fractions import Fraction

from conftest import ROOT, THEORIES, run_main

from dipc_plus.accuracy.box_sweep import box_sweep
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.sweep import sweep
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.execution.executor import Executor

F = Fraction
COMPARE = THEORIES / "noisy_compare_box.toml"
LATTICE = [{"q1": F(i, 4) - 1, "q2": F(j, 4) - 1} for i in range(9) for j in range(9)]


def per_point(claim, points):
    return sweep(AccuracyChecker(claim), points=points, executor=Executor.local(1)).kappa_star


def numeric_alpha_claim(tmp_path):
    """alpha = 1/4 and a beta with a second term: kappa* is attained at a critical eps of the closure point."""
    text = COMPARE.read_text().replace('alpha = "dd"', 'alpha = "1/4"')
    text = text.replace('beta = "exp(-alpha*eps)"', 'beta = "exp(-alpha*eps)/2 + exp(-eps)/4"')
    text = text.replace('"../programs/', f'"{ROOT / "programs"}/')
    path = tmp_path / "compare_quarter_box.toml"
    path.write_text(text)
    return load_claim(str(path)).accuracy


def test_kappa_star_on_half_planes_is_the_box_infimum():
    """On q1 >= q2, dd = (q1 - q2)/2 and P_err = (1 + x) e^(-2x)/2 with x = eps*dd, so
    beta/P_err = 2 e^x/(1 + x): infimum 2 as x -> 0, at every input (by symmetry on both regions)."""
    claim = load_claim(str(COMPARE)).accuracy
    result = box_sweep(claim)
    star = result.kappa_star
    assert star is not None and not result.star_note
    assert star.exact and star.lo == 2 and result.star_is_box_inf
    assert result.best_kappa == 2 and math.floor(star.lo) == result.best_kappa
    assert [r.star.lo for r in result.region_stars] == [2, 2] and all(r.box_infimum for r in result.region_stars)
    on_lattice = per_point(claim, LATTICE)
    assert star.lo <= on_lattice.lo and on_lattice.hi <= star.hi      # every point reaches 2 as eps -> 0


def test_kappa_star_at_a_closure_point_against_points_that_approach_it(tmp_path):
    claim = numeric_alpha_claim(tmp_path)
    result = box_sweep(claim)
    star = result.kappa_star
    assert star is not None and result.best_kappa == 1 and math.floor(star.lo) == 1
    assert not result.star_is_box_inf           # a closure point (dd = alpha) is not itself covered
    assert star.at.report.input == {"q1": 1, "q2": F(1, 2)}
    assert star.lo <= per_point(claim, LATTICE).lo
    # (1, 1/2 - t) has dd = 1/4 + t/2 > alpha: its kappa* falls to the box's as t -> 0
    near = [per_point(claim, [{"q1": F(1), "q2": F(1, 2) - F(1, 2 ** k)}]) for k in (2, 5, 10)]
    assert all(star.lo <= p.lo for p in near)
    assert near[0].lo > near[1].lo > near[2].lo
    assert near[2].hi - star.lo < F(1, 100)


def test_the_cli_prints_kappa_star():
    code, out, _ = run_main(["sweep", str(COMPARE)])
    assert code == 0 and "kappa* (the infimum over the box of beta/P[error]) = 2 exactly" in out
    assert "not a box" not in out
