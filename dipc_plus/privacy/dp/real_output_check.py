"""Deciding an eps-DP claim with real outputs on every output value (no named events).

The claim `[privacy]` without `events` on a program with noisy real outputs (beside finite
ones or alone) is decided on densities: for every ordered pair (u, u') of the
claim's neighbouring inputs, every outcome class and every value w of the released
output, f_u(w) <= e^(k eps) f_u'(w) for every eps (`real_output_loss` gives the
candidates of the loss, each an exact ratio in eps at one end of an interval of w,
and the intervals where the ratio is not proved monotone; `real_output_regions` reduces
outcomes with several released values to such intervals on segments of lines).

Verdicts: verified when every candidate's sup over eps of ln r / eps is at most k and
every remaining interval is proved bounded (`prove_unproved`), or, for a program of the
online class, bounded by the coupling bound d*B <= k at the claim's m (`privacy.dp.coupling`:
the bound holds for every output value; the exact proofs then run only for the printed sup,
at most `COUPLED_PROOFS` of them, and the candidates, exact lower bounds of the loss, must not
exceed d*B: otherwise the bound is wrong and no verdict is given, exit 3); refuted when a candidate
exceeds k, with a counterexample (u, u', outcome, w, eps) whose density ratio is
certified above e^(k eps) and re-checked by an independent route: the per-point chain
(`semantics.distribution`, the per-point Laplace engine, no cells, no derivative) gives
P[outcome, released value in (w - h, w + h]] (a box around the point for several released
values) at u and u' exactly, and the certified
ratio of those two probabilities exceeds e^(k eps) - itself an event that breaks the
claim.  Otherwise undecided, listing what is not proved.  Scope: every output value.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb

from dipc_plus.claims.claim_file import key_error
from dipc_plus.claims.privacy_types import EventInterval
from dipc_plus.claims.scope import inputs_scope
from dipc_plus.decision.certified import working_precision
from dipc_plus.exact.constraints import probability as per_point_probability
from dipc_plus.exact.convert import fmt_q
from dipc_plus.exact.decimals import decimal_down
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.linear import LinForm
from dipc_plus.errors import UserError
from dipc_plus.execution.options import DEFAULT_OPTIONS, RunOptions
from dipc_plus.privacy.display import every_value_coverage, every_value_scope_json
from dipc_plus.privacy.dp.coupling import Coupling, coupling_for
from dipc_plus.privacy.dp.plan import adjacent_point_pairs
from dipc_plus.privacy.dp.real_output_loss import (EndRatio, SupCache, interval_text, place_text,
                                                    prove_unproved)
from dipc_plus.privacy.dp.real_output_regions import pair_loss, piece_at
from dipc_plus.privacy.output_tables import interval_atoms
from dipc_plus.privacy.online.every_length import BoundContradiction
from dipc_plus.semantics import ir
from dipc_plus.semantics.distribution import output_distribution
from dipc_plus.semantics.real_output_density import real_output_densities
from dipc_plus.semantics.symbolic_chain import NotSymbolic, symbolic_paths
from dipc_plus.semantics.values import group_arrays

__all__ = ["RealOutputCheck", "check_real_outputs", "outcome_event_probability", "SCOPE_KIND"]

SCOPE_KIND = "every-output-value"
_EPS_TRIES = [Fraction(1, 64), Fraction(1, 16), Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2),
              Fraction(4), Fraction(8), Fraction(16), Fraction(64)]
_PREC = 256
SEARCH_TOLERANCE = Fraction(1, 1000)   # a search's enclosures of sup L/eps: their lower ends are certified
                                       # whatever the width; only a sup within it of k may go unrefuted
# The exact proofs run for the printed sup when the coupling bound already gives the verdict: at most this many
# (`prove_unproved` calls, one per distinct interval and bound), a count and never seconds, so that whether the
# sup is shown exact does not depend on the machine's load.  It replaced a 60 s deadline.  No shipped claim
# runs a single such proof (experiments/decision_work.md: 0 in every box and every-value privacy claim), so the
# default changes no output; 200 proofs, each at most 4 depths of splits of 3 goals, is meant to be of the
# order of the earlier minute (the cost of one proof was not measured: no shipped claim has one).
COUPLED_PROOFS = 200


@dataclass
class RealCounterexample:
    input: dict
    neighbour: dict
    outcome: object
    w: Fraction | None
    eps: Fraction
    density_ratio: arb | None
    event: tuple | None            # (lo, hi] of the released value, None for a mass
    p: ExpFrac
    q: ExpFrac
    event_ratio: arb

    def to_json(self) -> dict:
        """As the JSON has it: input, neighbour, outcome, value w, eps, the density ratio and the
        re-checked event's."""
        return {"input": {k: fmt_q(Fraction(v)) for k, v in self.input.items()},
                "neighbour": {k: fmt_q(Fraction(v)) for k, v in self.neighbour.items()},
                "output": _outcome_text(self.outcome), "w": _w_json(self.w),
                "eps": fmt_q(self.eps), "density_ratio": None if self.density_ratio is None else self.density_ratio.str(10),
                "event": None if self.event is None else _event_text(self.event),
                "probability": str(self.p), "neighbour_probability": str(self.q),
                "event_ratio": "inf" if self.q.is_zero() else self.event_ratio.str(10)}

    def lines(self, claim) -> list[str]:
        """In words, one line per part (a box claim prints them too)."""
        lines = [f"  input      {_env_text(self.input)}", f"  neighbour  {_env_text(self.neighbour)}",
                 f"  output     {_outcome_text(self.outcome)}" + ("" if self.w is None else f", value w = {_w_text(self.w)}"),
                 f"  eps        {fmt_q(self.eps)}"]
        if self.density_ratio is not None:
            lines.append(f"  density ratio f_u(w) / f_u'(w) = {self.density_ratio.str(12)}")
        what = "the outcome" if self.event is None else f"the outcome with the value(s) in {_event_text(self.event)}"
        ratio = (f"P[input] = {self.p} > 0 = P[neighbour]" if self.q.is_zero() else
                 f"P[input] / P[neighbour] = {self.event_ratio.str(12)} > e^({claim.budget})")
        lines.append(f"  re-checked on {what} by the per-point chain: {ratio}")
        return lines


