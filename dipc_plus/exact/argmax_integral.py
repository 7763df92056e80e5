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

from fractions import Fraction
from typing import Sequence

from flint import fmpq, fmpq_poly

from dipc_plus.exact.expoly import ExpPoly

__all__ = ["argmax_probabilities", "KINDS"]

_HALF = Fraction(1, 2)

# kind -> rate b -> ((pdf left, pdf right), (cdf left, cdf right)), each a list of
# (coef, alpha) meaning coef * e^(alpha (u - c eps)); "left" is u < c eps.
KINDS = ("lap", "exp", "negexp")


def _pieces(kind: str, b: Fraction):
    if kind == "lap":
        return (([(b / 2, b)], [(b / 2, -b)]),
                ([(_HALF, b)], [(Fraction(1), Fraction(0)), (-_HALF, -b)]))
    if kind == "exp":     # support u > c eps
        return (([], [(b, -b)]),
                ([], [(Fraction(1), Fraction(0)), (Fraction(-1), -b)]))
    if kind == "negexp":  # the mirror image: support u < c eps
        return (([(b, b)], []),
                ([(Fraction(1), b)], [(Fraction(1), Fraction(0))]))
    raise ValueError(f"unknown noise kind {kind!r}")


def _terms(pieces: list, c: Fraction) -> dict:
    """coef * e^(alpha (u - c eps)) as {(alpha, beta): coef} with beta = -alpha c."""
    out: dict = {}
    for coef, alpha in pieces:
        key = (alpha, -alpha * c)
        out[key] = out.get(key, 0) + coef
    return {k: v for k, v in out.items() if v}


def _mul(a: dict, b: dict) -> dict:
    if len(b) == 1:  # the common case, a monomial: no merging needed
        ((ab, bb), cb), = b.items()
        return {(x + ab, y + bb): v * cb for (x, y), v in a.items()}
    out: dict = {}
    for (x1, y1), v1 in a.items():
        for (x2, y2), v2 in b.items():
            key = (x1 + x2, y1 + y2)
            out[key] = out.get(key, 0) + v1 * v2
    return {k: v for k, v in out.items() if v}


def _integrate(integrand: dict, lo, hi, acc: dict) -> None:
    """Add the integral over (lo eps, hi eps) (None: infinite) to acc {(q, eps power): coef}."""
    for (alpha, beta), coef in integrand.items():
        if alpha == 0:
            if lo is None or hi is None:
                raise ArithmeticError("argmax integral: a constant term on an unbounded piece")
            key = (beta, 1)
            acc[key] = acc.get(key, 0) + coef * (hi - lo)
            continue
        if hi is None:
            if alpha > 0:
                raise ArithmeticError("argmax integral: a growing term on (c, +inf)")
        else:
            key = (alpha * hi + beta, 0)
            acc[key] = acc.get(key, 0) + coef / alpha
        if lo is None:
            if alpha < 0:
                raise ArithmeticError("argmax integral: a growing term on (-inf, c)")
        else:
            key = (alpha * lo + beta, 0)
            acc[key] = acc.get(key, 0) - coef / alpha


def _to_exppoly(acc: dict) -> ExpPoly:
    by_q: dict = {}
    for (q, k), c in acc.items():
        if c:
            by_q.setdefault(q, [Fraction(0), Fraction(0)])[k] += c
    return ExpPoly({q: fmpq_poly([fmpq(c.numerator, c.denominator) for c in cs])
                    for q, cs in by_q.items()})


def argmax_probabilities(samples: Sequence[tuple], *, minimum: bool = False) -> list[ExpPoly]:
    """[P[argmax = i] for each i] (argmin with `minimum`) for samples (kind, rate b, centre c):
    kind 'lap' is c + Lap(b eps, 0), 'exp' is c + ExpNoise(b eps, 0)."""
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
    cuts = sorted({c for _, _, c in items})
    bounds = [None] + cuts + [None]          # piece p is (bounds[p], bounds[p + 1])
    funcs = [_pieces(kind, b) for kind, b, _ in items]
    # per sample and side: its pdf and cdf as term dicts
    pdf = [(_terms(f[0][0], c), _terms(f[0][1], c)) for f, (_, _, c) in zip(funcs, items)]
    cdf = [(_terms(f[1][0], c), _terms(f[1][1], c)) for f, (_, _, c) in zip(funcs, items)]
    results = []
    for i in range(m):
        acc: dict = {}
        right_prod = {(Fraction(0), Fraction(0)): Fraction(1)}  # over j != i with c_j <= lo
        for p in range(len(bounds) - 1):
            lo, hi = bounds[p], bounds[p + 1]
            if lo is not None:   # samples centred at lo are now to the left of u
                for j, (_, _, c) in enumerate(items):
                    if j != i and c == lo:
                        right_prod = _mul(right_prod, cdf[j][1])
            if not right_prod:
                break            # a zero factor stays zero to the right
            left_prod = {(Fraction(0), Fraction(0)): Fraction(1)}  # over j != i with c_j >= hi
            for j, (_, _, c) in enumerate(items):
                if j != i and (lo is None or c > lo):
                    left_prod = _mul(left_prod, cdf[j][0]) if cdf[j][0] else {}
                    if not left_prod:
                        break
            if not left_prod:
                continue
            ci = items[i][2]
            dens = pdf[i][1] if (lo is not None and ci <= lo) else pdf[i][0]
            if not dens:
                continue
            _integrate(_mul(right_prod, _mul(left_prod, dens)), lo, hi, acc)
        results.append(_to_exppoly(acc))
    return results
