"""The kappa sweep and kappa* (dipc_plus.accuracy.sweep, `dipc sweep`).

kappa* is cross-checked against a brute-force float scan of beta/P[error] (a
cross-check only: the verdicts come from the certified procedure), the place
where it is reached against a float minimiser, best_kappa against the decision
procedure at best_kappa and best_kappa + 1, and the counterexample for
best_kappa + 1 against the sampler.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction as F

import numpy as np
import pytest
from scipy import optimize

from dipc_plus import cli
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.simulate import simulate_error
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.accuracy.sweep import kappa_star, outward, sweep, truncated_decimal
from conftest import ROOT, THEORIES



def checker(name, params=None, **kw):
    return AccuracyChecker(load_claim(str(THEORIES / name), params), **kw)


def float_scan(reports, lo=1e-3, hi=300.0):
    """min over reports of beta/P_err on a fine grid, polished by a bounded float minimiser."""
    best = (math.inf, None, None)
    xs = np.geomspace(lo, hi, 1200)
    for r in reports:
        if not r.applies or r.p_error.is_zero():
            continue
        ratio = lambda e, r=r: float(r.beta(e)) / float(r.p_error(e))  # noqa: E731
        ys = np.array([ratio(x) for x in xs])
        k = int(np.nanargmin(ys))
        a, b = xs[max(k - 1, 0)], xs[min(k + 1, len(xs) - 1)]
        res = optimize.minimize_scalar(ratio, bounds=(a, b), method="bounded", options={"xatol": 1e-10})
        value, where = min((ys[k], xs[k]), (res.fun, res.x))
        if value < best[0]:
            best = (value, where, r)
    return best


@pytest.mark.parametrize("name, params", [("sparse.toml", {"c": F(1)}), ("sparse.toml", {"c": F(2)}),
                                          ("noisy_max.toml", {}), ("sparse_variant.toml", {"c": F(2)})])
def test_best_kappa_against_a_float_scan(name, params):
    ch = checker(name, params)
    res = sweep(ch, digits=8)
    scan, where, rep = float_scan(ch.run().reports)   # a second run that keeps every report
    star = res.kappa_star
    # the certified infimum is below every sampled ratio and agrees with the polished minimum
    assert float(star.lo) <= scan * (1 + 1e-12)
    assert float(star.hi) == pytest.approx(scan, rel=1e-7)
    assert res.best_kappa == math.floor(scan)
    # it is an interior minimum here: the critical point agrees with the minimiser
    assert star.at.kind == "critical"
    assert float(star.at.root.ball(64).mid()) == pytest.approx(where, rel=1e-4)
    # the printed digits are a truncation of the certified value
    assert float(star.text) <= float(star.lo) < float(star.text) + 10 ** (math.floor(math.log10(scan)) - 7)
    # decided again: beta/best holds everywhere, beta/(best+1) fails at the counterexample
    assert res.confirmed.verdict == "verified"
    cex = res.counterexample
    assert cex.kappa == res.best_kappa + 1 and cex.error_ball > cex.bound_ball


def test_counterexample_for_kappa_plus_one_against_the_sampler():
    res = sweep(checker("sparse.toml", {"c": F(1)}))
    cex = res.counterexample
    det = res.base.claim.det_at(cex.input)
    freq = simulate_error(res.base.claim, cex.input, det, cex.gamma, cex.eps, 200_000, seed=5)
    ci = freq.interval(0.999)
    assert ci.low > float(cex.bound_ball.mid())
    assert ci.low <= float(cex.error_ball.mid()) <= ci.high


def test_laplace_kappa_star_is_one_approached_at_infinity():
    """P_err = 1 - (1 - e^-(gamma eps))^2, beta = 2 e^-(gamma eps): the ratio 2/(2 - e^-(gamma eps)) > 1
    tends to 1 as eps -> inf, so kappa = 1 holds and kappa = 2 fails."""
    ch = checker("laplace.toml")
    res = sweep(ch)
    star = res.kappa_star
    assert star.exact and star.lo == star.hi == 1 and star.at.kind == "eps->inf"
    assert res.best_kappa == 1 and res.counterexample.kappa == 2
    scan, _, _ = float_scan(ch.run().reports, hi=60)
    assert scan >= 1 and scan == pytest.approx(1, abs=1e-12)


def test_limit_at_zero_is_exact(tmp_path):
    """A constant beta makes the ratio largest... no: smallest where P_err is largest, at eps -> 0,
    where P_err tends to a rational: kappa* is that exact rational."""
    text = (THEORIES / "sparse.toml").read_text().replace('path = "../programs', f'path = "{ROOT}/programs')
    text = text.replace('beta = "2*m*c*exp(-alpha*eps/(8*c))"', 'beta = "1 + 0*alpha"').replace("c = 2", "c = 1")
    path = tmp_path / "constant.toml"
    path.write_text(text)
    res = sweep(AccuracyChecker(load_claim(str(path))), digits=12)
    star = res.kappa_star
    assert star.exact and star.at.kind == "eps->0"
    rep = star.at.report
    p0 = float(rep.p_error(1e-9))
    assert float(star.lo) == pytest.approx(1 / p0, rel=1e-7)
    assert res.best_kappa == math.floor(1 / p0)


def test_minimum_at_a_finite_end_of_the_interval(tmp_path):
    text = (THEORIES / "sparse.toml").read_text().replace('path = "../programs', f'path = "{ROOT}/programs')
    text = text.replace('eps = "(0, inf)"', 'eps = "[2, 5]"').replace("c = 2", "c = 1")
    path = tmp_path / "window.toml"
    path.write_text(text)
    ch = AccuracyChecker(load_claim(str(path)))
    res = sweep(ch, digits=8)
    star = res.kappa_star
    # the ratio at q=[-1,-1,1] has its minimum near 1.756, so on [2, 5] it is smallest at eps = 2
    scan, where, _ = float_scan(ch.run().reports, lo=2, hi=5)
    assert star.at.kind == "end" and star.at.eps == 2 and star.at.closed
    assert float(star.lo) == pytest.approx(scan, rel=1e-9)
    assert res.counterexample is None or ch.claim.eps.contains(res.counterexample.eps)


def test_vacuous_claim_has_infinite_kappa_star():
    ch = checker("numeric_sparse_cor7.toml")
    pts = [p for p in ch.claim.points if all(abs(v) <= 1 for v in p.values())][:10]
    res = sweep(ch, points=pts, kappa_max=50)
    assert res.kappa_star.infinite and res.best_kappa == 50 and res.capped and res.counterexample is None


def test_truncated_decimals():
    assert truncated_decimal(F(63758, 10000), F(63759, 10000), 4) == "6.375"
    assert truncated_decimal(F(1), F(1), 3) == "1.00"
    assert truncated_decimal(F(1234), F(1235), 2) == "1200"
    assert truncated_decimal(F(99, 100), F(101, 100), 3) is None
    assert truncated_decimal(F(123, 100000), F(124, 100000), 2) == "0.0012"
    lo, hi = outward(F(1, 3), F(1, 3), 5)
    assert F(lo) <= F(1, 3) <= F(hi) and lo == "0.33333" and hi == "0.33334"


def test_cli_sweep_json_and_exit_codes(capsys):
    prog, claim = str(ROOT / "programs/sparse.dip"), str(THEORIES / "sparse.toml")
    code = cli.main(["sweep", prog, claim, "--set", "c=1", "--json", "--digits", "9"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["verdict"] == "verified"
    assert isinstance(data["best_kappa"], int) and data["best_kappa"] == math.floor(float(data["kappa_star"]))
    assert len(data["kappa_star"].replace(".", "").lstrip("0")) == 9
    assert data["counterexample"]["kappa"] == data["best_kappa"] + 1
    assert F(data["counterexample"]["eps"]) > 0
    assert data["kappa_star_detail"]["at"]["where"] == "interior"
    code = cli.main(["sweep", prog, claim, "--set", "c=1", "--json", "--kappa-max", "3"])
    data = json.loads(capsys.readouterr().out)
    # no kappa up to --kappa-max fails: a vacuous sweep, exit 5 naming --kappa-max (issue 30, point 3)
    assert code == 5 and data["best_kappa"] == 3 and data["best_kappa_capped"] and data["counterexample"] is None
    assert data["vacuity"]["field"] == "--kappa-max"
    assert cli.main(["sweep", prog, claim, "--digits", "0"]) == 2
    assert cli.main(["sweep", prog, claim, "--kappa-max", "0"]) == 2
    capsys.readouterr()


def test_kappa_star_of_one_input_equals_the_sweep_minimum():
    ch = checker("noisy_max.toml")
    res = sweep(ch)
    at = res.kappa_star.at.report
    alone = kappa_star([at], ch.claim.eps, digits=6)
    assert alone.text == res.kappa_star.text


@pytest.mark.parametrize("name, params", [("sparse.toml", {"c": F(1)}), ("noisy_max.toml", {})])
def test_streamed_candidates_give_the_kappa_star_of_every_report(name, params):
    """The sweep streams: each input's candidates are made where it is checked and dropped as soon
    as another candidate's enclosure lies below them.  The result is the one from every report."""
    streamed = sweep(checker(name, params), digits=10)
    kept = sweep(checker(name, params), digits=10, base=checker(name, params).run())
    assert streamed.kappa_star.to_json() == kept.kappa_star.to_json()
    assert streamed.best_kappa == kept.best_kappa
    assert streamed.counterexample.to_json() == kept.counterexample.to_json()


def test_the_candidate_pool_stays_small_on_a_grid():
    from dipc_plus.accuracy.sweep import CandidatePool, input_candidates
    ch = checker("sparse.toml", {"c": F(1), "m": F(5)})
    pool = CandidatePool()
    every = 0
    for r in ch.run().reports:
        found = input_candidates([r], ch.claim.eps)
        every += len(found)
        pool.add(found)
    # what stays are the candidates whose enclosures overlap the least (inputs with equal ratios)
    assert every > 150 and len(pool.kept) < every / 4, (len(pool.kept), every)
