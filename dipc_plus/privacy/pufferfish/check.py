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
  polynomial sentence on the parameter's interval (certified root isolation, via `decide`
  with the parameter in the role of eps);
* otherwise (several parameters, or a parameter and an eps interval): by
  Bernstein expansion on the parameter box with subdivision, each Bernstein
  coefficient decided exactly; a failure is a rational point where G < 0 (then
  exact in eps).  This is sound both ways but can stop undecided after its
  subdivision budget (reported as an error, never guessed).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.exact.convert import json_exact
from dipc_plus.claims.scope import Scope
from dipc_plus.decision.decide import CertificationError, decide
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly, working_precision
from dipc_plus.claims.privacy_types import PufferfishClaim
from dipc_plus.privacy.display import ENV_STYLE, eps_point_text, num_text, user_env
from dipc_plus.semantics.values import show_env
from dipc_plus.exact.convert import fmt_q
from dipc_plus.exact.log_point import constant_value, rational_at_log
from dipc_plus.privacy.output_tables import ZERO, TableSource
from dipc_plus.privacy.result import SettledPart, claim_lines, settled_lines
from dipc_plus.decision.param_decide import bernstein_decide, negative_point
from dipc_plus.exact.param_poly import is_zero_value, poly_add, poly_eval, poly_mul, poly_scale


# --------------------------------------------------------------------------- the exact pieces


class Values:
    """Arithmetic on the claim's values: rationals at eps = ln r / for eps-independent
    programs, exact ExpFracs on an eps interval.  `constant`: every output probability
    of the tables is a constant (the mechanism does not depend on eps)."""

    def __init__(self, claim: PufferfishClaim, constant: bool):
        self.point = claim.eps.log_of
        self.rational = self.point is not None or constant and claim.budget.k == 0
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
            return rational_at_log(p, self.point)
        if self.rational:
            return constant_value(p)
        return ExpFrac.of(p)

    def zero(self):
        return Fraction(0) if self.rational else ZERO


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
        return eps_point_text(self.eps)

    def to_json(self) -> dict:
        return {"scenario": self.scenario, "secret": self.secret, "other_secret": self.other,
                "output": user_env(self.program, self.output),
                "parameters": json_exact(dict(self.params)),
                "eps": self.eps_text(), "probability": str(self.p), "other_probability": str(self.q),
                "probability_value": num_text(self.p_at), "other_probability_value": num_text(self.q_at),
                "bound_value": num_text(self.bound_at)}

    def lines(self, claim: PufferfishClaim) -> list[str]:
        """In words: the scenario, the secrets, the output, the parameters and both probabilities."""
        lines = [f"  scenario   {self.scenario}", f"  secrets    {self.secret} against {self.other}",
                 f"  output     {show_env(user_env(claim.program, self.output), **ENV_STYLE)}"]
        if self.params:
            lines.append("  parameters " + ", ".join(f"{k} = {fmt_q(v)}" for k, v in self.params.items()))
        return lines + [f"  eps        {self.eps_text()}", f"  P[w | {self.secret}] = {self.p} = {num_text(self.p_at)}",
                        f"  P[w | {self.other}] = {self.q} = {num_text(self.q_at)}",
                        f"  e^({claim.budget}) P[w | {self.other}] = {num_text(self.bound_at)}"]


@dataclass
class PufferfishCheck(SettledPart):
    claim: PufferfishClaim
    verified: bool
    counterexample: PufferfishCounterexample | None
    obligations: int
    seconds: float
    notes: list = field(default_factory=list)

    @property
    def vacuous(self) -> bool:
        """Verified with nothing compared (every pair had a secret of prior probability 0)."""
        return self.verified and self.obligations == 0

    @property
    def scope(self) -> Scope:
        return pufferfish_scope(self.claim)

    def to_json(self) -> dict:
        c = self.claim
        out = {"verdict": self.verdict, "kind": "pufferfish", "scope": self.scope.to_json(),
               "vacuous": self.vacuous, "claim": c.file, "program": c.program.source,
               "budget": str(c.budget), "eps": str(c.eps), "parameters": c.parameters,
               "scenarios": [s.name for s in c.scenarios], "pairs": [list(p) for p in c.pairs],
               "obligations": self.obligations, "seconds": round(self.seconds, 3), "notes": self.notes}
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample.to_json()
        return out

    def report(self) -> str:
        c = self.claim
        lines = claim_lines(c) + [f"        {n}" for n in self.notes]
        lines.append(f"{self.obligations} (scenario, pair, output) obligation(s); {self.seconds:.2f} s")
        holds = (f"P[M(X)=w | s, theta] <= e^({c.budget}) P[M(X)=w | s', theta] for every scenario, discriminative "
                 f"pair (both directions), output{' event' if c.events else ''}"
                 f"{', parameter value' if c.parameters else ''} and {c.eps}")
        return "\n".join(lines + settled_lines(self, "every discriminative pair has a secret of prior probability 0",
                                               holds, "REFUTED (re-checked exactly):"))


