"""Accuracy at one input and at every input of a claim, decided exactly for every eps.

An accuracy claim (`claims.AccuracyClaim`, POPL 2021 Definition 2) reduces, per
input u and gamma, to one sentence in eps:

    for every eps in I:  P_err(u, eps) <= beta(alpha, gamma, eps) / kappa,

where P_err = 1 - P[P(u) in B(det(u), u, gamma)] is an exact closed form from
the Markov-chain semantics, alpha is the claim's alpha or dd(u), and kappa = 1
for the claim itself (the sweep uses larger kappas).  `decide.decide` answers the
sentence with no float anywhere; a failure comes with the simplest rational eps
where it fails, which is re-checked here by an independent certified evaluation
(P_err and beta evaluated separately as arb balls that must be disjoint) before
anyone sees it.

Two conventions for which inputs a claim speaks about:

* `boundary=False` (default, Definition 2): inputs with dd(u) > alpha, dd over
  the claim's `dd_over` (the reals unless the claim says otherwise);
* `boundary=True` (the paper's section 7 tool): inputs with dd(u) >= alpha.  With
  beta continuous this is the limit alpha' -> dd(u) of the claims at alpha' < dd(u).

The rule is `AccuracyClaim.applies_at`, shared with `AccuracyClaim.obligations`.

Every counterexample also carries `alpha_strict`, a rational alpha' < dd(u) at
which the same (input, eps) still fails, so it refutes Definition 2 literally
even when it was found at alpha = dd(u).
"""
from __future__ import annotations

import dataclasses
import functools
import time
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping

from dipc_plus.accuracy.classes import InputClasses
from dipc_plus.accuracy.vacuity import Vacuity, accuracy_vacuity
from dipc_plus.execution import ledger
from dipc_plus.semantics import ir
from dipc_plus.claims.accuracy_claim import AccuracyClaim
from dipc_plus.claims.claim_file import Claim
from dipc_plus.decision.decide import CertificationError, Decision, decide, recheck
from dipc_plus.errors import UserError
from dipc_plus.claims.disagreement import Disagreement
from dipc_plus.claims.distances import INF
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES
from dipc_plus.exact.constraints import forget_constraint_sets
from dipc_plus.exact.convert import fmt_q as exact_fmt_q
from dipc_plus.exact.decimals import ball_text, midpoint_text
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.semantics.distribution import certified, output_distribution

VERIFIED = "verified"
REFUTED = "refuted"
NOT_APPLICABLE = "not applicable"


# --------------------------------------------------------------------------- small helpers


def fmt_q(x) -> str:
    """'17/10', '3', 'inf'."""
    if x == INF:
        return "inf"
    return exact_fmt_q(x)


def json_value(v):
    """An input/output value for JSON: integers as numbers, other rationals as 'p/q'."""
    kind = type(v)   # the usual cases first, without comparing with INF
    if kind is int:
        return v
    if kind is Fraction:
        return int(v) if v.denominator == 1 else fmt_q(v)
    if isinstance(v, bool) or isinstance(v, str) or v is None:
        return v
    if v == INF:
        return "inf"
    if isinstance(v, (int, Fraction)):
        q = Fraction(v)
        return int(q) if q.denominator == 1 else fmt_q(q)
    return str(v)


def group_env(program: ir.Program, flat: Mapping) -> dict:
    """{'q[1]': -1, 'q[2]': 0} -> {'q': [-1, 0]} (arrays grouped, in declaration order)."""
    out: dict = {}
    owner = _array_owners(program)
    for name, value in flat.items():
        base = owner.get(name)
        if base is None:
            out[name] = value
        else:
            out.setdefault(base, []).append(value)
    return out


_OWNERS: dict = {}


def _array_owners(program: ir.Program) -> dict:
    """{flat element name: its array's name}, once per program (each report's JSON asks twice)."""
    found = _OWNERS.get(id(program))
    if found is None or found[0] is not program:
        if len(_OWNERS) > 64:
            _OWNERS.clear()
        found = _OWNERS[id(program)] = (program, {e: a for a, elems in program.arrays.items() for e in elems})
    return found[1]


def env_json(program: ir.Program, flat: Mapping) -> dict:
    grouped = group_env(program, flat)
    return {k: [json_value(x) for x in v] if isinstance(v, list) else json_value(v) for k, v in grouped.items()}


def env_text(program: ir.Program, flat: Mapping) -> str:
    def show(v):
        if isinstance(v, list):
            return "[" + ",".join(show(x) for x in v) + "]"
        if isinstance(v, bool):
            return "true" if v else "false"
        return fmt_q(v) if isinstance(v, (int, Fraction)) else str(v)
    return ", ".join(f"{k}={show(v)}" for k, v in group_env(program, flat).items()) or "(no inputs)"


