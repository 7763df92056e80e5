"""When certification is hard: raise the precision, decide exactly where possible, and otherwise
stop with exit 2 and a message -- never a traceback, never exit 1 (issue 8, item 4).

* SVT Alg. 4 with m = 4, c = 2 crashed with a CertificationError traceback: its sup L/eps
  is the limit at eps -> 0, 507/226, now proved exactly ((ln r)' <= 507/226, decided);
* a mechanism whose violation lives in an eps window of width 4e-5 around ln 20: the
  privacy check finds eps inside the window, the loss decides the budget exactly, and
  the printed enclosure contains the maximum computed with mpmath;
* a branch and bound that runs out of boxes returns a wider, still certified enclosure;
  one that finds no bound, or a CertificationError, ends with exit 2 and a message.
"""
from __future__ import annotations

import math
import os
from fractions import Fraction

import mpmath
import pytest

from dipc_plus.cli import main
from dipc_plus.decision.decide import CertificationError
from dipc_plus.decision import sup_ratio as sup_module
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.privacy.loss.tight import privacy_loss
from conftest import ROOT

SVT4 = os.path.join(ROOT, "theories", "svt_lyu_alg4_privacy.toml")
SVT4_PROGRAM = os.path.join(ROOT, "programs", "svt_lyu_alg4.dip")
mpmath.mp.dps = 50

# P[a | x = 1] / P[a | x = 0] = 40 t^2 / (t^2 + 400 - c) with t = e^eps: it exceeds e^eps only where
# t^3 - 40 t^2 + (400 - c) t < 0, i.e. |t - 20| < sqrt(c) = 4e-4, an eps window of width ~4e-5.
NARROW = """\
param c = 1/6250000
type O = {a, b}
distribution m1() over O { a: 40*exp(2*eps); b: exp(2*eps) + 400 }
distribution m0() over O { a: exp(2*eps) + 400 - c; b: 40*exp(2*eps) + c }
input  x: 0..1
output o: O
if x == 1 then
    o <- choose(m1())
else
    o <- choose(m0())
end
"""

NARROW_CLAIM = """\
[program]
path = "narrow.dip"
[privacy]
adjacency = "hamming"
budget = "eps"
eps = "[2, 4]"
"""


@pytest.fixture
def narrow(tmp_path):
    (tmp_path / "narrow.dip").write_text(NARROW)
    (tmp_path / "narrow.toml").write_text(NARROW_CLAIM)
    return str(tmp_path / "narrow.dip"), str(tmp_path / "narrow.toml")


C = mpmath.mpf(1) / 6250000


def ratio_a(x):
    """P[o = a | x = 1] / P[o = a | x = 0] (both inputs have total weight 41 t^2 + 400)."""
    t2 = mpmath.exp(2 * x)
    return 40 * t2 / (t2 + 400 - C)


def ratio_b(x):
    """P[o = b | x = 0] / P[o = b | x = 1]."""
    t2 = mpmath.exp(2 * x)
    return (40 * t2 + C) / (t2 + 400)


def g_mp(x):
    """ln(P[a | 1] / P[a | 0]) / eps, in mpmath."""
    return mpmath.log(ratio_a(x)) / x


def mp_ratio(f, x):
    def h(p):
        total = mpmath.mpf(0)
        for q, poly in p.terms.items():
            acc = mpmath.mpf(0)
            for c in reversed(poly.coeffs()):
                acc = acc * x + mpmath.mpf(int(c.p)) / int(c.q)
            total += acc * mpmath.exp(mpmath.mpf(q.numerator) / q.denominator * x)
        return total
    return h(f.num) / h(f.den)


