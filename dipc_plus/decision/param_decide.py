"""Polynomial inequalities on a box of parameters, decided exactly.

Why it exists: a Pufferfish claim with symbolic prior parameters (p in (0, 1)) is a
polynomial inequality G(p, eps) >= 0 over the parameter box.  With one parameter and
rational coefficients it is decided exactly by exact real-root isolation (`decide` with the
parameter in the role of eps, after a shift into (0, inf)); otherwise by Bernstein
expansion with subdivision, every Bernstein coefficient decided exactly.  Both are
sound both ways; the subdivision has a budget, and running out of it is a
`UserError` (exit 2), never a guess.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb, prod

from flint import fmpq_poly

from dipc_plus.decision.bisection import SETTLED, SPLIT, halves, subdivide
from dipc_plus.decision.decide import Interval, decide, simplest_rational
from dipc_plus.errors import UserError
from dipc_plus.exact.convert import to_fmpq
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.param_poly import poly_eval


def nonneg_on_box(poly: dict, box: list) -> bool:
    """Is the rational polynomial >= 0 on the whole box [(lo, hi, lo closed, hi closed)]?

    (p - 1/2)^2 >= 0 on (0, 1), p^2 - p is not; p q >= 0 on (0, 1)^2, p q - 1/4 is not:

    >>> unit = (Fraction(0), Fraction(1), False, False)
    >>> square = {(2,): Fraction(1), (1,): Fraction(-1), (0,): Fraction(1, 4)}
    >>> nonneg_on_box(square, [unit]), nonneg_on_box({(2,): Fraction(1), (1,): Fraction(-1)}, [unit])
    (True, False)
    >>> nonneg_on_box({(1, 1): Fraction(1)}, [unit, unit]), nonneg_on_box({(1, 1): Fraction(1), (0, 0): Fraction(-1, 4)}, [unit, unit])
    (True, False)
    """
    if not box:
        return poly_eval(poly, ()) >= 0 if poly else True
    if len(box) == 1:
        return decide_univariate(poly, box[0]) is None
    return bernstein_decide(poly, box, rational=True, check=lambda c: c >= 0,
                            refute=lambda pt: pt if poly_eval(poly, pt) < 0 else None) is None


def decide_univariate(G: dict, rng) -> tuple | None:
    """G(p) >= 0 on the range, exactly: p = x + shift maps the range into (0, inf) and the
    polynomial sentence in x is decided by exact real-root isolation (decide, with x as its variable).

    p^2 - p < 0 on (0, 1), refuted at the simplest rational 1/2:

    >>> decide_univariate({(2,): Fraction(1), (1,): Fraction(-1)}, (Fraction(0), Fraction(1), False, False))
    ((Fraction(1, 2),), None)
    """
    lo, hi, lc, hc = rng
    shift = lo - 1
    coeffs = {e: c for (e,), c in G.items() if c != 0}
    if not coeffs:
        return None
    if set(coeffs) == {0}:
        return None if coeffs[0] >= 0 else ((simplest_in(lo, hi, lc, hc),), None)
    deg = max(coeffs)
    poly = fmpq_poly([to_fmpq(coeffs.get(i, Fraction(0))) for i in range(deg + 1)])
    moved = poly(fmpq_poly([to_fmpq(shift), 1]))
    f = ExpPoly({Fraction(0): moved})
    I = Interval(lo - shift, hi - shift, lc, hc)
    d = decide(f, ">=", I)
    if d.holds:
        return None
    w = d.witness
    return ((w + shift,), None)


def simplest_in(lo, hi, lc, hc) -> Fraction:
    """A simple rational inside the range (the simplest one when lo >= 0, else the midpoint).

    >>> simplest_in(Fraction(0), Fraction(1), False, False), simplest_in(Fraction(-1), Fraction(1), False, False)
    (Fraction(1, 2), Fraction(0, 1))
    """
    return simplest_rational(lo, hi, lc, hc) if lo >= 0 else (lo + hi) / 2


def _scaled(c, w: Fraction, rational: bool):
    """c * w for a rational or ExpFrac coefficient c."""
    return c * w if rational or not isinstance(c, ExpFrac) else c * ExpFrac.of(ExpPoly.const(w))


def _bernstein(G: dict, box: list, rational: bool) -> tuple[dict, list]:
    """Bernstein coefficients of G on the box (tensor form): {multi-index: value}."""
    n = len(box)
    degs = [max((m[i] for m in G), default=0) for i in range(n)]
    # substitute p_i = a_i + (b_i - a_i) t_i
    sub: dict = {}
    for m, c in G.items():
        parts = []
        for i, e in enumerate(m):
            a, b = box[i][0], box[i][1]
            h = b - a
            parts.append([(k, Fraction(comb(e, k)) * a ** (e - k) * h ** k) for k in range(e + 1)])
        for combo in itertools.product(*parts):
            idx = tuple(k for k, _ in combo)
            w = prod((x for _, x in combo), start=Fraction(1))
            term = _scaled(c, w, rational)
            sub[idx] = sub[idx] + term if idx in sub else term
    out = {}
    for K in itertools.product(*(range(d + 1) for d in degs)):
        total = None
        for J, c in sub.items():
            if all(j <= k for j, k in zip(J, K)):
                w = prod((Fraction(comb(k, j), comb(d, j)) for j, k, d in zip(J, K, degs)), start=Fraction(1))
                term = _scaled(c, w, rational)
                total = term if total is None else total + term
        out[K] = total if total is not None else (Fraction(0) if rational else ExpFrac.of(ExpPoly.ZERO))
    return out, degs


def bernstein_decide(G: dict, box: list, *, rational: bool, check, refute, max_boxes: int = 4000):
    """None when every sub-box's Bernstein coefficients pass `check`; else what `refute` returns at
    the first rational point (a sub-box's centre or corner, moved inside the box) where it finds G < 0
    (None from it: no counterexample there).

    p q - 1/4 on (0, 1)^2 is negative near the corner (0, 0), at a point moved inside:

    >>> from dipc_plus.exact.param_poly import poly_eval
    >>> G = {(1, 1): Fraction(1), (0, 0): Fraction(-1, 4)}
    >>> unit = (Fraction(0), Fraction(1), False, False)
    >>> point = bernstein_decide(G, [unit, unit], rational=True, check=lambda c: c >= 0,
    ...                          refute=lambda pt: pt if poly_eval(G, pt) < 0 else None)
    >>> all(0 < x < 1 for x in point), poly_eval(G, point) < 0
    (True, True)
    >>> bernstein_decide({(1, 1): Fraction(1)}, [unit, unit], rational=True, check=lambda c: c >= 0,
    ...                  refute=lambda pt: pt) is None          # p q >= 0: every coefficient passes
    True
    """
    tried = 0

    def examine(sub: list):
        nonlocal tried
        tried += 1
        if tried > max_boxes:
            raise UserError("the Pufferfish check could not decide a polynomial inequality within its "
                            "subdivision budget", hint="fix some parameters, or narrow their ranges")
        coeffs, _ = _bernstein(G, sub, rational)
        if all(check(c) for c in coeffs.values()):
            return SETTLED
        # look for a counterexample: corners (when inside the declared box) and the centre
        cands = [tuple((s[0] + s[1]) / 2 for s in sub)]
        for corner in itertools.product(*[(0, 1)] * len(sub)):
            pt = tuple(s[0] if c == 0 else s[1] for s, c in zip(sub, corner))
            cands.append(pt)
        for pt in cands:
            found = refute(_inside(pt, box))
            if found is not None:
                return found
        return SPLIT

    return subdivide([(lo, hi) for lo, hi, _, _ in box], examine, _halve_widest)


def _halve_widest(sub: list) -> tuple[list, list]:
    """The two halves of a box across its widest side."""
    widths = [s[1] - s[0] for s in sub]
    i = widths.index(max(widths))
    left, right = list(sub), list(sub)
    left[i], right[i] = halves(sub[i])
    return left, right


def _inside(pt: tuple, box: list) -> tuple:
    """Move a point on an open face of the declared box slightly inside (rationally)."""
    out = []
    for x, (lo, hi, lc, hc) in zip(pt, box):
        if x == lo and not lc:
            x = lo + (hi - lo) / 1024
        if x == hi and not hc:
            x = hi - (hi - lo) / 1024
        out.append(x)
    return tuple(out)