def input_key(u: Mapping) -> tuple:
    """A hashable key of an input: each value with its type's name (True is not 1).  Values are
    not converted: equal numbers hash equal, so converting to Fraction changed no key."""
    return tuple(sorted((k, (type(v).__name__, v)) for k, v in u.items()))


class _HashedKey(tuple):
    """A tuple whose hash is computed once: hashing an input key hashes every Fraction in it."""

    def __hash__(self):
        found = self.__dict__.get("hash")
        if found is None:
            found = self.__dict__["hash"] = tuple.__hash__(self)
        return found

    def __reduce__(self):   # a plain tuple on the wire (str hashes differ between processes)
        return tuple, (tuple(self),)


def separated(p_err, bound, eps: Fraction, start: int = 128, limit: int = 1 << 14):
    """(ball of P_err(eps), ball of bound(eps)) at a precision where P_err > bound is certain.

    The independent re-check of a counterexample: both closed forms are evaluated on
    their own with arb (no factoring, no root isolation), at rising precision.
    CertificationError if the balls end up ordered the other way (a bug).
    """
    prec = start
    while prec <= limit:
        e = certified(p_err, eps, prec)
        b = certified(bound, eps, prec)
        if e > b:
            return e, b
        if e < b:
            break
        prec *= 2
    raise CertificationError(f"the counterexample eps = {fmt_q(eps)} does not re-check: "
                             f"P[error] = {ball_text(certified(p_err, eps))}, bound = {ball_text(certified(bound, eps))}")


# --------------------------------------------------------------------------- reports


@dataclass
class Counterexample:
    """An input and a rational eps at which P[error] > beta/kappa, certified twice."""
    program: ir.Program
    input: dict
    eps: Fraction
    alpha: object          # the alpha beta was evaluated at (the claim's, or dd(u))
    gamma: Fraction
    kappa: int
    error_probability: ExpFrac
    bound: ExpFrac         # beta(alpha, gamma, eps) / kappa, exact
    error_ball: object
    bound_ball: object
    alpha_strict: object = None  # a rational alpha' < dd(u) where it fails too (None: not needed / not found)
    alpha_strict_note: str = ""

    def __getstate__(self) -> dict:
        """arb balls do not pickle: a counterexample sent from a worker travels without them."""
        return {**self.__dict__, "error_ball": None, "bound_ball": None}

    def __setstate__(self, state: dict) -> None:
        """...and the receiving process evaluates them again (`separated`: the same independent
        re-check at the same precisions, so the same balls)."""
        self.__dict__.update(state)
        self.error_ball, self.bound_ball = separated(self.error_probability, self.bound, self.eps)

    def to_json(self) -> dict:
        out = {
            "input": env_json(self.program, self.input),
            "eps": fmt_q(self.eps),
            "error_probability": str(self.error_probability),
            "bound": str(self.bound),
            "error_probability_value": ball_text(self.error_ball, 20),
            "bound_value": ball_text(self.bound_ball, 20),
            "alpha": json_value(self.alpha),
            "gamma": json_value(self.gamma),
            "kappa": self.kappa,
        }
        if self.alpha_strict is not None:
            out["alpha_strict"] = json_value(self.alpha_strict)
        return out

    def describe(self) -> str:
        kappa = f"/{self.kappa}" if self.kappa != 1 else ""
        lines = [f"counterexample: {env_text(self.program, self.input)}, eps = {fmt_q(self.eps)}",
                 f"  P[error]   = {midpoint_text(self.error_ball, 15)}  (certified: {ball_text(self.error_ball, 15)})",
                 f"  beta{kappa:<6}= {midpoint_text(self.bound_ball, 15)}  (certified: {ball_text(self.bound_ball, 15)})",
                 f"  at alpha = {fmt_q(self.alpha)}, gamma = {fmt_q(self.gamma)}"]
        if self.alpha_strict is not None and self.alpha_strict != self.alpha:
            lines.append(f"  (it fails as well at the rational alpha = {fmt_q(self.alpha_strict)} < dd(u), "
                         f"as Definition 2 requires)")
        elif self.alpha_strict_note:
            lines.append(f"  ({self.alpha_strict_note})")
        lines.append(f"  P[error] = {self.error_probability}")
        lines.append(f"  bound    = {self.bound}")
        return "\n".join(lines)


