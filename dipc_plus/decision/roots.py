"""Zeros of exp-polynomials on an eps interval, as exact or refinable enclosures.

Step 2 of the decision procedure (see `decision.decide`): factor f(eps, t = e^(eps/L))
over Q and isolate the zeros of every irreducible factor -- exactly (arb's certified isolation,
each sign change re-checked) for factors in eps or t alone, by certified bisection for mixed factors, with a
zero-free neighbourhood of 0 and a bound beyond which the dominant term fixes the sign.
Each zero is a `RealRoot` whose enclosure can be refined as far as a caller needs.
(Over 600 lines because about 90 of them are the doctest examples of its public names.)
"""

from __future__ import annotations

import resource
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, fmpq_poly

from dipc_plus.decision.bisection import SETTLED, SPLIT, halves, subdivide
from dipc_plus.decision.certified import (CertificationError, Interval, ball_sign, bits_below,
                                          certified_sign, hull, lower_bound, position, q_ball, upper_bound,
                                          working_precision)
from dipc_plus.errors import UserError
from dipc_plus.exact.convert import fmt_q, linear_text, to_fmpq, to_fraction
from dipc_plus.exact.decimals import arb_bounds, enclosure_text, midpoint_text
from dipc_plus.execution import limits
from dipc_plus.exact.expoly import ExpPoly, mpoly_ctx

# ---------------------------------------------------------------------------------------
# real roots: exact or refinable isolating enclosures
# ---------------------------------------------------------------------------------------

class RealRoot:
    """A zero of one irreducible factor of f, inside the closed rational enclosure [lo, hi]
    (lo == hi == the value for a rational zero).  `refine` shrinks the enclosure towards
    the zero; `compare` decides the order with a rational exactly (it never loops forever,
    because an irrational zero never equals a rational).

    The zero of eps e^eps - 1 (the omega constant W(1) = 0.56714329...), refined to width 1e-6:

    >>> root = zeros_in(ExpPoly.monomial(1, 1, 1) - 1, 1, Interval())[0]
    >>> root.refine_to(Fraction(1, 10**6))
    >>> root.hi - root.lo <= Fraction(1, 10**6), root.lo < Fraction(56714329, 10**8) < root.hi
    (True, True)
    >>> root.compare(Fraction(1, 2)), root.compare(Fraction(3, 5)), root.approx(10)
    (1, -1, '0.5671432904')
    """

    kind = "root"

    def __init__(self, factor: ExpPoly, multiplicity: int, lo: Fraction, hi: Fraction, sign_lo: int = 0):
        self.factor = factor
        self.multiplicity = multiplicity
        self.lo = lo
        self.hi = hi
        self._sign_lo = sign_lo     # the certified sign at lo (`sign_at` gives it at any rational)

    def sign_at(self, x: Fraction) -> int:
        """The certified sign at a rational, by which `refine` halves (a method, not a stored
        function: a root travels to and from worker processes by pickle)."""
        raise NotImplementedError(f"{type(self).__name__} is exact and never refined")

    @property
    def exact(self) -> Fraction | None:
        """The value when it is rational (the enclosure is that point; an irrational zero's never is), else None."""
        return self.lo if self.lo == self.hi else None

    def refine(self) -> None:
        """Keep the half of the enclosure where the sign still changes (a log-algebraic zero refines its own
        way).  The sign at the midpoint is never 0: the zero is irrational, so no rational midpoint hits it."""
        if self.exact is None:
            mid = (self.lo + self.hi) / 2
            s = self.sign_at(mid)
            if s == 0:
                raise CertificationError(f"rational zero {mid} of irreducible {self.factor}")
            self.lo, self.hi = (mid, self.hi) if s == self._sign_lo else (self.lo, mid)

    def compare(self, q) -> int:
        """sign(root - q), decided exactly."""
        q = Fraction(q)
        if self.exact is not None:
            return (self.exact > q) - (self.exact < q)
        while True:
            if q < self.lo:
                return 1
            if q > self.hi:
                return -1
            self.refine()

    def refine_to(self, width: Fraction) -> None:
        while self.exact is None and self.hi - self.lo > width:
            self.refine()

    def ball(self, prec: int = 64) -> arb:
        """A certified ball containing the zero."""
        if self.exact is not None:
            return q_ball(self.exact)
        self.refine_to(Fraction(max(1, abs(self.lo)), 2 ** prec))
        with working_precision(prec + 10):
            return hull(self.lo, self.hi)

    def approx(self, digits: int = 7) -> str:
        return midpoint_text(self.ball(int(digits * 3.33) + 8), digits)

    def short(self) -> str:
        """A compact name for messages: exact where simple, else ~decimal."""
        return "~" + self.approx()

    def __str__(self) -> str:
        return self.short()

    def __repr__(self) -> str:
        return f"<{self.kind} root {self.describe()}>"


