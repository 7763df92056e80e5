"""The tight privacy loss L(eps) = max ln(P[P(u)=v] / P[P(u')=v]) over the claim's pairs
and outputs, exactly.

Why it exists: a verdict says whether a budget holds; the loss says what the budget
should have been.  It is an upper envelope of exact likelihood ratios, computed
piecewise with certified breakpoints and the pair and output attaining each piece;
sup L(eps)/eps comes from `sup_ratio`.  For mechanisms whose probabilities do not
depend on eps the tight budget is ln of a rational; at eps = ln r it is the exact
value there.  Like every verdict, the loss is tight on the claim's inputs (its grid
or list) and, for real outputs, on its named events only.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.execution.options import DEFAULT_OPTIONS, RunOptions
from dipc_plus.errors import UserError
from dipc_plus.exact.decimals import decimal_down, decimal_up
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.claims.claim_file import key_error
from dipc_plus.claims.privacy_types import DPClaim
from dipc_plus.privacy.display import ENV_STYLE, eps_multiple, log_text, user_env
from dipc_plus.decision.envelope import Piece, boundary_text, envelope
from dipc_plus.exact.log_point import constant_value, ln_text, value_at_log
from dipc_plus.privacy.output_tables import ZERO
from dipc_plus.privacy.dp.plan import PairWork, Plan, lift_witness, plan
from dipc_plus.privacy.dp.point_filter import filter_applies, point_filter_loss
from dipc_plus.decision.sup_ratio import SupRatio, bounded_by, sup_ratio
from dipc_plus.semantics import ir
from dipc_plus.semantics.values import show_env
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES

@dataclass
class Candidate:
    """One likelihood ratio p/p' with the pair and output it comes from."""
    ratio: ExpFrac
    input: dict
    neighbour: dict
    output: dict
    p: ExpFrac
    q: ExpFrac


@dataclass
class LossPiece(Piece):
    """The ratio that is the loss on a piece of the eps interval, with its pair and output."""
    candidate: Candidate