@dataclass
class InputReport:
    """The check of one input at one gamma."""
    program: ir.Program
    input: dict
    det: dict
    dd: Disagreement
    alpha: object
    gamma: Fraction
    applies: bool
    kappa: int = 1
    beta: object = None            # the claim's beta at (alpha, gamma): exact, before dividing by kappa
    p_correct: ExpFrac | None = None
    p_error: ExpFrac | None = None
    decision: Decision | None = None
    counterexample: Counterexample | None = None
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        if not self.applies:
            return NOT_APPLICABLE
        return VERIFIED if self.decision.holds else REFUTED

    @property
    def bound(self):
        return None if self.beta is None else ExpFrac.of(self.beta) * Fraction(1, self.kappa)

    def to_json(self, full: bool = True) -> dict:
        out = {
            "input": env_json(self.program, self.input),
            "det": env_json(self.program, self.det),
            "dd": json_value(self.dd.value),
            "dd_attained": self.dd.attained,
            "alpha": json_value(self.alpha),
            "gamma": json_value(self.gamma),
            "verdict": self.verdict,
        }
        if self.applies:
            out["beta"] = str(self.beta)
            if self.kappa != 1:
                out["kappa"] = self.kappa
            if full:
                out["p_correct"] = str(self.p_correct)
            if self.counterexample is not None:
                out["counterexample"] = self.counterexample.to_json()
        out["seconds"] = round(self.seconds, 4)
        return out

    def line(self) -> str:
        """One line for a table of inputs."""
        u = env_text(self.program, self.input)
        dd = str(self.dd)
        if not self.applies:
            return f"{u:<28} dd = {dd:<24} {NOT_APPLICABLE}"
        text = f"{u:<28} dd = {dd:<24} alpha = {fmt_q(self.alpha):<5} gamma = {fmt_q(self.gamma):<5} {self.verdict}"
        if self.counterexample is not None:
            text += f" at eps = {fmt_q(self.counterexample.eps)}"
        return text

    def describe(self) -> str:
        """The full per-input report, closed forms included."""
        lines = [f"input {env_text(self.program, self.input)}",
                 f"  det(u)    = {env_text(self.program, self.det)}",
                 f"  dd(u)     = {self.dd}"]
        if not self.applies:
            lines.append("  the claim says nothing here (dd(u) does not exceed alpha)")
            return "\n".join(lines)
        kappa = f" / {self.kappa}" if self.kappa != 1 else ""
        lines += [f"  alpha     = {fmt_q(self.alpha)}, gamma = {fmt_q(self.gamma)}",
                  f"  beta{kappa:<6}= {self.beta}{kappa}",
                  f"  P[correct] = {self.p_correct}",
                  "  verdict   : " + ("verified: P[error] <= the bound for every eps in the interval"
                                     if self.verdict == VERIFIED else
                                     "refuted: P[error] exceeds the bound for some eps")]
        if self.counterexample is not None:
            lines.append("  " + self.counterexample.describe().replace("\n", "\n  "))
        return "\n".join(lines)


@dataclass
class InputSummary:
    """One input's reports reduced to what a summarized run keeps: the text or JSON the command
    prints, whether each obligation applies and fails, and the first counterexample.  Made where
    the input was checked (a worker), so only these small values travel."""
    kept: list
    marks: list                    # [(applies, refuted)] per obligation
    counterexample: Counterexample | None
    verdict: str
    collected: object = None       # what the run's `collect(reports)` made of the input (the sweep's candidates)
    dd: object = None              # the input's dd(u) (why a vacuous verdict is vacuous: accuracy.vacuity)

    @property
    def refuted(self) -> bool:
        return self.counterexample is not None


def report_lines(reports: list, verbose: bool = False) -> list[str]:
    """The text of one input's reports: each described (verbose), or one line per gamma - one
    line in all where the claim says nothing about the input."""
    if verbose:
        return [text for r in reports for text in (r.describe(), "")]
    applying = [r.line() for r in reports if r.applies]
    return applying if applying else [reports[0].line()]


SUMMARIES = {"json": lambda reps: [r.to_json() for r in reps],
             "text": lambda reps: report_lines(reps, False),
             "text-verbose": lambda reps: report_lines(reps, True),
             "nothing": lambda reps: []}


def summarize_input(reports: list, how: str, collect=None) -> InputSummary:
    failing = [r for r in reports if r.verdict == REFUTED]
    return InputSummary(SUMMARIES[how](reports), [(r.applies, r.verdict == REFUTED) for r in reports],
                        failing[0].counterexample if failing else None, _input_verdict(reports),
                        None if collect is None else collect(reports), reports[0].dd.value if reports else None)


@dataclass
class Tally:
    """What a verdict needs of the reports, counted as they arrive, so a long grid check need not
    keep them: counts, and the first counterexample in input order."""
    inputs: int = 0
    obligations: int = 0
    applicable: int = 0
    refuted: int = 0
    counterexample: Counterexample | None = None
    dd_max: object = None          # the largest dd(u) seen (None before any input)

    def add(self, summary: InputSummary) -> None:
        self.inputs += 1
        if summary.dd is not None and (self.dd_max is None or summary.dd > self.dd_max):
            self.dd_max = summary.dd
        self.obligations += len(summary.marks)
        self.applicable += sum(applies for applies, _ in summary.marks)
        self.refuted += sum(refuted for _, refuted in summary.marks)
        if self.counterexample is None:
            self.counterexample = summary.counterexample


