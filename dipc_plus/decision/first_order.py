"""First-order lower bounds of G = sum c eps^n x^a e^(eps g(z)) on a sub-box: by the exact series in eps
near eps = 0, or by the mean-value form elsewhere (`FirstOrderForm`, the kind a parameter).

Why: a zeroth-order enclosure encloses every term on its own, so two terms that nearly cancel (the two
sides of a privacy ratio, e^(k eps) P[o | u'] - P[o | u]) leave a gap proportional to the sub-box's
width, and closing a claim with little slack needs exponentially many sub-boxes.  Both kinds cancel
the first order exactly:

- SERIES (eps in (0, e1]).  Near eps = 0, G vanishes with every input, so G/eps is what must stay
  >= 0.  Expanding e^(eps g) = sum_k (eps g)^k / k! gives G/eps = S0/eps + C_1(z) + eps C_2(z) + ... + R
  with each C_j a polynomial in z computed in rationals (`series_coefficients`), S0 the coefficient
  sum of the eps-free terms, and R bounded by Lagrange's remainder of each term.
- MEAN_VALUE (eps in [e0, e1]).  F(Z) in F(c) + sum_i F_i(Z) (Z_i - c_i), c a point of the box and
  F_i the partial derivative (over z and eps) enclosed on the whole box, leaves a gap proportional to
  the width squared.  F is G, or G/eps near 0: there a term c e^(eps g) / eps is
  c/eps + c g phi(eps g), phi(y) = (e^y - 1)/y, and the c/eps sum to S0/eps.

The mean-value form works on `Atom`s c eps^n x^a L_1(z)..L_k(z) Phi(eps g(z)), L_j and g affine,
Phi one of exp, phi and psi = phi' (both increasing: phi(y) = int_0^1 e^(ys) ds, psi(y) =
int_0^1 s e^(ys) ds); their partial derivatives are atoms of the same kind (`_derivative`), computed
exactly; psi is never differentiated.  z is the branch-and-bound's coordinates; x, the point a
monomial reads, is a linear image of z (`readers`).  Every enclosure is exact rational or an arb ball
with outward rounding; polynomials are dicts {exponent tuple: Fraction}.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from operator import add

from flint import arb

from dipc_plus.decision.box_enclosure import interval_times, linear_range, power_range, reader_images
from dipc_plus.decision.certified import hull, lower_bound, q_ball, upper_bound
from dipc_plus.exact.param_poly import poly_mul
from dipc_plus.exact.sparse import accumulate, add_keys, sparse_product

SERIES, MEAN_VALUE = "series", "mean value"
ORDER = 6      # the series is kept up to eps^ORDER in G (eps^(ORDER - 1) in G/eps)
TINY = Fraction(1, 2 ** 24)    # phi and psi near 0 are evaluated at +-TINY (monotone: an outer value)
DERIVED = {"exp": "exp", "phi": "psi"}


def affine_poly(coeffs, const, m: int) -> dict:
    """sum coeffs_i z_i + const as a polynomial in m variables.

    >>> affine_poly([2, 0], 1, 2)
    {(0, 0): Fraction(1, 1), (1, 0): Fraction(2, 1)}
    """
    out = {(0,) * m: Fraction(const)} if const else {}
    for i, a in enumerate(coeffs):
        if a:
            out[tuple(int(j == i) for j in range(m))] = Fraction(a)
    return out


def poly_range(poly: dict, Z: list) -> tuple[Fraction, Fraction]:
    """An exact rational interval holding the polynomial over the box Z (monomial by monomial).

    >>> poly_range({(2,): Fraction(1), (0,): Fraction(-1)}, [(Fraction(-1), Fraction(2))])   # z^2 - 1 on [-1, 2]
    (Fraction(-1, 1), Fraction(3, 1))
    """
    lo = hi = Fraction(0)
    for e, c in poly.items():
        term_lo, term_hi = monomial_range(c, e, Z)
        lo, hi = lo + term_lo, hi + term_hi
    return lo, hi


def monomial_range(c: Fraction, powers: tuple, image: list) -> tuple[Fraction, Fraction]:
    """The exact range of c x^powers over the box `image` of x.

    >>> monomial_range(Fraction(-2), (1, 2), [(Fraction(1), Fraction(3)), (Fraction(-1), Fraction(1))])   # -2 x y^2
    (Fraction(-6, 1), Fraction(0, 1))
    """
    lo = hi = Fraction(c)
    for (a, b), k in zip(image, powers):
        if k:
            lo, hi = interval_times((lo, hi), power_range(a, b, k))
    return lo, hi


def exp_series(terms: list, count, combine=add) -> dict:
    """{(order, exponent): coefficient} of sum c eps^n M e^(eps L), each term (c, n, M, L) expanded as
    sum_k c eps^(n+k) M L^k / k! over its first count(n) powers k; M and L are polynomials keyed by
    exponents that `combine` adds.  Zeros are dropped at the end only, so a key keeps the place where
    it first appeared (callers sum balls in this order).

    e^eps - 1 = eps + eps^2/2 + ..., two powers of each term kept:

    >>> exp_series([(Fraction(1), 0, {0: 1}, {0: 1}), (Fraction(-1), 0, {0: 1}, {0: 0})], lambda n: 2)
    {(1, 0): Fraction(1, 1)}
    """
    out: dict = {}
    for c, n, mono, L in terms:
        power = mono
        for k in range(count(n)):
            for e, v in power.items():
                accumulate(out, (n + k, e), c * v / math.factorial(k))
            power = sparse_product(power, L, combine)
    return {key: v for key, v in out.items() if v}


def series_coefficients(terms: list, m: int, readers: list) -> list[dict]:
    """[C_0, .., C_ORDER]: the polynomial in z of eps^j in the series of sum c eps^n x^a e^(eps g).

    e^(eps z) - 1 = eps z + eps^2 z^2 / 2 + ...:

    >>> series_coefficients([(Fraction(1), 0, (), 0, ((1,), 0)), (Fraction(-1), 0, (), 0, ((0,), 0))], 1, [[]])[:3]
    [{}, {(1,): Fraction(1, 1)}, {(2,): Fraction(1, 2)}]
    """
    expanded = []
    for c, n, powers, reader, (g, g0) in terms:
        mono = {(0,) * m: Fraction(1)}
        for row, k in zip(readers[reader], powers):
            for _ in range(k):
                mono = poly_mul(mono, affine_poly(row, 0, m))
        expanded.append((c, n, mono, affine_poly(g, g0, m)))
    coefficients = [dict() for _ in range(ORDER + 1)]
    for (j, e), v in exp_series(expanded, lambda n: ORDER - n + 1, add_keys).items():
        coefficients[j][e] = v
    return coefficients


@dataclass(frozen=True)
class Atom:
    """c eps^n x^powers prod(factors) Phi_kind(eps g); x = the `reader`-th linear image of z; each
    affine form is (coefficients over z, constant).

    >>> Atom(Fraction(2), 1, (), 0, (), "exp", ((1,), 0))      # 2 eps e^(eps z)
    Atom(c=Fraction(2, 1), n=1, powers=(), reader=0, factors=(), kind='exp', g=((1,), 0))
    """
    c: Fraction
    n: int
    powers: tuple
    reader: int
    factors: tuple
    kind: str
    g: tuple


class FirstOrderForm:
    """G = sum c eps^n x^a e^(eps g(z)) (terms (c, n, powers, reader, g), g = (coefficients, constant),
    n counting the powers) read once for one kind of lower bound; divided by eps when by_eps.

    G = e^(eps z) - 1 on z in [1, 2]: G/eps = z + eps z^2/2 + ... >= 1 there for eps in (0, 1/10];
    on z in [0, 1], eps in [1, 2] G >= 0 (its least value, at z = 0, is 0) and the mean-value bound
    sits just below it:

    >>> G = [(Fraction(1), 0, (), 0, ((1,), 0)), (Fraction(-1), 0, (), 0, ((0,), 0))]
    >>> series = FirstOrderForm(SERIES, G, 1, [[]])
    >>> series.coefficients[1], 0 < series.lower([(Fraction(1), Fraction(2))], 0, Fraction(1, 10)) <= 1
    ({(1,): Fraction(1, 1)}, True)
    >>> F = FirstOrderForm(MEAN_VALUE, G, 1, [[]], by_eps=False)
    >>> -Fraction(1, 10**6) < F.lower([(Fraction(0), Fraction(1))], Fraction(1), Fraction(2)) <= 0
    True
    """

    def __init__(self, kind: str, terms: list, m: int, readers: list, by_eps: bool = True):
        if any(n < sum(powers) for _, n, powers, _, _ in terms) or (kind == SERIES and not by_eps):
            raise ValueError("a term's n counts its powers, and the series bounds G/eps")
        self.kind, self.terms, self.m, self.readers = kind, terms, m, readers
        self.s0 = sum((c for c, n, *_ in terms if by_eps and n == 0), Fraction(0))   # those terms read no input
        if kind == SERIES:
            self.coefficients = series_coefficients(terms, m, readers)
            return
        self.atoms = [Atom(c, 0, powers, r, (g,), "phi", g) if by_eps and n == 0 else
                      Atom(c, n - 1 if by_eps else n, powers, r, (), "exp", g) for c, n, powers, r, g in terms]
        self.partials = [_merge(a for t in self.atoms for a in _derivative(t, var, readers))
                         for var in [*range(m), None]]

    def lower(self, Z: list, e0: Fraction, e1: Fraction) -> Fraction | None:
        """A rational below G (G/eps when by_eps) on Z x [e0, e1] (the series: (0, e1]); None when it
        gives nothing (S0 < 0: G/eps unbounded below near 0; an enclosure not finite)."""
        if self.s0 < 0:
            return None
        low = self.series_lower(Z, e1) if self.kind == SERIES else self.mean_value_lower(Z, (e0, e1))
        return None if low is None else low + self.s0 / e1

    def series_lower(self, Z: list, e1: Fraction) -> Fraction:
        """Below G/eps - S0/eps on Z x (0, e1]: C_1's least value, the negative part of the higher
        coefficients at e1, less the remainder."""
        low = poly_range(self.coefficients[1], Z)[0]
        for j in range(2, ORDER + 1):
            c_lo = poly_range(self.coefficients[j], Z)[0]
            if c_lo < 0:
                low += c_lo * e1 ** (j - 1)
        return low - self.remainder(Z, e1)

    def remainder(self, Z: list, e1: Fraction) -> Fraction:
        """Above |G - series|/eps on Z x (0, e1]: each term's Lagrange remainder
        |c x^a| eps^(n-1) |eps g|^(K+1)/(K+1)! e^(max(0, eps g)), K = ORDER - n (the whole term when n > ORDER)."""
        total = arb(0)
        images = reader_images(self.readers, Z)
        for c, n, powers, reader, (g, g0) in self.terms:
            size = max(map(abs, monomial_range(c, powers, images[reader])))
            g_lo, g_hi = linear_range(g, g0, Z)
            K = ORDER - n
            lagrange = 1 if n > ORDER else (e1 * max(abs(g_lo), abs(g_hi))) ** (K + 1) / math.factorial(K + 1)
            total += q_ball(size * e1 ** (n - 1) * lagrange) * q_ball(max(Fraction(0), e1 * g_hi)).exp()
        return upper_bound(total)

    def mean_value_lower(self, Z: list, E: tuple) -> Fraction | None:
        """A rational below F on Z x E, by the mean-value theorem about a point c of the box:
        F(x) >= F(c) + sum_i min F_i(Z x E) (x_i - c_i).  c_i is the low end of a side where F_i >= 0
        (the term is then >= 0), the high end where F_i <= 0, else the middle (the term >= -r_i
        max |F_i|, r_i the half width).  None when an enclosure is not finite."""
        sides, centre, slack = [*Z, E], [], Fraction(0)
        for var, (a, b) in enumerate(sides):
            if a == b or not self.partials[var]:
                centre.append(a)
                continue
            D = _enclose(self.partials[var], Z, E, self.readers)
            if D is None:
                return None
            lo, hi = D
            if lo >= 0 or hi <= 0:
                centre.append(a if lo >= 0 else b)
            else:
                centre.append((a + b) / 2)
                slack += (b - a) / 2 * max(-lo, hi)
        point = [(x, x) for x in centre[:-1]]
        value = _enclose(self.atoms, point, (centre[-1], centre[-1]), self.readers)
        return None if value is None else value[0] - slack


def _derivative(atom: Atom, var: int | None, readers: list) -> list[Atom]:
    """The atoms of d atom / d z_var (var None: d / d eps); readers[r] is the matrix (rows over x,
    columns over z) of the r-th linear image x of z."""
    c, out = atom.c, []
    coeffs, _ = atom.g
    if var is None:
        if atom.n:
            out.append(replace(atom, c=c * atom.n, n=atom.n - 1))
        out.append(replace(atom, factors=atom.factors + (atom.g,), kind=DERIVED[atom.kind]))
        return out
    rows = readers[atom.reader]
    for i, (k, row) in enumerate(zip(atom.powers, rows)):
        if k and row[var]:
            powers = atom.powers[:i] + (k - 1,) + atom.powers[i + 1:]
            out.append(replace(atom, c=c * k * row[var], powers=powers))
    for j, (lc, _) in enumerate(atom.factors):
        if lc[var]:
            out.append(replace(atom, c=c * lc[var], factors=atom.factors[:j] + atom.factors[j + 1:]))
    if coeffs[var]:
        out.append(replace(atom, c=c * coeffs[var], n=atom.n + 1, kind=DERIVED[atom.kind]))
    return out


def _merge(atoms) -> list[Atom]:
    """Equal atoms (all but the coefficient) merged, their coefficients added exactly; zeros dropped."""
    out: dict = {}
    for t in atoms:
        key = replace(t, c=Fraction(0))
        out[key] = out.get(key, Fraction(0)) + t.c
    return [replace(k, c=c) for k, c in out.items() if c]


def _kind_at(kind: str, y: Fraction) -> arb:
    """exp, phi or psi at the rational y (phi, psi near 0 at the outer point +-TINY is the caller's)."""
    b = q_ball(y)
    if kind == "exp":
        return b.exp()
    if y == 0:
        return arb(1) if kind == "phi" else arb(1) / 2
    if kind == "phi":
        return b.expm1() / b
    return (b.exp() * (b - 1) + 1) / (b * b)


def _kind_range(kind: str, lo: Fraction, hi: Fraction) -> arb:
    """A ball holding Phi_kind over [lo, hi]: each is increasing, so the hull of its ends, taken away
    from 0 for phi and psi (where their closed forms cancel) at the outer point +-TINY."""
    if kind != "exp":
        if -TINY < lo < TINY and lo != 0:
            lo = -TINY
        if -TINY < hi < TINY and hi != 0:
            hi = TINY
    if lo == hi:
        return _kind_at(kind, lo)
    return hull(lower_bound(_kind_at(kind, lo)), upper_bound(_kind_at(kind, hi)))


def _enclose(atoms: list[Atom], Z: list, E: tuple, readers: list) -> tuple[Fraction, Fraction] | None:
    """Rationals (lo, hi) with lo <= sum(atoms) <= hi over z in the box Z and eps in E = (e0, e1)
    (points where lo = hi); None when a factor has no finite bound.  Each atom is a product of
    factors whose exact (or certified) ranges are multiplied as rational intervals, end by end: as
    midpoint-radius balls, [0, 1] * [1, e^2] is about [-1.8, 7.4], and even the hull of [0, x] reaches
    a little below 0 after rounding, which turned a sign-definite partial derivative into slack."""
    e0, e1 = E
    total_lo = total_hi = Fraction(0)
    images = reader_images(readers, Z)
    for t in atoms:
        lo, hi = monomial_range(t.c, t.powers, images[t.reader])
        if t.n:
            lo, hi = interval_times((lo, hi), power_range(Fraction(e0), Fraction(e1), t.n))
        for lc, l0 in t.factors:
            lo, hi = interval_times((lo, hi), linear_range(lc, l0, Z))
        g_lo, g_hi = linear_range(t.g[0], t.g[1], Z)
        ends = [x * y for x in (e0, e1) for y in (g_lo, g_hi)]
        phi = _kind_range(t.kind, min(ends), max(ends))
        if not phi.is_finite():
            return None
        lo, hi = interval_times((lo, hi), (lower_bound(phi), upper_bound(phi)))
        total_lo, total_hi = total_lo + lo, total_hi + hi
    return total_lo, total_hi