def pufferfish_scope(c: PufferfishClaim) -> Scope:
    """A Pufferfish verdict covers the claim's scenario priors, for the program's parameters."""
    inputs = {repr(sorted(u.items())) for sc in c.scenarios for u, _ in sc.support}
    return Scope("priors", f"{len(c.scenarios)} scenario(s), {len(inputs)} input(s) in their supports",
                 dict(c.program.params), str(c.eps), True,
                 {k: [str(e) for e in v] for k, v in c.events.items()})


# --------------------------------------------------------------------------- the check


def input_key(u: dict) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in u.items()))


class PufferfishWork:
    """What every task of a Pufferfish check needs: the claim, the inputs of the scenarios'
    supports and a source of their output tables (a worker rebuilds it once:
    `build_pufferfish_work`)."""

    def __init__(self, claim: PufferfishClaim):
        self.claim = claim
        inputs: dict = {}
        for sc in claim.scenarios:
            for u, _ in sc.support:
                inputs[input_key(u)] = u
        self.inputs = inputs
        self.source = TableSource(claim.program, claim.events, use_chain=True, expected=len(inputs))
        self.box = [claim.parameter_ranges[p] for p in claim.parameters]     # the parameters' ranges, in order


def build_pufferfish_work(claim_path: str, params: tuple) -> PufferfishWork:
    """The Pufferfish check a worker rebuilds from the claim file (`execution.executor.Source`)."""
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    return PufferfishWork(load_privacy_claim(claim_path, dict(params)))


def pufferfish_tables_task(source, keys: list) -> list:
    """One task: the output tables of some inputs of the scenarios' supports."""
    work = source.get()
    return [work.source(work.inputs[k]) for k in keys]


def pufferfish_decide_task(source, task) -> list:
    """One task (`run_dealt`): the outcomes (`_decide_poly`) of some obligations G >= 0."""
    constant, polys = task
    work = source.get()
    values = Values(work.claim, constant)
    return [_decide_poly(G, work.claim, values, work.box) for G in polys]


class PufferfishSetup:
    """Output tables of every input in the scenarios' supports, and the secrets' sums.  The tables
    are computed by `executor` (`source` says how its workers rebuild the claim)."""

    def __init__(self, claim: PufferfishClaim, executor=None, source=None, progress: bool = False):
        from dipc_plus.execution.executor import SERIAL, Source, chunks
        from dipc_plus.execution.run import TaskRun
        self.claim = claim
        self.params = list(claim.parameters)
        self.executor = executor if executor is not None else SERIAL
        self.source = source if source is not None else Source(None, (), (), key=f"pufferfish-{id(claim)}")
        work = PufferfishWork(claim)
        self.source.seed(work)
        keys = list(work.inputs)
        ranges = chunks(len(keys), 4 * self.executor.jobs if self.executor.parallel else len(keys))   # serial: one each
        self.tables: dict = {}
        with TaskRun(len(keys), "Pufferfish tables", "input", progress=progress) as run:
            # the stream first: zip then reads it to its end, which shuts its workers down at once
            for got, (a, b) in zip(run.parts(pufferfish_tables_task, self.source, [keys[a:b] for a, b in ranges],
                                             executor=self.executor, sizes=[b - a for a, b in ranges]), ranges):
                self.tables.update(zip(keys[a:b], got))
        self.constant = all(constant_value(p) is not None for T in self.tables.values() for p in T.values())
        self.values = Values(claim, self.constant)
        self.box = work.box

    def table(self, u) -> dict:
        return self.tables[input_key(u)]

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
                if is_zero_value(val):
                    continue
                A[key] = poly_add(A.get(key, {}), poly_scale(w, val))
        return B, A

    def ordered_pairs(self):
        """(scenario, s_i, s_j, (A_i, B_i), (A_j, B_j)) for every scenario and both orders of every
        secret pair of the claim, in the claim's order (the walk the check and the loss share)."""
        for sc in self.claim.scenarios:
            sums = {s: self.secret_sums(sc, s) for s in self.claim.secrets}
            for a, b in self.claim.pairs:
                for si, sj in ((a, b), (b, a)):
                    (Bi, Ai), (Bj, Aj) = sums[si], sums[sj]
                    yield sc, si, sj, (Ai, Bi), (Aj, Bj)