@dataclass
class AccuracyResult:
    """The verdict on a claim over a set of inputs, with one report per (input, gamma) - or, for
    a check run with `summarize`, its `tally` and what `summarize` kept of each input."""
    claim: AccuracyClaim
    reports: list
    seconds: float
    kappa: int = 1
    boundary: bool = False
    dd_over: str = "reals"
    inputs_kind: str = "grid"      # 'grid' | 'list' | 'table': the claim's inputs, or 'list' for --input
    scope_points: list | None = None   # the inputs the verdict is about (all of a sharded run's)
    tally: Tally | None = None         # set when the reports were summarized, not kept
    kept: list | None = None           # what `summarize` kept of each input (JSON dicts, text lines)
    work: dict | None = None           # how the work was shared (accuracy.classes.InputClasses.work)

    @functools.cached_property
    def scope(self):
        """What the verdict covers: the checked inputs (a grid or a list) and the parameter values
        (computed once: the JSON and the text both print it)."""
        from dipc_plus.claims.scope import inputs_scope
        seen, points = set(), []
        for r in self.reports:
            key = input_key(r.input)
            if key not in seen:
                seen.add(key)
                points.append(r.input)
        if self.scope_points is not None:
            points = self.scope_points
        kind = "grid" if self.inputs_kind == "grid" else "list"
        return inputs_scope(self.claim.program, points=points, kind=kind, eps=str(self.claim.eps))

    @property
    def vacuous(self) -> bool:
        """Verified with no obligation that applies (dd(u) does not exceed alpha anywhere)."""
        return self.verdict == VERIFIED and not self.n_applicable

    @property
    def vacuity(self) -> Vacuity | None:
        """Why the answer is vacuous (the claim applies at no input), naming the field; None when it is not.
        Inputs chosen with --input are a list where the claim's are not: the advice is then --input."""
        return accuracy_vacuity(self, given_inputs=self.given_inputs)

    @property
    def given_inputs(self) -> bool:
        """The inputs were chosen with --input (a list where the claim's are not)."""
        return self.inputs_kind == "list" and self.claim.inputs_kind != "list"

    @property
    def dd_max(self):
        """The largest dd(u) over the inputs checked (INF possible), None when none was."""
        if self.tally is not None:
            return self.tally.dd_max
        return max((r.dd.value for r in self.reports), default=None)

    @property
    def failing(self) -> list:
        return [r for r in self.reports if r.verdict == REFUTED]

    @property
    def applicable(self) -> list:
        return [r for r in self.reports if r.applies]

    @property
    def n_obligations(self) -> int:
        return self.tally.obligations if self.tally is not None else len(self.reports)

    @property
    def n_applicable(self) -> int:
        return self.tally.applicable if self.tally is not None else len(self.applicable)

    @property
    def n_refuted(self) -> int:
        return self.tally.refuted if self.tally is not None else len(self.failing)

    @property
    def verdict(self) -> str:
        return REFUTED if self.n_refuted else VERIFIED

    @property
    def counterexample(self) -> Counterexample | None:
        if self.tally is not None:
            return self.tally.counterexample
        fails = self.failing
        return fails[0].counterexample if fails else None

    @property
    def inputs(self) -> int:
        if self.tally is not None:
            return self.tally.inputs
        return len({input_key(r.input) for r in self.reports})

    def to_json(self, full: bool = True) -> dict:
        program = self.claim.program
        out = {
            "verdict": self.verdict,
            "scope": self.scope.to_json(),
            "vacuous": self.vacuous,
            "vacuity": None if self.vacuity is None else self.vacuity.to_json(),
            "claim": self.claim.file,
            "program": program.name,
            "params": {k: json_value(v) for k, v in program.params.items()},
            "statement": self.claim.describe(),
            "eps_interval": str(self.claim.eps),
            "dd_over": self.dd_over,
            "convention": "dd(u) >= alpha (paper, section 7)" if self.boundary else "dd(u) > alpha (Definition 2)",
            "kappa": self.kappa,
            "inputs_checked": self.inputs,
            "obligations": self.n_obligations,
            "obligations_applicable": self.n_applicable,
            "obligations_refuted": self.n_refuted,
            "seconds": round(self.seconds, 3),
        }
        if self.work is not None:
            out["work"] = self.work
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample.to_json()
        out["reports"] = self.kept if self.kept is not None else [r.to_json(full) for r in self.reports]
        return out


# --------------------------------------------------------------------------- the checker


_SENTENCES = 256   # decided sentences an AccuracyChecker remembers (least recently used dropped)


def _key(distance):
    """A distance as a cache key (distances are frozen dataclasses; unhashable ones are not shared)."""
    try:
        hash(distance)
        return distance
    except TypeError:
        return ("unshared", id(distance))


