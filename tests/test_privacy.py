"""Differential privacy decided exactly: known answers, and every counterexample
re-checked by simulation (and, for real outputs, by numerical integration)."""
from __future__ import annotations

import math
import os
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.claims.privacy_types import parse_event
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.privacy.loss.tight import privacy_loss
from dipc_plus.semantics.sampler import simulate
from dipc_plus.semantics.stats import wilson
from conftest import ROOT, THEORIES

N_RUNS = 400_000


def claim_file(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body.replace("@ROOT@", str(ROOT)))
    return str(path)


def frequency(program, env: dict, eps: Fraction, output: dict, n: int = N_RUNS, seed: int = 7):
    """(successes, trials) of the output event among n simulated runs."""
    res = simulate(program, env, eps, n, seed=seed)
    mask = np.ones(n, dtype=bool)
    for name, want in output.items():
        col = res.column(name)
        if isinstance(want, str) and want[:1] in "([":
            ev = parse_event(want)
            col = col.astype(float)
            keep = np.ones(n, dtype=bool)
            if ev.lo is not None:
                keep &= (col >= float(ev.lo)) if ev.lo_closed else (col > float(ev.lo))
            if ev.hi is not None:
                keep &= (col <= float(ev.hi)) if ev.hi_closed else (col < float(ev.hi))
            mask &= keep
        else:
            mask &= np.array([_same(v, want) for v in col], dtype=bool)
    return int(mask.sum()), n


def _same(a, b) -> bool:
    if isinstance(a, (bool, np.bool_)) or isinstance(b, bool):
        return bool(a) == b if isinstance(b, bool) and isinstance(a, (bool, np.bool_)) else False
    return a == b


def assert_counterexample_simulates(claim, cex, n: int = N_RUNS):
    """Both exact probabilities lie in 99.9% Wilson intervals of n simulated runs; when the
    gap is wide enough, the simulation alone also shows the violation."""
    eps = cex.eps
    assert isinstance(eps, Fraction)
    program = claim.program
    s1, t1 = frequency(program, cex.input, eps, cex.output, n, seed=11)
    s2, t2 = frequency(program, cex.neighbour, eps, cex.output, n, seed=12)
    w1, w2 = wilson(s1, t1, 0.999), wilson(s2, t2, 0.999)
    p, q = cex.p(float(eps)), cex.q(float(eps))
    assert w1.low <= p <= w1.high, (p, w1)
    assert w2.low <= q <= w2.high, (q, w2)
    bound = lambda x: math.exp(float(claim.budget.k) * float(eps)) * float(claim.budget.factor) * x
    # the exact values violate the claim (already re-checked with certified arithmetic)
    assert p > bound(q)
    return w1, w2


# --------------------------------------------------------------------------- Laplace


def test_laplace_eps_dp_holds_and_loss_is_exactly_eps():
    claim = load_privacy_claim(os.path.join(THEORIES, "laplace_privacy.toml"))
    result = check_dp(claim)
    assert result.verified and result.decisions > 0
    loss = privacy_loss(claim)
    assert loss.sup is not None and loss.sup.value == 1
    # the attaining ratio is e^eps itself
    ratio = loss.pieces[0].candidate.ratio
    for x in (0.3, 1.0, 2.5):
        assert ratio(x) == pytest.approx(math.exp(x), rel=1e-12)


def test_laplace_half_eps_fails_with_a_checked_counterexample(tmp_path):
    path = claim_file(tmp_path, "lap.toml", """
[program]
path = "@ROOT@/programs/laplace.dip"
params = { k = 1, sens = 1 }
[privacy]
adjacency = "linf"
budget = "eps/2"
events = { out = ["(-inf, -1]", "(-1, 0]", "(0, 1]", "(1, inf)"] }
[privacy.inputs]
grid = { q = [-1, 1] }
""")
    claim = load_privacy_claim(path)
    result = check_dp(claim)
    assert not result.verified
    cex = result.counterexample
    # independent numerical integration of the Laplace density over the event
    eps = float(cex.eps)
    ev = parse_event(cex.output["out[1]"])

    def prob(mean):
        f = lambda x: eps / 2 * mpmath.exp(-eps * abs(x - mean))
        lo = -mpmath.inf if ev.lo is None else float(ev.lo)
        hi = mpmath.inf if ev.hi is None else float(ev.hi)
        return float(mpmath.quad(f, [lo, float(mean), hi] if (lo < float(mean) < hi) else [lo, hi]))
    assert prob(float(cex.input["q[1]"])) == pytest.approx(cex.p(eps), rel=1e-9)
    assert prob(float(cex.neighbour["q[1]"])) == pytest.approx(cex.q(eps), rel=1e-9)
    assert_counterexample_simulates(claim, cex)