class RationalRoot(RealRoot):
    """A rational zero of a linear factor a*eps + b.

    >>> root = zeros_in(ExpPoly.eps() - 1, 1, Interval())[0]
    >>> type(root).__name__, root.exact, root.describe()
    ('RationalRoot', Fraction(1, 1), 'eps = 1 (exact zero of -1 + eps, multiplicity 1)')
    """

    kind = "rational"

    def short(self):
        return fmt_q(self.lo)

    def describe(self):
        return f"eps = {self.short()} (exact zero of {self.factor}, multiplicity {self.multiplicity})"


def _sign_q(p: fmpq_poly, x: Fraction) -> int:
    v = p(to_fmpq(x))
    return (v > 0) - (v < 0)


class AlgebraicRoot(RealRoot):
    """An irrational real zero of an irreducible polynomial p(eps) of degree >= 2.

    sqrt(2) = 1.41421356..., isolated between rationals:

    >>> root = zeros_in(ExpPoly.eps(2) - 2, 1, Interval())[0]
    >>> type(root).__name__, root.approx(10), root.compare(Fraction(141421356, 10**8)), root.compare(Fraction(1414214, 10**6))
    ('AlgebraicRoot', '1.414213562', 1, -1)
    """

    kind = "algebraic"

    def __init__(self, factor, multiplicity, poly: fmpq_poly, lo: Fraction, hi: Fraction):
        # (lo, hi) from _isolate_positive_zeros, which checked the sign change; the sign at a midpoint is
        # never 0: an irreducible p of degree >= 2 has no rational zero
        super().__init__(factor, multiplicity, lo, hi, _sign_q(poly, lo))
        self.poly = poly

    def sign_at(self, x: Fraction) -> int:
        return _sign_q(self.poly, x)

    def short(self):
        return _quadratic_root_text(self) if self.poly.degree() == 2 else super().short()

    def describe(self):
        return (f"eps = {self.short()}: zero of {self.factor} (multiplicity {self.multiplicity}) "
                f"isolated in ({fmt_q(self.lo)}, {fmt_q(self.hi)})")


def _quadratic_root_text(root: AlgebraicRoot) -> str:
    """Closed form (-b +- sqrt(D)) / (2a) of a quadratic zero, the sign chosen exactly."""
    import sympy
    c, b, a = (to_fraction(x) for x in root.poly.coeffs())
    centre = -b / (2 * a)
    plus = root.compare(centre) > 0
    R = sympy.Rational
    expr = R(centre.numerator, centre.denominator) + (1 if plus else -1) * sympy.sqrt(
        R((b * b - 4 * a * c).numerator, (b * b - 4 * a * c).denominator)) / abs(R(2 * a.numerator, a.denominator))
    return str(expr).replace("**", "^")