class AccuracyChecker:
    """Checks one accuracy claim input by input, caching every exact object it builds.

    The output distribution of an input is built once and reused for every gamma
    and kappa; det(u), dd(u), beta(alpha, gamma) and P_err(u, gamma) are cached too,
    so the sweep and the plots reuse the accuracy check's work.
    """

    def __init__(self, claim: AccuracyClaim | Claim, *, dd_over: str | None = None, boundary: bool = False,
                 max_states: int = DEFAULT_MAX_STATES, shared: dict | None = None):
        """`shared`: a dict reused by checkers of claims about the same program and
        parameters (e.g. one grid and several alphas), so each input's distribution,
        det, dd over the reals and error probabilities are computed once."""
        if isinstance(claim, Claim):
            if claim.accuracy is None:
                raise UserError("the claim file has no [accuracy] table", file=claim.file,
                                hint="add an [accuracy] table (see docs/claims.md)")
            claim = claim.accuracy
        if dd_over is not None and dd_over != claim.dd_over:
            if claim.det == "table" and dd_over == "reals":
                raise UserError("with a det table, dd can only be taken over the table's inputs",
                                file=claim.file, hint="use --dd-over grid (or det = \"noise-free\")")
            claim = dataclasses.replace(claim, dd_over=dd_over, _space=None)
        self.claim = claim
        self.program = claim.program
        self.boundary = boundary
        self.max_states = max_states
        # streaming: a checker of its own drops each input's distribution once its error
        # probabilities are known (memory stays that of one input, whatever the grid's size);
        # checkers sharing their caches keep them for each other
        self._keep_distributions = shared is not None
        shared = {} if shared is None else shared
        self._shared = shared
        self.source = None   # execution.executor.Source: how a worker rebuilds this checker
        self._det: dict = shared.setdefault(("det", claim.det, claim.file if claim.det == "table" else None), {})
        self._dist: dict = shared.setdefault("dist", {})
        self._dd: dict = (shared.setdefault(("dd", _key(claim.input_distance)), {})
                          if claim.dd_over == "reals" and claim.det == "noise-free" else {})
        self._perr: dict = shared.setdefault(("perr", claim.det, _key(claim.output_distance)), {})
        self._beta: dict = {}
        self._decisions: dict = shared.setdefault(("decisions", claim.det, _key(claim.output_distance),
                                                   claim.beta.text, claim.eps), {})
        self._sentences: OrderedDict = OrderedDict()   # see decide_sentence
        self._entries: dict = {}    # input key -> its keys in _perr and _decisions (forget_input)
        self._last_key = None                           # see _input_key
        self._grid = None
        self._space = None
        # orbits, argmax det and decisions shared by exact key
        self.classes = InputClasses(self.program, noise_free_det=claim.det == "noise-free")
        # CPU seconds spent computing what the caches did not have (for benchmarks)
        self.timings = {"dd": 0.0, "distribution": 0.0, "ball": 0.0, "decide": 0.0}

    # -- cached exact pieces ----------------------------------------------------------------
    def _input_key(self, u: Mapping) -> tuple:
        """input_key(u), made once for the input being checked (its caches ask ~10 times).  The
        input is kept with a copy of it, so one changed in place gets a new key."""
        last = self._last_key
        if last is not None and last[0] is u and last[1] == u:
            return last[2]
        key = _HashedKey(input_key(u))
        self._last_key = (u, dict(u), key)
        return key

    def det(self, u: Mapping) -> dict:
        key = self._input_key(u)
        if key not in self._det:
            found = self.classes.det(u)
            self._det[key] = found if found is not None else self.claim.det_at(u)
        return self._det[key]

    def dd(self, u: Mapping) -> Disagreement:
        key = self._input_key(u)
        if key not in self._dd:
            det_u = self.det(u)
            start = time.process_time()
            if self.claim.dd_over == "grid":
                if self._grid is None:
                    from dipc_plus.claims.disagreement import GridSpace
                    self._grid = GridSpace(self.claim.points, self.det, self.claim.input_distance)
                self._dd[key] = self._grid.dd(u, det_u)
            else:
                self._dd[key] = self._dd_reals(u, det_u)
            self.timings["dd"] += time.process_time() - start
        return self._dd[key]

    def _dd_reals(self, u: Mapping, det_u: dict) -> Disagreement:
        """dd over the reals (`RealSpace.dd`: closed form for box regions, else the LP), with the
        space shared between claims about the same program and input distance."""
        if self.claim.det == "noise-free":
            if self._space is None:
                from dipc_plus.claims.disagreement import RealSpace
                key = ("real-space", _key(self.claim.input_distance), self.classes.enabled)
                if key not in self._shared:
                    self._shared[key] = RealSpace(self.program, self.claim.input_distance,
                                                  argmax_formula=self.classes.enabled)
                self._space = self._shared[key]
            return self._space.dd(u, det_u, near=False)  # only the value and attainment are used
        return self.claim.dd(u, det_u)

    def beta(self, alpha, gamma):
        key = (alpha, gamma)
        if key not in self._beta:
            self._beta[key] = self.claim.beta_at(alpha, gamma)
        return self._beta[key]

    def distribution(self, u: Mapping):
        key = self._input_key(u)
        if key not in self._dist:
            start = time.process_time()
            self._dist[key] = self.classes.distribution(
                u, lambda v: output_distribution(self.program, v, max_states=self.max_states))
            self.timings["distribution"] += time.process_time() - start
        return self._dist[key]

    def p_correct(self, u: Mapping, gamma) -> ExpFrac:
        return ExpFrac.of(1) - self.p_error(u, gamma)

    def p_error(self, u: Mapping, gamma) -> ExpFrac:
        """1 - P[P(u) in B(det(u), u, gamma)], exactly."""
        key = (self._input_key(u), Fraction(gamma))
        if key not in self._perr:
            dist = self.distribution(u)
            start = time.process_time()
            correct = ExpFrac.of(self.claim.ball_probability(dist, u, self.det(u), Fraction(gamma)))
            self._perr[key] = ExpFrac.of(1) - correct
            self._entries.setdefault(key[0], []).append((self._perr, key))
            self.timings["ball"] += time.process_time() - start
        return self._perr[key]

    def forget_distribution(self, u: Mapping) -> None:
        """Drop u's output distribution (streaming; see __init__)."""
        if not self._keep_distributions:
            self._dist.pop(self._input_key(u), None)

    def forget_input(self, u: Mapping) -> None:
        """Drop everything cached about u (a summarized run: memory independent of the grid's size).
        The caches then hold one input, so scanning them is cheap."""
        if self._keep_distributions:
            return
        key = self._input_key(u)
        for cache in (self._dist, self._det, self._dd):
            cache.pop(key, None)
        for cache, k in self._entries.pop(key, ()):   # not a scan: a sweep keeps every input's P_err
            cache.pop(k, None)
        forget_constraint_sets()

    # -- which obligations apply -------------------------------------------------------------
    def obligations(self, u: Mapping) -> list[tuple]:
        """[(alpha, gamma, applies)] for input u under this checker's convention."""
        alpha, applies = self.claim.applies_at(self.dd(u).value, self.boundary)
        return [(alpha, Fraction(g), applies) for g in self.claim.gamma_values(alpha)]

    # -- deciding ---------------------------------------------------------------------------------
    def check_input(self, u: Mapping, kappa: int = 1) -> list[InputReport]:
        """One report per gamma at input u (flat, bound values)."""
        reports = []
        for alpha, gamma, applies in self.obligations(u):
            reports.append(self.check(u, alpha, gamma, applies, kappa))
        return reports

    def check(self, u: Mapping, alpha, gamma, applies: bool = True, kappa: int = 1) -> InputReport:
        start = time.perf_counter()
        report = InputReport(self.program, dict(u), self.det(u), self.dd(u), alpha, gamma, applies, kappa)
        if applies:
            report.beta = self.beta(alpha, gamma)
            report.p_error = self.p_error(u, gamma)
            report.p_correct = ExpFrac.of(1) - report.p_error
            bound = report.bound
            key = (self._input_key(u), alpha, gamma, kappa)
            if key not in self._decisions:
                start_decide = time.process_time()
                decision = self.classes.decide(report.p_error, bound, self.decide_sentence)
                cex = None if decision.holds else self.counterexample(u, alpha, gamma, kappa, decision)
                self._decisions[key] = (decision, cex)
                self._entries.setdefault(key[0], []).append((self._decisions, key))
                self.timings["decide"] += time.process_time() - start_decide
            report.decision, report.counterexample = self._decisions[key]
        report.seconds = time.perf_counter() - start
        return report

    def decide_sentence(self, sentence: ExpFrac) -> Decision:
        """decide(sentence >= 0 for every eps of the claim), remembered for the `_SENTENCES` latest
        sentences: a grid's inputs share few closed forms (Sparse c=1 m=7: 8 for 1094 inputs), and
        a Decision depends on nothing but the sentence and the interval."""
        found = self._sentences.get(sentence)
        if found is None:
            found = decide(sentence, ">=", self.claim.eps)
            self._sentences[sentence] = found
            if len(self._sentences) > _SENTENCES:
                self._sentences.popitem(last=False)
        else:
            self._sentences.move_to_end(sentence)
        return found

    def counterexample(self, u: Mapping, alpha, gamma, kappa: int, decision: Decision) -> Counterexample:
        """Build and independently re-check the counterexample of a failed decision."""
        eps = decision.witness
        if eps is None:  # a ">=" sentence fails on an open set, so a rational witness always exists
            raise CertificationError(f"no rational witness for a failed accuracy check at {dict(u)}")
        p_err = self.p_error(u, gamma)
        bound = ExpFrac.of(self.beta(alpha, gamma)) * Fraction(1, kappa)
        if recheck(bound - p_err, eps, ">="):
            raise CertificationError(f"eps = {fmt_q(eps)} does not refute the claim at {dict(u)}")
        e_ball, b_ball = separated(p_err, bound, eps)
        cex = Counterexample(self.program, dict(u), eps, alpha, gamma, kappa, p_err, bound, e_ball, b_ball)
        self._strict_alpha(cex)
        return cex

    def _strict_alpha(self, cex: Counterexample) -> None:
        """Find a rational alpha' < dd(u) at which the same (u, eps) fails (Definition 2 is strict)."""
        dd = self.dd(cex.input).value
        if self.claim.alpha != "dd" and dd > cex.alpha:
            cex.alpha_strict = cex.alpha  # already strict
            return
        if dd == 0 or (dd != INF and dd <= 0):
            cex.alpha_strict_note = "dd(u) = 0: no alpha < dd(u) exists; found under the dd(u) >= alpha convention"
            return
        moving_gamma = self.claim.gammas == "alpha"
        candidates = ([Fraction(2) ** k for k in range(1, 40)] if dd == INF else
                      [Fraction(dd) * (1 - Fraction(1, 2 ** k)) for k in range(3, 40, 3)])
        for a in candidates:
            g = a if moving_gamma else cex.gamma
            try:
                beta = ExpFrac.of(self.claim.beta_at(a, g)) * Fraction(1, cex.kappa)
            except UserError:  # beta has no closed form at this alpha (the formula says so): stop looking
                break
            p_err = self.p_error(cex.input, g) if moving_gamma else cex.error_probability
            e = certified(p_err, cex.eps, 192)
            b = certified(beta, cex.eps, 192)
            if e > b:
                cex.alpha_strict = a
                return
        cex.alpha_strict_note = "no rational alpha < dd(u) found where it fails (the claim fails only in the limit)"

    def check_points(self, points: list, kappa: int = 1, stop_at_first: bool = False,
                     summarize: str | None = None, collect=None) -> list:
        """[(input, its reports)] for these inputs in order, each input's distribution dropped once
        decided; with `summarize` (a key of SUMMARIES), [(input, InputSummary)] and nothing cached
        about the input kept (`collect(reports)`, if given, goes into the summary).  With
        stop_at_first, up to and including the first input that refutes."""
        out = []
        for u in points:
            reps = self.check_input(u, kappa)
            refuted = any(r.verdict == REFUTED for r in reps)
            if summarize is not None:
                out.append((u, summarize_input(reps, summarize, collect)))
                self.forget_input(u)
            else:
                out.append((u, reps))
                self.forget_distribution(u)
            if stop_at_first and refuted:
                break
        return out

    def absorb(self, reports: list) -> None:
        """Keep what a worker computed (det, dd, P_err, decisions), so a later run in this process
        (the sweep's other kappas) reuses it."""
        for r in reports:
            key = input_key(r.input)
            self._det.setdefault(key, r.det)
            self._dd.setdefault(key, r.dd)
            if r.applies:
                for cache, k, value in ((self._perr, (key, r.gamma), r.p_error),
                                        (self._decisions, (key, r.alpha, r.gamma, r.kappa),
                                         (r.decision, r.counterexample))):
                    if k not in cache:
                        cache[k] = value
                        self._entries.setdefault(key, []).append((cache, k))

    def run(self, points: Iterable[Mapping] | None = None, kappa: int = 1, *, progress: bool = False,
            stop_at_first: bool = False, description: str = "accuracy", jobs: int = 1,
            executor=None, summarize: str | None = None, collect=None, gather=None) -> AccuracyResult:
        """Check every given input (default: every input of the claim), in input order; the inputs
        are cut into ranges computed by `executor` (default: `jobs` local processes).

        With `summarize` (a key of SUMMARIES: "json", "text", "text-verbose", "nothing"), each input
        is reduced where it is checked to its JSON or text lines and its counts (`InputSummary`,
        `Tally`), and nothing about it stays cached: the run's memory does not grow with the number
        of inputs, and the workers, not this process, print the closed forms.  A summarized run may
        also reduce each input's reports with `collect` (picklable: it runs where the input is
        checked) and hand the results, in input order, to `gather` here."""
        from dipc_plus.execution.executor import Executor, Source, run_tasks, shrinking_ranges
        from dipc_plus.execution.progress import progress_bar
        given = points
        points = list(self.claim.points if points is None else points)
        executor = executor if executor is not None else Executor.local(jobs)
        start = time.perf_counter()
        source = self.source if self.source is not None else Source(None, (), (), key=f"checker-{id(self)}")
        source.seed(self)
        # in this process one input per task (the ledger and the bar move with each input);
        # in workers contiguous ranges, long then shrinking (neighbours share cache entries)
        ranges = (shrinking_ranges(len(points), executor.jobs) if executor.parallel
                  else [(i, i + 1) for i in range(len(points))])
        if (collect is not None or gather is not None) and summarize is None:
            raise ValueError("collect and gather need a summarized run")
        tasks = [(points[a:b], kappa, stop_at_first, summarize, collect) for a, b in ranges]
        reports: list[InputReport] = []
        tally = Tally() if summarize is not None else None
        kept: list = []
        bar = progress_bar(len(points), description) if progress else None
        done = None if bar is None else (lambda i, part: bar.update(ranges[i][1] - ranges[i][0]))
        parts = run_tasks(check_range, source, tasks, executor=executor, done=done)
        try:
            for part in parts:
                refuted = False
                decided = []     # (input, verdict) for the ledger: one write per part
                for u, reps in part:
                    if tally is not None:
                        summary = reps
                        if summary.counterexample is not None:
                            summary.counterexample.program = self.program
                        tally.add(summary)
                        kept += summary.kept
                        if gather is not None:
                            gather(summary.collected)
                        verdict, refuted = summary.verdict, summary.refuted
                    else:
                        if executor.parallel:
                            _attach(reps, self.program)
                            self.absorb(reps)
                        reports += reps
                        verdict, refuted = _input_verdict(reps), any(r.verdict == REFUTED for r in reps)
                    if ledger.active():
                        decided.append((env_text(self.program, u), verdict))
                    if stop_at_first and refuted:
                        break
                ledger.record_many("input", decided)
                if stop_at_first and refuted:
                    break
        finally:
            parts.close()
            if bar is not None:
                bar.close()
        result = AccuracyResult(self.claim, reports, time.perf_counter() - start, kappa, self.boundary,
                                self.claim.dd_over, self.claim.inputs_kind if given is None else "list",
                                scope_points=points[:tally.inputs] if tally is not None else None, tally=tally,
                                kept=kept if tally is not None else None)
        result.work = self.classes.work(result.inputs, in_process=not executor.parallel)
        return result