@dataclass
class RealOutputCheck:
    claim: object
    verdict: str                   # 'verified' | 'refuted' | 'undecided'
    sup_text: str = ""
    sup_exact: bool = False
    pairs: int = 0
    seconds: float = 0.0
    counterexample: RealCounterexample | None = None
    undecided: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    scope: object = None
    best: object = None                # the largest sup of the loss over eps among the candidates
    unproved_intervals: list = field(default_factory=list)   # (u, u', interval) not proved monotone
    coupling: Coupling | None = None   # the coupling bound, when it applies to the claim

    def to_json(self) -> dict:
        out = {"command": "privacy", "verdict": self.verdict, "scope": every_value_scope_json(self.scope, SCOPE_KIND),
               "claim": self.claim.describe(), "pairs": self.pairs, "sup_loss_over_eps": self.sup_text,
               "sup_exact": self.sup_exact, "seconds": round(self.seconds, 3), "notes": self.notes}
        if self.coupling is not None:
            cp = self.coupling
            out["coupling_bound"] = {"d": fmt_q(cp.d), "bound": fmt_q(cp.bound), cp.size_param: cp.length}
        if self.undecided:
            out["undecided"] = [{"outcome": _outcome_text(o), "interval": iv, "why": why}
                                for o, iv, why in self.undecided[:50]]
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample.to_json()
        return out

    def report(self) -> str:
        lines = [f"claim:  {self.claim.describe()}",
                 "        real outputs without events: decided on their densities, for every output value",
                 f"checked {self.pairs} ordered pair(s) of neighbouring inputs"
                 f"{' (up to the refuting one)' if self.verdict == 'refuted' else ''}; {self.seconds:.2f} s"]
        lines += [f"note:   {n}" for n in self.notes]
        if self.sup_text:
            how = "=" if self.sup_exact else "" if self.sup_text.startswith("at least") else "in"
            lines.append(f"sup over eps and output values of L(eps)/eps {how} {self.sup_text}".replace("  ", " "))
        if self.verdict == "verified":
            lines.append(self.scope.verified(f"f_u(v, w) <= e^({self.claim.budget}) f_u'(v, w) for every "
                                             "neighbouring pair, every finite output v, every value w of the "
                                             "released real output(s) and every eps"))
        elif self.verdict == "refuted":
            lines.append("REFUTED (re-checked by an independent evaluation):")
            lines += self.counterexample.lines(self.claim)
        else:
            lines.append(f"UNDECIDED: {len(self.undecided)} interval(s) of output values not proved "
                         "(never guessed); the first:")
            lines += [f"  {_outcome_text(o)}, w in {iv}: {why}" for o, iv, why in self.undecided[:5]]
        lines.append(every_value_coverage(self.scope, SCOPE_KIND))
        return "\n".join(lines)