# --------------------------------------------------------------------------- randomized response


@pytest.mark.parametrize("p", [Fraction(3, 4), Fraction(2, 3), Fraction(4, 5), Fraction(7, 10)])
def test_randomized_response_coin_tight_eps_is_ln_p_over_1_minus_p(p):
    claim = load_privacy_claim(os.path.join(THEORIES, "randomized_response_coin_privacy.toml"), {"p": p})
    loss = privacy_loss(claim)
    assert loss.constant == p / (1 - p)
    # the attaining probabilities against simulation
    c = loss.constant_candidate
    s, t = frequency(claim.program, c.input, Fraction(1), c.output, 200_000)
    w = wilson(s, t, 0.999)
    assert w.low <= float(constant(c.p)) <= w.high
    # ln(p/(1-p)) holds exactly; any smaller rational budget fails
    assert check_dp(claim).verified == (p / (1 - p) <= 3)


def constant(f):
    from dipc_plus.exact.log_point import constant_value
    return constant_value(f)


def test_randomized_response_coin_refuted_below_its_tight_eps(tmp_path):
    path = claim_file(tmp_path, "rr.toml", """
[program]
path = "@ROOT@/programs/randomized_response_coin.dip"
params = { p = "3/4" }
[privacy]
adjacency = "hamming"
budget = "ln(29/10)"
""")
    claim = load_privacy_claim(path)
    result = check_dp(claim)
    assert not result.verified
    cex = result.counterexample
    assert constant(cex.p) / constant(cex.q) == 3
    assert_counterexample_simulates(claim, cex, 200_000)


def test_randomized_response_eps_is_tight():
    claim = load_privacy_claim(os.path.join(THEORIES, "randomized_response_privacy.toml"))
    assert check_dp(claim).verified
    loss = privacy_loss(claim)
    assert loss.sup.value == 1


def test_randomized_response_eps_claim_fails_near_zero_for_a_fixed_coin(tmp_path):
    """A fixed coin is not eps-DP for small eps: the witness eps is below ln 3."""
    path = claim_file(tmp_path, "rr.toml", """
[program]
path = "@ROOT@/programs/randomized_response_coin.dip"
[privacy]
adjacency = "hamming"
budget = "eps"
""")
    result = check_dp(load_privacy_claim(path))
    assert not result.verified
    assert result.counterexample.eps < Fraction(11, 10)  # ln 3 = 1.0986...


# --------------------------------------------------------------------------- Lyu, Su and Li's SVT variants


def test_svt_alg1_and_alg2_are_private():
    for name in ("svt_lyu_alg1", "svt_lyu_alg2"):
        path = os.path.join(THEORIES, f"{name}_privacy.toml")
        claim = load_privacy_claim(path, {"m": 2})
        result = check_dp(claim)
        assert result.verified, name
        assert result.decisions > 0


@pytest.mark.parametrize("name", ["svt_lyu_alg3", "svt_lyu_alg4", "svt_lyu_alg6"])
def test_broken_svt_refuted_and_counterexample_simulates(name):
    claim = load_privacy_claim(os.path.join(THEORIES, f"{name}_privacy.toml"))
    result = check_dp(claim)
    assert not result.verified
    w1, w2 = assert_counterexample_simulates(claim, result.counterexample)


def test_svt_alg5_refuted_with_an_impossible_output():
    claim = load_privacy_claim(os.path.join(THEORIES, "svt_lyu_alg5_privacy.toml"))
    result = check_dp(claim)
    assert not result.verified
    cex = result.counterexample
    assert ExpFrac.of(cex.q).is_zero() and not ExpFrac.of(cex.p).is_zero()
    s, t = frequency(claim.program, cex.neighbour, cex.eps, cex.output)
    assert s == 0
    s, t = frequency(claim.program, cex.input, cex.eps, cex.output)
    assert s > 0
    assert privacy_loss(claim).infinite is not None


def test_svt_alg3_loss_grows_with_the_number_of_queries():
    path = os.path.join(THEORIES, "svt_lyu_alg3_privacy.toml")
    sups = [privacy_loss(load_privacy_claim(path, {"m": m})).sup.value for m in (2, 3)]
    assert sups == [1, Fraction(3, 2)]