# --------------------------------------------------------------------------- tasks for workers


def build_checker(claim_path: str, params: tuple, dd_over, boundary: bool, max_states: int) -> AccuracyChecker:
    """The checker a worker rebuilds from the claim file (`execution.executor.Source`)."""
    from dipc_plus.claims.claim_file import load_claim
    checker = AccuracyChecker(load_claim(claim_path, dict(params)), dd_over=dd_over, boundary=boundary,
                              max_states=max_states)
    return checker


def check_range(source, task) -> list:
    """One task: the reports of a range of inputs; in a worker, detached from the program
    (the client attaches its own), so only exact values travel."""
    from dipc_plus.execution.executor import in_worker
    points, kappa, stop_at_first, summarize, collect = task
    out = source.get().check_points(points, kappa, stop_at_first, summarize, collect)
    if in_worker():
        for _, reps in out:
            if summarize is None:
                _attach(reps, None)
            elif reps.counterexample is not None:
                reps.counterexample.program = None
    return out


def _attach(reports: list, program) -> None:
    for r in reports:
        r.program = program
        if r.counterexample is not None:
            r.counterexample.program = program


def _input_verdict(reps: list[InputReport]) -> str:
    """The verdict of one input over its gammas: refuted if any is, else verified if any applies."""
    verdicts = {r.verdict for r in reps}
    for v in (REFUTED, VERIFIED):
        if v in verdicts:
            return v
    return NOT_APPLICABLE


