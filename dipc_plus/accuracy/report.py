"""One input's check as the user reads it: the verdict words, inputs printed as text and JSON,
the report of one (input, gamma) and its re-checked counterexample, and what a summarized run
keeps of an input.

Why a module of its own: the checker (`accuracy.checker`) computes these reports, the workers
(`accuracy.tasks`) send them, and the commands, the sweep and the plots print them; none of
those needs the others to show a report.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from dipc_plus.semantics.identity_cache import by_identity
from dipc_plus.claims.disagreement import Disagreement
from dipc_plus.claims.distances import INF
from dipc_plus.decision.decide import CertificationError, Decision
from dipc_plus.exact.convert import fmt_q as exact_fmt_q, json_q
from dipc_plus.exact.decimals import ball_text, midpoint_text
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.memo import remember
from dipc_plus.semantics import ir
from dipc_plus.semantics.distribution import certified
from dipc_plus.semantics.values import show_env

VERIFIED = "verified"
REFUTED = "refuted"
NOT_APPLICABLE = "not applicable"
UNDECIDED = "undecided"      # a box region neither proved nor refuted


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
    if v == INF:
        return "inf"
    return json_q(v) if isinstance(v, (int, Fraction, str)) or v is None else str(v)   # bool, str, None kept


_MAX_TEXTS = 4096


def closed_form_text(value) -> str:
    """str(value), remembered for the latest closed forms: the inputs of a grid share a few
    (accuracy.classes hands them the same objects), and printing one costs more than checking it."""
    return _remembered_text(value) if isinstance(value, (ExpFrac, ExpPoly)) else str(value)


@functools.lru_cache(maxsize=_MAX_TEXTS)
def _remembered_text(value) -> str:
    return str(value)


def beta_over(kappa: int) -> str:
    """The bound a run at kappa checks, as every accuracy report writes it: beta, or beta/kappa."""
    return "beta" if kappa == 1 else f"beta/{kappa}"


def kappa_clause(kappa: int) -> str:
    """The end of a report's convention line: nothing at kappa = 1."""
    return "" if kappa == 1 else f", beta divided by {kappa}"


def claim_json(claim) -> dict:
    """The fields every accuracy result's JSON gives its claim (file, program, parameters, statement, eps)."""
    program = claim.program
    return {"claim": claim.file, "program": program.name, "params": {k: json_q(v) for k, v in program.params.items()},
            "statement": claim.describe(), "eps_interval": str(claim.eps)}


ENV_STYLE = {"braces": False, "empty": "(no inputs)"}   # how accuracy reports print an input (values.show_env)


def env_text(program: ir.Program, flat: Mapping) -> str:
    """An input as accuracy reports print it: 'q=[-1,0,1]' (values.show_env in ENV_STYLE)."""
    return show_env(group_env(program, flat), **ENV_STYLE)


def group_env(program: ir.Program, flat: Mapping) -> dict:
    """{'q[1]': -1, 'q[2]': 0} -> {'q': [-1, 0]} (arrays grouped, in declaration order)."""
    out: dict = {}
    owner = array_owners(program)
    for name, value in flat.items():
        base = owner.get(name)
        if base is None:
            out[name] = value
        else:
            out.setdefault(base, []).append(value)
    return out


_OWNERS: dict = {}


def array_owners(program: ir.Program) -> dict:
    """{flat element name: its array's name}, once per program (each report's JSON asks twice)."""
    return by_identity(_OWNERS, (program,), lambda: {e: a for a, elems in program.arrays.items() for e in elems}, 64)


def env_json(program: ir.Program, flat: Mapping) -> dict:
    grouped = group_env(program, flat)
    return {k: [json_value(x) for x in v] if isinstance(v, list) else json_value(v) for k, v in grouped.items()}


_DET_JSON: dict = {}


def _det_json(program: ir.Program, det: dict) -> dict:
    """env_json of a det output, remembered for the latest det objects (accuracy.classes hands
    the inputs with the same det output the same dict; a new dict is a miss, never a wrong hit)."""
    found = _DET_JSON.get(id(det))
    if found is not None and found[0] is det and found[1] is program and found[2] == det:
        return dict(found[3])
    made = env_json(program, det)
    remember(_DET_JSON, _MAX_TEXTS, id(det), (det, program, dict(det), made))
    return dict(made)


def input_key(u: Mapping) -> tuple:
    """A hashable key of an input: each value with its type's name (True is not 1).  Values are
    not converted: equal numbers hash equal, so converting to Fraction changed no key."""
    return tuple(sorted((k, (type(v).__name__, v)) for k, v in u.items()))


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
        lines = [f"counterexample: {env_text(self.program, self.input)}, eps = {fmt_q(self.eps)}",
                 f"  P[error]   = {midpoint_text(self.error_ball, 15)}  (certified: {ball_text(self.error_ball, 15)})",
                 f"  {beta_over(self.kappa):<10}= {midpoint_text(self.bound_ball, 15)}  (certified: {ball_text(self.bound_ball, 15)})",
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
            "det": _det_json(self.program, self.det),
            "dd": json_value(self.dd.value),
            "dd_attained": self.dd.attained,
            "alpha": json_value(self.alpha),
            "gamma": json_value(self.gamma),
            "verdict": self.verdict,
        }
        if self.applies:
            out["beta"] = closed_form_text(self.beta)
            if self.kappa != 1:
                out["kappa"] = self.kappa
            if full:
                out["p_correct"] = closed_form_text(self.p_correct)
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
    reports: list | None = None    # the reports themselves, brought home (a run with `absorb`)


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


def summarize_input(reports: list, how: str, collect=None, absorb: bool = False) -> InputSummary:
    """One input's reports reduced to what a summarized run keeps (`how`: a key of SUMMARIES); its
    verdict over its gammas is refuted if one is, else verified if one applies."""
    marks = [(r.applies, r.verdict == REFUTED) for r in reports]
    failing = [r for r, (_, refuted) in zip(reports, marks) if refuted]
    verdict = REFUTED if failing else VERIFIED if any(applies for applies, _ in marks) else NOT_APPLICABLE
    return InputSummary(SUMMARIES[how](reports), marks, failing[0].counterexample if failing else None, verdict,
                        None if collect is None else collect(reports), reports[0].dd.value if reports else None,
                        reports if absorb else None)