@dataclass
class LossResult:
    claim: DPClaim
    infinite: Candidate | None = None    # p > 0 = p'
    constant: Fraction | None = None     # eps-independent: max ratio (tight eps = ln of it)
    constant_candidate: Candidate | None = None
    point_ratio: Fraction | None = None  # at eps = ln r: the max ratio there
    point_candidate: Candidate | None = None
    pieces: list = field(default_factory=list)
    sup: SupRatio | None = None
    candidates: int = 0
    distinct: int = 0
    pairs: int = 0
    seconds: float = 0.0
    plan: Plan | None = None

    def loss_text(self) -> str:
        single = self._single()
        if single is not None:
            return single[0]["loss"]
        if len(self.pieces) == 1:
            return loss_expr(self.pieces[0].candidate.ratio)
        return "piecewise: " + "; ".join(f"{loss_expr(pc.candidate.ratio)} on {pc.where()}" for pc in self.pieces)

    def _single(self) -> tuple | None:
        """When one ratio is the loss (infinite, at eps = ln r, or independent of eps): (its JSON
        fields before the witness, its lines of text around 'attained at', the attaining
        candidate); None for a piecewise L(eps)."""
        if self.infinite is not None:
            c = self.infinite
            return ({"loss": "inf"}, ["L(eps) = inf: an output has positive probability at one input and "
                                      "probability 0 at a neighbour"], [f"  P = {c.p}, P' = {c.q}"], c)
        r = self.point_ratio if self.point_ratio is not None else self.constant
        if self.point_ratio is not None:
            point = str(self.claim.eps).replace("eps = ", "")
            return ({"loss": ln_text(r), "loss_decimal": log_text(r) if r > 0 else "-inf"},
                    [f"L({point}) = {ln_text(r)} in {log_text(r)}"], [], self.point_candidate)
        if self.constant is not None:
            return ({"loss": ln_text(r), "tight_eps": ln_text(r)},
                    ["the probabilities do not depend on eps:",
                     f"  tight eps = {ln_text(r)} in {log_text(r)}  (on these inputs the program is eps'-DP "
                     f"exactly for eps' >= {ln_text(r)})"], [], self.constant_candidate)
        return None

    @property
    def scope(self):
        from dipc_plus.privacy.dp.check import claim_scope
        return claim_scope(self.claim)

    @property
    def verdict(self) -> str:
        """'verified' when the claimed budget holds on the claim's eps (`budget_holds`), else 'refuted'."""
        return "verified" if self.budget_holds() else "refuted"

    def budget_holds(self) -> bool:
        """Is L(eps) <= the claimed budget for every eps of the claim (decided exactly, delta = 0)?"""
        b = self.claim.budget
        if self.infinite is not None:
            return False
        if self.point_ratio is not None:
            e = b.exp_at_log(self.claim.eps.log_of)
            return e is not None and self.point_ratio <= e
        if self.constant is not None and b.k == 0:
            return self.constant <= b.factor
        I = self.claim.eps.interval
        if self.constant is not None:
            return bounded_by(ExpFrac.of(self.constant), b.k, I, b.factor)
        ratios = {pc.candidate.ratio for pc in self.pieces}
        return all(bounded_by(r, b.k, I, b.factor) for r in ratios)

    def to_json(self) -> dict:
        c = self.claim
        out = {"program": c.program.source, "claim": c.file, "scope": self.scope.to_json(),
               "tight_on": "the scope's inputs only (and the named events of real outputs)",
               "eps": str(c.eps), "adjacency": c.adjacency.kind,
               "pairs": self.pairs, "ratios": self.candidates, "distinct_ratios": self.distinct,
               "seconds": round(self.seconds, 3)}
        single = self._single()
        if single is not None:
            out.update(single[0])
            out["witness"] = _cand_json(c.program, single[3])
        else:
            out["loss"] = [{"from": boundary_text(pc.lo), "to": boundary_text(pc.hi), "ratio": str(pc.candidate.ratio),
                            "loss": loss_expr(pc.candidate.ratio), "witness": _cand_json(c.program, pc.candidate)}
                           for pc in self.pieces]
            if self.sup is not None:
                out["sup_loss_over_eps"] = self.sup.text()
                if self.sup.value is None:
                    out["sup_loss_over_eps_enclosure"] = [decimal_down(self.sup.lo), decimal_up(self.sup.hi)]
        out["budget_holds"] = self.budget_holds()
        return out

    def report(self) -> str:
        """The scope, each piece of L(eps) with the pair and output attaining it, sup L(eps)/eps and
        whether the claimed budget holds."""
        claim, scope = self.claim, self.scope
        program = claim.program

        def witness(c) -> str:
            return (f"  attained at {show_env(user_env(program, c.input), **ENV_STYLE)}  vs  "
                    f"{show_env(user_env(program, c.neighbour), **ENV_STYLE)}, output "
                    f"{show_env(user_env(program, c.output), **ENV_STYLE)}")

        others = " or ".join((["other inputs"] if not scope.complete else []) +
                             (["other parameter values"] if scope.params else []))
        lines = [f"tight privacy loss of {program.name} ({claim.adjacency.describe()}, {claim.eps}) "
                 f"{scope.summary()}",
                 "  (tight on these inputs" + (f": {others}" if others else "") +
                 (", or sets of real outputs other than unions of the named events," if scope.events else "") +
                 (" may have a larger loss)" if others or scope.events else ")")]
        lines += [f"structure: {note}" for note in (self.plan.notes if self.plan is not None else [])]
        lines.append(f"{self.pairs} pair(s) of neighbouring inputs, {self.candidates} likelihood ratio(s), "
                     f"{self.distinct} distinct; {self.seconds:.2f} s")
        single = self._single()
        if single is not None:
            lines += single[1] + [witness(single[3])] + single[2]
        else:
            for pc in self.pieces:
                lines += [f"L(eps) = {loss_expr(pc.candidate.ratio)}   for eps in {pc.where()}", witness(pc.candidate)]
            if self.sup is not None:
                lines.append(f"sup L(eps)/eps = {self.sup.text()}   ({self.sup.how})")
        holds = self.budget_holds()
        where = f"at {claim.eps}" if claim.eps.is_log_point else f"{'for every' if holds else 'for some'} eps in {claim.eps}"
        lines.append(f"the claimed budget {claim.budget} {'holds' if holds else 'fails'} on these inputs "
                     f"(decided exactly: L(eps) {'<=' if holds else '>'} {claim.budget} {where})")
        lines.append(scope.coverage())
        return "\n".join(lines)