def simulate_error(claim: AccuracyClaim, u: Mapping, det_u: Mapping, gamma, eps, n: int, *, seed: int = 0):
    """Monte Carlo estimate of P[P(u) not in B(det(u), u, gamma)] at one rational eps.

    The independent witness for the exact closed forms: the sampler runs the program
    itself (no symbolic reasoning) and the ball is tested on each run's concrete output.
    Returns the sampler's `Frequency` of errors (use `.interval(confidence)`).
    """
    from dipc_plus.claims.distances import LinfOutput
    from dipc_plus.semantics.sampler import Frequency, simulate
    program = claim.program
    result = simulate(program, dict(u), Fraction(eps), n, seed=seed)
    if result.real_names():
        if not isinstance(claim.output_distance, LinfOutput):
            raise ValueError(f"cannot simulate the {claim.output_distance.name} ball for real outputs")
        inside = result.probability(result.within(Fraction(gamma), dict(det_u)))
        return Frequency(n - inside.successes, n)
    names = result.discrete_names()
    errors = 0
    for values, count in result.distribution(names).items():
        v = dict(zip(names, values))
        if any(x is None for x in values):
            errors += count  # an output left unassigned is never det(u)'s value
            continue
        if not claim.output_distance.in_ball(u, det_u, v, Fraction(gamma)):
            errors += count
    return Frequency(errors, n)