def _env_text(env: dict) -> str:
    return ", ".join(f"{k}={fmt_q(Fraction(v))}" for k, v in env.items())


def _w_json(w):
    return None if w is None else [fmt_q(x) for x in w] if isinstance(w, list) else fmt_q(w)


def _w_text(w) -> str:
    return "(" + ", ".join(fmt_q(x) for x in w) + ")" if isinstance(w, list) else fmt_q(w)


def _event_text(event) -> str:
    """(a, b], or a box (a1, b1] x (a2, b2] for several released values."""
    lo, hi = event
    if isinstance(lo, list):
        return " x ".join(f"({fmt_q(a)}, {fmt_q(b)}]" for a, b in zip(lo, hi))
    return f"({fmt_q(lo)}, {fmt_q(hi)}]"


def _outcome_text(o) -> str:
    parts = [f"{v}" for v in o.finite]
    parts += [f"{n}={'unassigned' if v is None else fmt_q(v)}" for n, v in o.fixed]
    parts += [f"{n}=w" for n in o.released]
    return "(" + ", ".join(parts) + ")"


def _every_value_paths(program):
    """The symbolic paths every output value is decided on.  Where the symbolic walk does not apply,
    the user asked for no --symbolic: point to the route that does apply (named events)."""
    try:
        return symbolic_paths(program, real_outputs_only=True)
    except NotSymbolic as why:
        name = next((n for n, t in program.outputs if isinstance(t, ir.RealT)), "out")
        raise UserError(f"{why.message}: every value of a real output is decided on the symbolic paths",
                        file=why.file, line=why.line, column=why.column,
                        hint=f'check the claim on named output events instead (in [privacy]: events = '
                             f'{{ {name} = ["(-inf, 0]", "(0, inf)"] }}); the per-point engine takes this noise') from None


