"""The Taylor form in `decision.roots.isolate_mixed_zeros`: its enclosure holds the function's
values (checked against mpmath at many points of each box), the zeros isolated are the same as
with the mean-value form alone, and a sentence whose terms cancel to high order near eps = 0
(an SVT privacy obligation) needs far fewer boxes."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from dipc_plus.decision import roots
from dipc_plus.decision.certified import hull, working_precision
from dipc_plus.exact.convert import to_fmpq
from dipc_plus.exact.expoly import ExpPoly

F = Fraction


def _poly(terms) -> ExpPoly:
    """sum c * eps^k * e^(q eps) over (c, k, q)."""
    out = ExpPoly.const(0)
    for c, k, q in terms:
        out = out + ExpPoly.monomial(c, k, q)
    return out


# 253/23040 e^eps - 1 + 16/3 e^(-eps/4) - ...: SVT Lyu Alg. 1, m = 8, an obligation at a worst neighbour
SVT = _poly([(F(253, 23040), 0, 1), (-1, 0, 0), (F(16, 3), 0, F(-1, 4)), (F(-31747, 11520), 0, F(-1, 2)),
             (F(-21, 16), 1, F(-1, 2)), (F(-3283, 5120), 0, -1), (F(-35, 64), 1, -1), (-1, 0, F(-5, 4)),
             (F(91, 2560), 0, F(-3, 2)), (F(-1, 90), 0, F(-7, 4)), (F(227, 6144), 0, -2), (F(-1, 96), 0, F(-5, 2)),
             (F(1, 512), 0, -3), (F(-1, 4608), 0, F(-7, 2)), (F(1, 92160), 0, -4)])
# a zero of order 3 at eps = 0 beside terms of size 1, and a simple zero inside (eps e^eps - 1 at 0.567...)
CANCELLING = (_poly([(1, 0, 1), (-1, 0, 0), (-1, 1, 0), (F(-1, 2), 2, 0)]) * _poly([(1, 1, 1), (-1, 0, 0)]))
TIGHT = _poly([(1, 0, 0), (-2, 0, -1), (1, 0, -2), (F(1, 10**6), 0, 0)])   # (1 - e^-eps)^2 + 1e-6


def _value(f: ExpPoly, x) -> mpmath.mpf:
    return sum(mpmath.mpf(int(c.p)) / int(c.q) * x ** k * mpmath.exp(mpmath.mpf(q.numerator) / q.denominator * x)
               for q, p in f.terms.items() for k, c in enumerate(p.coeffs()))


@pytest.mark.parametrize("f", [SVT, CANCELLING, TIGHT], ids=["svt", "cancelling", "tight"])
@pytest.mark.parametrize("lo,hi", [(F(1, 1000), F(1, 100)), (F(1, 10), F(3, 10)), (F(2), F(5, 2)), (F(5), F(7))])
def test_taylor_range_holds_the_values(f, lo, hi):
    mpmath.mp.prec = 200
    prec = 128
    with working_precision(prec):
        box = hull(lo, hi)
        centre = arb(to_fmpq((lo + hi) / 2))
        enclosure = roots._taylor_range([f, f.derivative()], centre, box, prec, f.arb_value(centre, prec))
    low, high = enclosure.lower(), enclosure.upper()
    for k in range(41):
        x = mpmath.mpf(lo.numerator) / lo.denominator + (mpmath.mpf(hi.numerator) / hi.denominator
                                                          - mpmath.mpf(lo.numerator) / lo.denominator) * k / 40
        v = _value(f, x)
        assert mpmath.mpf(low.str(40, radius=False)) - mpmath.mpf(10) ** -30 <= v
        assert v <= mpmath.mpf(high.str(40, radius=False)) + mpmath.mpf(10) ** -30


def _isolated(f, a, b, order):
    """(zeros, number of boxes looked at) with the Taylor form of `order` (None: mean value only)."""
    boxes = []
    real_hull = roots.hull

    def counting_hull(lo, hi):
        boxes.append((lo, hi))
        return real_hull(lo, hi)

    patch = pytest.MonkeyPatch()
    patch.setattr(roots, "hull", counting_hull)
    if order is None:
        patch.setattr(roots, "_taylor_range", lambda *args: arb(0, 1e300))   # never excludes 0
    else:
        patch.setattr(roots, "TAYLOR_ORDER", order)
    try:
        return roots.isolate_mixed_zeros(f, a, b), len(boxes)
    finally:
        patch.undo()


@pytest.mark.parametrize("f,a,b", [(SVT, F(1, 2**18), F(8)), (CANCELLING, F(1, 2**12), F(4)),
                                   (TIGHT, F(1, 100), F(10))], ids=["svt", "cancelling", "tight"])
def test_same_zeros_in_fewer_boxes(f, a, b):
    plain, plain_boxes = _isolated(f, a, b, None)
    for order in (2, 4, 6):
        zeros, boxes = _isolated(f, a, b, order)
        assert zeros == plain
        assert boxes <= plain_boxes
    zeros, boxes = _isolated(f, a, b, roots.TAYLOR_ORDER)
    if f is not TIGHT:   # cancelling terms: the mean-value form needs boxes of the cancellation's order
        assert boxes < plain_boxes / 2, (boxes, plain_boxes)
    if f is CANCELLING:
        assert len(zeros) == 1 and zeros[0][0] < F(567, 1000) < zeros[0][1]