def loss_expr(r) -> str:
    """ln of an exact ratio, simplified when it is c*e^(a*eps): 'a*eps + ln(c)'."""
    r = ExpFrac.of(r)
    if r.den.is_constant():
        mons = list(r.num.monomials())
        if len(mons) == 1 and mons[0][1] == 0 and mons[0][0] > 0:
            c, _, a = mons[0]
            c = c / r.den.constant_value()
            parts = [eps_multiple(a)] if a else []
            if c != 1 or not parts:
                parts.append(ln_text(c))
            return " + ".join(parts).replace("+ -", "- ")
    return f"ln({r})"


def _cand_json(program, cand: Candidate) -> dict:
    return {"input": user_env(program, cand.input), "neighbour": user_env(program, cand.neighbour),
            "output": user_env(program, cand.output), "probability": str(cand.p),
            "neighbour_probability": str(cand.q)}


def build_loss_work(claim_path: str, params: tuple, structure, max_states: int) -> PairWork:
    """The pairs a worker rebuilds from the claim file (`execution.executor.Source`)."""
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    claim = load_privacy_claim(claim_path, dict(params))
    return PairWork(claim, plan(claim, structure, max_states=max_states))


def loss_ratios(source, task) -> dict:
    """One task: the distinct ratios p/p' of pairs [a, b) of one unit, each with its first
    (pair, output) in order; stops at a ratio with p' = 0 (an infinite loss)."""
    work: PairWork = source.get()
    k, a, b = task
    unit = work.plan.units[k]
    out = {"unit": k, "pairs": 0, "ratios": 0, "found": {}, "infinite": None}
    for u, w in work.pairs[k][a:b]:
        out["pairs"] += 1
        P, Q = unit.table(u), unit.table(w)
        for v, p in P.items():
            if p.is_zero():
                continue
            out["ratios"] += 1
            q = Q.get(v, ZERO)
            if q.is_zero():
                out["infinite"] = (u, w, v)
                return out
            r = p / q
            if r not in out["found"]:
                out["found"][r] = (u, w, v)
    return out


def refuse_every_output_value(claim: DPClaim) -> None:
    """The tight loss is computed on the outputs' finite tables: a real output without named
    events is decided on densities by `dipc privacy` instead (it prints the exact sup of L/eps)."""
    if not getattr(claim, "every_output_value", False):
        return
    reals = [name for name, typ in claim.program.outputs if isinstance(typ, ir.RealT)]
    array = reals[0].split("[")[0] if reals else "NAME"
    raise UserError(f"privacy-loss needs output events for the real output(s) {', '.join(reals)}: it tabulates "
                    "the loss on finite sets of outputs, and this claim names none",
                    file=claim.file,
                    hint="`dipc privacy` decides this claim on every output value and prints the exact sup of "
                         f"L/eps there; or add `events = {{ {array} = [\"(-inf, 0]\", \"(0, inf)\"] }}` to "
                         "[privacy] for a tight loss on those events")


def privacy_loss(claim: DPClaim, *, structure: bool | None = None, symmetry: bool = True,
                 max_states: int = DEFAULT_MAX_STATES, executor=None, source=None,
                 progress: bool = False, options: RunOptions = DEFAULT_OPTIONS) -> LossResult:
    """The exact tight loss L(eps) over the claim's pairs and outputs; the ratios of the pairs are
    collected by `executor` (execution.executor; default this process), first occurrence in pair
    order, so the result does not depend on it.  `options`: its reference mode drops the structure."""
    refuse_every_output_value(claim)
    t0 = time.perf_counter()
    reference = not options.allows("privacy-structure")      # reference mode: one chain per input
    pl = plan(claim, False if reference else structure, max_states=max_states, symmetry=symmetry)
    res = LossResult(claim, plan=pl)
    if claim.eps.is_log_point and all(filter_applies(claim, unit) for unit in pl.units):
        _loss_by_point_filter(claim, pl, res)
    else:
        _loss_by_ratios(claim, pl, res, executor, source, progress)
    res.seconds = time.perf_counter() - t0
    return res


