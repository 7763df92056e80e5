"""Every printed interval contains the true value (issue 8, item 3).

The printer (`exact.decimals`) rounds the lower end down and the upper end up, exactly.
The printed enclosures of sup L(eps)/eps (privacy-loss, text and JSON), of logarithms
and of kappa* (sweep) are compared with an independent 50-digit mpmath evaluation of
the same closed forms.  Before the fix SVT Alg. 4 with m = 3 printed
[1.445656, 1.445666] while the true maximum is 1.4456559653...
"""
from __future__ import annotations

import json
import os
import random
import re
from fractions import Fraction

import mpmath
import pytest
from flint import arb

from dipc_plus.cli import main
from dipc_plus.exact.decimals import decimal_down, decimal_up, enclosure_text
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.display import log_text
from dipc_plus.privacy.loss.tight import privacy_loss
from conftest import ROOT

SVT4 = os.path.join(ROOT, "theories", "svt_lyu_alg4_privacy.toml")
SVT4_PROGRAM = os.path.join(ROOT, "programs", "svt_lyu_alg4.dip")
mpmath.mp.dps = 50


def parse_enclosure(text: str) -> tuple[Fraction, Fraction]:
    """The rational ends of a printed '[a, b]' or '[m +/- r]', read back for the comparisons."""
    s = text.strip()
    if not (s.startswith("[") and s.endswith("]")):
        raise ValueError(f"not an enclosure: {text!r}")
    body = s[1:-1]
    if "+/-" in body:
        m, r = (Fraction(p.strip()) for p in body.split("+/-"))
        return m - r, m + r
    a, b = (Fraction(p.strip()) for p in body.split(","))
    return a, b


def test_parse_enclosure_reads_both_forms():
    assert parse_enclosure("[0.25, 0.5]") == (Fraction(1, 4), Fraction(1, 2))
    assert parse_enclosure("[1 +/- 0.5]") == (Fraction(1, 2), Fraction(3, 2))


def mp(x) -> mpmath.mpf:
    """A rational as a 50-digit mpmath number (printed decimals are exact at this precision)."""
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def mp_exppoly(h, x):
    """sum_q P_q(x) e^(q x) in mpmath, from the exact coefficients (independent of arb)."""
    total = mpmath.mpf(0)
    for q, poly in h.terms.items():
        acc = mpmath.mpf(0)
        for c in reversed(poly.coeffs()):
            acc = acc * x + mpmath.mpf(int(c.p)) / int(c.q)
        total += acc * mpmath.exp(mpmath.mpf(q.numerator) / q.denominator * x)
    return total


def mp_ratio(f, x):
    return mp_exppoly(f.num, x) / mp_exppoly(f.den, x)


def true_sup_loss_over_eps(r, near: float):
    """max of ln r(eps)/eps near `near`, to 50 digits (a zero of the derivative by findroot)."""
    g = lambda x: mpmath.log(mp_ratio(r, x)) / x
    x = mpmath.findroot(lambda x: mpmath.diff(g, x), mpmath.mpf(near))
    # it is a maximum: the neighbours are lower
    assert g(x) >= g(x * (1 + mpmath.mpf(10) ** -6)) and g(x) >= g(x * (1 - mpmath.mpf(10) ** -6))
    return g(x)


def test_decimal_rounding_is_outward_and_tight():
    rng = random.Random(3)
    for _ in range(3000):
        x = Fraction(rng.randint(-10 ** 12, 10 ** 12), rng.randint(1, 10 ** rng.randint(1, 20)))
        digits = rng.randint(1, 15)
        down, up = Fraction(decimal_down(x, digits)), Fraction(decimal_up(x, digits))
        assert down <= x <= up
        if x:
            e = mpmath.floor(mpmath.log10(abs(mpmath.mpf(x.numerator) / x.denominator)))
            assert up - down <= Fraction(10) ** (int(e) - digits + 2)
    assert decimal_down(Fraction(14456559653, 10 ** 10), 7) == "1.445655"
    assert decimal_up(Fraction(14456559653, 10 ** 10), 7) == "1.445656"
    assert enclosure_text(Fraction(5), Fraction(5)) == "[5, 5]"
    lo, hi = parse_enclosure(enclosure_text(arb(2).sqrt()))
    assert mp(lo) <= mpmath.sqrt(2) <= mp(hi)


