"""Box claims with real outputs and the numeric-sparse input distance (NumericSparse, issue 28):
the closed form of P[error] on the corner path against the per-point engine, the verdicts against
the grid and the per-point path, and the checks that refuse what the argument does not cover."""
from __future__ import annotations

from fractions import Fraction

import pytest

from conftest import THEORIES, run_main
from expoly2_reference import at_d

from dipc_plus.accuracy.box import BoxDecider, CornerPath, decide_box, det_regions_by_shape
from dipc_plus.accuracy.box_bnb import beta_in_d, correct_pieces, form_on_path
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.decision.two_variable import ExpPoly2
from dipc_plus.semantics.symbolic_chain import symbolic_paths

F = Fraction
BOX = str(THEORIES / "numeric_sparse_box.toml")


def test_numeric_sparse_box_verified_and_agrees_with_the_grid():
    result = decide_box(load_claim(BOX).accuracy)
    assert result.verdict == "verified" and not result.vacuous
    assert all("two variables" in r.method for r in result.regions)
    assert {g for g in (r.gamma for r in result.regions)} == {F(1), F(2)}
    assert any(name == "box-region" and "numeric-sparse" in text for name, text in result.checks)
    code, out, _ = run_main(["accuracy", str(THEORIES / "numeric_sparse.toml")])
    assert code == 0 and "VERIFIED on the grid" in out


def test_corner_closed_form_with_released_values_equals_the_per_point_engine():
    """Region 'q[1] >= 0' (out[1] = num, val[1] = q[1]): v(d) = (d, -1, -1).  The two-variable form built
    from the symbolic cells with |val[1] - q[1]| <= gamma added equals beta(d)/kappa - P_err from the
    per-point chain with the linf ball, exactly, at rational d and both gammas."""
    claim = load_claim(BOX).accuracy
    dec = BoxDecider(claim)
    names = list(dec.bounds)
    region = next(r for r in det_regions_by_shape(claim.program, names)[0] if r.det["out[1]"] == "num")
    corner = CornerPath(dec.bounds, region, {n: dec.monotone.output(region.det).direction(n) for n in names})
    (d0, d1, a, s), = corner.pieces()
    av, sv = [a[n] for n in names], [s[n] for n in names]
    assert av == [0, -1, -1] and sv == [1, 0, 0]
    paths = symbolic_paths(claim.program)
    key = tuple(region.det[n] for n in paths.output_names)
    for gamma in (F(1), F(2)):
        pieces = correct_pieces(paths, key, region.det, gamma, [(F(0), F(1)), (F(-1), F(-1)), (F(-1), F(-1))])
        beta = beta_in_d(claim, gamma, 3)
        for d in (F(1, 5), F(1, 2), F(1)):
            u = corner.at(d)
            owner = [pc for pc in pieces if pc.cell.contains([u[n] for n in names])]
            assert len(owner) == 1
            G = beta - (ExpPoly2.const(1) - form_on_path(owner[0].form, av, sv))
            expected = claim.beta_at(d, gamma) * F(1, 3) - dec.p_error(region.det, u, gamma)
            den = expected.den.terms[F(0)][0]
            assert expected.den.terms.keys() == {F(0)}
            assert at_d(G, d) * F(int(den.p), int(den.q)) == expected.num


def test_numeric_sparse_kappa_three_needs_the_tail_argument():
    """beta/3 on eps in (0, inf): two regions need the B&B for eps <= 8 and the strip/wedge argument for
    the tail; verified, and the grid (its integer points) agrees."""
    result = decide_box(load_claim(BOX).accuracy, kappa=3)
    assert result.verdict == "verified"
    assert any("tail eps >= 8: strip" in r.method for r in result.regions)
    grid = AccuracyChecker(load_claim(str(THEORIES / "numeric_sparse.toml")).accuracy).run(kappa=3)
    assert grid.verdict == "verified"


def test_numeric_sparse_box_refuted_with_a_rechecked_counterexample():
    claim = load_claim(BOX).accuracy
    result = decide_box(claim, kappa=6)
    assert result.verdict == "refuted"
    cex = result.counterexample
    assert all(F(-1) <= v <= 1 for v in cex.input.values())
    assert any(r.verdict == "refuted" for r in AccuracyChecker(claim).check_input(cex.input, 6))


def test_facet_off_the_threshold_is_undecided_by_name(tmp_path):
    """The claim's threshold 1/2 is not the program's T = 0: the det regions' facets sit at 0, so moving
    a released query across one may keep it >= 1/2 on both sides; the region is left undecided,
    naming the check."""
    text = open(BOX).read().replace('threshold = "T"', 'threshold = "1/2"')
    text = text.replace('"../programs/', f'"{THEORIES.parent / "programs"}/')
    path = tmp_path / "ns.toml"
    path.write_text(text)
    result = decide_box(load_claim(str(path)).accuracy)
    assert result.verdict == "undecided"
    assert any("check 'box-region'" in r.reason and "threshold 1/2" in r.reason for r in result.regions)


def test_real_output_without_numeric_sparse_still_refused(tmp_path):
    program = tmp_path / "o.dip"
    program.write_text("input q: real\noutput o: real\no <- Lap(eps, q)\n")
    path = tmp_path / "o.toml"
    path.write_text(f'[program]\npath = "{program}"\n[accuracy]\ninput_distance = "linf"\n'
                    'output_distance = "zero-one"\nalpha = "dd"\ngamma = 0\nbeta = "exp(-alpha*eps)"\n'
                    '[accuracy.inputs]\nbox = { q = [-1, 1] }\n')
    code, _, err = run_main(["accuracy", path])
    assert code == 2 and "the output 'o' is not finite" in err and "Traceback" not in err


def test_numeric_sparse_box_needs_the_linf_output_distance(tmp_path):
    text = open(BOX).read().replace('output_distance = "linf"', 'output_distance = "zero-one"')
    text = text.replace('"../programs/', f'"{THEORIES.parent / "programs"}/')
    path = tmp_path / "ns.toml"
    path.write_text(text)
    code, _, err = run_main(["accuracy", path])
    assert code == 2 and 'a box claim needs output_distance = "linf", not "zero-one"' in err
    assert "ns.toml:" in err and "Traceback" not in err


@pytest.mark.parametrize("T, kappa", [(F(1, 2), 4), (F(-1, 2), 5)])
def test_numeric_sparse_box_never_contradicts_the_grid(T, kappa):
    """The grid's points are points of the box: verified on the box needs verified on the grid, a
    refuted grid needs a refuted box (whose counterexample the per-point path refutes again)."""
    box = load_claim(BOX, {"T": T}).accuracy
    result = decide_box(box, kappa=kappa)
    grid = AccuracyChecker(load_claim(str(THEORIES / "numeric_sparse.toml"), {"T": T}).accuracy).run(kappa=kappa)
    assert result.verdict in ("verified", "refuted")
    if result.verdict == "verified":
        assert grid.verdict == "verified"
    if grid.verdict == "refuted":
        assert result.verdict == "refuted"
        assert any(r.verdict == "refuted" for r in AccuracyChecker(box).check_input(result.counterexample.input, kappa))
