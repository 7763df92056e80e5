"""First-order (mean-value) enclosures of sums of c eps^n x^a L_1..L_k Phi(eps g) on a sub-box.

Why: a zeroth-order enclosure encloses every term on its own, so two terms that nearly cancel
(the two sides of a privacy ratio, e^(k eps) P[o | u'] - P[o | u]) leave a gap proportional to the
sub-box's width, and closing a claim with little slack needs exponentially many sub-boxes.  The
mean-value form F(Z) in F(c) + sum_i F_i(Z) (Z_i - c_i), with c the centre and F_i the partial
derivative enclosed on the whole sub-box, leaves a gap proportional to the width squared.

The functions are sums of `Atom`s over z = (z_1..z_m) (the branch-and-bound's own coordinates)
and eps: c eps^n x^a L_1(z)..L_k(z) Phi(eps g(z)), with x the point the monomial reads (a linear
image of z, e.g. u or u + d), L_j and g affine, and Phi one of exp, phi(y) = (e^y - 1)/y and
psi = phi' (both increasing: phi(y) = int_0^1 e^(ys) ds, psi(y) = int_0^1 s e^(ys) ds).  Their
partial derivatives are sums of atoms of the same kind (`_derivative`), computed exactly; psi is
never differentiated (only first derivatives are taken).  Every enclosure is an arb ball with
outward rounding built from exact rational ranges.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from flint import arb

from dipc_plus.decision.box_enclosure import interval_times, linear_range, power_range, q_ball, reader_images
from dipc_plus.decision.certified import hull, lower_bound, upper_bound

TINY = Fraction(1, 2 ** 24)    # phi and psi near 0 are evaluated at +-TINY (monotone: an outer value)
DERIVED = {"exp": "exp", "phi": "psi"}


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
        lo = hi = Fraction(t.c)
        if t.n:
            lo, hi = interval_times((lo, hi), power_range(Fraction(e0), Fraction(e1), t.n))
        for (a, b), k in zip(images[t.reader], t.powers):
            if k:
                lo, hi = interval_times((lo, hi), power_range(a, b, k))
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


class MeanValueForm:
    """F = sum(atoms) with its partial derivatives over z_1..z_m and eps, built once per function.

    F = e^(eps z) - 1 on z in [0, 1], eps in [1, 2] is >= 0 (its least value, at z = 0, is 0); the
    first-order bound sits just below it:

    >>> F = MeanValueForm([Atom(Fraction(1), 0, (), 0, (), "exp", ((1,), 0)),
    ...                    Atom(Fraction(-1), 0, (), 0, (), "exp", ((0,), 0))], 1, [[]])
    >>> -Fraction(1, 10**6) < F.lower([(Fraction(0), Fraction(1))], (Fraction(1), Fraction(2))) <= 0
    True
    """

    def __init__(self, atoms: list[Atom], m: int, readers: list):
        self.atoms, self.m, self.readers = atoms, m, readers
        self.partials = [_merge(a for t in atoms for a in _derivative(t, var, readers))
                         for var in [*range(m), None]]

    def lower(self, Z: list, E: tuple) -> Fraction | None:
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


def _merge(atoms) -> list[Atom]:
    """Equal atoms (all but the coefficient) merged, their coefficients added exactly; zeros dropped."""
    out: dict = {}
    for t in atoms:
        key = replace(t, c=Fraction(0))
        out[key] = out.get(key, Fraction(0)) + t.c
    return [replace(k, c=c) for k, c in out.items() if c]