class LogAlgebraicRoot(RealRoot):
    """eps0 = L ln t0 for a positive zero t0 != 1 of an irreducible polynomial p(t).

    >>> root = zeros_in(ExpPoly.exp(1) - 2, 1, Interval())[0]
    >>> type(root).__name__, str(root), root.approx(10)
    ('LogAlgebraicRoot', 'ln(2)', '0.6931471806')
    """

    kind = "log-algebraic"

    def __init__(self, factor, multiplicity, t: RealRoot, L: int):
        # t: the zero t0 of p, exact or refined by p's signs (a root whose factor is p): its enclosure is what is halved
        super().__init__(factor, multiplicity, Fraction(0), Fraction(0))
        self.t, self.L, self._prec = t, L, 64
        while t.exact is None and t.lo <= 0:  # keep ln defined
            t.refine()
        self.lo, self.hi = self._eps_enclosure()

    def _eps_enclosure(self) -> tuple[Fraction, Fraction]:
        with working_precision(self._prec):
            L = arb(self.L)
            return lower_bound(L * q_ball(self.t.lo).log()), upper_bound(L * q_ball(self.t.hi).log())

    def refine(self):
        self.t.refine()
        self._prec += 32
        lo, hi = self._eps_enclosure()
        self.lo, self.hi = max(self.lo, lo), min(self.hi, hi)

    def short(self):
        t0 = self.t.exact
        if t0 is None:
            return super().short()
        return f"ln({fmt_q(t0)})" if self.L == 1 else f"{self.L}*ln({fmt_q(t0)})"

    def describe(self):
        if self.t.exact is not None:
            return (f"eps = {self.short()} ~ {self.approx()}: zero of {self.factor} "
                    f"(multiplicity {self.multiplicity})")
        return (f"eps = {self.L}*ln(t0) ~ {self.approx()}, t0 the zero of {_tpoly_text(self.t.poly, self.L)} "
                f"in ({fmt_q(self.t.lo)}, {fmt_q(self.t.hi)}): zero of {self.factor} "
                f"(multiplicity {self.multiplicity})")


def _tpoly_text(p: fmpq_poly, L: int) -> str:
    """'t^3 - t - 1 (t = e^(eps/2))'."""
    cs = [to_fraction(c) for c in p.coeffs()]
    text = linear_text(cs[:0:-1], [f"t^{k}" if k > 1 else "t" for k in range(p.degree(), 0, -1)], cs[0])
    return f"{text} (t = e^eps)" if L == 1 else f"{text} (t = e^(eps/{L}))"


class TranscendentalRoot(RealRoot):
    """A zero of h(eps) = g(eps, e^(eps/L)) for an irreducible g in both variables: simple,
    unique in [lo, hi], where h has nonzero signs of opposite sign at the rational ends.

    eps e^eps = 1 at eps = W(1) = 0.5671432904...:

    >>> root = zeros_in(ExpPoly.monomial(1, 1, 1) - 1, 1, Interval())[0]
    >>> type(root).__name__, root.approx(10)
    ('TranscendentalRoot', '0.5671432904')
    """

    kind = "exp-transcendental"

    def sign_at(self, x: Fraction) -> int:
        # never 0 at a midpoint: g(r, e^(r/L)) != 0 for rational r > 0 (Hermite-Lindemann)
        return certified_sign(self.factor, x)

    def describe(self):
        return (f"eps ~ {self.approx()}: the unique (simple) zero of {self.factor} in "
                f"[{fmt_q(self.lo)}, {fmt_q(self.hi)}] (multiplicity {self.multiplicity} in f)")


# ---------------------------------------------------------------------------------------
# real algebraic zeros: certified isolation by arb
# ---------------------------------------------------------------------------------------

def _isolate_positive_zeros(p: fmpq_poly) -> list[tuple[Fraction, Fraction]]:
    """Disjoint (a, b), 0 <= a < b, each holding exactly one positive zero of the squarefree
    polynomial p with p(0) != 0 and no rational zeros (irreducible, degree >= 2).

    Why arb and not a Sturm chain: FLINT's certified root isolation (`complex_roots`, i.e.
    arb_fmpz_poly_complex_roots: pairwise disjoint balls, one zero in each, the real zeros
    with an imaginary part exactly 0) takes milliseconds where a Sturm chain over Q, whose
    coefficients grow with every remainder, took seconds at degree 110 (minutes above), in a C
    call no alarm interrupts.  Each interval's sign change is re-checked exactly.

    >>> [Fraction(14142, 10**4) < a < b < Fraction(14143, 10**4) for a, b in _isolate_positive_zeros(fmpq_poly([-2, 0, 1]))]
    [True]
    """
    out = []
    for z, _ in p.numer().complex_roots():
        if not z.imag.is_zero():
            continue
        a, b = arb_bounds(z.real)
        if b <= 0:
            continue
        if a < 0:       # the ball holds 0, where p does not vanish: the zero is on the side of the sign change
            if _sign_q(p, Fraction(0)) == _sign_q(p, b):
                continue
            a = Fraction(0)
        if a >= b or _sign_q(p, a) * _sign_q(p, b) != -1:
            raise CertificationError(f"({a}, {b}) does not isolate a zero of {p}")
        out.append((a, b))
    return sorted(out)