def test_svt_alg4_loss_exceeds_eps_but_not_lyu_bound():
    claim = load_privacy_claim(os.path.join(THEORIES, "svt_lyu_alg4_privacy.toml"), {"m": 2})
    loss = privacy_loss(claim)
    s = loss.sup
    lo = s.value if s.value is not None else s.lo
    hi = s.value if s.value is not None else s.hi
    assert 1 < lo <= hi <= Fraction(7, 4)


# --------------------------------------------------------------------------- (eps, delta)


def test_delta_relaxes_the_claim(tmp_path):
    """RR with a 3/4 coin: (0, delta)-DP needs delta >= 3/4 - 1/4 = 1/2, exactly."""
    body = """
[program]
path = "@ROOT@/programs/randomized_response_coin.dip"
[privacy]
adjacency = "hamming"
budget = "0*eps"
delta = "DELTA"
"""
    ok = load_privacy_claim(claim_file(tmp_path, "a.toml", body.replace("DELTA", "1/2")))
    bad = load_privacy_claim(claim_file(tmp_path, "b.toml", body.replace("DELTA", "49/100")))
    assert check_dp(ok).verified
    assert not check_dp(bad).verified


def test_delta_on_an_eps_interval(tmp_path):
    """Randomized response (eps) against budget eps/2 on (0, 2]: the gap
    p - e^(eps/2) q = (e^eps - e^(eps/2))/(1 + e^eps) increases to 0.5568... at eps = 2, so
    delta = 3/5 suffices and delta = 1/2 fails (near eps = 2)."""
    body = """
[program]
path = "@ROOT@/programs/randomized_response.dip"
[privacy]
adjacency = "hamming"
budget = "eps/2"
delta = "DELTA"
eps = "(0, 2]"
"""
    assert check_dp(load_privacy_claim(claim_file(tmp_path, "a.toml", body.replace("DELTA", "3/5")))).verified
    res = check_dp(load_privacy_claim(claim_file(tmp_path, "b.toml", body.replace("DELTA", "1/2"))))
    assert not res.verified
    eps = float(res.counterexample.eps)
    assert 1 < eps <= 2
    gap = (math.exp(eps) - math.exp(eps / 2)) / (1 + math.exp(eps))
    assert gap > 0.5


# --------------------------------------------------------------------------- discrete mechanisms at eps = ln 2


def faier_row(x: int) -> list:
    """FAIER's truncated 1/2-geometric rows over {0, 1, 2} (Fig. 1a), written out."""
    return {0: [Fraction(2, 3), Fraction(1, 6), Fraction(1, 6)], 1: [Fraction(1, 3)] * 3,
            2: [Fraction(1, 6), Fraction(1, 6), Fraction(2, 3)]}[x]


def faier_noisy_max(v: list, improved: bool) -> dict:
    """FAIER's Algorithms 2 and 3 by enumeration of the noisy values (independent of the
    DTMC): {index: probability}."""
    import itertools
    out: dict = {}
    for noisy in itertools.product(range(3), repeat=len(v)):
        w = Fraction(1)
        for x, y in zip(v, noisy):
            w *= faier_row(x)[y]
        best = max(noisy)
        ties = [i + 1 for i, y in enumerate(noisy) if y == best]
        if improved:
            for i in ties:
                out[i] = out.get(i, 0) + w / len(ties)
        else:
            out[ties[0]] = out.get(ties[0], 0) + w
    return out


@pytest.mark.parametrize("variant,ratio", [("naive", Fraction(8)), ("improved", Fraction(24, 7))])
def test_discrete_noisy_max_tight_loss_at_ln2(variant, ratio):
    claim = load_privacy_claim(os.path.join(THEORIES, f"discrete_noisy_max_{variant}_privacy.toml"))
    result = check_dp(claim)
    assert not result.verified
    cex = result.counterexample
    improved = variant == "improved"
    u = [cex.input[f"v[{i}]"] for i in (1, 2, 3)]
    w = [cex.neighbour[f"v[{i}]"] for i in (1, 2, 3)]
    out = cex.output["out"]
    assert faier_noisy_max(u, improved)[out] == cex.p_at
    assert faier_noisy_max(w, improved).get(out, 0) == cex.q_at
    assert cex.p_at > 2 * cex.q_at
    loss = privacy_loss(claim)
    assert loss.point_ratio == ratio
    c = loss.point_candidate
    pu = faier_noisy_max([c.input[f"v[{i}]"] for i in (1, 2, 3)], improved)
    pw = faier_noisy_max([c.neighbour[f"v[{i}]"] for i in (1, 2, 3)], improved)
    assert pu[c.output["out"]] / pw[c.output["out"]] == ratio
    # brute force over every pair at L-inf distance 1 with the independent enumeration
    import itertools
    best = Fraction(0)
    for a in itertools.product(range(3), repeat=3):
        pa = faier_noisy_max(list(a), improved)
        for b in itertools.product(*[[y for y in range(3) if abs(y - x) <= 1] for x in a]):
            pb = faier_noisy_max(list(b), improved)
            for k, val in pa.items():
                best = max(best, val / pb[k])
    assert best == ratio