def check_real_outputs(claim, options: RunOptions = DEFAULT_OPTIONS, refute_only: bool = False) -> RealOutputCheck:
    """Decide `claim` (a DPClaim without events, delta = 0) on every output value: a quick pass
    that only looks for a refutation, then the thorough pass over every neighbouring pair, then
    the intervals whose ratio was not proved monotone, bounded by the sup found (or the budget).

    `refute_only`: a search for a counterexample, whose enclosures of a sup stop at SEARCH_TOLERANCE
    or as soon as they lie on one side of k (`decision.sup_ratio.enclose`), (the box's lattices, where a verification of
    finitely many points proves nothing) stops after the two passes, since the bounds on the
    unproved intervals never refute and can take minutes (an argmax beside a real output):
    the verdict is then refuted or undecided, and the sup found is a lower bound."""
    start = time.time()
    _refuse_unsupported(claim)
    program, k = claim.program, claim.budget.k
    paths = _every_value_paths(program)
    names = paths.real_inputs
    keys = dict.fromkeys(_key(u, names) for u in claim.points)    # each distinct input once, in order
    dens = {key: real_output_densities(paths, list(key)) for key in keys}
    scope = inputs_scope(program, grid=claim.grid, points=claim.explicit_points,
                         kind=claim.inputs_kind if claim.inputs_kind != "domain" else "grid", eps=str(claim.eps))
    result = RealOutputCheck(claim, "undecided", scope=scope)
    cp = coupling_for(claim, options)
    result.coupling = cp if cp.applies else None
    pairs = adjacent_point_pairs(claim.points, claim.adjacency)
    sups = SupCache(SEARCH_TOLERANCE, k) if refute_only else SupCache()
    done = (_pass(result, pairs, dens, names, k, sups, thorough=False)
            or _pass(result, pairs, dens, names, k, sups, thorough=True))
    if done and result.coupling is not None:
        raise BoundContradiction(f"the coupling bound is wrong: d*B = {fmt_q(cp.bound)} <= {fmt_q(k)}, yet a "
                                 "counterexample re-checked by the per-point chain refutes the claim; no verdict "
                                 "is given")
    if not done:
        if result.coupling is not None:
            _within_coupling(result)
        if refute_only:
            _lower_bound_only(result)
        else:
            _bound_unproved(result, k)
    result.seconds = time.time() - start
    return result


def _refuse_unsupported(claim) -> None:
    """What the route does not cover yet, each a UserError with a hint (named events do)."""
    program = claim.program
    if claim.budget.factor != 1:
        raise key_error(claim.file, "privacy.budget", "a budget with a constant term is not supported on every "
                        "output value yet", "write budget = \"k*eps\", or name output events")
    if str(claim.eps) not in ("(0, inf)",):
        raise key_error(claim.file, "privacy.eps", f"eps in {claim.eps}: every output value is decided for eps in "
                        "(0, inf) only", "leave out eps, or name output events")
    if any(not isinstance(t, ir.RealT) for _, t in program.inputs):
        raise key_error(claim.file, "privacy.inputs", "every output value: only programs whose inputs are all "
                        "real so far", "name output events")


def _key(u: dict, names) -> tuple:
    return tuple(Fraction(u[n]) for n in names)


def _above(s, k) -> bool:
    """Whether a sup of the loss is proved above the budget k (or infinite)."""
    return s.infinite or s.lower() > k


def _refute(result: RealOutputCheck, cex, s) -> bool:
    """Record a re-checked counterexample whose candidate's sup is `s` (a lower bound of the loss)."""
    result.verdict, result.counterexample = "refuted", cex
    result.sup_text = "at least " + s.text() if not s.infinite else "inf"
    result.sup_exact = s.infinite
    return True