def test_svt_alg4_m4_c2_is_exact_and_exits_0(capsys):
    assert main(["privacy-loss", SVT4_PROGRAM, SVT4, "--set", "m=4", "--set", "c=2"]) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    assert "sup L(eps)/eps = 507/226" in out.out
    res = privacy_loss(load_privacy_claim(SVT4, {"m": 4, "c": 2}))
    assert res.sup.value == Fraction(507, 226)
    # independent: ln r / eps tends to 507/226 at 0 and stays below it (mpmath, 50 digits)
    r = res.sup.candidate.ratio
    k = mpmath.mpf(507) / 226
    g = lambda x: mpmath.log(mp_ratio(r, x)) / x
    assert abs(g(mpmath.mpf("1e-20")) - k) < mpmath.mpf("1e-18")
    for x in ["1e-6", "1e-3", "0.01", "0.1", "0.5", "1", "3", "10", "40"]:
        assert g(mpmath.mpf(x)) < k


def test_narrow_window_privacy_is_refuted_inside_the_window(narrow):
    program, claim_path = narrow
    res = check_dp(load_privacy_claim(claim_path))
    assert not res.verified
    eps = res.counterexample.eps
    assert abs(float(eps) - math.log(20)) < 4e-5
    assert res.counterexample.p_at > res.counterexample.bound_at      # re-checked balls
    # mpmath, 50 digits: the counterexample's ratio exceeds e^eps there; 1e-4 away from ln 20
    # neither ratio does
    x = mpmath.mpf(eps.numerator) / eps.denominator
    ratio = ratio_a if res.counterexample.output == {"o": "a"} else ratio_b
    assert ratio(x) > mpmath.exp(x)
    for far in (mpmath.log(20) - mpmath.mpf("1e-4"), mpmath.log(20) + mpmath.mpf("1e-4")):
        assert ratio_a(far) < mpmath.exp(far) and ratio_b(far) < mpmath.exp(far)


def test_narrow_window_loss_decides_the_budget_and_encloses_the_max(narrow, capsys):
    program, claim_path = narrow
    assert main(["privacy-loss", program, claim_path]) == 0
    out = capsys.readouterr().out
    assert "the claimed budget eps fails on these inputs (decided exactly" in out
    res = privacy_loss(load_privacy_claim(claim_path))
    x = mpmath.findroot(lambda y: mpmath.diff(g_mp, y), mpmath.log(20))
    true = g_mp(x)
    assert true > 1
    lo, hi = res.sup.lo, res.sup.hi
    assert mpmath.mpf(lo.numerator) / lo.denominator <= true <= mpmath.mpf(hi.numerator) / hi.denominator


def test_out_of_boxes_gives_a_wider_certified_enclosure(monkeypatch):
    monkeypatch.setattr(sup_module, "MAX_BOXES", 100)
    res = privacy_loss(load_privacy_claim(SVT4, {"m": 3}))
    s = res.sup
    assert not s.converged and "not reached" in s.how
    g = lambda x: mpmath.log(mp_ratio(s.candidate.ratio, x)) / x
    true = g(mpmath.findroot(lambda x: mpmath.diff(g, x), mpmath.mpf("0.397")))
    assert mpmath.nstr(true, 11) == "1.4456559653"
    assert mpmath.mpf(s.lo.numerator) / s.lo.denominator <= true <= mpmath.mpf(s.hi.numerator) / s.hi.denominator


def test_no_bound_at_all_is_exit_2(monkeypatch, capsys):
    monkeypatch.setattr(sup_module, "_enclose_at", lambda *a, **k: None)
    assert main(["privacy-loss", SVT4_PROGRAM, SVT4]) == 2
    err = capsys.readouterr().err
    assert "no certified bound" in err and "Traceback" not in err


def test_certification_error_is_exit_2_not_1(monkeypatch, capsys):
    import dipc_plus.privacy.loss.tight as loss_module

    def broken(*a, **k):
        raise CertificationError("two certified signs disagree")
    monkeypatch.setattr(loss_module, "privacy_loss", broken)
    assert main(["privacy-loss", SVT4_PROGRAM, SVT4]) == 2
    err = capsys.readouterr().err
    assert "could not be certified" in err and "Traceback" not in err
    import dipc_plus.privacy.dp.check as check_module
    monkeypatch.setattr(check_module, "check_dp", broken)
    assert main(["privacy", SVT4_PROGRAM, SVT4]) == 2
    assert "could not be certified" in capsys.readouterr().err
