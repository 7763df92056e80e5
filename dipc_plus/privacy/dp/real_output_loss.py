"""The privacy loss of real outputs over every output value: sup over w of ln(f_u(w) / f_u'(w)).

Without named events, the loss between two inputs u, u' is taken on densities: for each
outcome class (finite outputs, noise-free reals) with one released real output, the two
densities (`real_output_density`) are cut at the breakpoints of both into open intervals
of w, and on each interval the ratio R = f/g of two closed forms in (eps, v = eps w) is
bounded by its values at the interval's ends, by a monotonicity argument proved per
interval:

    R' has the sign of W = f' g - f g' (g > 0 inside), an exp-polynomial
    sum_k c_k(eps) v^j_k e^(mu_k v).  If every c_k(eps) * sign(v)^j_k is >= 0 for every
    eps > 0 (each decided exactly by `decision.decide`), W >= 0 and R is non-decreasing
    in w, so sup R on the interval is its limit at the right end; all <= 0: at the left
    end.  (A single exponential term per density, as Laplace densities of a released
    noisy query are, gives a single term of W, so this covers that case.)

Where this sign test fails, both ends' limits are candidates (limits of the ratio, so lower
bounds of its sup) and the interval is proved later (`prove_unproved`): f <= e^(K eps) g for
the largest candidate K, or the sign of W by the split proofs; what neither proves is
reported undecided, never guessed.  A limit at a finite end b
is the closed form's value at v = eps b (the form is analytic on the closed interval);
at w -> +-inf it is the ratio of the dominant terms (same exponent and power: their
coefficient ratio; f's slower decay: the loss is infinite).  Each end gives an exact
ratio r(eps) of exp-polynomials in eps, and L(eps) = max of their logarithms, so sup
L(eps)/eps is the max of `sup_ratio.sup_one` over them.  Outcomes without a released
output compare probabilities.  Outcomes with two or more released outputs are reduced to
segments of lines, each decided here; `real_output_regions.pair_loss` takes the outcomes in turn.
"""
from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

from flint import fmpq_poly

from dipc_plus.decision.certified import Interval
from dipc_plus.decision.decide import decide
from dipc_plus.decision.sup_ratio import TOLERANCE, NotCertified, SupRatio, sup_one
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.sparse import accumulate
from dipc_plus.exact.symbolic_terms import SymbolicForm
from dipc_plus.semantics.real_output_density import derivative

__all__ = ["EndRatio", "PairLoss", "SupCache", "Unproved", "prove_unproved", "interval_loss", "middle", "nonnegative_on",
           "place_text", "interval_text"]

ALL_EPS = Interval()


@dataclass
class EndRatio:
    """A candidate for the loss: the ratio's limit r(eps) at one end of an interval of w."""
    outcome: object
    lo: Fraction | None          # the interval (lo, hi) of w (None: infinite)
    hi: Fraction | None
    end: str                     # 'lo' or 'hi' or 'mass' (no released output)
    ratio: ExpFrac
    line: tuple | None = None    # several released values: (origin, direction, inside), see interval_loss


@dataclass
class PairLoss:
    """The loss of u against u': candidates, outcomes of infinite loss, undecided intervals."""
    candidates: list = field(default_factory=list)
    infinite: list = field(default_factory=list)       # (outcome, why[, (lo, hi, line): where f > 0 = g])
    undecided: list = field(default_factory=list)      # (outcome, (lo, hi), why)
    unproved: list = field(default_factory=list)       # [Unproved]: bounded later by `prove_unproved`


@dataclass
class Unproved:
    """An interval of w where the ratio f/g is not proved monotone: bounded later by a given K."""
    outcome: object
    lo: Fraction | None
    hi: Fraction | None
    f: SymbolicForm
    g: SymbolicForm
    line: tuple | None = None
    ends_known: bool = False     # both ends' limits are among the candidates (`interval_loss`)


def interval_text(lo, hi) -> str:
    return f"({'-inf' if lo is None else lo}, {'inf' if hi is None else hi})"


_SCREEN = (0.05, 0.5, 2.0, 8.0)