def _pass(result: RealOutputCheck, pairs, dens, names, k, sups: SupCache, thorough: bool) -> bool:
    """One pass over the pairs, looking for a candidate above the budget whose counterexample
    re-checks; True if the claim was refuted.  The quick pass (not `thorough`) runs the cheap
    monotonicity tests on outcomes with one released value only and records nothing else; the
    thorough pass runs every proof and records the sup over the candidates (result.best), the
    intervals left unproved (result.unproved_intervals) and the undecided outcomes."""
    program = result.claim.program
    seen: set = set()
    best = None
    unproved = []
    memo: dict = {}
    for index, (u, v) in enumerate(pairs, start=1):
        pl = pair_loss(dens[_key(u, names)], dens[_key(v, names)], thorough, memo=memo)
        for outcome, why, *where in pl.infinite if thorough else ():
            cex = _counterexample_infinite(program, u, v, outcome, k, *where)
            if cex is not None:
                result.verdict, result.counterexample = "refuted", cex
                result.pairs, result.sup_text = index, "inf"
                return True
            result.undecided.append((outcome, "-", why + " (counterexample not re-checked)"))
        for c in pl.candidates:
            s = sups.first(c, seen)
            if s is None:
                continue
            if best is None or s.infinite or s.upper() > best.upper():
                best = s
            if not _above(s, k):
                continue
            cex = _counterexample(program, u, v, c, k, dens, names, s)
            if cex is not None:
                result.pairs = index
                return _refute(result, cex, s)
            if thorough:
                result.sup_exact, result.sup_text = s.value is not None, s.text()
                result.notes.append("a candidate exceeds the budget but no counterexample was re-checked")
        if thorough:
            unproved += [(u, v, x) for x in pl.unproved]
            result.undecided += [(o, "all" if iv is None else interval_text(*iv), why) for o, iv, why in pl.undecided]
    if thorough:
        result.best, result.unproved_intervals, result.pairs = best, unproved, len(pairs)
    return False


def _within_coupling(result: RealOutputCheck) -> None:
    """The candidates are exact lower bounds of the loss: above d*B, the coupling bound (our code)
    is wrong, and no verdict is given."""
    best, cp = result.best, result.coupling
    lower = None if best is None or best.infinite else best.lower()
    if best is not None and (best.infinite or lower > cp.bound):
        raise BoundContradiction(f"the coupling bound is wrong: an exact candidate of the loss, {best.text()}, is "
                                 f"above d*B = {fmt_q(cp.bound)}; no verdict is given")
    result.notes.append(f"the coupling bound of the online class at {cp.size_param} = {cp.length}, d*B = "
                        f"{fmt_q(cp.bound)} <= {fmt_q(cp.k)}, bounds the loss at every pair of real inputs with "
                        "|q - q'| <= B and every output value (docs/design/every_length.md, section 2)")


def _lower_bound_only(result: RealOutputCheck) -> None:
    """No verdict but refuted from a search: the largest candidate found, a lower bound of the
    loss (exact when no interval was left unproved)."""
    best = result.best
    result.notes.append("a search for a counterexample only: the intervals not proved monotone were not bounded")
    if best is None:
        return
    result.sup_exact = best.value is not None and not result.unproved_intervals
    lower = best.lower()
    result.sup_text = fmt_q(lower) if result.sup_exact else "at least " + decimal_down(lower, 8)


def _bound_unproved(result: RealOutputCheck, k) -> None:
    """Intervals whose ratio was not proved monotone are bounded by e^(K eps) with K the sup found
    (then the printed sup is exact) or else the budget; what neither bounds is undecided.  With the
    coupling bound, every interval is bounded by d*B <= k already: the proofs run (for an exact
    sup) at most COUPLED_PROOFS times, and not at all when the sup found equals d*B."""
    best, unproved, cp = result.best, result.unproved_intervals, result.coupling
    if best is not None:
        result.sup_exact = best.value is not None
        result.sup_text = best.text()
    K = None if best is None else best.upper()
    exact_sup = True
    bounded: dict = {}          # the same interval and closed forms met for several pairs: one proof
    budget = None if cp is None else COUPLED_PROOFS     # proofs run, counted by the distinct ones in `bounded`
    if cp is not None and best is not None and best.value is not None and best.value == cp.bound:
        unproved = []           # the sup found is the coupling's bound: it is the sup

    def proved(x, bound) -> bool:
        key = (x.lo, x.hi, x.line, str(x.f), str(x.g), bound)
        if key not in bounded:
            bounded[key] = prove_unproved(x, bound)
        return bounded[key]

    for u, v, x in unproved:
        if budget is not None and len(bounded) >= budget:
            exact_sup = False
            result.notes.append(f"the exact proofs for the printed sup stopped at their budget of {budget} proofs "
                                "(privacy.dp.real_output_check.COUPLED_PROOFS); the verdict rests on the coupling "
                                "bound, and the sup is shown as an interval")
            break
        if K is not None and proved(x, K):
            continue
        exact_sup = False
        if cp is not None:
            continue            # bounded by d*B <= k
        if K is not None and K < k and proved(x, k):
            continue
        result.undecided.append((x.outcome, place_text(x.lo, x.hi, x.line),
                                 f"ratio not proved <= e^({fmt_q(k)}*eps) there (u = {_env_text(u)}, "
                                 f"u' = {_env_text(v)})"))
    if unproved and not exact_sup and best is not None:
        result.sup_exact = False
        result.sup_text = f"[{best.text()}, {fmt_q(k if cp is None else cp.bound)}]"
    if not result.undecided and (best is None or best.upper() <= k):
        result.verdict = "verified"


