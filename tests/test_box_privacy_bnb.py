"""The certified branch-and-bound over (u, u' - u, eps) for box privacy (privacy.dp.pair_bnb, issue 38 method 3).

Why: its verdicts must agree with the exact per-pair engine: a VERIFIED box never meets a refuted
pair of a dense lattice, a REFUTED box names an adjacent pair of the box that `check_dp` refutes
again on its own.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import random
import itertools
from fractions import Fraction as F

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.dp.box import VERIFIED, decide_box_privacy
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.privacy.dp.pair_bnb import pair_bnb_for, phi_ball, tightened
from dipc_plus.decision.certified import lower_bound, upper_bound, hull, working_precision
from dipc_plus.exact.cells import Cell
from dipc_plus.execution import limits
from dipc_plus.decision.first_order import MEAN_VALUE, SERIES, FirstOrderForm

@contextlib.contextmanager
def more_boxes(n: int):
    """The pair_boxes limit raised to n (the portfolio's default is sized for a few seconds)."""
    limits.set_limit("pair_boxes", n)
    try:
        yield
    finally:
        limits.reset()


CLAIM = """[program]
path = "{path}"

[privacy]
adjacency = "one-position"
bound = "{bound}"
budget = "{budget}"
eps = "{eps}"

[privacy.inputs]
box = {{ q = [0, 1] }}
"""


def claim_of(tmp_path, program: str, budget: str, bound: str = "1/4", eps: str = "(0, 2]"):
    (tmp_path / "p.dip").write_text(program)
    (tmp_path / "c.toml").write_text(CLAIM.format(path=tmp_path / "p.dip", bound=bound, budget=budget, eps=eps))
    return load_privacy_claim(str(tmp_path / "c.toml"))


def on_points(claim, points):
    return dataclasses.replace(claim, explicit_points=points, grid=None, inputs_kind="list")


def thirds(m: int) -> list[dict]:
    values = [F(0), F(1, 3), F(2, 3), F(1)]
    return [{f"q[{j}]": v for j, v in enumerate(t, 1)} for t in itertools.product(values, repeat=m)]


SHIFTED_READ = "input q: real[2]\noutput o: bool\nx <- Lap(eps/2, q[1])\no <- x >= q[1]\n"
NOISY_READ = "input q: real[2]\noutput o: bool\nx <- Lap(eps, q[1])\no <- x >= q[2]\n"


def test_a_comparison_beside_its_own_mean_is_verified_where_no_other_method_is(tmp_path):
    # x - q[1] is Laplace whatever q: the output's law does not move; the density-ratio and
    # worst-neighbour bounds refuse the comparison that reads q[1] beside a draw.
    claim = claim_of(tmp_path, SHIFTED_READ, "eps/2", bound="1", eps="(0, inf)")
    res = decide_box_privacy(claim)          # registered last in the portfolio: the others refuse it
    assert res.verdict == VERIFIED and "branch-and-bound" in res.method
    assert not res.density.applies and not res.worst.applies
    r = pair_bnb_for(claim)
    assert r.verdict == "verified", r.reason
    assert check_dp(on_points(claim, thirds(2))).verified


def test_a_false_claim_is_refuted_by_a_pair_that_the_exact_engine_refutes_alone(tmp_path):
    # moving q[1] by 1/4 at rate eps costs up to eps/4 > eps/8
    claim = claim_of(tmp_path, NOISY_READ, "eps/8")
    with more_boxes(1500):
        r = pair_bnb_for(claim)
    assert r.verdict == "refuted"
    cex = r.refutation.counterexample
    u, w = dict(cex.input), dict(cex.neighbour)
    assert claim.adjacency.adjacent(u, w)
    assert all(0 <= F(x) <= 1 for x in [*u.values(), *w.values()])
    assert not check_dp(on_points(claim, [u, w])).verified


def test_a_true_claim_is_never_refuted_and_agrees_with_the_lattice(tmp_path):
    claim = claim_of(tmp_path, NOISY_READ, "eps/2")
    assert check_dp(on_points(claim, thirds(2))).verified
    assert pair_bnb_for(claim).verdict in ("verified", "undecided")


def test_outside_its_whitelist_it_does_not_apply(tmp_path):
    program = "input q: real[1]\noutput o: real\no <- Lap(eps, q[1])\n"
    (tmp_path / "p.dip").write_text(program)
    text = CLAIM.format(path=tmp_path / "p.dip", bound="1", budget="eps", eps="(0, 1]")
    (tmp_path / "c.toml").write_text(text.replace("[privacy.inputs]", '[privacy.events]\no = ["[0, inf)"]\n\n[privacy.inputs]'))
    r = pair_bnb_for(load_privacy_claim(str(tmp_path / "c.toml")))
    assert r.verdict == "" and "real output" in r.reason


def test_phi_and_the_cell_tightening_enclose_what_they_claim():
    with working_precision(64):
        ball = phi_ball(hull(F(-2), F(3)))
        assert F(43, 100) <= lower_bound(ball) <= F(43234, 100000)      # phi(-2) = 0.432332...
        assert F(636, 100) <= upper_bound(ball) <= F(637, 100)        # phi(3) = 6.36184...
    cell = Cell(2, [((1, -1, 0), "<=")])            # q0 <= q1
    assert tightened([(F(1, 2), F(1)), (F(0), F(3, 4))], cell) == [(F(1, 2), F(3, 4)), (F(1, 2), F(3, 4))]
    assert tightened([(F(1), F(2)), (F(0), F(1, 2))], cell) is None


def test_a_fourfold_slack_closes_with_the_series_and_mean_value_enclosures(tmp_path):
    # P[Lap(eps, q1) >= q2], one input moved by 1/4: the loss is eps/4, the budget 3*eps.  With
    # zeroth-order enclosures alone 1,500 sub-boxes left 384 open (the limit's default is smaller).
    claim = claim_of(tmp_path, NOISY_READ, "3*eps")
    with more_boxes(1500):
        r = pair_bnb_for(claim)
    assert r.verdict == "verified", r.reason
    assert check_dp(on_points(claim, thirds(2))).verified


# G = e^(eps (1 + z1)) - e^(eps z2) - eps z1 (x = z), on z in [0, 1/2]^2: G/eps -> 1 + z1 - z2 - z1 >= 1/2
ROWS = [[[F(1), F(0)], [F(0), F(1)]]]
TERMS = [(F(1), 0, (0, 0), 0, ((F(1), F(0)), F(1))), (F(-1), 0, (0, 0), 0, ((F(0), F(1)), F(0))),
         (F(-1), 1, (1, 0), 0, ((F(0), F(0)), F(0)))]


def g_over_eps(z1, z2, eps):
    return (math.exp(eps * (1 + z1)) - math.exp(eps * z2) - eps * z1) / eps


def test_the_series_and_mean_value_forms_stay_below_the_function_they_enclose():
    rng = random.Random(5)
    series = FirstOrderForm(SERIES, TERMS, 2, ROWS)
    mean_value = FirstOrderForm(MEAN_VALUE, TERMS, 2, ROWS, by_eps=False)
    with working_precision(128):
        for _ in range(30):
            a, b = sorted(F(rng.randint(0, 8), 16) for _ in range(2))
            e0, e1 = sorted(F(rng.randint(1, 16), 8) for _ in range(2))
            Z = [(a, b), (F(0), F(1, 4))]
            low = series.lower(Z, F(0), e1)
            grid = [(float(a + (b - a) * i / 4), float(F(j, 16)), float(e1) * k / 8) for i in range(5) for j in range(5) for k in range(1, 9)]
            assert low is not None and all(low <= g_over_eps(*p) + 1e-9 for p in grid)
            first = mean_value.lower(Z, e0, e1)
            grid = [(x, y, float(e0 + (e1 - e0) * k / 8)) for x, y, _ in grid for k in range(9)]
            assert first is not None and all(first <= g_over_eps(*p) * p[2] + 1e-9 for p in grid)
        assert series.lower([(F(0), F(1, 2)), (F(0), F(1, 2))], F(0), F(1, 64)) > 0     # the cancellation is exact
