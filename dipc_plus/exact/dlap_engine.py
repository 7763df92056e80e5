"""Exact probability that linear constraints over independent discrete Laplace noises hold.

Every probability is a rational function of T = e^(-eps/L) (`RF`), computed by exact
symbolic summation, one integer variable at a time (split on signs and on the binding
bounds, then an exact antidifference); converted to an `ExpFrac` at the end.  One module
of about 650 lines because summation, case split and pruning share one representation
of pieces.  Design: docs/design/exact_engines.md.

Examples.  N ~ DLap(eps): P[N = 0] = c = (1 - t)/(1 + t) = (e^eps - 1)/(e^eps + 1), and
P[N > 1] = P[N >= 2] = c t^2/(1 - t) = t^2/(1 + t); with two of them,
P[N_0 = N_1] = c^2 (1 + t^2)/(1 - t^2) (geometric sums, by hand):

>>> from dipc_plus.exact.linear import LinForm, Noise, atom
>>> dlap = Noise("dlap", Fraction(1))
>>> zero = atom(LinForm.make({0: 1}), "==", LinForm.constant(0))
>>> print(probability((zero,), (dlap,)))
(e^eps - 1) / (e^eps + 1)
>>> print(probability((atom(LinForm.make({0: 1}), ">", LinForm.constant(1)),), (dlap,)))
(e^(-eps)) / (e^eps + 1)
>>> print(probability((atom(LinForm.make({0: 1}), "==", LinForm.make({1: 1})),), (dlap, dlap)))
(e^(3*eps) - e^(2*eps) + e^eps - 1) / (e^(3*eps) + 3*e^(2*eps) + 3*e^eps + 1)

The same P[N = 0] in Q(T), T = e^(-eps/L) with L = 1, before conversion (an `RF`):

>>> rf = RF(fmpq_poly([1, -1]), fmpq_poly([1, 1]))          # (1 - T) / (1 + T)
>>> rf
RF(T^0 * ((-1)*x + 1) / (x + 1))
>>> print(rf.to_expfrac(1))
(e^eps - 1) / (e^eps + 1)
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache, reduce
from itertools import product
from math import comb, gcd, lcm

from flint import fmpq_poly

from dipc_plus.exact import lp
from dipc_plus.exact.binding_bounds import binding_cases, by_sign
from dipc_plus.exact.convert import to_fmpq
from dipc_plus.exact.cells import primitive
from dipc_plus.exact.exp_terms import add_all_into, add_into
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.linear import atom_row, engine_rates
from dipc_plus.exact.param_poly import poly_mul

# Residue splitting for non-unit coefficients multiplies the work; beyond this many
# classes for one elimination we refuse rather than run for hours.
MAX_RESIDUE_CASES = 256


# ----------------------------------------------------------------------------- Q(T)

_ONE = fmpq_poly([1])


def _valuation(p: fmpq_poly) -> int:
    v = 0
    while p[v] == 0:
        v += 1
    return v


class RF:
    """T^s * num/den in Q(T): neither num nor den divisible by T, den(0) = 1.

    Products cancel common factors across their operands, sums skip the gcd
    (see __add__), so num and den may share a factor until `reduced()`;
    its truth value (zero or not) is exact regardless.  Kept apart from `ExpFrac`: the summation's hot
    path needs that lazy gcd and integer powers of one T, which ExpFrac's general exponents lack."""

    __slots__ = ("num", "den", "s")

    def __init__(self, num: fmpq_poly, den: fmpq_poly = _ONE, s: int = 0, *, reduced: bool = False):
        if not reduced:
            if num == 0:
                num, den, s = fmpq_poly([0]), _ONE, 0
            else:
                v = _valuation(num)
                if v:
                    num, s = num.right_shift(v), s + v
                v = _valuation(den)
                if v:
                    den, s = den.right_shift(v), s - v
                if not den.is_one():
                    g = num.gcd(den)
                    if not g.is_one():
                        num, den = num // g, den // g
                    c = den[0]
                    if c != 1:
                        num, den = num / c, den / c
        self.num, self.den, self.s = num, den, s

    def __bool__(self) -> bool:
        return self.num != 0

    def __mul__(self, other: "RF") -> "RF":
        if self.num == 0 or other.num == 0:
            return _RF_ZERO
        n1, d1, n2, d2 = self.num, self.den, other.num, other.den
        if not d2.is_one():
            g = n1.gcd(d2)
            if not g.is_one():
                n1, d2 = n1 // g, d2 // g
        if not d1.is_one():
            g = n2.gcd(d1)
            if not g.is_one():
                n2, d1 = n2 // g, d1 // g
        num, den = n1 * n2, d1 * d2
        c = den[0]
        if c != 1:
            num, den = num / c, den / c
        return RF(num, den, self.s + other.s, reduced=True)

    def scale(self, c) -> "RF":
        """self * c for a rational c."""
        if c == 0 or self.num == 0:
            return _RF_ZERO
        if c == 1:
            return self
        return RF(self.num * to_fmpq(c), self.den, self.s, reduced=True)

    def shift(self, k: int) -> "RF":
        """self * T^k."""
        if k == 0 or self.num == 0:
            return self
        return RF(self.num, self.den, self.s + k, reduced=True)

    def __add__(self, other: "RF") -> "RF":
        if self.num == 0:
            return other
        if other.num == 0:
            return self
        s = min(self.s, other.s)
        a, b = self.num, other.num
        if self.s > s:
            a = a.left_shift(self.s - s)
        if other.s > s:
            b = b.left_shift(other.s - s)
        d1, d2 = self.den, other.den
        if d1 == d2:
            num, den = a + b, d1
        elif d2.is_one():
            num, den = a + b * d1, d1
        elif d1.is_one():
            num, den = a * d2 + b, d2
        else:  # over the lcm of the denominators
            g = d1.gcd(d2)
            if not g.is_one():
                d2 = d2 // g
                d1g = d1 // g
            else:
                d1g = d1
            num, den = a * d2 + b * d1g, d1 * d2
            c = den[0]
            if c != 1:
                num, den = num / c, den / c
        if num == 0:
            return _RF_ZERO
        v = _valuation(num)
        if v:
            num, s = num.right_shift(v), s + v
        # num and den may now share a factor: sums skip that gcd (it is the expensive part);
        # products cancel across, and `reduced()` makes the value canonical at the end.
        return RF(num, den, s, reduced=True)

    def reduced(self) -> "RF":
        """The canonical form (num and den coprime)."""
        return RF(self.num, self.den, self.s)

    def __neg__(self) -> "RF":
        return RF(-self.num, self.den, self.s, reduced=True)

    def __sub__(self, other: "RF") -> "RF":
        return self + (-other)

    def __repr__(self) -> str:
        return f"RF(T^{self.s} * ({self.num}) / ({self.den}))"

    def to_expfrac(self, L: int) -> ExpFrac:
        """Substitute T = e^(-eps/L)."""
        def ep(p: fmpq_poly, shift: int) -> ExpPoly:
            return ExpPoly({Fraction(-(k + shift), L): fmpq_poly([c]) for k, c in enumerate(p.coeffs()) if c != 0})
        return ExpFrac(ep(self.num, self.s), ep(self.den, 0))