def _holds_for_every_eps(c: ExpPoly) -> bool:
    """c(eps) >= 0 for every eps > 0, decided exactly; a float value clearly below 0 at a few
    sample eps only skips the decision (it can only make this return False, never True)."""
    try:
        if any(c(e) < -1e-12 * max(1.0, abs(c(e))) for e in _SCREEN):
            return False
    except OverflowError:
        pass
    return decide(c, ">=", ALL_EPS).holds


def _sign_for_every_eps(c: ExpPoly) -> int:
    """1 when c(eps) >= 0 for every eps > 0, -1 when c(eps) <= 0 for every eps, else 0 (decided)."""
    return 1 if _holds_for_every_eps(c) else -1 if _holds_for_every_eps(-c) else 0


def _by_shape(form: SymbolicForm) -> dict:
    """{(exponent of v, power of v): ExpPoly in eps} for a form in one coordinate."""
    out: dict = {}
    for (lv, le, powers), P in form.terms.items():
        accumulate(out.setdefault((lv[0], powers[0]), {}), le, P)
    return {k: ExpPoly(v) for k, v in out.items() if not ExpPoly(v).is_zero()}


def _monotone(f: SymbolicForm, g: SymbolicForm, lo, hi) -> str | None:
    """'up' / 'down' / 'flat' / 'valley' when the cheap sign test of W = f'g - fg' proves R = f/g
    non-decreasing, non-increasing, constant, or first non-increasing then non-decreasing on
    (lo, hi) for every eps; None when it does not (the split proofs are `prove_unproved`'s)."""
    W = _wronskian(f, g)
    shapes = _by_shape(W)
    if not shapes:
        return "flat"
    side = 1 if lo is not None and lo >= 0 else (-1 if hi is not None and hi <= 0 else 0)
    signs = {}
    for (mu, j), c in sorted(shapes.items()):
        if j % 2 and side == 0:
            return None
        signs[(mu, j)] = _sign_for_every_eps(c if (side ** j if j else 1) > 0 else -c)
    values = set(signs.values())
    if len(values) == 1 and 0 not in values:
        return "up" if values == {1} else "down"
    # Descartes' rule for exponential sums sum c_k e^(mu_k v) (no power of v): at most as many
    # real zeros as sign changes of c_k ordered by mu.  One change, from - (small mu, which
    # dominates as v -> -inf) to + (large mu): W < 0 then W > 0, so R falls then rises.
    ordered = [signs[k] for k in sorted(signs)]
    changes = sum(1 for a, b in zip(ordered, ordered[1:]) if a != b)
    valley = changes == 1 and ordered[0] == -1 and 0 not in values and not any(j for _, j in signs)
    return "valley" if valley else None


def _dominant(shapes: dict, toward: int):
    """The dominant (exponent, power) as v -> toward*inf."""
    return max(shapes, key=lambda k: (toward * k[0], k[1]))


def _end_ratio(f: SymbolicForm, g: SymbolicForm, w, toward: int):
    """The limit of f/g at w (finite) or at toward*inf (w None): ExpFrac, 'inf' or 'zero',
    or None (undecided: g's closed form vanishes at a finite end)."""
    if w is not None:
        num, den = f.at([w]), g.at([w])
        if den.is_zero():
            return "inf" if not num.is_zero() else None
        if num.is_zero():
            return "zero"
        return ExpFrac(num, den)
    fs, gs = _by_shape(f), _by_shape(g)
    kf, kg = _dominant(fs, toward), _dominant(gs, toward)
    if kf == kg:
        return ExpFrac(fs[kf], gs[kg])
    return "inf" if (toward * kf[0], kf[1]) > (toward * kg[0], kg[1]) else "zero"


def middle(lo, hi) -> Fraction:
    """A point of the open interval (lo, hi) (None: infinite)."""
    if lo is not None and hi is not None:
        return (lo + hi) / 2
    return (lo + 1) if lo is not None else (hi - 1) if hi is not None else Fraction(0)