def _loss_by_ratios(claim: DPClaim, pl: Plan, res: LossResult, executor, source, progress: bool) -> None:
    """Collect the distinct ratios of every pair on `executor` (the first occurrence of each in pair
    order), stopping at an infinite one, then the tight loss from them."""
    from dipc_plus.execution.executor import SERIAL, Source
    from dipc_plus.execution.run import TaskRun
    cands: dict = {}
    work = PairWork(claim, pl)
    executor = executor or SERIAL
    source = source if source is not None else Source(None, (), (), key=f"loss-{id(work)}")
    source.seed(work)
    tasks, sizes = work.sized_tasks(executor)
    with TaskRun(sum(sizes), "privacy-loss", "pair", progress=progress) as run:
        for part in run.parts(loss_ratios, source, tasks, executor=executor, sizes=sizes):
            unit = pl.units[part["unit"]]
            res.pairs += part["pairs"]
            res.candidates += part["ratios"]
            for r, (u, w, v) in part["found"].items():
                cands.setdefault(r, (unit, u, w, v))
            if part["infinite"] is not None:
                res.infinite = lifted_candidate(claim, pl, (unit, *part["infinite"]), infinite=True)
                break
    res.distinct = len(cands)
    if res.infinite is None:
        _tight_from_ratios(claim, pl, res, cands, executor, source)


def lifted_candidate(claim: DPClaim, pl: Plan, info: tuple, ratio=None, infinite: bool = False) -> Candidate:
    """The candidate of `info` = (unit, u, u', v) on the whole program: its ratio is `ratio`, or p/p'
    when None; an infinite one (p' = 0) keeps p and p' as computed and no ratio."""
    unit, u, w, v = info
    fu, fw, out, pp, qq = lift_witness(claim, pl, unit, u, w, v)
    if infinite:
        return Candidate(None, fu, fw, out, pp, qq)
    p, q = ExpFrac.of(pp), ExpFrac.of(qq)
    return Candidate(p / q if ratio is None else ratio, fu, fw, out, p, q)


def _loss_by_point_filter(claim: DPClaim, pl: Plan, res: LossResult) -> None:
    """At eps = ln r on grids the min filter (`point_filter`) gives each unit's largest ratio
    directly; the largest over the units, or the first infinite one, is the loss."""
    best = None
    for unit in pl.units:
        ratio, u, w, v = point_filter_loss(claim, unit)
        res.pairs += math.prod(len(unit.grid[n]) for n in unit.inputs)
        if ratio is None:
            res.infinite = lifted_candidate(claim, pl, (unit, u, w, v), infinite=True)
            return
        if best is None or ratio > best[0]:
            best = (ratio, unit, u, w, v)
    res.point_ratio = best[0]
    res.point_candidate = lifted_candidate(claim, pl, best[1:])


def no_adjacent_pair(claim: DPClaim) -> UserError:
    """The error for claimed inputs of which no two are adjacent (one grid point, say), located at the
    claim's inputs: the tight loss compares pairs, so it has nothing to compute."""
    key = f"privacy.inputs.{claim.inputs_kind}" if claim.inputs_kind != "domain" else "privacy.adjacency"
    return key_error(claim.file or None, key,
                     "no pair of adjacent inputs to compare: no two of the claimed inputs are adjacent",
                     "give the inputs at least two values at distance within the adjacency bound, e.g. "
                     "grid = { q = [0, 1] }")


def _tight_from_ratios(claim: DPClaim, pl: Plan, res: LossResult, cands: dict, executor, source) -> None:
    """Fill `res` from the distinct finite ratios `cands` (ratio -> its first (unit, u, u', v)):
    the largest value at eps = ln r, the largest constant, or else the upper envelope over the
    eps interval and sup L(eps)/eps."""
    if not cands:
        raise no_adjacent_pair(claim)
    if claim.eps.is_log_point:
        values = {}
        for r in cands:
            values[r] = value_at_log(r, claim.eps.log_of)
            if values[r] is None:
                raise UserError(f"the ratio {r} is not rational at {claim.eps}", hint="give an eps interval instead")
        best = max(values, key=values.get)      # the first largest
        res.point_ratio = values[best]
        res.point_candidate = lifted_candidate(claim, pl, cands[best], best)
    elif all(constant_value(r) is not None for r in cands):
        best = max(cands, key=lambda r: constant_value(r))
        res.constant = constant_value(best)
        res.constant_candidate = lifted_candidate(claim, pl, cands[best], best)
    else:
        pieces = envelope(list(cands.items()), claim.eps.interval, executor, source)
        res.pieces = [LossPiece(lo, hi, lifted_candidate(claim, pl, info, r)) for lo, hi, r, info in pieces]
        res.sup = sup_ratio(res.pieces, claim.eps.interval)