_RF_ZERO = RF(fmpq_poly([0]))
_RF_ONE = RF(_ONE)


def _over_t_minus_one(e: int) -> RF:
    """1 / (z - 1) for z = T^e != 1: -1 / (1 - T^e), or T^-e / (1 - T^-e) when e < 0."""
    one_minus = fmpq_poly([1] + [0] * (abs(e) - 1) + [-1])
    return RF(fmpq_poly([-1]), one_minus) if e > 0 else RF(_ONE, one_minus, -e)


@lru_cache(maxsize=None)
def _antidifference(p: int, e: int) -> tuple:
    """Coefficients q_0..q_d (RF) of A(n) with A(n+1) - A(n) = n^p z^n, z = T^e.

    For e != 0, A(n) = (sum_k q_k n^k) z^n with d = p; for e == 0, A is the
    polynomial sum_k q_k n^k of degree p + 1 with A(0) = 0 (Faulhaber).
    """
    if e == 0:
        q = [Fraction(0)] * (p + 2)
        for m in range(p, -1, -1):  # coefficient of n^m in A(n+1) - A(n)
            rhs = Fraction(1 if m == p else 0) - sum(q[k] * comb(k, m) for k in range(m + 2, p + 2))
            q[m + 1] = rhs / (m + 1)
        return tuple(_RF_ONE.scale(c) for c in q)
    z = _RF_ONE.shift(e)
    inv = _over_t_minus_one(e)
    q = [_RF_ZERO] * (p + 1)
    for m in range(p, -1, -1):  # coefficient of n^m in z Q(n+1) - Q(n)
        acc = _RF_ONE if m == p else _RF_ZERO
        tail = _RF_ZERO
        for k in range(m + 1, p + 1):
            if q[k]:
                tail = tail + q[k].scale(comb(k, m))
        q[m] = (acc - z * tail) * inv
    return tuple(q)


