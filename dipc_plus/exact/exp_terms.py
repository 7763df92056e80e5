"""Sums of terms  P(eps) u^alpha e^(l.(u, eps)): the integrands of the Laplace engine, flint-native.

The engine's variable elimination adds, multiplies and integrates hundreds of
thousands of such terms per probability, so their form decides its speed.  A
term is stored as one dict entry  key -> P  with

* key a tuple of 2n+1 ints: D*l_0, ..., D*l_{n-1}, D*l_eps (the exponent on a
  grid of step 1/D, D a common denominator of the rates) followed by the powers
  alpha_0, ..., alpha_{n-1} of the noises u_j; keys hash and add as plain ints;
* P a nonzero fmpq_poly in eps (python-flint), whose arithmetic is cheaper than
  a multivariate polynomial in (u, eps): in the engine's integrands the powers of
  the u's are few and small, while eps collects every bound.

Integrating u_x^k e^(b u_x) up to a bound B (a linear form in the other u's
and eps) substitutes B into the exponent, which can leave the grid when B has a
coefficient with denominator > 1; then `Rescale` asks for a larger D (D changes
the representation, never a value).  `symbolic_terms.SymbolicForm.from_engine` converts a
sum without u's at the engine's boundary.
"""
from __future__ import annotations

from math import factorial
from operator import add

from flint import fmpq, fmpq_poly

__all__ = ["Rescale", "TermSpace", "add_into", "add_all_into", "UNIT", "clear_term_caches"]

UNIT = fmpq_poly([1])   # the unit coefficient, shared so that `is` recognises it
_SPACES: dict = {}
# Bounds on the memo: a space is dropped once it holds this many (constraint, x, side)
# tables (each a few terms), and all spaces once there are this many.  Measured: NoisyMax
# chain m=10 makes 9 spaces and 1547 tables, a Sparse m=7 accuracy grid 7 and 175.
_SPACES_LIMIT = 32
_CACHE_LIMIT = 20_000


def clear_term_caches() -> None:
    """Forget the shared spaces and what they memoised (results never depend on it).

    >>> space = TermSpace.of((1,), 1)
    >>> clear_term_caches()
    >>> TermSpace.of((1,), 1) is space       # a fresh space; its values are the same
    False
    """
    _SPACES.clear()


class Rescale(Exception):
    """An exponent is not a multiple of 1/D: retry with D multiplied by `factor`.

    >>> Rescale(2).factor
    2
    """

    def __init__(self, factor: int):
        super().__init__(factor)
        self.factor = factor


def add_into(acc: dict, key, poly) -> None:
    """acc += poly * term(key), dropping a term that cancels.

    >>> from flint import fmpq_poly
    >>> acc = {(0, -1, 0): fmpq_poly([1])}
    >>> add_into(acc, (0, -1, 0), fmpq_poly([-1]))       # the term cancels and leaves
    >>> acc
    {}
    """
    old = acc.get(key)
    if old is None:
        acc[key] = poly
    else:
        s = old + poly
        if s:
            acc[key] = s
        else:
            del acc[key]


def add_all_into(acc: dict, terms: dict) -> None:
    """acc += terms, term by term (`add_into`).

    >>> acc = {(0, 0, 0): fmpq_poly([1])}
    >>> add_all_into(acc, {(0, 0, 0): fmpq_poly([-1]), (0, -1, 0): fmpq_poly([2])}); acc
    {(0, -1, 0): 2}
    """
    for key, poly in terms.items():
        add_into(acc, key, poly)


