"""A two-variable form `ExpPoly2` read at a fixed rational d, term by term with `ExpPoly`'s own
operations: the reference the box tests compare with the per-point engine's closed forms."""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.exact.expoly import ExpPoly


def at_d(form, d) -> ExpPoly:
    """sum c d^j eps^i e^((A + B d) eps) over the terms (i, j, A, B) -> c of `form`."""
    d = Fraction(d)
    total = ExpPoly.const(0)
    for (i, j, A, B), c in form.terms.items():
        total = total + ExpPoly.exp(A + B * d, c * d ** j) * ExpPoly.eps(i)
    return total