# ----------------------------------------------------------------------------- linear forms

def _norm_le(a: tuple, b: int):
    """Normalise a.x + b <= 0 over the integers: True (always), False (never) or (a', b')."""
    g = reduce(gcd, a, 0)
    if g == 0:
        return b <= 0
    if g == 1:
        return a, b
    return tuple(c // g for c in a), -((-b) // g)  # ceil(b / g)


def _after(row: tuple, k: int, a: tuple, b: int) -> tuple:
    """The affine form row = (c, d), meaning c.x + d, after x_k := a.x + b."""
    c, d = row
    ck = c[k]
    if ck == 0:
        return row
    return tuple((0 if i == k else x) + ck * f for i, (x, f) in enumerate(zip(c, a))), d + ck * b


class _Infeasible(Exception):
    pass


def _constraint_set(rows) -> tuple:
    """Canonical constraint tuple: normalised, tightest per direction; raises _Infeasible.
    Kept beside `lp`: over the integers a row tightens (ceil(b / g)), which no rational LP row says."""
    best: dict = {}
    for a, b in rows:
        r = _norm_le(a, b)
        if r is True:
            continue
        if r is False:
            raise _Infeasible
        a, b = r
        if best.get(a, b - 1) < b:
            best[a] = b
    for a, b in best.items():
        neg = tuple(-x for x in a)
        if neg in best and best[neg] + b > 0:  # -b' <= a.x <= -b
            raise _Infeasible
    return tuple(sorted(best.items()))


def _pruned(rows) -> tuple | None:
    """The canonical set of `rows`, or None when it certainly has no integer solution: tightening
    finds none, or the exact LP (`lp.feasible`) finds no rational one.  Pruning only saves work,
    so the rational relaxation of the tightened rows is enough."""
    try:
        cons = _constraint_set(rows)
    except _Infeasible:
        return None
    if cons and not lp.feasible([lp.Constraint.make({j: c for j, c in enumerate(a) if c}, "<=", -b)
                                 for a, b in cons]):
        return None
    return cons


# ----------------------------------------------------------------------------- pieces
# A piece is (cons, pend, summ):
#   cons  tuple of (a, b): a.x + b <= 0, canonical (see _constraint_set)
#   pend  tuple of (r, a, b): factor T^(r |a.x + b|), sorted
#   summ  dict (exp, mono) -> RF: coeff * x^mono * T^(exp . x)


def _pow_form(a: tuple, b: int, k: int) -> dict:
    """(a.x + b)^k as a dict mono -> int."""
    n = len(a)
    zero = (0,) * n
    lin = {zero: b} if b else {}
    for i, c in enumerate(a):
        if c:
            m = list(zero)
            m[i] = 1
            lin[tuple(m)] = c
    out = {zero: 1}
    for _ in range(k):
        out = poly_mul(out, lin)
    return out


def _substitute(piece, k: int, a: tuple, b: int):
    """The piece after x_k := a.x + b (a may involve x_k itself: an integer change of variables
    that must be a bijection of Z^n, or a residue class x_k = M x_k' + r). Raises _Infeasible."""
    cons, pend, summ = piece
    new_cons = _constraint_set(_after(row, k, a, b) for row in cons)
    new_pend, fixed = [], 0
    for r, pa, pb in pend:
        pa, pb = _after((pa, pb), k, a, b)
        if any(pa):
            new_pend.append((r, pa, pb))
        else:  # the factor no longer depends on any variable: T^(r |pb|)
            fixed += r * abs(pb)
    new_pend = tuple(sorted(new_pend))
    new_summ: dict = {}
    for (exp, mono), c in summ.items():
        mk = mono[k]
        exp2, shift = _after((exp, fixed), k, a, b)
        c = c.shift(shift)
        if mk == 0:
            add_into(new_summ, (exp2, mono), c)
            continue
        base = mono[:k] + (0,) + mono[k + 1:]
        for m, coef in _pow_form(a, b, mk).items():
            add_into(new_summ, (exp2, tuple(x + y for x, y in zip(base, m))), c.scale(coef))
    return new_cons, new_pend, new_summ


def _sum_out(summ: dict, i: int, lo, hi) -> dict:
    """sum over x_i from lo to hi (affine forms (a, b) without x_i, or None for -inf / +inf)."""
    out: dict = {}
    ends = []
    if hi is not None:
        ends.append((hi[0], hi[1] + 1, 1))
    if lo is not None:
        ends.append((lo[0], lo[1], -1))
    for (exp, mono), c in summ.items():
        e, p = exp[i], mono[i]
        if (hi is None and e <= 0) or (lo is None and e >= 0):
            raise AssertionError("dlap_engine: divergent sum (internal error)")
        exp0 = exp[:i] + (0,) + exp[i + 1:]
        mono0 = mono[:i] + (0,) + mono[i + 1:]
        q = _antidifference(p, e)
        for ba, bb, sign in ends:
            exp1 = tuple(x + e * y for x, y in zip(exp0, ba))
            cz = c.shift(e * bb)
            if sign < 0:
                cz = -cz
            for k, qk in enumerate(q):
                if not qk:
                    continue
                ck = cz * qk
                for m, coef in _pow_form(ba, bb, k).items():
                    add_into(out, (exp1, tuple(x + y for x, y in zip(mono0, m))), ck.scale(coef))
    return out


def _split_signs(piece, i: int) -> list:
    """Resolve the pending |f| factors that involve x_i: one piece per sign pattern."""
    cons, pend, summ = piece
    keep = tuple(f for f in pend if f[1][i] == 0)
    branches = [(list(cons), summ)]
    for r, a, b in pend:
        if a[i] == 0:
            continue
        nxt = []
        for rows, s in branches:
            # f >= 0: -f <= 0, weight T^(r f);  f <= -1: f + 1 <= 0, weight T^(-r f)
            for sgn, row in ((1, (tuple(-x for x in a), -b)), (-1, (a, b + 1))):
                s2 = {}
                for (exp, mono), c in s.items():
                    s2[(tuple(x + sgn * r * y for x, y in zip(exp, a)), mono)] = c.shift(sgn * r * b)
                nxt.append((rows + [row], s2))
        branches = nxt
    out = []
    for rows, s in branches:
        cons2 = _pruned(rows)
        if cons2 is not None:
            out.append((cons2, keep, s))
    return out


def _unit_residues(piece, i: int) -> list:
    """Split the piece into residue classes so that every constraint has coefficient +-1 on x_i."""
    cons = piece[0]
    bad = [a for a, _ in cons if abs(a[i]) > 1]
    if not bad:
        return [piece]
    M = reduce(lcm, (abs(a[i]) for a in bad), 1)
    ys = sorted({j for a in bad for j, c in enumerate(a) if c and j != i})
    cases = M ** len(ys)
    if cases > MAX_RESIDUE_CASES:
        raise ValueError(
            f"discrete Laplace constraints with coefficient {M} on one noise need {cases} residue "
            f"classes (limit {MAX_RESIDUE_CASES}); rewrite the comparison with unit coefficients")
    n = len(cons[0][0])
    out = []
    for rs in product(range(M), repeat=len(ys)):
        p = piece
        try:
            for j, r in zip(ys, rs):
                a = tuple(M if t == j else 0 for t in range(n))
                p = _substitute(p, j, a, r)  # x_j := M x_j + r
        except _Infeasible:
            continue
        assert all(abs(a[i]) <= 1 for a, _ in p[0]), "residue split left a non-unit coefficient"
        out.append(p)
    return out


def _bound(row: tuple, i: int) -> tuple:
    """The bound f on x_i of a row a.x + b <= 0 with a_i = +-1 (x_i <= f for +1, x_i >= f for -1):
    f = -a_i (rest + b), an affine form (coefficients, constant) without x_i."""
    (a, b), c = row, row[0][i]
    return tuple(0 if j == i else -c * x for j, x in enumerate(a)), -c * b


def _le(p: tuple, q: tuple, strict: bool) -> tuple:
    """The row for p <= q (p < q if strict) of two bounds (a, b) meaning a.x + b."""
    return tuple(x - y for x, y in zip(p[0], q[0])), p[1] - q[1] + strict


def _eliminate(piece, i: int) -> list:
    """Sum x_i out of one piece; returns the resulting pieces."""
    result = []
    for p in _split_signs(piece, i):
        for cons, pend, summ in _unit_residues(p, i):
            lows, highs, others = by_sign(cons, lambda row: row[0][i])
            for lo, up, rows in binding_cases([_bound(r, i) for r in lows], [_bound(r, i) for r in highs], _le):
                cons2 = _pruned(others + rows)
                if cons2 is None:
                    continue
                s2 = _sum_out(summ, i, lo, up)
                if s2:
                    result.append((cons2, pend, s2))
    return result


def _merge(pieces) -> list:
    """The pieces with equal constraints and pending factors added into one."""
    acc: dict = {}
    for cons, pend, summ in pieces:
        add_all_into(acc.setdefault((cons, pend), {}), summ)
    return [(c, p, s) for (c, p), s in acc.items() if s]


def _choose(pieces, n: int) -> int | None:
    """The next variable to sum out: all-unit coefficients first, then fewest constraints and
    pending factors in the worst piece, then the lowest index; None when none is left."""
    best = None
    for v in range(n):
        worst, unit, live = 0, True, False
        for cons, pend, summ in pieces:
            coefficients = [a[v] for a, _ in cons if a[v]] + [a[v] for _, a, _ in pend if a[v]]
            worst, unit = max(worst, len(coefficients)), unit and all(abs(c) == 1 for c in coefficients)
            live = live or bool(coefficients) or any(exp[v] or mono[v] for exp, mono in summ)
        if live and (best is None or (not unit, worst, v) < best):
            best = (not unit, worst, v)
    return None if best is None else best[2]


def _solve_equalities(piece, eqs: list, n: int):
    """Substitute away each equality a.x + b = 0; None if some equality has no integer solution."""
    eqs = list(eqs)
    while eqs:
        a, b = eqs.pop()
        g = reduce(gcd, a, 0)
        if g == 0:
            if b != 0:
                return None
            continue
        if b % g:
            return None
        a, b = tuple(c // g for c in a), b // g
        # unimodular column operations until some coefficient is +-1 (Euclid on the coefficients)
        while not any(abs(c) == 1 for c in a):
            k = min((j for j in range(n) if a[j]), key=lambda j: abs(a[j]))
            j = next(j for j in range(n) if j != k and a[j] % a[k])
            q = a[j] // a[k]
            # x_k := x_k - q x_j  keeps the lattice and makes a_j -> a_j - q a_k
            sub = tuple(1 if t == k else (-q if t == j else 0) for t in range(n))
            piece = _substitute(piece, k, sub, 0)
            eqs = [_after(eq, k, sub, 0) for eq in eqs]
            a = _after((a, b), k, sub, 0)[0]
        k = next(j for j in range(n) if abs(a[j]) == 1)
        s = a[k]  # x_k = -s (b + sum_{j != k} a_j x_j)
        sub = tuple(0 if t == k else -s * a[t] for t in range(n))
        piece = _substitute(piece, k, sub, -s * b)
        eqs = [_after(eq, k, sub, -s * b) for eq in eqs]
    return piece


def _sum_region(les: list, eqs: list, rates: list) -> RF:
    """sum over integer x with les (a.x + b <= 0) and eqs (a.x + b == 0) of prod_i T^(r_i |x_i|)."""
    n = len(rates)
    zero = (0,) * n
    unit = [tuple(1 if j == i else 0 for j in range(n)) for i in range(n)]
    try:
        cons = _constraint_set(les)
        piece = (cons, tuple(sorted((r, unit[i], 0) for i, r in enumerate(rates))), {(zero, zero): _RF_ONE})
        piece = _solve_equalities(piece, eqs, n)
    except _Infeasible:
        return _RF_ZERO
    if piece is None or _pruned(piece[0]) is None:
        return _RF_ZERO
    pieces = [piece]
    while True:
        v = _choose(pieces, n)
        if v is None:
            break
        nxt = []
        for p in pieces:
            nxt.extend(_eliminate(p, v))
        pieces = _merge(nxt)
    total = _RF_ZERO
    for cons, pend, summ in pieces:
        assert not cons and not pend, "dlap_engine: constraints left after elimination"
        for (exp, mono), c in summ.items():
            assert not any(exp) and not any(mono)
            total = total + c
    return total


def probability(atoms, noises) -> ExpFrac:
    """P[all atoms hold] for independent N_i ~ DLap(rate_i eps, 0) on the integers, exactly: an
    element of Q(T), T = e^(-eps/L), converted at the end."""
    n = len(noises)
    rates_q = engine_rates(noises, "dlap")
    L = reduce(lcm, (q.denominator for q in rates_q), 1)
    rates = [int(q * L) for q in rates_q]
    les, eqs, neqs = [], [], []
    # per op (one of linear.OPS, checked by `atom`): the list of a.x + b op 0, and b's shift
    # (over the integers a.x + b < 0 is a.x + b + 1 <= 0)
    rows_of = {"<=": (les, 0), "<": (les, 1), "==": (eqs, 0), "!=": (neqs, 0)}
    for at in atoms:
        vec = primitive(atom_row(at, n))     # the same comparison, in coprime integers
        rows, shift = rows_of[at.op]
        rows.append((vec[:n], vec[n] + shift))
    total = _RF_ZERO
    # P[C and all f_k != 0] = sum over subsets S of (-1)^|S| P[C and f_k == 0 for k in S]
    for mask in range(1 << len(neqs)):
        chosen = [neqs[k] for k in range(len(neqs)) if mask >> k & 1]
        term = _sum_region(les, eqs + chosen, rates)
        total = total + (-term if len(chosen) % 2 else term)
    norm = _RF_ONE
    for r in rates:  # prod_i (1 - T^r)/(1 + T^r)
        norm = norm * RF(fmpq_poly([1] + [0] * (r - 1) + [-1]), fmpq_poly([1] + [0] * (r - 1) + [1]))
    return (total * norm).reduced().to_expfrac(L)
