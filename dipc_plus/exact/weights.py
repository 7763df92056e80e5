"""Exact outcome probabilities of the exponential mechanism and of user `choose` distributions.

Both are finite distributions over DOM values whose probabilities are
quotients of exponential polynomials in eps, so they are returned as canonical
`ExpFrac`s and their total is exactly 1 (canonical forms compare by identity).
The caller has already evaluated scores and weights for the current inputs.
"""
from __future__ import annotations

from collections import Counter
from fractions import Fraction

from dipc_plus.exact.expoly import ExpFrac, ExpPoly


def exp_mechanism(rate, scores: dict) -> dict:
    """P[v] = e^(rate eps F(v)) / sum_w e^(rate eps F(w)) for every candidate v.

    Each P[v] is written as 1 / sum_w e^(rate eps (F(w) - F(v))), an exact
    quotient; candidates with equal scores share one value.

    Two candidates with scores 0 and 1 at rate 1: the better one wins with e^eps / (e^eps + 1).

    >>> p = exp_mechanism(1, {"a": 0, "b": 1})
    >>> print(p["a"], "|", p["b"])
    (1) / (e^eps + 1) | (e^eps) / (e^eps + 1)
    """
    rate = Fraction(rate)
    if rate <= 0:
        raise ValueError(f"exponential mechanism rate must be positive, got {rate}")
    if not scores:
        raise ValueError("exponential mechanism over an empty set of candidates")
    fs = {v: Fraction(f) for v, f in scores.items()}
    counts = Counter(fs.values())
    # one denominator per distinct score: sum_w e^(rate eps (F(w) - F(v)))
    prob_of_score = {f: ExpFrac(ExpPoly.ONE, ExpPoly({rate * (g - f): [c] for g, c in counts.items()}))
                     for f in counts}
    return {v: prob_of_score[f] for v, f in fs.items()}


def normalise(weights: dict) -> dict:
    """P[v] = w(v) / sum_u w(u) for already evaluated weights (ExpFrac, ExpPoly or rationals).

    A weight that is identically zero makes its outcome impossible; a total that
    is identically zero has no distribution and is an error.  Positivity on
    eps > 0 is not decided here.

    >>> from fractions import Fraction
    >>> p = normalise({"x": Fraction(1), "y": Fraction(3)})
    >>> print(p["x"], p["y"])
    1/4 3/4
    """
    if not weights:
        raise ValueError("choose over an empty set of outcomes")
    ws = {v: ExpFrac.of(w) for v, w in weights.items()}
    total = sum(ws.values(), ExpFrac(ExpPoly.ZERO))
    if total.is_zero():
        raise ValueError("the weights of choose add up to 0 identically in eps, so they define no "
                         "distribution")
    return {v: w / total for v, w in ws.items()}