# --------------------------------------------------------------------------- counterexamples


def outcome_event_probability(program, u: dict, outcome, lo, hi) -> ExpFrac:
    """P[outcome's finite and fixed outputs, released values in (lo, hi]] at input u, by the
    per-point chain (`output_distribution`) and the per-point Laplace engine: independent of
    the cells and of the densities.  lo and hi are one bound for every released value (a
    Fraction or None: unbounded) or a list with one bound per released value, in order."""
    if not isinstance(lo, (list, tuple)):
        lo = [lo] * len(outcome.released)
    if not isinstance(hi, (list, tuple)):
        hi = [hi] * len(outcome.released)
    dist = output_distribution(program, group_arrays(program, u), shortcuts=False)
    idx = {n: i for i, n in enumerate(dist.names)}
    finite_names = [n for n, t in program.outputs if isinstance(t, (ir.BoolT, ir.DomT))]
    total = ExpFrac.of(ExpPoly.ZERO)
    for out, entry in dist.entries.items():
        at = {n: out.values[i] for n, i in idx.items()}
        released = [at[n] for n in outcome.released]
        if (any(at[n] != v for n, v in zip(finite_names, outcome.finite))
                or not all(at[n] is None if v is None else isinstance(at[n], LinForm) and at[n].is_constant()
                           and at[n].const == v for n, v in outcome.fixed)
                or not all(isinstance(x, LinForm) and not x.is_constant() for x in released)):
            continue
        extra = [atom for x, a, b in zip(released, lo, hi)
                 for atom in interval_atoms(x, EventInterval(a, b, lo_closed=False, hi_closed=True, label=""))]
        p = ExpFrac.of(per_point_probability(list(out.constraints) + extra, dist.noises))
        if not p.is_zero():
            total = total + entry.weight * p
    return total


def _ratio_above(p: ExpFrac, q: ExpFrac, k: Fraction, eps: Fraction) -> arb | None:
    """The certified ball of p/q at eps when it is above e^(k eps) (q certified > 0), else None."""
    with working_precision(_PREC):
        a, b = p.arb_value(eps, _PREC), q.arb_value(eps, _PREC)
        if not b > 0:
            return None
        ball, bound = a / b, (arb(k.numerator) / k.denominator * arb(eps.numerator) / eps.denominator).exp()
        return ball if ball > bound else None


def _event_check(program, u, v, outcome, event, eps: Fraction, k) -> tuple | None:
    """(p, q, ratio ball) of the per-point probabilities of `outcome` with its released values in
    `event` ((lo, hi); None: any value) at u and u', when p > 0 = q or their certified ratio
    exceeds e^(k eps), each an event that breaks the claim; else None."""
    lo, hi = (None, None) if event is None else event
    p = outcome_event_probability(program, u, outcome, lo, hi)
    q = outcome_event_probability(program, v, outcome, lo, hi)
    if q.is_zero():
        if p.is_zero():
            return None
        with working_precision(_PREC):
            return p, q, arb("inf")
    ball = _ratio_above(p, q, k, eps)
    return None if ball is None else (p, q, ball)