def check_pufferfish(claim: PufferfishClaim, executor=None, source=None, progress: bool = False) -> PufferfishCheck:
    """Every obligation G >= 0 in order (scenario, pair in both directions, output), up to the
    first failure.  With a parallel `executor` the tables and then every obligation are decided
    on workers, and the walk in order here finds the same first failure and counts the same."""
    from dipc_plus.execution.executor import run_dealt
    t0 = time.perf_counter()
    st = PufferfishSetup(claim, executor, source, progress)
    notes = []
    todo = []                       # ((scenario, si, sj, output key, the sums), G) in the order of the claim
    for sc, si, sj, (Ai, Bi), (Aj, Bj) in st.ordered_pairs():
        if not Bi or not Bj:
            notes.append(f"scenario '{sc.name}': secret '{si if not Bi else sj}' has prior probability 0; "
                         f"the pair ({si}, {sj}) is not constrained")
            continue
        for key in list(Ai) + [k for k in Aj if k not in Ai]:
            G = poly_add(poly_mul(poly_scale(Aj.get(key, {}), st.values.E), Bi),
                         poly_scale(poly_mul(Ai.get(key, {}), Bj), Fraction(-1)))
            todo.append(((sc, si, sj, key, Ai, Bi, Aj, Bj), G))
    outcomes = None                 # in one process each is decided when the walk reaches it
    if st.executor.parallel and len(todo) > 1:
        outcomes = run_dealt(pufferfish_decide_task, st.source, [G for _, G in todo], executor=st.executor,
                             context=st.constant)
    for i, (obligation, G) in enumerate(todo):
        bad = outcomes[i] if outcomes is not None else _decide_poly(G, claim, st.values, st.box)
        if bad is not None:       # (parameter point, eps)
            cex = _counterexample(claim, st, *obligation, *bad)
            return PufferfishCheck(claim, False, cex, i + 1, time.perf_counter() - t0, notes)
    return PufferfishCheck(claim, True, None, len(todo), time.perf_counter() - t0, notes)


def _decide_poly(G: dict, claim: PufferfishClaim, vals: Values, box: list):
    """None when G >= 0 on the parameter box and eps range; else (parameter point, eps)."""
    if not G:
        return None
    I = claim.eps.interval
    if not box:
        bad = _negative_at(G.get((), vals.zero()), vals, I)
        return None if bad is None else ((), *bad)
    if vals.rational:
        point = negative_point(G, box)
        return None if point is None else (point, None)

    def check(c) -> bool:   # eps interval and parameters: Bernstein coefficients are functions of eps
        return ExpFrac.of(c).is_zero() or decide(ExpFrac.of(c), ">=", I).holds

    def refute(pt):   # (point, eps) where G < 0; None without a witness eps
        bad = _negative_at(poly_eval(G, pt), vals, I)
        return None if bad is None or bad[0] is None else (pt, *bad)

    return bernstein_decide(G, box, check=check, refute=refute)


def _negative_at(g, vals: Values, I) -> tuple | None:
    """None when the value g of G (a rational, or exact in eps) is >= 0 (for every eps in I); else
    (eps,): the eps where it is negative (None for a rational value: at the claim's own eps)."""
    if vals.rational:
        return None if g >= 0 else (None,)
    d = decide(ExpFrac.of(g), ">=", I)
    return None if d.holds else (d.witness,)


def _counterexample(claim, st: PufferfishSetup, sc, si, sj, key, Ai, Bi, Aj, Bj, point, eps):
    params = dict(zip(st.params, point))
    vals = st.values

    def cond(A, B):
        a = poly_eval(A.get(key, {}), point) if A.get(key) else vals.zero()
        b = poly_eval(B, point)
        if b == 0:
            raise CertificationError("a secret has prior probability 0 at the counterexample")
        return a / b if not isinstance(a, ExpFrac) else a * ExpFrac.of(ExpPoly.const(1 / b))

    p, q = cond(Ai, Bi), cond(Aj, Bj)
    if vals.rational:       # exact values: P, P' and the bound e^budget P' themselves
        e, pa, qa, ba = ("ln", vals.point) if vals.point is not None else None, p, q, vals.E * q
        if not pa > ba:
            raise CertificationError("the exact re-check of the Pufferfish counterexample failed")
    else:                   # certified balls at the witness eps, the precision raised until they separate
        e, prec = Fraction(eps), 256
        while True:
            with working_precision(prec):
                pa, qa = ExpFrac.of(p).arb_value(e, prec), ExpFrac.of(q).arb_value(e, prec)
                ba = vals.E.arb_value(e, prec) * qa
            if pa > ba:
                break
            if pa <= ba:
                raise CertificationError("the independent re-check of the Pufferfish counterexample failed")
            prec *= 2
    output = dict(zip(claim.program.output_names(), key))
    return PufferfishCounterexample(sc.name, si, sj, output, params, e, p, q, pa, qa, ba, claim.program)


