"""The tail eps -> infinity of a two-variable sentence, decided from its dominant terms in eps.

Why: a claim can be tight only in the limit eps -> infinity (with d -> 0, so that x = eps*d stays
bounded): there F(d, eps) = G_0(x) + sum_k p_k(eps) G_k(x), each eps-part p_k = eps^k e^(A eps)
decaying, and G_0(x) -> 0 where x -> 0.  Bounding every p_k by its largest value on [E, inf) at
once (the flat bound of `decision.two_variable.strip_tail`) leaves a negative constant that no
small G_0 can absorb, so the tail stays open however far it starts.  Ordering the eps-parts by
decay (slowest first) and nesting them,

    F = G_0 + p_1 (G_1 + r_2 (G_2 + r_3 (G_3 + ...))),   r_k = p_k / p_(k-1) in (0, R_k] on [E, inf),

keeps the dominant part p_1 as a factor: where the bracket (the next order) is >= 0, F >= G_0,
and G_0 >= 0 is decided exactly (`decision.decide`, no enclosure of a function that tends to 0);
where the bracket may be negative, G_0 + R_1 * (its lower bound) >= 0 must hold with balls.  The
brackets are enclosed with arb balls (outward rounding) on intervals of x, bisected within a budget.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.decision.bisection import holds_on_pieces
from dipc_plus.decision.box_enclosure import tail_top
from dipc_plus.decision.certified import Interval, hull, lower_bound, q_ball, upper_bound, working_precision
from dipc_plus.decision.decide import decide
from dipc_plus.exact.expoly import ExpPoly

PRECISION = 128
SMALLEST = Fraction(1, 2 ** 20)     # x-intervals narrower than this are not split further


def sup_on_tail(k: int, A: Fraction, E: Fraction) -> Fraction | None:
    """A rational upper bound of eps^k e^(A eps) over eps >= E > 0, or None when it does not decay
    there (the one tail rule, `box_enclosure.tail_top`, at this module's precision).

    >>> sup_on_tail(1, Fraction(-1), Fraction(1, 2)) >= Fraction(36787, 100000)   # e^(-1) at eps = 1
    True
    """
    with working_precision(PRECISION):
        top = tail_top(k, A, E)
        return None if top is None else upper_bound(top)


def nested_parts(groups: dict, E: Fraction) -> tuple[ExpPoly, list] | None:
    """(G_0, [(R_k, G_k)] slowest first) for F = G_0 + p_1 (G_1 + r_2 (G_2 + ...)), or None when an
    eps-part grows.  R_1 bounds p_1 itself, R_k (k >= 2) the ratio p_k / p_(k-1), on [E, inf).

    >>> nested_parts({(1, Fraction(1)): ExpPoly()}, Fraction(1)) is None     # eps e^eps grows
    True
    """
    base = groups.get((0, Fraction(0)), ExpPoly())
    rest = [(k, A) for (k, A) in groups if (k, A) != (0, Fraction(0))]
    if any(sup_on_tail(k, A, E) is None for k, A in rest):
        return None
    rest.sort(key=lambda p: (p[1], p[0]), reverse=True)
    out, prev = [], (0, Fraction(0))
    for k, A in rest:
        out.append((sup_on_tail(k - prev[0], A - prev[1], E), groups[(k, A)]))
        prev = (k, A)
    return base, out


def _bracket_lower(parts: list, a: Fraction, b: Fraction) -> Fraction | None:
    """A lower bound of G_1 + r_2 (G_2 + ...) for x in [a, b] (None: not finite)."""
    low = Fraction(0)
    with working_precision(PRECISION):
        X = hull(a, b)
        for i in range(len(parts) - 1, -1, -1):
            value = parts[i][1].arb_value(X, PRECISION)
            if i + 1 < len(parts) and low < 0:
                value += q_ball(parts[i + 1][0]) * q_ball(low)
            if not value.is_finite():
                return None
            low = lower_bound(value)
    return low


def _holds_on(base: ExpPoly, parts: list, a: Fraction, b: Fraction) -> bool:
    below = _bracket_lower(parts, a, b)
    if below is None:
        return False
    if below >= 0:
        return True                                         # F >= G_0 >= 0 on [a, b]
    with working_precision(PRECISION):
        total = base.arb_value(hull(a, b), PRECISION) + q_ball(parts[0][0]) * q_ball(below)
        return total.is_finite() and lower_bound(total) >= 0


def strip_by_dominant_terms(groups: dict, E: Fraction, x0: Fraction, X: Fraction,
                            max_intervals: int = 4000) -> bool:
    """Whether F >= 0 is proved for eps >= E and x = eps*d in [x0, X], F = sum eps^k e^(A eps) G(x)
    given by its eps-parts `groups` ({(k, A): G}, as `ExpPoly2.eps_groups`); see the module doc.

    e^(-x) - (1 + x) e^(-2x) tends to 0 as x -> 0, and e^(-eps) - e^(-2 eps) > 0 keeps F > 0:

    >>> G0 = ExpPoly({Fraction(-1): [1], Fraction(-2): [-1, -1]})
    >>> groups = {(0, Fraction(0)): G0, (0, Fraction(-1)): ExpPoly({Fraction(0): [1]}),
    ...           (0, Fraction(-2)): ExpPoly({Fraction(0): [-1]})}
    >>> strip_by_dominant_terms(groups, Fraction(8), Fraction(0), Fraction(8))
    True
    >>> groups[(0, Fraction(-1))] = ExpPoly({Fraction(0): [-1]})      # now F < 0 at x = 0
    >>> strip_by_dominant_terms(groups, Fraction(8), Fraction(0), Fraction(8))
    False
    """
    nested = nested_parts(groups, E)
    if nested is None:
        return False
    base, parts = nested
    if not base.is_zero() and not decide(base, ">=", Interval(x0, X, x0 > 0, True)).holds:
        return False
    return not parts or holds_on_pieces(lambda a, b: _holds_on(base, parts, a, b), x0, X, max_intervals, SMALLEST)