class TermSpace:
    """Term sums over Laplace noises u_j with rates a_j, on the exponent grid 1/D.

    One space serves every problem with the same rates and grid (`TermSpace.of`), so
    the antiderivatives it memoises are reused across the engine's calls.

    One Laplace noise of rate 1 (grid D = 1); a key is (exponent of u, of eps, power of u).
    (eps e^(-eps))^2, and the density (1/2) e^(-u) integrated over 0 < u < eps, which is
    P[0 < N < 1] for N ~ Lap(eps), (1 - e^(-eps))/2:

    >>> from flint import fmpq_poly
    >>> space = TermSpace.of((1,), 1)
    >>> t = {(0, -1, 0): fmpq_poly([0, 1])}
    >>> space.multiply(t, t)                                     # eps^2 e^(-2 eps)
    {(0, -2, 0): x^2}
    >>> split = [(-1, 0, space.zero_key, UNIT)]                  # the term e^(-u)
    >>> at_eps = space.at_bound(split, (1, -1), 0, 1)            # u < eps: upper bound eps
    >>> at_zero = space.at_bound(split, (-1, 0), 0, -1)          # -u < 0: lower bound 0
    >>> sorted({**at_eps, **at_zero}.items())                    # -1/2 e^(-eps) + 1/2
    [((0, -1, 0), (-1/2)), ((0, 0, 0), 1/2)]
    """

    def __init__(self, rates_d: tuple, D: int):
        self.n = n = len(rates_d)
        self.D = D
        self.half_rates = [fmpq(a, 2 * D) for a in rates_d]    # the density's constant a_j/2
        self.zero_key = (0,) * (2 * n + 1)
        self.one = UNIT
        self._powers_cache: dict = {}
        self._at_bound_cache: dict = {}

    @staticmethod
    def of(rates_d: tuple, D: int) -> "TermSpace":
        """The shared space for rates a_j = rates_d[j]/D."""
        key = (rates_d, D)
        space = _SPACES.get(key)
        if space is None or len(space._at_bound_cache) > _CACHE_LIMIT:
            if len(_SPACES) > _SPACES_LIMIT:
                _SPACES.clear()
            space = _SPACES[key] = TermSpace(rates_d, D)
        return space

    def power_index(self, j: int) -> int:
        """Where the power of u_j sits in a key."""
        return self.n + 1 + j

    def multiply(self, t1: dict, t2: dict) -> dict:
        """t1 * t2.  Kept apart from `sparse.sparse_product` (and `add_into` inlined here and in
        `at_bound`): these two loops are the engine's hottest, and a call per term pair costs."""
        out: dict = {}
        get = out.get
        for e1, p1 in t1.items():
            for e2, p2 in t2.items():
                key = tuple(map(add, e1, e2))
                p = p1 * p2
                old = get(key)          # add_into, inline: this is the engine's hottest loop
                if old is not None:
                    p += old
                    if not p:
                        del out[key]
                        continue
                out[key] = p
        return out

    def without(self, key: tuple, x: int) -> tuple:
        """`key` with u_x's exponent and power set to 0."""
        k = list(key)
        k[x] = 0
        k[self.n + 1 + x] = 0
        return tuple(k)

    def at_bound(self, split: list, c: tuple, x: int, sign: int) -> dict:
        """sign * a_x/2 * the antiderivative in u_x of every term of `split`, at the bound B of
        u_x that constraint c gives (B = -(c without x)/c_x), as a sum of terms.

        `split` lists (bD, k, rest, P) per term P u_x^k e^(b u_x) * term(rest), b = bD/D;
        `sign` is +1 at an upper bound, -1 at a lower one.
        """
        table = self._at_bound_cache.get((c, x, sign))
        if table is None:
            table = self._at_bound_cache[(c, x, sign)] = {}
        scale = self.half_rates[x] if sign > 0 else -self.half_rates[x]
        values: dict = {}
        get = values.get
        for bD, k, rest, p in split:
            parts = table.get((bD, k))
            if parts is None:
                parts = table[(bD, k)] = self._antiderivative(c, x, bD, k, scale)
            for off, q in parts:
                key = rest if off is None else tuple(map(add, rest, off))
                pq = p * q
                old = get(key)          # add_into, inline (hot loop)
                if old is not None:
                    pq += old
                    if not pq:
                        del values[key]
                        continue
                values[key] = pq
        return values

    def _antiderivative(self, c: tuple, x: int, bD: int, k: int, scale: fmpq) -> list:
        """[(key offset or None, P)]: scale * A(B) as a sum of terms, A the antiderivative of
        y^k e^(b y) (b = bD/D) and B the bound of u_x given by c.

        For b != 0, A(y) = e^(b y) sum_i (-1)^(k-i) k!/(i! b^(k-i+1)) y^i; for b = 0,
        A(y) = y^(k+1)/(k+1).  An offset adds b*B to the exponent and raises powers of
        B's variables.
        """
        if bD == 0:
            weights = {k + 1: fmpq(1, k + 1)}
        else:
            b = fmpq(bD, self.D)
            weights = {i: fmpq((-1) ** (k - i) * factorial(k), factorial(i)) / b ** (k - i + 1)
                       for i in range(k + 1)}
        acc: dict = {}
        for i, w in weights.items():
            for off, p in self._bound_power(c, x, i).items():
                add_into(acc, off, p * (w * scale))
        shift = self._exponent_shift(bD, c, x)
        return [(tuple(map(add, off, shift)) if any(off) or any(shift) else None, p) for off, p in acc.items()]

    def _exponent_shift(self, bD: int, c: tuple, x: int) -> list:
        """b*B on the exponent grid, as a key offset (b = bD/D)."""
        cx = c[x]
        shift = [0] * (2 * self.n + 1)
        for j, cj in enumerate(c):
            if cj and j != x:
                q, r = divmod(-bD * cj, cx)
                if r:
                    raise Rescale(abs(cx))
                shift[j] = q
        return shift

    def _bound_power(self, c: tuple, x: int, i: int) -> dict:
        """B^i as {key offset (powers of u's only): fmpq_poly in eps}, B = -(c without x)/c_x."""
        powers = self._powers_cache.get((c, x))
        if powers is None:
            n, cx = self.n, c[x]
            B: dict = {}
            for j, cj in enumerate(c):
                if cj and j != x:
                    if j == n:      # the eps part stays in the coefficient polynomial
                        add_into(B, self.zero_key, fmpq_poly([0, fmpq(-cj, cx)]))
                    else:
                        off = [0] * (2 * n + 1)
                        off[n + 1 + j] = 1
                        add_into(B, tuple(off), fmpq_poly([fmpq(-cj, cx)]))
            powers = self._powers_cache[(c, x)] = [{self.zero_key: self.one}, B]
        while len(powers) <= i:
            powers.append(self.multiply(powers[-1], powers[1]))
        return powers[i]
