"""Sparse sums ``{monomial key: coefficient}``: the one addition and product behind every
exact closed form here (`ExpPoly`, `alpha_series.XSum`, `SymbolicForm`, the prior-parameter
polynomials of `param_poly`).  They differ only in how two keys combine in a product; the
callers drop zero coefficients themselves (each has its own zero test).  The Laplace
engine's term sums (`exp_terms`) keep an inlined copy: that loop is the engine's hottest.
"""
from __future__ import annotations

from operator import add, mul

__all__ = ["SparseSum", "accumulate", "add_keys", "sparse_add", "sparse_product"]


def add_keys(k1: tuple, k2: tuple) -> tuple:
    """The key of a product of two monomials keyed by exponent tuples.

    >>> add_keys((1, 0), (2, 3))
    (3, 3)
    """
    return tuple(map(add, k1, k2))


def accumulate(out: dict, key, value) -> None:
    """out[key] += value, in place (a new key starts at value).

    >>> out = {0: 1}
    >>> accumulate(out, 0, 2); accumulate(out, 1, 5); out
    {0: 3, 1: 5}
    """
    out[key] = out[key] + value if key in out else value


def sparse_add(a: dict, b: dict) -> dict:
    """a + b, coefficients of equal keys added (zeros kept for the caller to drop).

    >>> sparse_add({0: 1, 1: 2}, {1: -2, 2: 5})
    {0: 1, 1: 0, 2: 5}
    """
    out = dict(a)
    for k, v in b.items():
        accumulate(out, k, v)
    return out


def sparse_product(a: dict, b: dict, combine=add, times=mul) -> dict:
    """a * b: each pair of terms gives key combine(k1, k2) and coefficient times(v1, v2).

    (1 + x)^2 with keys the powers of x:

    >>> sparse_product({0: 1, 1: 1}, {0: 1, 1: 1})
    {0: 1, 1: 2, 2: 1}
    """
    out: dict = {}
    for k1, v1 in a.items():
        for k2, v2 in b.items():
            k, v = combine(k1, k2), times(v1, v2)
            out[k] = out[k] + v if k in out else v      # accumulate, inline: products are hot
    return out


class SparseSum:
    """The ring operations of a closed form kept as `terms` (key -> nonzero coefficient), written
    once for every sum built on them (`alpha_series.XSum`, `symbolic_terms.SymbolicForm`,
    `decision.two_variable.ExpPoly2`).  A subclass is built from a terms dict and drops the zero
    coefficients itself; `combine` says how two keys meet in a product (exponent tuples add), and
    `like` builds a result (a subclass with more state than its terms passes that state on).

    >>> class Poly(SparseSum):
    ...     def __init__(self, terms):
    ...         self.terms = {k: c for k, c in terms.items() if c}
    >>> x, one = Poly({(1,): 1}), Poly({(0,): 1})
    >>> ((x + one) * (x - one)).terms, (x - x).is_zero(), x.scaled(3).terms
    ({(2,): 1, (0,): -1}, True, {(1,): 3})
    """

    __slots__ = ()
    combine = staticmethod(add_keys)

    def like(self, terms: dict, other=None):
        """A sum of this kind with `terms` (made from self and, in a binary operation, `other`)."""
        return type(self)(terms)

    def is_zero(self) -> bool:
        return not self.terms

    def __add__(self, other):
        return self.like(sparse_add(self.terms, other.terms), other)

    def __neg__(self):
        return self.like({k: -c for k, c in self.terms.items()})

    def __sub__(self, other):
        return self + (-other)

    def __mul__(self, other):
        return self.like(sparse_product(self.terms, other.terms, self.combine), other)

    def scaled(self, c):
        """Every coefficient times c."""
        return self.like({k: v * c for k, v in self.terms.items()})
