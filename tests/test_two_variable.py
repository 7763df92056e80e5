"""The two-variable procedure (decision/two_variable.py) and the box sentences it decides
(accuracy/box_bnb.py): agreement with the one-variable procedure where both apply, a known
counterexample found and re-checked, a sentence proved by branch-and-bound, a budget that ends
undecided with its rectangles, and the closed forms on the corner path against the per-point engine."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from conftest import PROGRAMS
from expoly2_reference import at_d

from dipc_plus.accuracy.box import BoxDecider, det_regions_by_shape
from dipc_plus.accuracy.box_bnb import beta_in_d, form_on_path
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.decision.certified import Interval
from dipc_plus.decision.decide import decide
from dipc_plus.decision import two_variable
from dipc_plus.decision.two_variable import ExpPoly2, Rect, branch_and_bound, decide_two_variable, separable
from dipc_plus.semantics.symbolic_chain import symbolic_paths
from dipc_plus.semantics.symbolic_distribution import SymbolicDistribution

F = Fraction
CLAIM = """\
[program]
path = "{program}"
params = {{ m = 3, c = 1, T = "{T}" }}
[accuracy]
input_distance = "linf"
output_distance = "zero-one"
alpha = "dd"
gamma = 0
beta = "{beta}"
eps = "{eps}"
[accuracy.inputs]
box = {{ q = [-1, 1] }}
"""


def x(c, k=1, B=0):
    """c * x^k * e^(B x) with x = eps*d."""
    return ExpPoly2.term(c, k, k, 0, B)


def mp_value(d, eps, terms):
    """An independent evaluation (mpmath, 60 digits) of sum c eps^i d^j e^(eps(A + B d))."""
    with mpmath.workdps(60):
        d, e = mpmath.mpf(d.numerator) / d.denominator, mpmath.mpf(eps.numerator) / eps.denominator
        return sum(mpmath.mpf(c.numerator) / c.denominator * e ** i * d ** j * mpmath.exp(e * (A + B * d))
                   for (i, j, A, B), c in terms.items())


def test_counterexample_found_and_rechecked():
    """2 - x - e^(-eps) on d in (0, 1]: no exact grouping proves it; with eps up to 3 it fails near
    d = 1, eps = 3 (2 - 3 - e^(-3) < 0); with eps up to 1 it holds (least value 1 - 1/e)."""
    G = ExpPoly2.const(2) - x(1) - ExpPoly2.term(1, A=-1)
    assert separable(G, F(0), F(1), Interval(F(1, 2), F(3), True, True)) is None
    bad = decide_two_variable(G, 0, 1, Interval(F(1, 2), F(3), True, True))
    assert bad.verdict == "refuted" and bad.method == "branch-and-bound"
    d, eps = bad.witness
    assert 0 < d <= 1 and F(1, 2) <= eps <= 3
    assert mp_value(d, eps, G.terms) < 0
    good = branch_and_bound(G, Rect(F(0), F(1), F(1, 10), F(1)))
    assert good.verdict == "verified" and good.method == "branch-and-bound" and good.rectangles > 0
    assert decide_two_variable(G, 0, 1, Interval(F(1, 10), F(1), True, True)).method.startswith("wedge bound")


def test_budget_ends_undecided_with_its_rectangles():
    """(x - 1)^2 >= 0 touches 0 on the curve eps*d = 1: the B&B alone cannot finish and reports the
    rectangles left (each a region of (d, eps)); the exact route proves it at once."""
    G = x(1, 2) - x(2) + ExpPoly2.const(1)
    I = Interval(F(1, 2), F(2), True, True)
    open_ = branch_and_bound(G, Rect(F(0), F(1), F(1, 2), F(2)), 400)
    assert open_.verdict == "undecided" and open_.undecided and 0 < open_.undecided_share < 1
    assert any(r.d0 * r.e0 <= 1 <= r.d1 * r.e1 for r in open_.undecided)
    assert "<= d <=" in open_.undecided[0].text()
    assert decide_two_variable(G, 0, 1, I).verdict == "verified"


def test_unbounded_tail_undecided_unless_an_exact_route_covers_it(monkeypatch):
    """2 - x e^(-x) - e^(-eps) > 0 everywhere (x e^(-x) <= 1/e): the wedge bound (e^(-eps) <= e^(-x) as
    d <= 1) proves it for every eps.  With eps*e^(-eps) instead (still <= 1/e) no exact route applies:
    the compact part eps <= 8 is proved and the tail eps >= 8 is reported undecided, never guessed."""
    G = ExpPoly2.const(2) - x(1, 1, -1) - ExpPoly2.term(1, A=-1)
    assert decide_two_variable(G, 0, 1, Interval(F(0), None, False, False)).verdict == "verified"
    H = ExpPoly2.const(2) - x(1, 1, -1) - ExpPoly2.term(1, i=1, A=-1)     # eps e^(-eps) <= 1/e: still > 0
    monkeypatch.setattr(two_variable, "BNB_RECTANGLES", 3000)
    found = decide_two_variable(H, 0, 1, Interval(F(0), None, False, False))
    assert found.verdict == "undecided"
    assert any(r.e1 is None for r in found.undecided) and "tail" in found.note


def test_tail_by_the_wedge_bound_and_a_strip():
    """e^(-x) - e^(-2x)/2 - 3/4 e^(-eps) (1 - e^(-x)) on d in (0, 1], eps > 0: no exact route proves it
    on the whole domain (the wedge bound is negative near x = 0), but for eps >= 8 the strip x <= 8
    (e^(-eps) <= e^(-8) there) and the wedge bound for x >= 8 do, and the B&B covers eps <= 8.
    Spot values by mpmath agree that F > 0."""
    G = (x(1, 0, -1) - x(F(1, 2), 0, -2) - ExpPoly2.term(F(3, 4), A=-1)
         + ExpPoly2.term(F(3, 4), A=-1, B=-1))
    whole = Interval(F(0), None, False, False)
    assert separable(G, F(0), F(1), whole) is None
    found = decide_two_variable(G, 0, 1, whole)
    assert found.verdict == "verified" and "tail eps >= 8: strip" in found.method
    for d, eps in [(F(1), F(1, 2)), (F(1, 2), F(3, 2)), (F(1), F(100)), (F(1, 100), F(50))]:
        assert mp_value(d, eps, G.terms) > 0
    # with 3/2 instead of 3/4 it fails near x = 0.8, eps = 0.8: found and checked
    bad = (x(1, 0, -1) - x(F(1, 2), 0, -2) - ExpPoly2.term(F(3, 2), A=-1) + ExpPoly2.term(F(3, 2), A=-1, B=-1))
    refuted = decide_two_variable(bad, 0, 1, whole)
    assert refuted.verdict == "refuted" and mp_value(*refuted.witness, bad.terms) < 0


def sparse_decider(tmp_path, beta, eps="(0, inf)", T=0, kappa=1):
    path = tmp_path / "s.toml"
    path.write_text(CLAIM.format(program=PROGRAMS / "sparse.dip", beta=beta, eps=eps, T=T))
    return BoxDecider(load_claim(str(path)).accuracy, kappa=kappa)


@pytest.mark.parametrize("kappa", [1, 7, 8])
def test_bnb_agrees_with_the_one_variable_procedure_on_homogeneous_corners(tmp_path, kappa):
    """Sparse T = 0: on the region 'every query below', v(d) = (-d, -d, -d) and the sentence is one in
    x = eps*d.  The same function written in (d, eps) and given to the B&B alone (no exact route) on
    d in (0, 1], eps in [1/2, 6] must agree with the one-variable procedure on x in (0, 6]."""
    dec = sparse_decider(tmp_path, "2*m*c*exp(-alpha*eps/(8*c))", kappa=kappa)
    region = next(r for r in det_regions_by_shape(dec.program, list(dec.bounds))[0] if "top" not in r.det.values())
    p_err = dec.p_error(region.det, {n: F(-1) for n in dec.bounds})      # P_err(x) at the base a + s
    assert p_err.den.terms == {F(0): p_err.den.terms[F(0)]} and p_err.den.terms[F(0)].degree() == 0
    scale = F(int(p_err.den.terms[F(0)][0].p), int(p_err.den.terms[F(0)][0].q))
    one = ExpPoly2()
    for c, k, q in p_err.num.monomials():
        one = one + ExpPoly2.term(c / scale, k, k, 0, q)                  # x^k e^(q x), x = eps*d
    G = ExpPoly2.term(F(6, kappa), B=F(-1, 8)) - one
    X = Interval(F(0), F(6), False, True)
    expected = decide(dec.claim.beta_at(F(1), 0) * F(1, kappa) - p_err, ">=", X).holds
    found = branch_and_bound(G, Rect(F(0), F(1), F(1, 2), F(6)))
    assert found.verdict == ("verified" if expected else "refuted")
    assert expected == (kappa < 8)      # on this region beta/P_err dips below 8 near x = 1, not below 7
    if not expected:
        d, eps = found.witness
        assert not decide(dec.claim.beta_at(F(1), 0) * F(1, kappa) - p_err, ">=",
                          Interval(eps * d, eps * d, True, True)).holds


def test_closed_form_on_the_corner_path_equals_the_per_point_engine(tmp_path):
    """T = 1/2, beta not a function of alpha*eps: F(d, eps) built from the symbolic engine's cells
    equals beta(d)/kappa - P_err(corner(d)) from the per-point chain, exactly, at rational d."""
    dec = sparse_decider(tmp_path, "2*m*c*exp(-alpha*eps/(8*c))*exp(-eps/16)", eps="[1, 4]", T=F(1, 2), kappa=2)
    region = next(r for r in det_regions_by_shape(dec.program, list(dec.bounds))[0] if "top" not in r.det.values())
    names = list(dec.bounds)
    a, s = [F(1, 2)] * 3, [F(-1)] * 3                                       # v(d) = 1/2 - d, for d in (0, 3/2]
    paths = symbolic_paths(dec.program)
    dist = SymbolicDistribution(paths, [(F(-1), F(1, 2))] * 3)
    key = tuple(region.det[n] for n in paths.output_names)
    beta = beta_in_d(dec.claim, 0, 2)
    for d in (F(1, 3), F(3, 4), F(3, 2)):
        q = [ai + si * d for ai, si in zip(a, s)]
        piece = dist.piece_at(key, q)
        G = beta - (ExpPoly2.const(1) - form_on_path(piece.form, a, s))
        u = dict(zip(names, q))
        expected = dec.claim.beta_at(d, 0) * F(1, 2) - dec.p_error(region.det, u)
        assert expected.den.terms == {F(0): expected.den.terms[F(0)]}
        den = expected.den.terms[F(0)][0]
        assert at_d(G, d) * F(int(den.p), int(den.q)) == expected.num


def test_box_claims_decided_in_two_variables(tmp_path):
    """Sparse T = 1/2 with beta*e^(-eps/16) on eps in [1, 4]: verified by the B&B on every region (and so
    on the grid); with m*e^(-alpha*eps/2)*e^(-eps/16) refuted at a point of the box, re-checked."""
    from dipc_plus.accuracy.box import decide_box
    from dipc_plus.accuracy.checker import AccuracyChecker
    ok = sparse_decider(tmp_path, "2*m*c*exp(-alpha*eps/(8*c))*exp(-eps/16)", eps="[1, 4]", T=F(1, 2))
    result = decide_box(ok.claim)
    assert result.verdict == "verified"
    assert all("two variables" in r.method for r in result.regions if r.verdict == "verified")
    bad = sparse_decider(tmp_path, "m*exp(-alpha*eps/(2*c))*exp(-eps/16)", eps="[1, 4]", T=F(1, 2))
    result = decide_box(bad.claim)
    assert result.verdict == "refuted"
    cex = result.counterexample
    assert all(F(-1) <= v <= 1 for v in cex.input.values()) and F(1) <= cex.eps <= 4
    reports = AccuracyChecker(bad.claim).check_input(cex.input, 1)
    assert any(r.verdict == "refuted" for r in reports)