# ---------------------------------------------------------------------------------------
# the step budget: every refinement loop below finishes in theory, but near a tangency
# (a bound that touches P[error] to within 1e-6) "finishes" can mean minutes
# ---------------------------------------------------------------------------------------

_steps = 0


def reset_budget() -> None:
    """Start counting the steps of a new decision (`decide.analyse` calls this).

    >>> reset_budget()
    >>> _steps
    0
    """
    global _steps
    _steps = 0


def _spend(where: str, lo: Fraction | None = None, hi: Fraction | None = None) -> None:
    """One refinement step; past the `decide_steps` limit the decision stops with exit 2 -
    an honest "could not decide within the budget", never a verdict."""
    global _steps
    _steps += 1
    if _steps > limits.get("decide_steps"):
        if lo is not None:
            where = f"{where} {enclosure_text(lo, hi, 7)}"
        raise UserError(f"the certified decision needed more than {limits.get('decide_steps')} refinement steps "
                        f"{where}: the two sides nearly touch there, so no verdict was reached",
                        hint=limits.hint("decide_steps"))


# ---------------------------------------------------------------------------------------
# mixed factors: Taylor order at 0, a bound at infinity, certified bisection
# ---------------------------------------------------------------------------------------

def value_at_zero(h: ExpPoly) -> Fraction:
    """h(0), exactly.

    >>> value_at_zero(ExpPoly.exp(1, 3) - ExpPoly.eps() - 1)
    Fraction(2, 1)
    """
    return sum((to_fraction(p.coeffs()[0]) for p in h.terms.values() if p.coeffs()), Fraction(0))


def taylor_order_at_zero(h: ExpPoly) -> tuple[int, Fraction, ExpPoly]:
    """(k, h^(k)(0), h^(k)) for the first k with h^(k)(0) != 0 (exists: h is analytic, not 0).

    e^eps - 1 - eps starts with eps^2/2: order 2, second derivative 1 at 0:

    >>> taylor_order_at_zero(ExpPoly.exp(1) - 1 - ExpPoly.eps())
    (2, Fraction(1, 1), ExpPoly(e^eps))
    """
    if h.is_zero():
        raise ValueError("the zero function has no Taylor order")
    k, d = 0, h
    while (v := value_at_zero(d)) == 0:
        _spend("computing the Taylor order at eps = 0")
        d = d.derivative()
        k += 1
    return k, v, d


def zero_free_near_zero(h: ExpPoly) -> Fraction:
    """A rational delta > 0 with h != 0 on (0, delta].  If h^(j)(0) = 0 for j < k and h^(k)
    keeps one sign on [0, delta] (certified on an arb ball), then integrating k times
    gives h^(j) that same sign on (0, delta] for every j <= k.

    eps e^eps - 1 <= e^(1/2)/2 - 1 < 0 on (0, 1/2]:

    >>> zero_free_near_zero(ExpPoly.monomial(1, 1, 1) - 1)
    Fraction(1, 2)
    """
    _, _, dk = taylor_order_at_zero(h)
    m = 0
    while True:
        _spend("near eps = 0")
        delta = Fraction(1, 2 ** m)
        prec = 64 + 4 * m
        with working_precision(prec):
            ball = dk.arb_value(hull(Fraction(0), delta), prec)
        if ball_sign(ball):
            return delta
        m += 1


def dominant_term(h: ExpPoly) -> tuple[Fraction, int, Fraction]:
    """(c, d, Q): c eps^d e^(Q eps) dominates h as eps -> inf (largest Q, then largest d).

    >>> dominant_term(ExpPoly.monomial(1, 2, 1) - ExpPoly.exp(2, 3))    # eps^2 e^eps - 3 e^(2 eps)
    (Fraction(-3, 1), 0, Fraction(2, 1))
    """
    Q = max(h.terms)
    p = h.terms[Q]
    d = p.degree()
    return to_fraction(p.coeffs()[d]), d, Q


