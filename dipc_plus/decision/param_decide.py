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
from dipc_plus.exact.expoly import ExpPoly
from dipc_plus.exact.param_poly import poly_eval
from dipc_plus.exact.sparse import accumulate


def negative_point(poly: dict, box: list) -> tuple | None:
    """None when the rational polynomial is >= 0 on the whole box [(lo, hi, lo closed, hi closed)];
    else a rational point of the box where it is < 0 (exactly with one parameter, by Bernstein
    subdivision with several).

    (p - 1/2)^2 >= 0 on (0, 1), p^2 - p is not; p q >= 0 on (0, 1)^2, p q - 1/4 is not:

    >>> unit = (Fraction(0), Fraction(1), False, False)
    >>> square = {(2,): Fraction(1), (1,): Fraction(-1), (0,): Fraction(1, 4)}
    >>> negative_point(square, [unit]), negative_point({(2,): Fraction(1), (1,): Fraction(-1)}, [unit])
    (None, (Fraction(1, 2),))
    >>> negative_point({(1, 1): Fraction(1)}, [unit, unit]), negative_point({(1, 1): Fraction(1), (0, 0): Fraction(-1, 4)}, [unit, unit]) is not None
    (None, True)
    >>> negative_point({(): Fraction(-1)}, []), negative_point({}, [])
    ((), None)
    """
    if not box:
        return () if poly and poly_eval(poly, ()) < 0 else None
    if len(box) == 1:
        return decide_univariate(poly, box[0])
    return bernstein_decide(poly, box, check=lambda c: c >= 0, refute=lambda pt: pt if poly_eval(poly, pt) < 0 else None)


def decide_univariate(G: dict, rng) -> tuple | None:
    """None when G(p) >= 0 on the range, else a point (p,) where it is < 0, exactly: p = x + shift
    maps the range into (0, inf) and the polynomial sentence in x is decided by exact real-root
    isolation (decide, with x as its variable).

    p^2 - p < 0 on (0, 1), refuted at the simplest rational 1/2:

    >>> decide_univariate({(2,): Fraction(1), (1,): Fraction(-1)}, (Fraction(0), Fraction(1), False, False))
    (Fraction(1, 2),)
    """
    lo, hi, lc, hc = rng
    shift = lo - 1
    coeffs = {e: c for (e,), c in G.items() if c != 0}
    if not coeffs:
        return None
    if set(coeffs) == {0}:
        return None if coeffs[0] >= 0 else (simplest_in(lo, hi, lc, hc),)
    deg = max(coeffs)
    poly = fmpq_poly([to_fmpq(coeffs.get(i, Fraction(0))) for i in range(deg + 1)])
    moved = poly(fmpq_poly([to_fmpq(shift), 1]))
    f = ExpPoly({Fraction(0): moved})
    I = Interval(lo - shift, hi - shift, lc, hc)
    d = decide(f, ">=", I)
    if d.holds:
        return None
    return (d.witness + shift,)


def simplest_in(lo, hi, lc, hc) -> Fraction:
    """A simple rational inside the range (the simplest one when lo >= 0, else the midpoint).

    >>> simplest_in(Fraction(0), Fraction(1), False, False), simplest_in(Fraction(-1), Fraction(1), False, False)
    (Fraction(1, 2), Fraction(0, 1))
    """
    return simplest_rational(lo, hi, lc, hc) if lo >= 0 else (lo + hi) / 2


def _bernstein(G: dict, box: list) -> dict:
    """Bernstein coefficients of G on the box (tensor form): {multi-index: value}; the coefficients of G
    are rationals or ExpFracs (which multiply by a rational weight alike)."""
    degs = [max((m[i] for m in G), default=0) for i in range(len(box))]
    # substitute p_i = a_i + (b_i - a_i) t_i
    sub: dict = {}
    for m, c in G.items():
        parts = [[(k, Fraction(comb(e, k)) * a ** (e - k) * (b - a) ** k) for k in range(e + 1)]
                 for e, (a, b, *_) in zip(m, box)]
        for combo in itertools.product(*parts):
            accumulate(sub, tuple(k for k, _ in combo), c * prod((x for _, x in combo), start=Fraction(1)))
    out = {}
    for K in itertools.product(*(range(d + 1) for d in degs)):
        terms = [c * prod((Fraction(comb(k, j), comb(d, j)) for j, k, d in zip(J, K, degs)), start=Fraction(1))
                 for J, c in sub.items() if all(j <= k for j, k in zip(J, K))]
        out[K] = sum(terms[1:], terms[0]) if terms else Fraction(0)
    return out


def bernstein_decide(G: dict, box: list, *, check, refute, max_boxes: int = 4000):
    """None when every sub-box's Bernstein coefficients pass `check`; else what `refute` returns at
    the first rational point (a sub-box's centre or corner, moved inside the box) where it finds G < 0
    (None from it: no counterexample there).

    p q - 1/4 on (0, 1)^2 is negative near the corner (0, 0), at a point moved inside:

    >>> from dipc_plus.exact.param_poly import poly_eval
    >>> G = {(1, 1): Fraction(1), (0, 0): Fraction(-1, 4)}
    >>> unit = (Fraction(0), Fraction(1), False, False)
    >>> point = bernstein_decide(G, [unit, unit], check=lambda c: c >= 0,
    ...                          refute=lambda pt: pt if poly_eval(G, pt) < 0 else None)
    >>> all(0 < x < 1 for x in point), poly_eval(G, point) < 0
    (True, True)
    >>> bernstein_decide({(1, 1): Fraction(1)}, [unit, unit], check=lambda c: c >= 0,
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
        if all(check(c) for c in _bernstein(G, sub).values()):
            return SETTLED
        # look for a counterexample: the centre, then the corners (moved inside the declared box)
        for pt in [tuple((lo + hi) / 2 for lo, hi in sub), *itertools.product(*sub)]:
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
