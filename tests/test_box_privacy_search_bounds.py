"""Bounded box-privacy searches (issue 38, item 7): a search for a counterexample stops early.

Why: the refutation searches of a box (and the generator test's dense oracle) only ask whether a
pair is refuted; before, each ran the full every-value decision, whose bounds on the intervals
not proved monotone (never a refutation) took minutes on an argmax beside a real output, and
whose enclosures of sup L/eps were narrowed to 1e-5 where "above k or not" was all that counted.
Checked here: the early stop keeps both ends of an enclosure certified (against mpmath), a
search refutes what the full decision refutes and never says verified, and the worst
neighbour's cross-check finds adjacent points when the adjacency's bound is below 1.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.decision.decide import Interval
from dipc_plus.decision.sup_ratio import enclose
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.privacy.dp.box import VERIFIED, decide_box_privacy
from dipc_plus.privacy.dp.real_output_check import check_real_outputs
from conftest import THEORIES


def true_sup() -> float:
    """sup over eps in [1, 3] of ln(1 + eps^2)/eps, from the zero of its derivative (mpmath)."""
    g = lambda x: mpmath.log(1 + x * x) / x
    x = mpmath.findroot(lambda x: mpmath.diff(g, x), 2)
    return float(g(x))


def test_an_enclosure_against_a_budget_stops_on_the_right_side_with_certified_ends():
    r, I = ExpFrac.of(ExpPoly.eps(2) + 1), Interval(F(1), F(3), True, True)
    sup = true_sup()                                   # 0.80474...
    for against in (F(1, 2), F(4, 5), F(81, 100), F(1)):
        e = enclose(r, I, F(1, 10**9), against)
        assert e.lo <= sup <= e.hi
        assert e.lo > against or e.hi <= against       # on one side of the budget
        assert (e.lo > against) == (sup > against)
    tight = enclose(r, I, F(1, 10**9))
    assert tight.hi - tight.lo <= F(1, 10**9)


def test_a_search_refutes_what_the_decision_refutes_and_never_verifies():
    refuted = load_privacy_claim(str(THEORIES / "svt_lyu_alg3_c1_m3_privacy_values.toml"))
    full, search = check_real_outputs(refuted), check_real_outputs(refuted, refute_only=True)
    assert full.verdict == search.verdict == "refuted"
    assert search.counterexample is not None
    verified = load_privacy_claim(str(THEORIES / "bad_gap_sparse_vector_m3_privacy_values.toml"))
    assert check_real_outputs(verified).verdict == "verified"
    found = check_real_outputs(verified, refute_only=True)
    assert found.verdict == "undecided" and not found.counterexample
    assert F(found.sup_text.removeprefix("at least ")) <= F(3, 4) <= verified.budget.k   # the sup is 3/4


def test_the_cross_check_uses_adjacent_points_when_the_bound_is_below_one(tmp_path):
    """Generator seed 83: no two integer points of [0, 1]^2 are at L-inf distance 1/2, so the
    cross-check of the worst neighbour's bound stopped the decision with 'no pair of adjacent
    inputs'; it now runs on the points at step 1/2."""
    (tmp_path / "p.dip").write_text("input q: real[2]\noutput o1: bool\nx1 <- Lap(eps, -1*q[1] + q[2])\n"
                                    "x2 <- Lap(eps, -1*q[1] + q[2] + -1)\nx3 <- Lap(eps/2, q[2] + 1/2)\no1 <- x3 >= x1\n")
    (tmp_path / "c.toml").write_text(f'[program]\npath = "{tmp_path / "p.dip"}"\n\n[privacy]\nadjacency = "linf"\n'
                                     'bound = "1/2"\nbudget = "2*eps"\neps = "(0, inf)"\n\n'
                                     '[privacy.inputs]\nbox = { q = [0, 1] }\n')
    res = decide_box_privacy(load_privacy_claim(str(tmp_path / "c.toml")))
    assert res.verdict == VERIFIED, res.report()
    what, text, pairs = res.losses[0]
    assert "step 1/2" in what and pairs > 0
    assert F(text) <= res.proved_bound