def interval_loss(outcome, f: SymbolicForm, g: SymbolicForm, lo, hi, out: PairLoss, line=None) -> None:
    """The candidates of sup f/g on the open interval (lo, hi) of one coordinate (f, g the two
    densities' closed forms there; an interval on one side of 0), added to `out`: the ratio's
    limits at the ends its proved shape points to, an infinite loss, or an `Unproved` interval.
    `line` (origin, direction, inside) says where the coordinate lies in a space of several
    released values (`real_output_regions`), for the counterexample search; None: it is w.

    Only the cheap shape tests run here (`_monotone` without the split proofs, which cost
    seconds each and were most of the time of a check).  Where they fail, both ends' limits
    are added as candidates anyway (each is a limit of the ratio on the interval, so a lower
    bound of its sup, never more) and the interval is `Unproved`: `prove_unproved` later shows
    f <= e^(K eps) g on it for the largest candidate K, or proves its shape after all."""
    if f.is_zero():
        return
    if g.is_zero():
        out.infinite.append((outcome, f"density positive at u and 0 at u' on {place_text(lo, hi, line)}",
                             (lo, hi, line)))
        return
    how = _monotone(f, g, lo, hi)
    if how is None:
        known = _add_ends(outcome, f, g, lo, hi, out, line, ["lo", "hi"], shape_proved=False)
        out.unproved.append(Unproved(outcome, lo, hi, f, g, line, known))
        return
    _add_ends(outcome, f, g, lo, hi, out, line, {"up": ["hi"], "down": ["lo"], "flat": ["mid"],
                                                  "valley": ["lo", "hi"]}[how])


def _add_ends(outcome, f, g, lo, hi, out: PairLoss, line, sides: list, shape_proved: bool = True) -> bool:
    """The ratio's limits at the given ends of (lo, hi) as candidates (or an infinite loss);
    False if one of them is unknown (g's closed form vanishes there), which is undecided when
    the ends were chosen by a proved shape (else the interval is left to `prove_unproved`)."""
    known = True
    for side in sides:
        if side == "mid":
            mid = middle(lo, hi)
            end = "hi" if hi is not None else "lo"
            out.candidates.append(EndRatio(outcome, lo, hi, end, ExpFrac(f.at([mid]), g.at([mid])), line))
            continue
        w = lo if side == "lo" else hi
        r = _end_ratio(f, g, w, -1 if side == "lo" else 1)
        if r is None:
            known = False
            if shape_proved:
                out.undecided.append((outcome, (lo, hi), f"g vanishes at the end {w} of "
                                               f"{place_text(lo, hi, line)}"))
        elif r == "inf":
            out.infinite.append((outcome, f"the ratio tends to infinity at the end "
                                 f"{side} of {place_text(lo, hi, line)}"))
        elif r != "zero":
            out.candidates.append(EndRatio(outcome, lo, hi, side, r, line))
    return known


def place_text(lo, hi, line=None) -> str:
    """'w in (lo, hi)', or for a segment of a line in the space of released values
    'w = origin + t*direction, t in (lo, hi)'."""
    if line is None:
        return f"w in {interval_text(lo, hi)}"
    origin, direction = line[0], line[1]
    show = lambda xs: "(" + ", ".join(str(x) for x in xs) + ")"
    return f"w = {show(origin)} + t*{show(direction)}, t in {interval_text(lo, hi)}"


def prove_unproved(item: Unproved, K: Fraction) -> bool:
    """Is the ratio at most e^(K eps) on the interval for every eps, K at least every candidate?
    Either f <= e^(K eps) g (H = e^(K eps) g - f >= 0) or the ratio is monotone (the sign of W = f'g - fg'
    proved; then its sup is a limit at an end, a candidate, so at most K).  The proofs split
    the interval up to 3 times; the three goals are tried at each depth in turn, so that the
    one that holds cheaply is found before a failing one has been split deep (which is where
    the time goes: each split proof decides many exp-polynomials)."""
    H = item.g * SymbolicForm(1, {((Fraction(0),), K, (0,)): fmpq_poly([1])}) - item.f
    W = _wronskian(item.f, item.g) if item.ends_known else None
    goals = [H] + ([W, -W] if W is not None else [])
    return any(_nonnegative_split(G, item.lo, item.hi, depth) for depth in range(4) for G in goals)


def _wronskian(f: SymbolicForm, g: SymbolicForm) -> SymbolicForm:
    """W = f'g - fg', the sign of the ratio's derivative where g > 0."""
    return derivative(f, 0) * g - f * derivative(g, 0)


