"""The strip eps -> 0 of a two-variable sentence, decided from the series of F in eps.

Why: when F(d, eps) tends to 0 as eps -> 0 (a claim tight in the limit, e.g. P[error] -> 1/2
for a noisy sign and a beta that tends to 1/2 too), every rectangle of the branch-and-bound
(`decision.two_variable`) that touches eps = 0 has a lower bound below 0, however small it is,
so the budget ends with them open.  Expanding each term c eps^i d^j e^(eps*L(d)), L = A + B*d,
as sum_{n<K} (eps L)^n/n! + (eps L)^K phi_K(eps L), with phi_K(y) = int_0^1 (1-t)^(K-1) e^(t y) dt
/ (K-1)! between e^min(0,y)/K! and e^max(0,y)/K!, gives F = eps^N * G exactly, N the first power
of eps whose polynomial coefficient Q_N(d) is not identically 0.  G = Q_N(d) + O(eps) is enclosed
with arb balls on rectangles of [d0, d1] x [0, delta]; where every lower bound is > 0, F >= 0 on
d in [d0, d1], eps in (0, delta].  Nothing is guessed: a Q_N that is not > 0 on [d0, d1] (a limit
that is 0 at some d as well) proves nothing here.
"""
from __future__ import annotations

from fractions import Fraction
from math import factorial

from flint import arb

from dipc_plus.decision.bisection import holds_on_pieces
from dipc_plus.decision.certified import hull, lower_bound, q_ball, upper_bound, working_precision
from dipc_plus.decision.first_order import exp_series

PRECISION = 128
DELTAS = (Fraction(1, 4), Fraction(1, 16), Fraction(1, 64), Fraction(1, 256))
MAX_PIECES = 512          # d-intervals per delta before giving up


def series(terms: dict, K: int) -> dict:
    """{(m, j): coef}: the polynomial part sum c eps^(i+n) d^j L(d)^n / n! over n < K.  A term
    (i, j, A, B): c is c eps^i d^j e^(eps (A + B d)); e^eps - 1 has the series eps + ...:

    >>> series({(0, 0, 1, 0): Fraction(1), (0, 0, 0, 0): Fraction(-1)}, 2)
    {(1, 0): Fraction(1, 1)}
    """
    return exp_series([(c, i, {j: Fraction(1)}, {0: A, 1: B}) for (i, j, A, B), c in terms.items()], lambda n: K)


def leading_order(terms: dict) -> tuple[int, dict] | None:
    """(N, {j: coef} of Q_N) - the first power of eps in F's series with a nonzero coefficient.

    >>> leading_order({(0, 0, 1, 0): Fraction(1), (0, 0, 0, 0): Fraction(-1)})   # e^eps - 1 = eps + ...
    (1, {0: Fraction(1, 1)})
    """
    if any(i < 0 for i, _, _, _ in terms):
        return None
    low = min(i for i, _, _, _ in terms)
    for K in range(low + 1, low + 12):
        found = series(terms, K)
        orders = sorted({m for m, _ in found if m < K})
        if orders:
            N = orders[0]
            return N, {j: c for (m, j), c in found.items() if m == N}
    return None


def _enclose(terms: dict, poly: dict, N: int, K: int, D: arb, E: arb) -> arb:
    """G = F / eps^N on the rectangle D x E (E = [0, delta]): the polynomial part from order N on,
    and each term's remainder c eps^(i+K-N) d^j L^K phi_K(eps L)."""
    total = arb(0)
    for (m, j), c in poly.items():
        total += q_ball(c) * E ** (m - N) * D ** j
    for (i, j, A, B), c in terms.items():
        L = q_ball(A) + q_ball(B) * D
        y = E * L
        lo, hi = lower_bound(y), upper_bound(y)
        a = (q_ball(min(Fraction(0), lo))).exp() / factorial(K)
        b = (q_ball(max(Fraction(0), hi))).exp() / factorial(K)
        phi = a.union(b)
        total += q_ball(c) * E ** (i + K - N) * D ** j * L ** K * phi
    return total


def strip_at_zero(terms: dict, d0: Fraction, d1: Fraction) -> Fraction | None:
    """A delta > 0 with F >= 0 proved on d in [d0, d1], eps in (0, delta], or None (see the module doc).

    >>> strip_at_zero({(0, 0, 1, 0): Fraction(1), (0, 0, 0, 0): Fraction(-1)}, Fraction(0), Fraction(1))
    Fraction(1, 4)
    >>> strip_at_zero({(0, 0, 0, 1): Fraction(-1), (0, 0, 0, 0): Fraction(1)}, Fraction(0), Fraction(1)) is None
    True
    """
    lead = leading_order(terms)
    if lead is None:
        return None
    N, _ = lead
    K = N + 2
    poly = series(terms, K)     # no order below N: leading_order found each of them complete and 0
    with working_precision(PRECISION):
        for delta in DELTAS:
            E = hull(Fraction(0), delta)

            def positive(a: Fraction, b: Fraction) -> bool:
                G = _enclose(terms, poly, N, K, hull(a, b), E)
                return G.is_finite() and lower_bound(G) > 0

            if holds_on_pieces(positive, d0, d1, MAX_PIECES):
                return delta
    return None

