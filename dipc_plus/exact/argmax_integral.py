"""Exact P[argmax_j X_j = i] for independent real noise samples, as m 1-d integrals.

X_j = c_j + N_j with N_j ~ Lap(b_j eps, 0) (density (b eps/2) e^(-b eps |x|)) or
ExpNoise(b_j eps, 0) (density b eps e^(-b eps x) on x > 0), centres c_j rational.
Then

    P[argmax = i] = integral over x of  density_i(x) * prod_{j != i} P[X_j < x] dx

(ties have probability 0 for continuous noise, so the smallest-index tie-break of
the lowered scan and strict/non-strict CDFs make no difference).  Why this and not
the comparison chain: the chain's state count roughly triples per sample, while
this is m integrals of a product of m - 1 piecewise exponentials.

As in laplace_engine, substitute u = eps x: densities and CDFs become eps-free and
the centres become the breakpoints c_j eps.  On each open interval between
consecutive distinct centres every density and CDF is a sum of terms
coef * e^(alpha (u - c eps)), so the integrand is a sum of coef * e^(alpha u + beta eps)
with rational alpha, beta; each integrates in closed form to rational multiples of
e^(q eps) and eps e^(q eps).  The result is an `ExpPoly`, which is canonical, so it
is the very same value the chain path computes.  No floating point anywhere.

argmin is argmax of the negated samples: Laplace stays Laplace with centre -c; an
ExpNoise becomes a mirrored one-sided noise (kind 'negexp' below).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

from flint import fmpq, fmpq_poly

from dipc_plus.exact.convert import to_fmpq
from dipc_plus.exact.expoly import ExpPoly
from dipc_plus.exact.sparse import add_keys, sparse_product

__all__ = ["argmax_probabilities"]

# Every number here is an fmpq (FLINT's rational): the products of m - 1 CDFs make millions
# of additions and hashes, which with Fraction took 70% of NoisyMax m=20.
# Coefficients are fmpq (FLINT's rationals).  The exponents are kept as integers over common
# denominators - alpha = A/D, beta = B/E, q = Q/G (`_Scale`) - so that the dict keys of the
# products of m - 1 CDFs are pairs of ints: hashing rational keys (Fraction, or fmpq, which
# hashes through Fraction) was most of NoisyMax m=20.
_ZERO, _ONE, _HALF = fmpq(0), fmpq(1), fmpq(1, 2)


def _pieces(kind: str, b: fmpq, B: int):
    """((pdf left, pdf right), (cdf left, cdf right)) of the sample of kind `kind` and rate b, each
    a list of (coef, A) meaning coef * e^(alpha (u - c eps)) with A = alpha * D (B = b * D); "left"
    is u < c eps.  'exp' has its support right of c eps, 'negexp' (its mirror image) left of it."""
    return {"lap": (([(b / 2, B)], [(b / 2, -B)]), ([(_HALF, B)], [(_ONE, 0), (-_HALF, -B)])),
            "exp": (([], [(b, -B)]), ([], [(_ONE, 0), (-_ONE, -B)])),
            "negexp": (([(b, B)], []), ([(_ONE, B)], [(_ONE, 0)]))}[kind]


class _Scale:
    """The common denominators D (rates), E (rate x centre) and G (exponents of the result)."""

    def __init__(self, items):
        self.D = math.lcm(*(b.denominator for _, b, _ in items))
        self.E = math.lcm(*((b * c).denominator for _, b, c in items))
        self.G = math.lcm(self.E, *(self.D * c.denominator for _, _, c in items))

    def beta(self, A: int, c: Fraction) -> int:
        """E * (-alpha c) for alpha = A / D = +-b of the sample centred at c: an integer, since
        E is a multiple of the denominator of b c."""
        num, den = -A * c.numerator * self.E, self.D * c.denominator
        if num % den:
            raise ArithmeticError("argmax integral: an exponent off its common denominator")
        return num // den

    def q_at(self, A: int, B: int, c: Fraction) -> int:
        """G * (alpha c + beta)."""
        return A * c.numerator * (self.G // (self.D * c.denominator)) + B * (self.G // self.E)


def _terms(pieces: list, c: Fraction, scale: _Scale) -> dict:
    """coef * e^(alpha (u - c eps)) as {(A, B): coef} (alpha = A/D, beta = B/E = -alpha c)."""
    out: dict = {}
    for coef, A in pieces:
        key = (A, scale.beta(A, c))
        out[key] = out.get(key, _ZERO) + coef
    return {k: v for k, v in out.items() if v}


def _mul(a: dict, b: dict) -> dict:
    if len(b) == 1:  # the common case, a monomial: no merging needed
        ((ab, bb), cb), = b.items()
        return {(x + ab, y + bb): v * cb for (x, y), v in a.items()}
    return {k: v for k, v in sparse_product(a, b, add_keys).items() if v}


def _integrate(integrand: dict, lo, hi, scale: _Scale, acc: dict) -> None:
    """Add the integral over (lo eps, hi eps) (None: infinite) to acc {(G q, eps power): coef}."""
    G_E = scale.G // scale.E
    for (A, B), coef in integrand.items():
        if A == 0:
            if lo is None or hi is None:
                raise ArithmeticError("argmax integral: a constant term on an unbounded piece")
            key = (B * G_E, 1)
            acc[key] = acc.get(key, _ZERO) + coef * to_fmpq(hi - lo)
            continue
        per_alpha = coef * scale.D / A        # coef / alpha: the antiderivative, taken at hi minus at lo
        for end, sign, grows, piece in ((hi, 1, A > 0, "(c, +inf)"), (lo, -1, A < 0, "(-inf, c)")):
            if end is not None:
                key = (scale.q_at(A, B, end), 0)
                acc[key] = acc.get(key, _ZERO) + sign * per_alpha
            elif grows:
                raise ArithmeticError(f"argmax integral: a growing term on {piece}")


def _to_exppoly(acc: dict, scale: _Scale) -> ExpPoly:
    by_q: dict = {}
    for (Q, k), c in acc.items():
        if c:
            by_q.setdefault(Q, [_ZERO, _ZERO])[k] += c
    return ExpPoly({Fraction(Q, scale.G): fmpq_poly(cs) for Q, cs in by_q.items()})


def argmax_probabilities(samples: Sequence[tuple], *, minimum: bool = False) -> list[ExpPoly]:
    """[P[argmax = i] for each i] (argmin with `minimum`) for samples (kind, rate b, centre c):
    kind 'lap' is c + Lap(b eps, 0), 'exp' is c + ExpNoise(b eps, 0).

    Lap(eps) noise on centres 0 and 1: the first wins when N_0 - N_1 > 1, probability
    e^(-eps)(2 + eps)/4; two equal exponential noises tie at 1/2 each:

    >>> [str(p) for p in argmax_probabilities([("lap", 1, 0), ("lap", 1, 1)])]
    ['1/2*e^(-eps) + 1/4*eps*e^(-eps)', '1 - 1/2*e^(-eps) - 1/4*eps*e^(-eps)']
    >>> [str(p) for p in argmax_probabilities([("exp", 1, 0), ("exp", 1, 0)])]
    ['1/2', '1/2']
    """
    items = []
    for kind, rate, centre in samples:
        rate, centre = Fraction(rate), Fraction(centre)
        if kind not in ("lap", "exp") or rate <= 0:
            raise ValueError(f"argmax integral: unsupported sample {kind} with rate {rate}")
        if minimum:
            kind, centre = ("lap" if kind == "lap" else "negexp"), -centre
        items.append((kind, rate, centre))
    m = len(items)
    if m == 0:
        raise ValueError("argmax of no samples")
    scale = _Scale(items)
    cuts = sorted({c for _, _, c in items})
    bounds = [None] + cuts + [None]          # the pieces are (bounds[p], bounds[p + 1])
    funcs = [_pieces(kind, to_fmpq(b), int(b * scale.D)) for kind, b, _ in items]
    # per sample and side: its pdf and cdf as term dicts
    pdf, cdf = ([tuple(_terms(side, c, scale) for side in f[which]) for f, (_, _, c) in zip(funcs, items)]
                for which in (0, 1))
    results = []
    for i in range(m):
        acc: dict = {}
        right_prod = {(0, 0): _ONE}  # over j != i with c_j <= lo
        for lo, hi in zip(bounds, bounds[1:]):
            if lo is not None:   # samples centred at lo are now to the left of u
                for j, (_, _, c) in enumerate(items):
                    if j != i and c == lo:
                        right_prod = _mul(right_prod, cdf[j][1])
            if not right_prod:
                break            # a zero factor stays zero to the right
            left_prod = {(0, 0): _ONE}  # over j != i with c_j >= hi
            for j, (_, _, c) in enumerate(items):
                if j != i and (lo is None or c > lo):
                    left_prod = _mul(left_prod, cdf[j][0])      # {} when the side has no mass
                    if not left_prod:
                        break
            if not left_prod:
                continue
            dens = pdf[i][1] if (lo is not None and items[i][2] <= lo) else pdf[i][0]
            if not dens:
                continue
            _integrate(_mul(right_prod, _mul(left_prod, dens)), lo, hi, scale, acc)
        results.append(_to_exppoly(acc, scale))
    return results