def _nonnegative_split(H: SymbolicForm, lo, hi, depth: int) -> bool:
    """`nonnegative_on`, halving a bounded interval (or cutting 1 off an unbounded one) up to
    `depth` times where it fails: the bounds on |v|^j tighten on shorter intervals."""
    if nonnegative_on(H, lo, hi):
        return True
    if depth == 0 or not any(pw[0] for _, _, pw in H.terms):
        return False
    cut = middle(lo, hi)
    return _nonnegative_split(H, lo, cut, depth - 1) and _nonnegative_split(H, cut, hi, depth - 1)


def nonnegative_on(H: SymbolicForm, lo, hi) -> bool:
    """A sufficient exact test of H >= 0 for every eps > 0 and w in (lo, hi) (an interval on one
    side of 0), H = sum_i C_i(eps) v^j_i e^(mu_i v).  A term with a power of v and a
    coefficient of one sign for every eps (decided) is first bounded below by a power-free
    one (`_power_free`), then the power-free sum is tested by Abel summation and by
    Bernstein coefficients (`_abel_nonnegative`, `_bernstein_nonnegative`)."""
    has_powers = any(pw[0] for _, _, pw in H.terms)
    for mode in ((None, Fraction(1, 4), Fraction(1, 16)) if has_powers else (None,)):
        free = _power_free(H, lo, hi, mode)
        if free is None:
            continue
        if not free or _abel_nonnegative(free, lo, hi) or _bernstein_nonnegative(free, lo, hi):
            return True
    return False


def _power_free(H: SymbolicForm, lo, hi, delta) -> dict | None:
    """{mu: C(eps)} with sum C e^(mu v) <= H on the interval, or None.  For |v|^j (|v| = side*v):
    with delta None, its smallest / largest value eps^j |w|^j on the interval; with delta > 0
    the exact inequalities (1 - e^(-delta |v|)) / delta <= |v| <= (e^(delta |v|) - 1) / delta,
    raised to the j-th power (both sides are >= 0 for v on this side of 0), which are tight
    to first order at v = 0 and keep the bound an exponential sum."""
    from math import comb
    side = 1 if lo is not None and lo >= 0 else -1      # 0 is a breakpoint: one side of it
    near, far = (lo, hi) if side > 0 else (hi, lo)
    small = abs(near)
    large = None if far is None else abs(far)
    free: dict = defaultdict(lambda: ExpPoly.ZERO)
    for (mu, j), c in _by_shape(H).items():
        if not j:
            free[mu] += c
            continue
        sign = _sign_for_every_eps(c)
        if not sign:
            return None
        lower = sign * side ** j > 0          # the term is >= 0: bound |v|^j from below
        c = c * ExpPoly.const(side ** j)
        if delta is None:
            bound = small if lower else large
            if bound is None:
                return None
            free[mu] += c * ExpPoly.eps(j) * ExpPoly.const(bound ** j)
            continue
        scale = ExpPoly.const(Fraction(1) / delta ** j)
        t = -1 if lower else 1      # ((1 - e^(-delta side v)) / delta)^j, or ((e^(delta side v) - 1) / delta)^j
        for i in range(j + 1):
            free[mu + t * i * delta * side] += c * scale * ExpPoly.const(comb(j, i) * (-1) ** (i if lower else j - i))
    return {mu: c for mu, c in free.items() if not c.is_zero()}


def _abel_nonnegative(free: dict, lo, hi) -> bool:
    """sum_i D_i z_i with z_i = e^(mu_i eps s) >= 0 for s = w - lo >= 0 ascending in mu (or
    s = hi - w, descending) equals sum_k (z_k - z_(k-1)) T_k by Abel summation, T_k the sum of
    D_i from the k-th on: all T_k(eps) >= 0 (each decided) gives a sum >= 0."""
    for anchor, order in ((lo, 1), (hi, -1)):
        if anchor is None:
            continue
        mus = sorted(free, key=lambda mu: order * mu)          # z ascending
        tails = itertools.accumulate(free[mu] * ExpPoly.exp(mu * anchor) for mu in reversed(mus))   # T_k, last first
        if all(_holds_for_every_eps(tail) for tail in tails):
            return True
    return False


