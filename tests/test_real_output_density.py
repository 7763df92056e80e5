"""The density of a real output at a fixed input: its CDF pieces equal the per-point chain's
P[outcome, val <= w] exactly (an identity of closed forms in eps at rational w inside each cell
and on its boundary), the density is the CDF's numerical derivative (central differences of
the per-point CDF at high precision), and the densities integrate with the point masses to 1."""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from dipc_plus.exact.constraints import probability as per_point_probability
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.linear import LinForm, atom
from dipc_plus.frontend.load import load_program
from dipc_plus.semantics.distribution import output_distribution
from dipc_plus.semantics.real_output_density import real_output_densities
from dipc_plus.semantics.symbolic_chain import symbolic_paths
from conftest import PROGRAMS

CASES = [("bad_gap_sparse_vector", {"m": 3}, [0, 1, F(1, 2)]),
         ("svt_lyu_alg3", {"m": 2, "c": 1}, [1, 0]),
         ("numeric_sparse", {"m": 2, "c": 1}, [F(-1, 2), 1]),
         ("gap_above_threshold", {"m": 2}, [0, 1])]


def mp_value(form, w, eps) -> mpmath.mpf:
    """The closed form in (v, eps) at v = eps*w, in mpmath (w, eps any reals)."""
    eps, w = mpmath.mpf(eps.numerator) / eps.denominator, mpmath.mpf(w)
    v = eps * w
    total = mpmath.mpf(0)
    for (lv, le, powers), P in form.terms.items():
        poly = sum(mpmath.mpf(int(c.p)) / int(c.q) * eps ** k for k, c in enumerate(P.coeffs()))
        lin = sum((mpmath.mpf(a.numerator) / a.denominator for a in lv), mpmath.mpf(0))
        total += poly * v ** sum(powers) * mpmath.exp(lin * v + mpmath.mpf(le.numerator) / le.denominator * eps)
    return total


def mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def per_point_cdf(dist, outcome, w: F) -> ExpFrac:
    """P[outcome's finite and fixed outputs, its released output <= w] by the per-point chain."""
    idx = {n: i for i, n in enumerate(dist.names)}
    finite = dict(zip([n for n in dist.names if n not in dict(outcome.fixed) and n not in outcome.released
                       and not n.startswith("val")], outcome.finite))
    total = ExpFrac.of(ExpPoly.ZERO)
    for out, entry in dist.entries.items():
        vals = out.values
        if any(vals[idx[n]] != v for n, v in finite.items()):
            continue
        ok = True
        for n, v in outcome.fixed:
            x = vals[idx[n]]
            if v is None:
                ok = ok and x is None
            else:
                ok = ok and isinstance(x, LinForm) and x.is_constant() and x.const == v
        (r,) = outcome.released
        x = vals[idx[r]]
        if not ok or not isinstance(x, LinForm) or x.is_constant():
            continue
        extra = atom(x, "<=", LinForm.constant(w))
        p = ExpFrac.of(per_point_probability(list(out.constraints) + [extra], dist.noises))
        if not p.is_zero():
            total = total + entry.weight * p
    return total


@pytest.mark.parametrize("name,params,u", CASES)
def test_cdf_pieces_equal_the_per_point_cdf(name, params, u):
    program = load_program(str(PROGRAMS / f"{name}.dip"), params)
    dens = real_output_densities(symbolic_paths(program), u)
    dist = output_distribution(program, {"q": u})
    checked = 0
    for outcome, od in dens.items():
        if not outcome.released:
            continue
        for piece in od.cdf:
            ends = sorted({F(-h[-1], h[0]) for h, _ in piece.cell.constraints})
            points = list(ends) + [e + d for e in ends for d in (F(-3, 7), F(2, 5))] + [F(-9), F(11)]
            for w in points:
                if not piece.cell.contains([w]):
                    continue
                assert ExpFrac.of(piece.form.at([w])) == per_point_cdf(dist, outcome, w), (outcome, w)
                checked += 1
    assert checked >= 4 * len([o for o in dens if o.released])


@pytest.mark.parametrize("name,params,u", CASES)
def test_density_is_the_derivative_of_the_cdf_and_mass_is_one(name, params, u):
    program = load_program(str(PROGRAMS / f"{name}.dip"), params)
    dens = real_output_densities(symbolic_paths(program), u)
    dist = output_distribution(program, {"q": u})
    eps = F(7, 5)
    with mpmath.workdps(40):   # local: a global dps = 40 leaked into later tests of the same process
        _check_total(dens, dist, eps)


def _check_total(dens, dist, eps):
    total = mpmath.mpf(0)
    for outcome, od in dens.items():
        if not outcome.released:
            (piece,) = od.density
            total += mp_value(piece.form, 0, eps)
            continue

        def f(w, od=od):
            for pc in od.density:
                if all(h[0] * w + h[1] < 0 or (op == "<=" and h[0] * w + h[1] == 0)
                       for h, op in pc.cell.constraints):
                    return mp_value(pc.form, w, eps)
            raise AssertionError("no cell")
        kinks = sorted({F(-h[-1], h[0]) for pc in od.density for h, _ in pc.cell.constraints})
        for w in [k + d for k in kinks for d in (F(-1, 3), F(1, 4))]:
            h = F(1, 10 ** 8)
            up = per_point_cdf(dist, outcome, w + h).arb_value(eps, 200)
            down = per_point_cdf(dist, outcome, w - h).arb_value(eps, 200)
            numeric = mpmath.mpf((up - down).mid().str(40, radius=False)) / (2 * mp(h))
            exact = [pc.form.at([w]) for pc in od.density if pc.cell.contains([w])]
            assert len(exact) == 1
            assert abs(numeric - mpmath.mpf(exact[0].arb_value(eps, 200).mid().str(40, radius=False))) \
                < mpmath.mpf(10) ** -12, (outcome, w)
        pts = [-mpmath.inf] + [mp(k) for k in kinks] + [mpmath.inf]
        total += mpmath.quad(f, pts)
    assert abs(total - 1) < mpmath.mpf(10) ** -15