@pytest.mark.parametrize("m", [3, pytest.param(4, marks=pytest.mark.long)])   # m = 4: the same interior maximum, larger
def test_svt_alg4_sup_enclosure_contains_the_true_maximum(m, capsys):
    claim = load_privacy_claim(SVT4, {"m": m})
    res = privacy_loss(claim)
    sup = res.sup
    assert sup.value is None                       # an interior maximum: an enclosure
    true = true_sup_loss_over_eps(ExpFrac_of(sup.candidate.ratio), float(sup.at_eps))
    assert mp(sup.lo) <= true <= mp(sup.hi)
    # the text and the JSON print an interval that still contains it
    assert main(["privacy-loss", SVT4_PROGRAM, SVT4, "--set", f"m={m}"]) == 0
    text = capsys.readouterr().out
    found = re.search(r"sup L\(eps\)/eps = in (\[[^\]]+\])", text)
    a, b = parse_enclosure(found.group(1))
    assert mp(a) <= true <= mp(b), (found.group(1), mpmath.nstr(true, 20))
    assert main(["privacy-loss", SVT4_PROGRAM, SVT4, "--set", f"m={m}", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    a, b = (Fraction(x) for x in out["sup_loss_over_eps_enclosure"])
    assert mp(a) <= true <= mp(b)
    a, b = parse_enclosure(out["sup_loss_over_eps"][3:])
    assert mp(a) <= true <= mp(b)


def ExpFrac_of(r):
    from dipc_plus.exact.expoly import ExpFrac
    return ExpFrac.of(r)


def test_m3_lower_end_is_below_the_true_maximum_1_4456559653():
    """The audit's numbers: the old printout's lower end 1.445656 was above the maximum."""
    res = privacy_loss(load_privacy_claim(SVT4, {"m": 3}))
    true = true_sup_loss_over_eps(ExpFrac_of(res.sup.candidate.ratio), float(res.sup.at_eps))
    assert mpmath.nstr(true, 11) == "1.4456559653"
    assert mp(decimal_down(res.sup.lo)) <= true <= mp(decimal_up(res.sup.hi))


@pytest.mark.parametrize("x", [Fraction(256), Fraction(24, 7), Fraction(3), Fraction(1, 3), Fraction(10 ** 20 + 1)])
def test_log_enclosures(x):
    a, b = parse_enclosure(log_text(x))
    true = mpmath.log(mpmath.mpf(x.numerator) / x.denominator)
    assert mp(a) <= true <= mp(b) and b - a < Fraction(1, 10 ** 9) * max(1, abs(Fraction(a)))


def test_sweep_kappa_star_enclosure_contains_the_true_infimum(capsys):
    """dipc sweep on Sparse (c = 1): the printed enclosure of kappa* and the truncated value,
    against the infimum of beta/P[error] computed with mpmath at 50 digits."""
    from dipc_plus.accuracy.checker import AccuracyChecker
    from dipc_plus.accuracy.sweep import sweep
    from dipc_plus.claims.claim_file import load_claim
    from dipc_plus.exact.expoly import ExpFrac
    path = os.path.join(ROOT, "theories", "sparse.toml")
    res = sweep(AccuracyChecker(load_claim(path, {"c": 1})))
    star = res.kappa_star
    rep = star.at.report
    ratio = ExpFrac.of(rep.bound) / rep.p_error
    if star.at.kind == "critical":
        x0 = mpmath.mpf(star.at.root.lo.numerator) / star.at.root.lo.denominator
        f = lambda x: mp_ratio(ratio, x)
        x = mpmath.findroot(lambda x: mpmath.diff(f, x), x0)
        true = f(x)
    else:
        pytest.skip("kappa* is not interior here")
    assert mp(star.lo) <= true <= mp(star.hi)
    assert main(["sweep", os.path.join(ROOT, "programs/sparse.dip"), path, "--set", "c=1", "--json",
                 "--no-progress"]) in (0, 1)
    out = json.loads(capsys.readouterr().out)
    a, b = (Fraction(x) for x in out["kappa_star_detail"]["enclosure"])
    assert mp(a) <= true <= mp(b)
    assert mp(out["kappa_star"]) <= true          # truncated: a certified lower bound


def test_simulation_confidence_intervals_are_printed_outward():
    # a statistical interval is a bound too: its printed ends enclose the computed ones
    from fractions import Fraction
    from dipc_plus.commands.simulate import _interval_text
    from dipc_plus.semantics.stats import Interval as CI
    for low, high in [(0.123456789, 0.987654321), (0.4999996, 0.5000004), (1e-9, 1 - 1e-9)]:
        for text in (str(CI(low, high, 0.95)), _interval_text((low, high))):
            lo, hi = (Fraction(x) for x in text.strip("[]").split(", "))
            assert lo <= Fraction(low) and hi >= Fraction(high), text