def _bernstein_nonnegative(free: dict, lo, hi, depth: int = 2) -> bool:
    """sum_mu C_mu(eps) e^(mu eps w) >= 0 on (lo, hi) for every eps, by Bernstein coefficients.

    With x = e^(-s eps w / D) (s = +1 when hi is infinite, -1 when lo is; D the common
    denominator of the mu's) the sum is x^(-a0) times a polynomial p(x) = sum c_i x^i, and x
    ranges over [alpha, beta] with alpha = 0 at an infinite end and otherwise e^(...eps),
    beta likewise: exp-polynomials in eps.  The Bernstein coefficients of p on [alpha, beta]
    are then exp-polynomials in eps; if each is >= 0 for every eps (decided), p >= 0 there.
    Otherwise [alpha, beta] is halved, `depth` times."""
    from math import comb, lcm
    s = 1 if hi is None else -1
    if lo is None and hi is None:
        return False
    D = lcm(*(mu.denominator for mu in free))
    powers = {int(-s * mu * D): c for mu, c in free.items()}      # e^(mu eps w) = x^(-s mu D)
    base = min(powers)
    n = max(powers) - base
    coeffs = [powers.get(base + i, ExpPoly.ZERO) for i in range(n + 1)]
    if s == 1:      # w in (lo, inf): x in (0, e^(-lo eps / D)]
        alpha, beta = ExpPoly.ZERO, ExpPoly.exp(Fraction(-lo, D))
    else:           # w in (-inf, hi) or (lo, hi): x = e^(w eps / D) in (e^(lo eps/D) or 0, e^(hi eps / D)]
        alpha = ExpPoly.ZERO if lo is None else ExpPoly.exp(Fraction(lo, D))
        beta = ExpPoly.exp(Fraction(hi, D))
    stack = [(alpha, beta, 0)]
    while stack:
        a, b, level = stack.pop()
        delta = b - a
        a_pow, d_pow = [ExpPoly.const(1)], [ExpPoly.const(1)]
        for _ in range(n):
            a_pow.append(a_pow[-1] * a)
            d_pow.append(d_pow[-1] * delta)
        # p(a + delta t) = sum_k d_k t^k, and its Bernstein coefficients b_j = sum_(k <= j) d_k C(j, k) / C(n, k)
        d = [sum((coeffs[i] * a_pow[i - k] * ExpPoly.const(comb(i, k)) for i in range(k, n + 1)
                  if not coeffs[i].is_zero() and not a_pow[i - k].is_zero()), ExpPoly.ZERO) * d_pow[k]
             for k in range(n + 1)]
        bernstein = (sum((d[k] * ExpPoly.const(Fraction(comb(j, k), comb(n, k))) for k in range(j + 1)
                          if not d[k].is_zero()), ExpPoly.ZERO) for j in range(n + 1))
        if all(bj.is_zero() or _holds_for_every_eps(bj) for bj in bernstein):
            continue
        if level >= depth:
            return False
        mid = (a + b) * ExpPoly.const(Fraction(1, 2))
        stack += [(a, mid, level + 1), (mid, b, level + 1)]
    return True


@dataclass
class SupCache:
    """The one search of sup over eps of ln r(eps)/eps for the candidates' ratios: each distinct
    ratio once for every pass and pair (they meet the same ratios at many pairs; one enclosure may
    take seconds), to `tolerance`, or only to one side of `against` (a search for a refutation)."""
    tolerance: Fraction = TOLERANCE
    against: Fraction | None = None
    values: dict = field(default_factory=dict)

    def first(self, candidate: EndRatio, seen: set) -> SupRatio | None:
        """The candidate's sup, or None when this pass has `seen` its ratio already, or when a
        search meets a ratio no enclosure certifies (it refutes nothing; a verification raises)."""
        key = (str(candidate.ratio.num), str(candidate.ratio.den))
        if key in seen:
            return None
        seen.add(key)
        if key not in self.values:
            try:
                self.values[key] = sup_one(candidate, ALL_EPS, self.tolerance, self.against)
            except NotCertified:
                if self.against is None:
                    raise
                self.values[key] = None
        return self.values[key]
