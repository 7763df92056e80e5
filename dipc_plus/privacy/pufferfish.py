"""Deciding Pufferfish privacy (Kifer and Machanavajjhala 2014) exactly.

A `PufferfishClaim` names secrets (predicates on the input), discriminative
pairs of secrets and data-evolution scenarios theta (priors over inputs whose
weights are polynomials in symbolic parameters, e.g. p in (0, 1)).  The claim:
for every scenario, pair (s_i, s_j) (both directions), output w, parameter value
and eps,

    P[M(X) = w | s_i, theta] <= e^budget * P[M(X) = w | s_j, theta],

whenever both secrets have positive prior probability.  With
A_s(w) = sum over inputs u satisfying s of weight(u) * P[M(u) = w] and
B_s = sum of those weights, this is the polynomial inequality

    G = e^budget * A_j(w) * B_i - A_i(w) * B_j >= 0

(the prior's normalisation cancels).  G is decided

* with no symbolic parameter: as one sentence in eps (`decide`), or exactly in
  rationals at eps = ln r or for eps-independent mechanisms;
* with one parameter and rational coefficients: exactly, as a univariate
  polynomial sentence on the parameter's interval (Sturm sequences, via `decide`
  with the parameter in the role of eps);
* otherwise (several parameters, or a parameter and an eps interval): by
  Bernstein expansion on the parameter box with subdivision, each Bernstein
  coefficient decided exactly; a failure is a rational point where G < 0 (then
  exact in eps).  This is sound both ways but can stop undecided after its
  subdivision budget (reported as an error, never guessed).
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb

from flint import fmpq, fmpq_poly

from dipc_plus.decision.decide import CertificationError, Interval, decide, sign_at
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.privacy.dp import ZERO, TableSource, _exact_or_fail, _num_text, show_env, user_outputs, user_value
from dipc_plus.privacy.claim import (PufferfishClaim, constant_value, fmt_q, ln_text, poly_add, poly_eval, poly_mul,
                             poly_text, value_at_log)


# --------------------------------------------------------------------------- the exact pieces


class Values:
    """Arithmetic on the claim's values: rationals at eps = ln r / for eps-independent
    programs, exact ExpFracs on an eps interval."""

    def __init__(self, claim: PufferfishClaim, tables: dict):
        self.claim = claim
        self.point = claim.eps.log_of
        self.rational = self.point is not None or all(
            constant_value(p) is not None for T in tables.values() for p in T.values()) and claim.budget.k == 0
        if self.point is not None:
            self.E = claim.budget.exp_at_log(self.point)
            if self.E is None:
                raise UserError(f"e^({claim.budget}) is not rational at {claim.eps}",
                                hint="use an integer multiple of eps in the budget")
        elif self.rational:
            self.E = claim.budget.factor
        else:
            self.E = ExpFrac.of(claim.budget.exp_value())

    def prob(self, p):
        if self.point is not None:
            return _exact_or_fail(p, self.point)
        if self.rational:
            return constant_value(p)
        return ExpFrac.of(p)

    def zero(self):
        return Fraction(0) if self.rational else ZERO


def _scale(poly: dict, c) -> dict:
    """A polynomial in the parameters (rational coefficients) times a value (Fraction/ExpFrac)."""
    return {m: c * k if isinstance(c, ExpFrac) else k * c for m, k in poly.items()}


def _padd(a: dict, b: dict, zero) -> dict:
    out = dict(a)
    for m, c in b.items():
        out[m] = out[m] + c if m in out else c
    return {m: c for m, c in out.items() if not _is_zero(c)}


def _pmul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(x + y for x, y in zip(ma, mb))
            term = _mulv(ca, cb)
            out[m] = out[m] + term if m in out else term
    return {m: c for m, c in out.items() if not _is_zero(c)}


def _mulv(a, b):
    if isinstance(a, ExpFrac) or isinstance(b, ExpFrac):
        return ExpFrac.of(a) * ExpFrac.of(b)
    return a * b


def _is_zero(c) -> bool:
    return c.is_zero() if isinstance(c, ExpFrac) else c == 0


def _peval(poly: dict, point: tuple):
    total = None
    for m, c in poly.items():
        w = Fraction(1)
        for x, e in zip(point, m):
            w *= Fraction(x) ** e
        term = c * w if not isinstance(c, ExpFrac) else c * ExpFrac.of(ExpPoly.const(w))
        total = term if total is None else total + term
    return total if total is not None else Fraction(0)


# --------------------------------------------------------------------------- results


@dataclass
class PufferfishCounterexample:
    scenario: str
    secret: str
    other: str
    output: dict
    params: dict            # name -> Fraction
    eps: object             # Fraction, ('ln', r) or None (eps-independent)
    p: object               # P[w | secret] (exact: Fraction, or ExpFrac in eps)
    q: object               # P[w | other]
    p_at: object
    q_at: object
    bound_at: object
    program: object = None

    def eps_text(self) -> str:
        if self.eps is None:
            return "any"
        if isinstance(self.eps, tuple):
            return ln_text(self.eps[1])
        return fmt_q(self.eps)

    def to_json(self) -> dict:
        return {"scenario": self.scenario, "secret": self.secret, "other_secret": self.other,
                "output": user_outputs(self.program, self.output),
                "parameters": {k: user_value(v) for k, v in self.params.items()},
                "eps": self.eps_text(), "probability": str(self.p), "other_probability": str(self.q),
                "probability_value": _num_text(self.p_at), "other_probability_value": _num_text(self.q_at),
                "bound_value": _num_text(self.bound_at)}


@dataclass
class PufferfishResult:
    claim: PufferfishClaim
    verified: bool
    counterexample: PufferfishCounterexample | None
    obligations: int
    seconds: float
    notes: list = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return "verified" if self.verified else "refuted"

    def to_json(self) -> dict:
        c = self.claim
        out = {"verdict": self.verdict, "kind": "pufferfish", "claim": c.file, "program": c.program.source,
               "budget": str(c.budget), "eps": str(c.eps), "parameters": c.parameters,
               "scenarios": [s.name for s in c.scenarios], "pairs": [list(p) for p in c.pairs],
               "obligations": self.obligations, "seconds": round(self.seconds, 3), "notes": self.notes}
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample.to_json()
        return out

    def report(self) -> str:
        c = self.claim
        lines = [f"claim:  {c.describe()}"]
        if c.note:
            lines.append(f"note:   {c.note}")
        for n in self.notes:
            lines.append(f"        {n}")
        lines.append(f"{self.obligations} (scenario, pair, output) obligation(s); {self.seconds:.2f} s")
        if self.verified:
            lines.append(f"VERIFIED: P[M(X)=w | s, theta] <= e^({c.budget}) P[M(X)=w | s', theta] for every scenario, "
                         f"discriminative pair (both directions), output"
                         f"{', parameter value' if c.parameters else ''} and {c.eps}")
            return "\n".join(lines)
        x = self.counterexample
        lines.append("REFUTED (re-checked exactly):")
        lines.append(f"  scenario   {x.scenario}")
        lines.append(f"  secrets    {x.secret} against {x.other}")
        lines.append(f"  output     {show_env(x.output, c.program)}")
        if x.params:
            lines.append("  parameters " + ", ".join(f"{k} = {fmt_q(v)}" for k, v in x.params.items()))
        lines.append(f"  eps        {x.eps_text()}")
        lines.append(f"  P[w | {x.secret}] = {x.p} = {_num_text(x.p_at)}")
        lines.append(f"  P[w | {x.other}] = {x.q} = {_num_text(x.q_at)}")
        lines.append(f"  e^({c.budget}) P[w | {x.other}] = {_num_text(x.bound_at)}")
        return "\n".join(lines)


# --------------------------------------------------------------------------- the check


class _Setup:
    """Output tables of every input in the scenarios' supports, and the secrets' sums."""

    def __init__(self, claim: PufferfishClaim):
        self.claim = claim
        self.params = list(claim.parameters)
        inputs = {}
        for sc in claim.scenarios:
            for u, _ in sc.support:
                inputs[tuple(sorted((k, repr(v)) for k, v in u.items()))] = u
        src = TableSource(claim.program, claim.events, use_chain=True, expected=len(inputs))
        self.tables = {k: src(u) for k, u in inputs.items()}
        self.values = Values(claim, self.tables)

    def table(self, u) -> dict:
        return self.tables[tuple(sorted((k, repr(v)) for k, v in u.items()))]

    def secret_sums(self, scenario, secret):
        """(B_s: weight polynomial, {output: A_s(w) polynomial with value coefficients})."""
        pred = self.claim.secrets[secret]
        B: dict = {}
        A: dict = {}
        for u, w in scenario.support:
            if not pred.holds(u):
                continue
            B = poly_add(B, w)
            for key, p in self.table(u).items():
                val = self.values.prob(p)
                if _is_zero(val):
                    continue
                A[key] = _padd(A.get(key, {}), _scale(w, val), self.values.zero())
        return B, A


def check_pufferfish(claim: PufferfishClaim) -> PufferfishResult:
    t0 = time.perf_counter()
    st = _Setup(claim)
    notes = []
    obligations = 0
    box = [claim.parameter_ranges[p] for p in st.params]
    for sc in claim.scenarios:
        for wpoly in (w for _, w in sc.support):
            if not _nonneg_on_box(wpoly, box):
                raise UserError(f"scenario '{sc.name}': a prior weight may be negative on the parameter ranges",
                                file=claim.file, hint="weights must be probabilities (>= 0) for every parameter value")
        sums = {}
        for s in claim.secrets:
            sums[s] = st.secret_sums(sc, s)
        for a, b in claim.pairs:
            for si, sj in ((a, b), (b, a)):
                Bi, Ai = sums[si]
                Bj, Aj = sums[sj]
                if not Bi or not Bj:
                    notes.append(f"scenario '{sc.name}': secret '{si if not Bi else sj}' has prior probability 0; "
                                 f"the pair ({si}, {sj}) is not constrained")
                    continue
                keys = list(Ai) + [k for k in Aj if k not in Ai]
                for key in keys:
                    obligations += 1
                    G = _padd(_pmul(_scale(Aj.get(key, {}), st.values.E), Bi),
                              _scale(_pmul(Ai.get(key, {}), Bj), -1), st.values.zero())
                    bad = _decide_poly(G, st, box)
                    if bad is not None:
                        point, eps = bad
                        cex = _counterexample(claim, st, sc, si, sj, key, Ai, Bi, Aj, Bj, point, eps)
                        return PufferfishResult(claim, False, cex, obligations, time.perf_counter() - t0, notes)
    return PufferfishResult(claim, True, None, obligations, time.perf_counter() - t0, notes)


def _nonneg_on_box(poly: dict, box: list) -> bool:
    if not box:
        return poly_eval(poly, ()) >= 0 if poly else True
    if len(box) == 1:
        return _decide_univariate(poly, box[0]) is None
    res = _bernstein_decide({m: c for m, c in poly.items()}, box, rational=True, check=lambda c: c >= 0,
                            value_at=lambda pt: poly_eval(poly, pt))
    return res is None


def _decide_poly(G: dict, st: _Setup, box: list):
    """None when G >= 0 on the parameter box and eps range; else (parameter point, eps)."""
    claim = st.claim
    vals = st.values
    if not G:
        return None
    if not box:
        g = G.get((), vals.zero())
        return _decide_value(g, vals, claim, ())
    if vals.rational:
        if len(box) == 1:
            return _decide_univariate(G, box[0])
        res = _bernstein_decide(G, box, rational=True, check=lambda c: c >= 0,
                                value_at=lambda pt: _peval(G, pt))
        return None if res is None else (res, None)
    # eps interval and parameters: Bernstein coefficients are functions of eps
    I = claim.eps.interval

    def check(c) -> bool:
        return ExpFrac.of(c).is_zero() or decide(ExpFrac.of(c), ">=", I).holds

    def value_at(pt):
        return _peval(G, pt)

    def refute(pt):
        g = ExpFrac.of(_peval(G, pt))
        d = decide(g, ">=", I)
        return None if d.holds else d.witness

    res = _bernstein_decide(G, box, rational=False, check=check, value_at=value_at, refute=refute)
    if res is None:
        return None
    pt, eps = res
    return pt, eps


def _decide_value(g, vals: Values, claim, point):
    if vals.rational:
        return None if g >= 0 else (point, None)
    I = claim.eps.interval
    d = decide(ExpFrac.of(g), ">=", I)
    return None if d.holds else (point, d.witness)


def _decide_univariate(G: dict, rng) -> tuple | None:
    """G(p) >= 0 on the range, exactly: p = x + shift maps the range into (0, inf) and the
    polynomial sentence in x is decided by Sturm sequences (decide, with x as its variable)."""
    lo, hi, lc, hc = rng
    shift = lo - 1
    coeffs = {}
    for (e,), c in G.items():
        coeffs[e] = coeffs.get(e, Fraction(0)) + c
    coeffs = {e: c for e, c in coeffs.items() if c != 0}
    if not coeffs:
        return None
    if set(coeffs) == {0}:
        return None if coeffs[0] >= 0 else ((simplest_in(lo, hi, lc, hc),), None)
    deg = max(coeffs)
    poly = fmpq_poly([fmpq(coeffs.get(i, Fraction(0)).numerator, coeffs.get(i, Fraction(0)).denominator)
                      for i in range(deg + 1)])
    moved = poly(fmpq_poly([fmpq(shift.numerator, shift.denominator), 1]))
    f = ExpPoly({Fraction(0): moved})
    I = Interval(lo - shift, hi - shift, lc, hc)
    d = decide(f, ">=", I)
    if d.holds:
        return None
    w = d.witness
    return ((w + shift,), None)


def simplest_in(lo, hi, lc, hc) -> Fraction:
    from dipc_plus.decision.decide import simplest_rational
    return simplest_rational(lo, hi, lc, hc) if lo >= 0 else (lo + hi) / 2


def _bernstein(G: dict, box: list, one, rational: bool) -> dict:
    """Bernstein coefficients of G on the box (tensor form): {multi-index: value}."""
    n = len(box)
    degs = [max((m[i] for m in G), default=0) for i in range(n)]
    # substitute p_i = a_i + (b_i - a_i) t_i
    sub: dict = {}
    for m, c in G.items():
        parts = []
        for i, e in enumerate(m):
            a, b = box[i][0], box[i][1]
            h = b - a
            parts.append([(k, Fraction(comb(e, k)) * a ** (e - k) * h ** k) for k in range(e + 1)])
        for combo in itertools.product(*parts):
            idx = tuple(k for k, _ in combo)
            w = Fraction(1)
            for _, x in combo:
                w *= x
            term = c * w if rational or not isinstance(c, ExpFrac) else c * ExpFrac.of(ExpPoly.const(w))
            sub[idx] = sub[idx] + term if idx in sub else term
    out = {}
    for K in itertools.product(*(range(d + 1) for d in degs)):
        total = None
        for J, c in sub.items():
            if all(j <= k for j, k in zip(J, K)):
                w = Fraction(1)
                for j, k, d in zip(J, K, degs):
                    w *= Fraction(comb(k, j), comb(d, j))
                term = c * w if rational or not isinstance(c, ExpFrac) else c * ExpFrac.of(ExpPoly.const(w))
                total = term if total is None else total + term
        out[K] = total if total is not None else (Fraction(0) if rational else ZERO)
    return out, degs


def _bernstein_decide(G: dict, box: list, *, rational: bool, check, value_at, refute=None,
                      max_boxes: int = 4000):
    """None when every sub-box's Bernstein coefficients pass `check`; else a rational point
    (and an eps witness when `refute` is given) where G < 0."""
    stack = [[(lo, hi) for lo, hi, _, _ in box]]
    closed = [(lc, hc) for _, _, lc, hc in box]
    count = 0
    while stack:
        count += 1
        if count > max_boxes:
            raise UserError("the Pufferfish check could not decide a polynomial inequality within its "
                            "subdivision budget", hint="fix some parameters, or narrow their ranges")
        sub = stack.pop()
        coeffs, degs = _bernstein(G, sub, None, rational)
        if all(check(c) for c in coeffs.values()):
            continue
        # look for a counterexample: corners (when inside the declared box) and the centre
        cands = [tuple((s[0] + s[1]) / 2 for s in sub)]
        for corner in itertools.product(*[(0, 1)] * len(sub)):
            pt = tuple(s[0] if c == 0 else s[1] for s, c in zip(sub, corner))
            cands.append(pt)
        for pt in cands:
            pt = _inside(pt, box, closed)
            if refute is None:
                if value_at(pt) < 0:
                    return pt
            else:
                w = refute(pt)
                if w is not None:
                    return pt, w
        widths = [s[1] - s[0] for s in sub]
        i = widths.index(max(widths))
        mid = (sub[i][0] + sub[i][1]) / 2
        left, right = list(sub), list(sub)
        left[i] = (sub[i][0], mid)
        right[i] = (mid, sub[i][1])
        stack += [right, left]
    return None


def _inside(pt: tuple, box: list, closed: list) -> tuple:
    """Move a point on an open face of the declared box slightly inside (rationally)."""
    out = []
    for x, (lo, hi, lc, hc) in zip(pt, box):
        if x == lo and not lc:
            x = lo + (hi - lo) / 1024
        if x == hi and not hc:
            x = hi - (hi - lo) / 1024
        out.append(x)
    return tuple(out)


def _counterexample(claim, st: _Setup, sc, si, sj, key, Ai, Bi, Aj, Bj, point, eps):
    params = dict(zip(st.params, point))
    vals = st.values

    def cond(A, B):
        a = _peval(A.get(key, {}), point) if A.get(key) else vals.zero()
        b = poly_eval(B, point)
        if b == 0:
            raise CertificationError("a secret has prior probability 0 at the counterexample")
        return a / b if not isinstance(a, ExpFrac) else a * ExpFrac.of(ExpPoly.const(1 / b))

    p, q = cond(Ai, Bi), cond(Aj, Bj)
    program = claim.program
    output = dict(zip(program.output_names(), key))
    if vals.rational:
        bound = vals.E * q
        if not p > bound:
            raise CertificationError("the exact re-check of the Pufferfish counterexample failed")
        ep = ("ln", vals.point) if vals.point is not None else None
        return PufferfishCounterexample(sc.name, si, sj, output, params, ep, p, q, p, q, bound, program)
    from dipc_plus.decision.decide import working_precision
    e = Fraction(eps)
    prec = 256
    while True:
        with working_precision(prec):
            pa, qa = ExpFrac.of(p).arb_value(e, prec), ExpFrac.of(q).arb_value(e, prec)
            ba = vals.E.arb_value(e, prec) * qa
        if pa > ba:
            break
        if pa <= ba:
            raise CertificationError("the independent re-check of the Pufferfish counterexample failed")
        prec *= 2
    return PufferfishCounterexample(sc.name, si, sj, output, params, e, p, q, pa, qa, ba, program)


# --------------------------------------------------------------------------- the tight Pufferfish loss


@dataclass
class PufferfishLoss:
    claim: PufferfishClaim
    rows: list          # (scenario, si, sj, output, ratio text, value text, sup info)
    worst: tuple | None
    seconds: float

    def to_json(self) -> dict:
        return {"claim": self.claim.file, "rows": [
            {"scenario": r[0], "secret": r[1], "other_secret": r[2], "output": r[3], "ratio": r[4], "loss": r[5]}
            for r in self.rows], "worst": None if self.worst is None else
            {"scenario": self.worst[0], "secret": self.worst[1], "other_secret": self.worst[2],
             "output": self.worst[3], "ratio": self.worst[4], "loss": self.worst[5]}}

    def report(self) -> str:
        c = self.claim
        lines = [f"Pufferfish likelihood ratios of {c.program.name} ({c.eps}; {self.seconds:.2f} s)"]
        for r in self.rows:
            lines.append(f"  {r[0]}: {r[1]} vs {r[2]}, output {r[3]}: ratio {r[4]}  ->  loss {r[5]}")
        if self.worst is not None:
            lines.append(f"largest: {self.worst[5]} ({self.worst[0]}: {self.worst[1]} vs {self.worst[2]}, "
                         f"output {self.worst[3]})")
        return "\n".join(lines)


def pufferfish_loss(claim: PufferfishClaim) -> PufferfishLoss:
    """Every conditional likelihood ratio P[w | s_i] / P[w | s_j] as an exact closed form (a rational
    function of the parameters, and of e^eps); its supremum over the parameters when there is at
    most one parameter and the values are rational (exact at the ends, else enclosed)."""
    t0 = time.perf_counter()
    st = _Setup(claim)
    rows = []
    worst = None
    names = st.params
    for sc in claim.scenarios:
        sums = {s: st.secret_sums(sc, s) for s in claim.secrets}
        for a, b in claim.pairs:
            for si, sj in ((a, b), (b, a)):
                Bi, Ai = sums[si]
                Bj, Aj = sums[sj]
                if not Bi or not Bj:
                    continue
                for key in Ai:
                    num = _pmul(Ai[key], Bj)
                    den = _pmul(Aj.get(key, {}), Bi)
                    out = ", ".join(str(user_value(v)) for v in key)
                    if not den:
                        rows.append((sc.name, si, sj, out, "inf", "inf", None))
                        worst = rows[-1]
                        continue
                    text, loss, sup = _ratio_summary(num, den, st, claim)
                    rows.append((sc.name, si, sj, out, text, loss, sup))
                    if worst is None or (worst[6] is not None and sup is not None and sup > worst[6]) or \
                            (worst[6] is None and worst[5] != "inf" and sup is not None):
                        worst = rows[-1]
    return PufferfishLoss(claim, rows, worst, time.perf_counter() - t0)


def _ratio_summary(num: dict, den: dict, st: _Setup, claim):
    names = st.params
    vals = st.values
    if vals.rational:
        if not names:
            r = _peval(num, ()) / _peval(den, ())
            return fmt_q(r), ln_text(r), r
        num, den = _cancel(num, den, names)
        if len(den) == 1 and len(num) == 1 and list(num)[0] == list(den)[0]:
            r = list(num.values())[0] / list(den.values())[0]
            return fmt_q(r), ln_text(r) + " (for every parameter value)", r
        text = f"({poly_text(num, names)}) / ({poly_text(den, names)})"
        if len(names) == 1:
            sup = _sup_univariate_ratio(num, den, claim.parameter_ranges[names[0]])
            return text, sup[0], sup[1]
        return text, "(several parameters: not maximised)", None
    if not names:
        r = ExpFrac.of(_peval(num, ())) / ExpFrac.of(_peval(den, ()))
        from dipc_plus.privacy.dp import loss_expr
        return str(r), loss_expr(r), None
    return "(a function of the parameters and eps)", "(not maximised)", None


def _cancel(num: dict, den: dict, names: list):
    """num/den with the common factor removed (sympy, exact rationals)."""
    import sympy
    syms = [sympy.Symbol(n) for n in names]

    def expr(d):
        return sum(sympy.Rational(c.numerator, c.denominator) * sympy.Mul(*[x ** e for x, e in zip(syms, m)])
                   for m, c in d.items())
    q = sympy.cancel(expr(num) / expr(den))
    n, d = sympy.fraction(q)

    def back(e):
        poly = sympy.Poly(sympy.expand(e), *syms)
        return {tuple(m): Fraction(int(c.p), int(c.q)) for m, c in poly.terms() if c != 0}
    return back(n), back(d)


def _sup_univariate_ratio(num: dict, den: dict, rng):
    """sup of N(p)/D(p) on the range: exact when it is the value (or limit) at an end, decided
    with Sturm sequences; otherwise an enclosure by bisection on the bound."""
    lo, hi, lc, hc = rng
    if poly_eval(den, ((lo + hi) / 2,)) < 0:
        num = {m: -c for m, c in num.items()}
        den = {m: -c for m, c in den.items()}

    def val(x):
        d = poly_eval(den, (x,))
        return poly_eval(num, (x,)) / d if d != 0 else None

    ends = [v for v in (val(lo), val(hi)) if v is not None]
    if ends:
        k = max(ends)
        G = poly_add({m: k * c for m, c in den.items()}, {m: -c for m, c in num.items()})
        if _decide_univariate(G, (lo, hi, True, True)) is None:
            return f"{ln_text(k)} (sup at an end of the parameter range)", k
    # interior: bisection with exact univariate decisions
    samples = [lo + (hi - lo) * Fraction(i, 64) for i in range(1, 64)]
    best = max(v for v in (val(x) for x in samples) if v is not None)
    lo_k, hi_k = best, best * 2
    G = lambda k: poly_add({m: k * c for m, c in den.items()}, {m: -c for m, c in num.items()})
    tries = 0
    while _decide_univariate(G(hi_k), (lo, hi, True, True)) is not None:
        hi_k *= 2
        tries += 1
        if tries > 200:
            return "unbounded on the parameter range", None
    for _ in range(40):
        mid = (lo_k + hi_k) / 2
        if _decide_univariate(G(mid), (lo, hi, True, True)) is None:
            hi_k = mid
        else:
            lo_k = mid
    return f"ln(r) with r in [{float(lo_k):.10g}, {float(hi_k):.10g}]", hi_k