def zero_free_beyond(h: ExpPoly) -> Fraction:
    """A rational B with sign h = sign c on [B, inf), c eps^d e^(Q eps) the dominant term.
    With r(eps) = sum over the other terms of |c_iq| eps^(i-d) e^((q-Q) eps), each summand
    decreases for eps >= X0 = max(1, (i-d)/(Q-q)), so r(eps) <= r(X) for eps >= X >= X0;
    once r(X) < |c| (certified), |h - dominant| < |dominant| on [X, inf).

    e^eps > eps^3 from 6 on (e^6 = 403.4 > 216):

    >>> zero_free_beyond(ExpPoly.exp(1) - ExpPoly.eps(3))
    Fraction(6, 1)
    """
    c, _, _, rest, x0 = dominant_rest(h)
    X = Fraction(-((-x0.numerator) // x0.denominator))  # ceil
    with working_precision(64):
        while True:
            if rest_ball(rest, X) < q_ball(abs(c)):
                return X
            _spend("bounding the function for large eps")
            X *= 2


def dominant_rest(h: ExpPoly) -> tuple[Fraction, int, Fraction, list, Fraction]:
    """(c, d, Q, rest, x0): the dominant term c eps^d e^(Q eps) of h, the other terms divided by
    eps^d e^(Q eps) as (|coefficient|, power, rate) triples, and x0 >= 1 beyond which each decreases.

    >>> dominant_rest(ExpPoly.exp(1) - ExpPoly.eps(3))
    (Fraction(1, 1), 0, Fraction(1, 1), [(Fraction(1, 1), 3, Fraction(-1, 1))], Fraction(3, 1))
    """
    c, d, Q = dominant_term(h)
    rest = [(abs(a), i - d, q - Q) for a, i, q in h.monomials() if (i, q) != (d, Q)]
    x0 = max([Fraction(1)] + [Fraction(m) / -k for _, m, k in rest if k < 0 and m > 0])
    return c, d, Q, rest, x0


def rest_ball(rest: list, x: Fraction) -> arb:
    """A ball holding sum a x^m e^(k x) over the (a, m, k) of `rest` (at the current precision).

    x^3 e^(-x) at 6 is 216 e^(-6) = 0.535...:

    >>> 0.535 < rest_ball([(Fraction(1), 3, Fraction(-1))], Fraction(6)) < 0.536
    True
    """
    xb = q_ball(x)
    total = arb(0)
    for a, m, k in rest:
        power = xb ** m if m >= 0 else 1 / xb ** (-m)
        total += q_ball(a) * power * (q_ball(k) * xb).exp()
    return total


def _bisection_precision(lo: Fraction, hi: Fraction) -> int:
    """Enough bits for a box of this width and height, rounded up to a multiple of 32 so
    that the boxes of a bisection share a few precisions (each ExpPoly caches its balls
    per precision)."""
    bits = 64 + 2 * bits_below(hi - lo) + max(abs(hi), 1).numerator.bit_length()
    return -(-bits // 32) * 32


def isolate_mixed_zeros(h: ExpPoly, a: Fraction, b: Fraction) -> list[tuple[Fraction, Fraction, int]]:
    """All zeros of h on [a, b] (0 < a < b rational, h(a), h(b) != 0, zeros simple) as
    (lo, hi, sign of h(lo)), each [lo, hi] holding exactly one zero.  On a box where the
    arb range of h' excludes 0, h is strictly monotone and holds a zero iff the certified
    signs at the rational ends differ; elsewhere the box is dropped when a range of h
    excludes 0, and otherwise halved.  The range of h is first the mean-value form
    h(mid) + h'(box) (box - mid) (for x in the box, h(x) = h(mid) + h'(xi)(x - mid) with xi in
    the box), which stops the dependency problem of sums of nearly cancelling exponentials from
    forcing tiny boxes; where it meets 0 (near a zero of h at eps = 0 the terms cancel to high
    order, and boxes would have to shrink to that order), then the Taylor form of order
    `TAYLOR_ORDER` at mid (`_taylor_range`).  A box is dropped only when an enclosure of h on it
    excludes 0, so the zeros found do not depend on which enclosures are tried, only the number
    of boxes does.  Finishes because h and h' have no common zero on [a, b].

    >>> isolate_mixed_zeros(ExpPoly.monomial(1, 1, 1) - 1, Fraction(1, 4), Fraction(1))
    [(Fraction(1, 4), Fraction(1, 1), -1)]
    """
    dh = h.derivative()
    higher = [h, dh]    # h, h', h'', ... made when first needed
    signs: dict[Fraction, int] = {}

    def sign(x: Fraction) -> int:
        if x not in signs:
            signs[x] = certified_sign(h, x)
            if signs[x] == 0:
                raise CertificationError(f"rational zero {x} of {h}")
        return signs[x]

    out = []

    def examine(piece: tuple):
        lo, hi = piece
        _spend("near eps in", lo, hi)
        prec = _bisection_precision(lo, hi)
        with working_precision(prec):
            box = hull(lo, hi)
            slope = dh.arb_value(box, prec)
            if not ball_sign(slope):
                centre = q_ball((lo + hi) / 2)
                at_centre = h.arb_value(centre, prec)
                excluded = (ball_sign(at_centre + slope * (box - centre))
                            or ball_sign(_taylor_range(higher, centre, box, prec, at_centre)))
                return SETTLED if excluded else SPLIT
        if sign(lo) != sign(hi):        # h is strictly monotone on the box
            out.append((lo, hi, sign(lo)))
        return SETTLED

    subdivide((a, b), examine, halves)
    return sorted(out)


TAYLOR_ORDER = 3   # the order of the Taylor form `isolate_mixed_zeros` tries before halving a box


def _taylor_range(higher: list, centre: arb, box: arb, prec: int, at_centre: arb) -> arb:
    """A ball holding h(x) for every x in box (centre its midpoint): by Taylor's theorem with the
    Lagrange remainder, h(x) = sum_{j<K} h^(j)(centre) d^j/j! + h^(K)(xi) d^K/K! with d = x - centre
    and xi in the box; `higher` holds h, h', ... and is extended to h^(K); `at_centre` is h(centre)."""
    while len(higher) <= TAYLOR_ORDER:
        higher.append(higher[-1].derivative())
    d = box - centre
    total = at_centre
    power = d
    for j in range(1, TAYLOR_ORDER):
        total += higher[j].arb_value(centre, prec) * power
        power = power * d / (j + 1)
    return total + higher[TAYLOR_ORDER].arb_value(box, prec) * power


# ---------------------------------------------------------------------------------------
# factor-level root finding on I
# ---------------------------------------------------------------------------------------

@dataclass
class _Factor:
    poly: object  # irreducible fmpq_mpoly in (eps, t)
    multiplicity: int
    L: int

    @property
    def kind(self) -> str:
        de, dt = (int(x) for x in self.poly.degrees())     # not both 0: FLINT lists no constant factor
        if dt == 0:
            return "eps"
        return "t" if de == 0 else "mixed"

    def univariate(self) -> fmpq_poly:
        idx = 0 if self.kind == "eps" else 1
        cs = {int(exps[idx]): c for exps, c in self.poly.to_dict().items()}
        return fmpq_poly([cs.get(i, 0) for i in range(max(cs) + 1)])

    def as_exppoly(self) -> ExpPoly:
        return ExpPoly.from_mpoly(self.poly, self.L)


def factors(h: ExpPoly, L: int) -> list[_Factor]:
    """The irreducible factors of h(eps, t = e^(eps/L)) over Q, with multiplicities.

    >>> h = (ExpPoly.exp(1) - 2) ** 2 * (ExpPoly.eps() - 1)
    >>> [(str(f.as_exppoly()), f.multiplicity, f.kind) for f in factors(h, 1)]
    [('-1 + eps', 1, 'eps'), ('e^eps - 2', 2, 't')]
    """
    if h.is_zero() or h.is_constant():
        return []
    degree = (max(h.terms) - min(h.terms)) * L
    if degree > limits.get("exp_degree"):
        raise UserError(f"a closed form to decide has degree {degree} in e^(eps/{limits.clip(str(L), 30)}): its "
                        "exponents' denominators are too large to factor",
                        hint="constants with many digits (e.g. 1e-66 in a program parameter) make them so; use "
                             "simpler rationals, or " + limits.hint("exp_degree"))
    F, _shift = h.to_mpoly(L, mpoly_ctx())
    try:
        _, fs = F.factor()
    except RuntimeError:
        # FLINT reports an allocation refused under the memory limit (RLIMIT_AS) as a failed
        # factorisation: under a limit that is the memory limit, not a bug of ours
        if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
            raise MemoryError("FLINT could not allocate memory to factor a polynomial") from None
        raise
    return [_Factor(g, int(m), L) for g, m in fs]


def factor_roots(fac: _Factor, I: Interval) -> list[RealRoot]:
    """The zeros of one irreducible factor inside I.

    >>> h = (ExpPoly.exp(1) - 2) ** 2 * (ExpPoly.eps() - 1)
    >>> [str(r) for f in factors(h, 1) for r in factor_roots(f, Interval())]
    ['1', 'ln(2)']
    >>> [str(r) for f in factors(h, 1) for r in factor_roots(f, Interval(Fraction(1), None, True))]
    ['1']
    """
    kind, text, m = fac.kind, fac.as_exppoly(), fac.multiplicity
    if kind in ("eps", "t"):
        p = fac.univariate()
        if p.degree() == 1:     # the one zero z, exactly; t0 = 1 gives eps = 0, t0 <= 0 is not a value of e^(eps/L)
            c0, c1 = (to_fraction(c) for c in p.coeffs())
            z = -c0 / c1
            ends = [(z, z)] if z > 0 and (kind == "eps" or z != 1) else []
        else:
            ends = _isolate_positive_zeros(p)       # a < b: an irreducible p of degree >= 2 has no rational zero

        def zero(factor, a: Fraction, b: Fraction) -> RealRoot:
            return RationalRoot(factor, m, a, b) if a == b else AlgebraicRoot(factor, m, p, a, b)

        if kind == "eps":
            cands = [zero(text, a, b) for a, b in ends]
        else:   # the zero t0 of p (named by p where its refinement fails), read as eps = L ln t0
            cands = [LogAlgebraicRoot(text, m, zero(p, a, b), fac.L) for a, b in ends]
        return [r for r in cands if position(r.compare, I.lo, I.hi, I.lo_closed, I.hi_closed) == 0]
    # mixed factor: bisection on a bounded interval, zero-free ends certified
    h = text
    a = I.lo if I.lo > 0 else zero_free_near_zero(h)
    b = I.hi if I.hi is not None else max(zero_free_beyond(h), a + 1)
    if a >= b:
        return []
    return [TranscendentalRoot(h, m, lo, hi, s) for lo, hi, s in isolate_mixed_zeros(h, a, b)]


def separate(roots: list[RealRoot]) -> list[RealRoot]:
    """Sort the zeros and refine until their enclosures are pairwise disjoint (they are
    distinct points, so this finishes).

    >>> ln2, half = zeros_in(ExpPoly.exp(1) - 2, 1, Interval())[0], RationalRoot(ExpPoly.eps(), 1, Fraction(1, 2), Fraction(1, 2))
    >>> [str(r) for r in separate([ln2, half])]
    ['1/2', 'ln(2)']
    """
    roots = list(roots)
    while True:
        roots.sort(key=lambda r: (r.lo, r.hi))
        clash = False
        for x, y in zip(roots, roots[1:]):
            if x.hi >= y.lo:
                if x.exact is not None and y.exact is not None:
                    raise CertificationError(f"two factors share the zero {x.exact}")
                clash = True
                x.refine()
                y.refine()
        if not clash:
            return roots
        _spend("separating two zeros")


def zeros_in(h: ExpPoly, L: int, I: Interval) -> list[RealRoot]:
    """The zeros of h inside I, sorted, with pairwise disjoint enclosures.

    (e^eps - 2)(eps^2 - 2) has the zeros ln 2 and sqrt 2 on (0, inf):

    >>> [(type(r).__name__, r.approx(7)) for r in zeros_in((ExpPoly.exp(1) - 2) * (ExpPoly.eps(2) - 2), 1, Interval())]
    [('LogAlgebraicRoot', '0.6931472'), ('AlgebraicRoot', '1.414214')]
    """
    return separate([root for fac in factors(h, L) for root in factor_roots(fac, I)])