def _counterexample(program, u, v, c: EndRatio, k, dens, names, best) -> RealCounterexample | None:
    """A candidate above the budget made a re-checked counterexample: at a few eps where its ratio is
    above e^(k eps), a value w toward its end where the density ratio is certified above too, and
    an event (w - h, w + h] (a box (w_i - h, w_i + h] for several released values), for decreasing h,
    whose per-point probabilities at u and u' have a certified ratio above e^(k eps); None if none."""
    eps_list = ([best.at_eps] if best.at_eps is not None else []) + _EPS_TRIES
    good = [e for e in eps_list if _ratio_above(c.ratio, ExpFrac.of(ExpPoly.const(1)), k, e) is not None]
    for eps in good[:3]:
        if c.end == "mass":
            found = _event_check(program, u, v, c.outcome, None, eps, k)
            if found is not None:
                return RealCounterexample(u, v, c.outcome, None, eps, None, None, *found)
            continue
        fu, fv = dens[_key(u, names)][c.outcome].density, dens[_key(v, names)][c.outcome].density
        for w in (_points_toward(c) if c.line is None else _points_inside(c)):
            at = w if isinstance(w, list) else [w]
            f, g = piece_at(fu, at), piece_at(fv, at)     # off every cell: the zero form
            if g.is_zero():
                continue
            ball = _ratio_above(ExpFrac.of(f.at(at)), ExpFrac.of(g.at(at)), k, eps)
            if ball is None:
                continue
            for h in (Fraction(1, 4 ** j) for j in range(1, 12)):
                event = ([x - h for x in w], [x + h for x in w]) if isinstance(w, list) else (w - h, w + h)
                found = _event_check(program, u, v, c.outcome, event, eps, k)
                if found is not None:
                    return RealCounterexample(u, v, c.outcome, w, eps, ball, event, *found)
    return None


def _points_toward(c: EndRatio) -> list:
    """Values of w inside the candidate's interval, closer and closer to its end."""
    s, near, far = (1, c.lo, c.hi) if c.end == "lo" else (-1, c.hi, c.lo)
    if near is None:     # an infinite end: outward from the finite one (or 0), by powers of 2
        return [-s * Fraction(2 ** j) + (0 if far is None else s * min(s * far, 0)) for j in range(1, 14)]
    width = 1 if far is None else min(Fraction(1), c.hi - c.lo)
    return [near + s * Fraction(1, 2 ** j) * width for j in range(1, 14)]


def _points_inside(c: EndRatio) -> list:
    """Several released values: points of the cell closer and closer to the candidate's end on
    its segment (the segment's point moved a little toward a point inside the cell)."""
    origin, direction, inside = c.line
    out = []
    for j, t in enumerate(_points_toward(c), start=1):
        on = [o + t * d for o, d in zip(origin, direction)]
        for delta in (Fraction(1, 2 ** j), Fraction(1, 2 ** (j + 6))):
            out.append([a + delta * (b - a) for a, b in zip(on, inside)])
    return out


def _counterexample_infinite(program, u, v, outcome, k, where=None) -> RealCounterexample | None:
    """An outcome (or a part of it) of positive probability at u and 0 at u'.  `where` = (lo, hi,
    line): the density is positive at u and 0 at u' on (lo, hi) of the one released value (line
    None), as where one-sided noise moves its support; then the event is a bounded piece of it."""
    event = None
    if where is not None and where[2] is None and len(outcome.released) == 1:
        lo, hi = where[0], where[1]
        event = (hi - 1 if lo is None else lo, lo + 1 if hi is None else hi)
    found = _event_check(program, u, v, outcome, event, Fraction(1), k)
    if found is None or not found[1].is_zero():
        return None
    return RealCounterexample(u, v, outcome, None, Fraction(1), None, event, *found)