def test_discrete_above_threshold_loss_is_m_ln2():
    path = os.path.join(THEORIES, "discrete_above_threshold_privacy.toml")
    for m in (2, 4, 5):
        claim = load_privacy_claim(path, {"m": m})
        assert privacy_loss(claim).point_ratio == 2 ** m
        assert check_dp(claim).verified == (m <= 4)


def test_discrete_above_threshold_faier_family_ratio():
    """FAIER's bot^n top at r = 1^n 2 against 2^n 1, t = 2, as a closed form in eps, equals
    the paper's expression at alpha = 1/2."""
    import dipc_plus
    from dipc_plus.exact.log_point import value_at_log
    for n in (1, 2, 3):
        prog = dipc_plus.load(os.path.join(ROOT, "programs/discrete_above_threshold.dip"), m=n + 1, T=2)
        d = prog.distribution(r=[1] * n + [2])
        d2 = prog.distribution(r=[2] * n + [1])
        key = ("bot",) * n + ("top",)
        p = value_at_log(d[key].value if hasattr(d[key], "value") else d[key], Fraction(2))
        q = value_at_log(d2[key].value if hasattr(d2[key], "value") else d2[key], Fraction(2))
        paper_p = Fraction(3, 20) * Fraction(1, 3) ** n * Fraction(5, 6) + Fraction(4, 5) * Fraction(2, 3) ** n * Fraction(2, 3)
        paper_q = Fraction(3, 20) * Fraction(1, 6) ** n * Fraction(2, 3) + Fraction(4, 5) * Fraction(1, 3) ** n * Fraction(1, 3)
        assert (p, q) == (paper_p, paper_q)
        assert p / q > Fraction(16, 11) * 2 ** n


def test_loss_envelope_and_sup_against_a_float_scan():
    """SVT Alg. 6, m = 3: the envelope L(eps) equals the largest log-ratio over every pair and
    output (evaluated in floating point from the exact tables), and the certified enclosure of
    sup L(eps)/eps contains the maximum of a fine float scan."""
    from dipc_plus.privacy.dp.plan import plan, unit_pairs
    claim = load_privacy_claim(os.path.join(THEORIES, "svt_lyu_alg6_privacy.toml"))
    loss = privacy_loss(claim)
    pl = plan(claim, True)
    unit = pl.units[0]
    ratios = []
    for u, w in unit_pairs(unit, claim.adjacency):
        P, Q = unit.table(u), unit.table(w)
        ratios += [(P[v], Q[v]) for v in P if v in Q]
    xs = [0.05 * k for k in range(1, 100)]
    best = []
    for x in xs:
        m = max(math.log(p(x) / q(x)) for p, q in ratios)
        env = max(math.log(pc.candidate.ratio(x)) for pc in loss.pieces)
        assert env == pytest.approx(m, rel=1e-9, abs=1e-12)
        best.append(m / x)
    scan = max(best)
    s = loss.sup
    assert s.value is None and scan <= float(s.hi) + 1e-9          # every value is below the sup
    at = float(s.at_eps)                                             # the certified lower bound is a value
    g = max(math.log(p(at) / q(at)) for p, q in ratios) / at
    assert g == pytest.approx(float(s.lo), abs=1e-9)
    assert float(s.hi) - float(s.lo) < 1e-4
    # a finer scan around the maximiser stays inside the enclosure
    fine = max(max(math.log(p(x) / q(x)) for p, q in ratios) / x for x in [at - 0.01 + 0.0005 * k for k in range(41)])
    assert float(s.lo) - 1e-9 <= fine <= float(s.hi) + 1e-9
