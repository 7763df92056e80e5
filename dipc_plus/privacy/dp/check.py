"""Deciding (budget, delta)-differential privacy exactly, for every eps at once.

Why it exists: this is `dipc privacy` for kind = "dp".  For every ordered adjacent
pair (u, u') of the claimed inputs:

* delta = 0: for every output v, "for all eps in I: e^budget p' - p >= 0" with p, p'
  exact closed forms, decided by `decide.decide` (per output is exact here: the sum
  of max(0, p - e^budget p') over outputs is 0 iff every term is);
* delta != 0: the hockey-stick inequality over every set of outputs
  (`hockey_stick.check_pair`), so a verdict is about sets, as (eps, delta)-DP is.

A refutation carries (u, u', the output or set of outputs, eps), the probabilities as
closed forms and certified values, and is re-checked by an independent term-by-term
evaluation at rising precision before it is reported; at eps = ln r every value is a
rational and the comparison is exact.  Every result carries its `Scope`: the grid or
list of inputs, the parameters, and the named events for real outputs.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb

from dipc_plus.exact.convert import json_exact
from dipc_plus.claims.scope import Scope, inputs_scope
from dipc_plus.decision.decide import CertificationError, decide, recheck, simplest_rational
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, working_precision
from dipc_plus.execution import ledger
from dipc_plus.claims.privacy_types import DPClaim
from dipc_plus.privacy.display import ENV_STYLE, dp_claim_json, eps_phrase, eps_point_text, num_text, user_env
from dipc_plus.semantics.values import show_env, show_value
from dipc_plus.privacy.dp.hockey_stick import check_pair, output_keys
from dipc_plus.exact.log_point import constant_value, rational_at_log, value_at_log
from dipc_plus.privacy.output_tables import ZERO
from dipc_plus.privacy.result import SettledPart, claim_lines, settled_lines
from dipc_plus.privacy.dp.plan import PairWork, Plan, Unit, lift_witness, plan
from dipc_plus.privacy.dp.point_filter import filter_applies, point_filter_check
from dipc_plus.execution.accelerators import switched_off
from dipc_plus.execution.options import DEFAULT_OPTIONS, RunOptions
from dipc_plus.privacy.dp.orbit_pairs import check_by_sharing
from dipc_plus.privacy.dp.support_pairs import PAIR_PATH, grid_pair_count, refusal
from dipc_plus.semantics import ir
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES

@dataclass
class Obligation:
    holds: bool
    witness: object = None     # Fraction eps, or 'ln' marker for a log point
    how: str = ""


class Checker:
    """Decides  p <= e^budget * q + delta  on the claim's eps range, with caching."""

    def __init__(self, claim: DPClaim):
        self.claim = claim
        self.eps = claim.eps
        self.budget = claim.budget
        self.E = ExpFrac.of(claim.budget.exp_value())
        self.delta = ExpFrac.of(claim.delta)
        self.cache: dict = {}
        self.decisions = 0
        if self.eps.is_log_point:
            r = self.eps.log_of
            self.E_at = claim.budget.exp_at_log(r)
            if self.E_at is None:
                raise UserError(f"e^({claim.budget}) is not rational at {self.eps}",
                                hint="with eps = ln(r) use an integer multiple of eps in the budget")
            self.delta_at = value_at_log(self.delta, r)
            nonnegative = self.delta_at >= 0
        else:
            nonnegative = self.delta.is_zero() or bool(decide(self.delta, ">=", self.eps.interval))
        if not nonnegative:   # so a checker's delta is >= 0 on its whole eps range
            raise UserError(f"delta = {claim.delta_text} is negative for some eps in {claim.eps}",
                            file=claim.file, hint="delta is a probability slack: it must be >= 0")

    def check(self, p, q) -> Obligation:
        """The obligation, cached; `decisions` counts every obligation the certified procedure
        decides, found in the cache or not, so the count is the same whichever process (and
        whichever order of pairs) checks it."""
        found = self.cache.get((p, q))
        if found is None:
            found = self.cache[(p, q)] = (self.shortcut(p, q)
                                          or self.nonnegative(self.E * ExpFrac.of(q) + self.delta - ExpFrac.of(p)))
        if found.how == "decided":
            self.decisions += 1
        return found

    def shortcut(self, p, q) -> Obligation | None:
        """The obligation when it is settled without the certified procedure (p = 0, p = p',
        rationals), else None; not cached (`support_pairs` asks it to count what is decided)."""
        p, q = ExpFrac.of(p), ExpFrac.of(q)
        if self.eps.is_log_point:
            pv, qv = rational_at_log(p, self.eps.log_of), rational_at_log(q, self.eps.log_of)
            ok = pv <= self.E_at * qv + self.delta_at
            return Obligation(ok, None if ok else self.eps.log_of, "exact rationals at the point")
        if p.is_zero():
            return Obligation(True, how="p = 0")
        if p == q and self.budget.factor >= 1:
            return Obligation(True, how="p = p'")
        pc, qc, dc = constant_value(p), constant_value(q), constant_value(self.delta)
        I = self.eps.interval
        if pc is not None and qc is not None and dc is not None and self.budget.k == 0:
            ok = pc <= self.budget.factor * qc + dc
            return Obligation(ok, None if ok else simplest_rational(I.lo, I.hi, I.lo_closed, I.hi_closed),
                              "exact rationals")
        return None

    def nonnegative(self, f) -> Obligation:
        """"f >= 0 for every eps of the claim's range", decided; a failure names a rational eps (a
        failed '>=' sentence fails on an open set, so one exists)."""
        d = decide(f, ">=", self.eps.interval)
        if d.holds:
            return Obligation(True, how="decided")
        if d.witness is None:
            raise CertificationError("a failed '>=' sentence without a rational witness")
        return Obligation(False, d.witness, "decided")


# --------------------------------------------------------------------------- results


@dataclass
class Counterexample:
    """(u, u', v or S, eps) with P[P(u) in S] > e^budget P[P(u') in S] + delta(eps), re-checked.

    `output` is one output (delta = 0); `outputs` is the set S (delta != 0), with
    `output_set` its description ("y[1] = 0")."""
    input: dict
    neighbour: dict
    output: dict | None
    eps: object                 # Fraction, or ('ln', r)
    p: object                   # ExpFrac (or Fraction at a point)
    q: object
    p_at: object                # arb ball or Fraction
    q_at: object
    bound_at: object            # e^budget * q + delta at eps
    ratio_at: object
    program: ir.Program | None = None
    component: str = ""
    outputs: list | None = None
    output_set: str = ""

    def eps_text(self) -> str:
        return eps_point_text(self.eps)

    def to_json(self) -> dict:
        out = {
            "input": user_env(self.program, self.input),
            "neighbour": user_env(self.program, self.neighbour),
            "eps": self.eps_text(),
            "probability": str(self.p),
            "neighbour_probability": str(self.q),
            "probability_value": num_text(self.p_at),
            "neighbour_probability_value": num_text(self.q_at),
            "bound_value": num_text(self.bound_at),
            "ratio_value": num_text(self.ratio_at),
        }
        if self.outputs is None:
            out["output"] = user_env(self.program, self.output)
        else:
            out["output_set"] = self.output_set
            out["outputs"] = [user_env(self.program, o) for o in self.outputs]
        return out

    def lines(self, claim: DPClaim) -> list[str]:
        """In words: the pair, the output (or set S), eps and both probabilities, exact and certified."""
        def env(x):
            return show_env(user_env(self.program, x), **ENV_STYLE)
        lines = [] if not self.component else [f"  found in {self.component}; the other components' outputs are "
                                               "completed with their most likely values"]
        lines += [f"  input      {env(self.input)}", f"  neighbour  {env(self.neighbour)}"]
        if self.outputs is None:
            lines.append(f"  output     {env(self.output)}")
            what = "= output"
        else:
            lines.append(f"  outputs    S = {{{self.output_set}}} ({len(self.outputs)} output(s), the set where "
                         f"P[P(input) = v] > e^({claim.budget}) P[P(neighbour) = v] at this eps)")
            what = "in S"
        eps_note = ""
        if all(constant_value(x) is not None for x in (self.p, self.q, claim.delta)) and claim.budget.k == 0:
            eps_note = "  (nothing depends on eps: the claim fails for every eps)"
        bound = f"e^({claim.budget}) * P[P(neighbour) {what}]" + ("" if claim.delta_is_zero else f" + {claim.delta_text}")
        lines += [f"  eps        {self.eps_text()}{eps_note}",
                  f"  P[P(input) {what}]     = {self.p}", f"                           = {num_text(self.p_at)}",
                  f"  P[P(neighbour) {what}] = {self.q}", f"                           = {num_text(self.q_at)}",
                  f"  {bound} = {num_text(self.bound_at)}  <  P[P(input) {what}]"]
        if self.outputs is None:
            lines.append(f"  ratio      {num_text(self.ratio_at)}")
        return lines


@dataclass
class PairCheck(SettledPart):
    claim: DPClaim
    verified: bool
    counterexample: Counterexample | None
    pairs: int
    obligations: int
    decisions: int
    seconds: float
    plan: Plan
    markov_chains: int = 0
    part: tuple = (0, 0, 0)     # (start, stop, total) of the items (pairs, whole units) checked
    tables_used: dict = field(default_factory=dict)   # {unit: keys of the output tables used, or their number}
    work: dict | None = None    # how the pairs shared their work (support_pairs; bookkeeping like seconds)

    @property
    def evaluations(self) -> int:
        """The output tables the checked pairs used, each once whichever process made it (the
        JSON's "distributions"; `dipc merge` unions the parts' tables)."""
        return sum(keys if isinstance(keys, int) else len(keys) for keys in self.tables_used.values())

    @property
    def scope(self) -> Scope:
        return claim_scope(self.claim)

    @property
    def vacuous(self) -> bool:
        """Verified with nothing to check: no pair of neighbouring inputs among the claimed ones."""
        return self.verified and self.pairs == 0

    def report(self) -> str:
        claim = self.claim
        sets = not claim.delta_is_zero
        lines = claim_lines(claim)
        if sets:
            lines.insert(1, "        delta != 0: checked over every set of outputs (hockey-stick divergence), as "
                            "(eps, delta)-DP requires")
        lines += [f"structure: {note}" for note in self.plan.notes]
        lines.append(f"checked {self.pairs} pair(s) of neighbouring inputs (up to symmetry), "
                     f"{self.obligations} ({'pair' if sets else 'pair, output'}) obligation(s), {self.decisions} "
                     f"decided by the certified procedure; {self.evaluations} distribution(s); {self.seconds:.2f} s")
        eps = eps_phrase(claim)
        if sets:
            holds = (f"P[P(u) in S] <= e^({claim.budget}) P[P(u') in S] + {claim.delta_text} for every neighbouring "
                     f"pair (u, u') of these inputs, every set S of outputs and {eps}")
        else:
            holds = (f"P[P(u)=v] <= e^({claim.budget}) P[P(u')=v] for every neighbouring pair (u, u') of these "
                     f"inputs, every output{' event' if claim.events else ''} v and {eps}")
        return "\n".join(lines + settled_lines(self, "no two of the claimed inputs are neighbours", holds,
                                               "REFUTED (re-checked by an independent evaluation):"))

    def to_json(self) -> dict:
        c = self.claim
        out = {
            "verdict": self.verdict,
            "kind": "dp",
            "scope": self.scope.to_json(),
            "vacuous": self.vacuous,
            **dp_claim_json(c),
            "delta": c.delta_text,
            "over": "outputs" if c.delta_is_zero else "sets of outputs (hockey-stick divergence)",
            "eps": str(c.eps),
            "adjacency": c.adjacency.kind,
            "inputs": c.npoints,
            "pairs_checked": self.pairs,
            "obligations": self.obligations,
            "decisions": self.decisions,
            "distributions": self.evaluations,
            "seconds": round(self.seconds, 3),
            "structure": self.plan.notes,
        }
        if self.work is not None:
            out["work"] = self.work
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample.to_json()
        return out


def claim_scope(claim) -> Scope:
    """What a verdict on this claim covers: its grid, list or pairs, parameters and events."""
    events = {name: [e.label for e in evs] for name, evs in claim.events.items()}
    if claim.grid is not None:
        sc = inputs_scope(claim.program, grid=claim.grid, eps=str(claim.eps), events=events)
    else:
        sc = inputs_scope(claim.program, points=claim.points, kind="list", eps=str(claim.eps), events=events)
        if claim.inputs_kind == "pairs":
            sc.inputs_detail = f"the inputs of {len(claim.adjacency.pairs)} listed pair(s)"
    return sc


# --------------------------------------------------------------------------- checking a claim


def check_dp(claim: DPClaim, *, structure: bool | None = None, max_states: int = DEFAULT_MAX_STATES,
             executor=None, source=None, shard=None, progress: bool = False,
             options: RunOptions = DEFAULT_OPTIONS) -> PairCheck:
    """Decide the claim exactly; the first failing pair (and output, or set of outputs) in
    input order is returned as a re-checked counterexample.

    The pairs are cut into ranges computed by `executor` (execution.executor; default this
    process); `source` says how a remote worker rebuilds the check; `shard` = (i, n) checks
    only the i-th of n equal parts of the pairs (`dipc merge` joins the parts).  In reference mode
    (`options`) every pair is checked on one chain per input: no orbits, supports or structure."""
    from dipc_plus.execution.executor import SERIAL, Source
    from dipc_plus.execution.run import TaskRun
    t0 = time.perf_counter()
    if not options.allows("privacy-structure"):
        structure = False
    work = DPWork(claim, structure, max_states)
    source = source if source is not None else Source(None, (), (), key=f"dp-{id(work)}")
    source.seed(work)
    executor = executor or SERIAL
    why_not = refusal(claim, work.plan, shard)
    if why_not is None and not options.allows("privacy-output-classes"):
        why_not = switched_off("privacy-output-classes")
    if why_not is None:
        result = _check_by_sharing(work, source, executor, progress, t0)
        if result.work["path"] != PAIR_PATH:
            return result
        why_not = result.work["reason"]
    pl = work.plan
    covered = work.shard_range(shard)
    pairs = obligations = decisions = 0
    used: dict = {}
    cex = None
    with TaskRun(covered[1] - covered[0], "privacy", "pair", progress=progress) as run:
        if executor.parallel and claim.delta_is_zero and not claim.eps.is_log_point and None not in work.pairs:
            prefetch(work, work.items()[covered[0]:covered[1]], source, executor, run)
            executor = SERIAL     # the walk, in order, here: every obligation it asks is in the cache
        tasks, sizes = work.sized_tasks(executor, shard)
        for part in run.parts(check_pairs, source, tasks, executor=executor, sizes=sizes):
            pairs += part["pairs"]
            obligations += part["obligations"]
            decisions += part["decisions"]
            used.setdefault(part["unit"], set()).update(part["used"])
            run.record((text, "holds") for text in part["held"])
            if part["failure"] is not None:
                cex = counterexample(work, pl.units[part["unit"]], *part["failure"])
                break
    return PairCheck(claim, cex is None, cex, pairs, obligations, decisions, time.perf_counter() - t0, pl,
                     sum(u.source.markov_chains for u in pl.units), covered, used,
                     work={"path": PAIR_PATH, "reason": why_not})


def _check_by_sharing(work: "DPWork", source, executor, progress: bool, t0: float) -> PairCheck:
    """check_dp by output orbits where the queries' symmetry is proved (`orbit_pairs`), else by output
    support (`support_pairs`): the result when every obligation held; when
    not, a result whose work record says why, and check_dp walks the pairs instead.  With workers,
    they compute the output tables (in order, a few ranges per worker) and, on the orbit path, the
    decisions at the worst neighbours; this process the rest."""
    from dipc_plus.execution.run import TaskRun
    claim, pl = work.claim, work.plan
    unit = pl.units[0]
    total = grid_pair_count(unit, claim.adjacency.bound)
    with TaskRun(total, "privacy", "pair", progress=progress) as run:
        feed = (lambda envs: tables_on_workers([(0, envs)], source, executor, run)) if executor.parallel else None
        deal = (lambda pairs: decide_on_workers(work, pairs, source, executor)) if executor.parallel else None
        found = check_by_sharing(claim, unit, work.checker, run, tables=feed, decide_many=deal)
    return PairCheck(claim, True, None, found.pairs, found.obligations, found.decisions, time.perf_counter() - t0,
                     pl, unit.source.markov_chains, (0, total, total), {0: found.used}, work=found.work())


def prefetch(work: "DPWork", items: list, source, executor, run) -> None:
    """With workers, before the walk: the output tables of the inputs the pairs `items` need, then the
    distinct (p, p') obligations they raise, each decided once by some worker, both put in this
    process's caches for the walk to find.  Cutting the pairs instead would make every worker decide
    the many obligations that pairs share."""
    units = work.plan.units
    wanted: dict = {}                    # unit -> {table key: an input with that table} (symmetric inputs share one)
    for k, i in items:
        for x in work.pairs[k][i]:
            wanted.setdefault(k, {}).setdefault(units[k].table_key(x), x)
    # one object per distinct closed form (tables come back as copies): an obligation is then found by identity
    interned: dict = {ZERO: ZERO}
    keys = [(k, key) for k, by_key in wanted.items() for key in by_key]
    tables = tables_on_workers([(k, list(by_key.values())) for k, by_key in wanted.items()], source, executor, run)
    # the stream first: zip then reads it to its end, which shuts its workers down at once
    for table, (k, key) in zip(tables, keys):
        units[k].source.cache[key] = {v: interned.setdefault(p, p) for v, p in table.items()}
    distinct: dict = {}                  # (id(p), id(p')) -> (p, p')
    for k, i in items:
        P, Q = (units[k].table(x) for x in work.pairs[k][i])
        for v in output_keys(P, Q):
            p, q = P.get(v, ZERO), Q.get(v, ZERO)
            distinct.setdefault((id(p), id(q)), (p, q))
    decide_on_workers(work, list(distinct.values()), source, executor)


def decide_on_workers(work: "DPWork", pairs: list, source, executor) -> None:
    """The Obligations of the distinct (p, p') `pairs`, each decided once by some worker, put in this
    process's checker cache, where the walk that asks them finds them."""
    from dipc_plus.execution.executor import run_dealt
    work.checker.cache.update(zip(pairs, run_dealt(decide_task, source, pairs, executor=executor)))


def tables_on_workers(inputs: list, source, executor, run):
    """The output tables of the inputs `inputs` ([(unit, inputs of that unit)]), computed by the
    workers (a few ranges of each unit's inputs per worker) and yielded in order."""
    from dipc_plus.execution.executor import chunks
    tasks = [(k, envs[c:d]) for k, envs in inputs for c, d in chunks(len(envs), 4 * executor.jobs)]
    for got in run.parts(output_tables_task, source, tasks, executor=executor):
        yield from got


def output_tables_task(source, task) -> list:
    """One task: the output tables of some inputs of one unit."""
    work = source.get()
    k, xs = task
    return [work.plan.units[k].table(x) for x in xs]


def decide_task(source, task) -> list:
    """One task (`run_dealt`): the Obligations of some (p, p') pairs of closed forms."""
    _, pairs = task
    checker = source.get().checker
    return [checker.check(p, q) for p, q in pairs]


class DPWork(PairWork):
    """What every task of one DP check needs: the pairs (`plan.PairWork`) and the checker (a worker
    builds it once: `build_dp_work`), for a claim as `claims.privacy_reader` gives it (which refuses
    named events with delta != 0: over real outputs they would not decide (eps, delta)-DP)."""

    def __init__(self, claim: DPClaim, structure, max_states: int):
        super().__init__(claim, plan(claim, structure, max_states=max_states),
                         whole=lambda unit: filter_applies(claim, unit))
        self.checker = Checker(claim)


def build_dp_work(claim_path: str, params: tuple, structure, max_states: int) -> DPWork:
    """The DP check a worker rebuilds from the claim file (`execution.executor.Source`)."""
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    return DPWork(load_privacy_claim(claim_path, dict(params)), structure, max_states)


def check_pairs(source, task) -> dict:
    """One task: the pairs [a, b) of one unit (or a unit checked whole by the min filter), up to
    the first failure; counts, and the failure as the arguments of `counterexample` after the unit."""
    work: DPWork = source.get()
    claim, checker = work.claim, work.checker
    k, a, b = task
    unit = work.plan.units[k]
    before = checker.decisions
    unit.source.used = set()
    out = {"unit": k, "pairs": 0, "obligations": 0, "decisions": 0, "failure": None, "held": []}
    if a is None:
        out["pairs"], out["obligations"], out["failure"] = point_filter_check(claim, unit, checker)
    else:
        for u, w in work.pairs[k][a:b]:
            out["pairs"] += 1
            asked, bad = pair_failure(claim, unit.table(u), unit.table(w), checker)
            out["obligations"] += asked
            if bad is not None:
                out["failure"] = (u, w, *bad)
                break
            if ledger.active():   # the client records it (a worker's ledger is not the one printed)
                out["held"].append(_pair_text(claim.program, unit, u, w))
    out["decisions"] = checker.decisions - before
    out["used"] = unit.source.used   # which output tables this task needed (their union is counted)
    return out


def pair_failure(claim, P: dict, Q: dict, checker: Checker, outputs: list | None = None) -> tuple[int, tuple | None]:
    """One pair, given its output tables P and Q: (the obligations asked, the first failure as the
    arguments of `counterexample` after the pair, or None).  With delta = 0 one obligation per output
    (`outputs`, default those of either table), else one over every set of outputs (`check_pair`).
    The walk and the re-check of a stated counterexample (`restate`) both ask it."""
    if not claim.delta_is_zero:
        bad = check_pair(P, Q, checker)
        return 1, None if bad is None else (bad.outputs, bad.eps, (bad.p, bad.q))
    keys = output_keys(P, Q) if outputs is None else outputs
    for asked, v in enumerate(keys, 1):
        ob = checker.check(P.get(v, ZERO), Q.get(v, ZERO))
        if not ob.holds:
            return asked, ([v], ob.witness)
    return len(keys), None


def _pair_text(program, unit, u, w) -> str:
    """A pair as the ledger of a stopped run lists it: whole inputs as the user writes them,
    a component's own inputs after its label."""
    if unit.label == "whole program":
        return f"{show_env(user_env(program, u), **ENV_STYLE)} vs {show_env(user_env(program, w), **ENV_STYLE)}"
    return f"{unit.label}: " + " vs ".join(", ".join(f"{k}={v}" for k, v in x.items()) for x in (u, w))


def counterexample(work: DPWork, unit: Unit, u, w, outputs: list, witness, expect=None) -> Counterexample:
    """The counterexample of a failure at the unit's pair (u, w), re-checked: one output when delta = 0
    (a component's completed by `lift_witness`), else the set S of outputs, whose P[u in S] and
    P[u' in S] are sums evaluated term by term again (`expect`: the sums the hockey-stick check found)."""
    claim, pl = work.claim, work.plan
    lifted = [lift_witness(claim, pl, unit, u, w, v) for v in outputs]
    parts_p, parts_q = ([ExpFrac.of(x[i]) for x in lifted] for i in (3, 4))
    if claim.delta_is_zero:
        p, q = parts_p[0], parts_q[0]
        eps, *values = _rechecked(p, q, parts_p, parts_q, work.checker, witness, "counterexample")
        full_u, full_w, output = lifted[0][:3]
        return Counterexample(full_u, full_w, output, eps, p, q, *values, claim.program,
                              unit.label if pl.how == "components" else "")
    p, q = sum(parts_p, ExpFrac.of(ZERO)), sum(parts_q, ExpFrac.of(ZERO))
    eps, *values = _rechecked(p, q, parts_p, parts_q, work.checker, witness, "set counterexample", expect)
    shown = [e if isinstance(e, Fraction) else x for e, x in zip(expect, (p, q))]   # rationals at ln r or constants
    text = describe_set(outputs, output_keys(unit.table(u), unit.table(w)), claim.program.output_names(), claim.program)
    return Counterexample(dict(u), dict(w), None, eps, *shown, *values, claim.program,
                          outputs=[x[2] for x in lifted], output_set=text)


def _rechecked(p, q, parts_p: list, parts_q: list, checker: Checker, witness, what: str, expect=None) -> tuple:
    """(eps, p, q, bound, ratio) at the counterexample's eps, p = sum(parts_p) and q = sum(parts_q)
    re-checked: exact rationals at eps = ln r (equal to `expect` when given), else `decide.recheck`
    at the witness and an independent term-by-term evaluation as arb balls, at rising precision."""
    if checker.eps.is_log_point:
        r = checker.eps.log_of
        pv, qv = (sum((rational_at_log(x, r) for x in parts), Fraction(0)) for parts in (parts_p, parts_q))
        bound = checker.E_at * qv + checker.delta_at
        if not pv > bound or (expect is not None and (pv, qv) != expect):
            raise CertificationError(f"the exact re-check of the {what} failed")
        return ("ln", r), pv, qv, bound, pv / qv if qv else None
    eps = Fraction(witness)
    if recheck(checker.E * q + checker.delta - p, eps, ">="):
        raise CertificationError(f"decide.recheck does not confirm the {what} at eps = {eps}")
    for prec in (256 << k for k in range(7)):   # 256 to 2^14 bits
        with working_precision(prec):
            p_at, q_at = (sum((f.arb_value(eps, prec) for f in parts), arb(0)) for parts in (parts_p, parts_q))
            bound = checker.E.arb_value(eps, prec) * q_at + checker.delta.arb_value(eps, prec)
        if p_at > bound:
            with working_precision(256):
                return eps, p_at, q_at, bound, None if q.is_zero() else (p_at / q_at)
        if p_at <= bound:
            raise CertificationError(f"independent evaluation contradicts the counterexample at eps = {eps}")
    raise CertificationError(f"cannot separate p and the bound at eps = {eps}")


def describe_set(S: list, universe: list, names: list, program: ir.Program | None) -> str:
    """A short description of a set of outputs within the outputs that occur: 'y[1] = 0' when
    one output coordinate decides membership, else the list (up to six of them)."""
    inside = set(S)
    for j, name in enumerate(names):
        values = {v[j] for v in S}
        if {v for v in universe if v[j] in values} == inside:
            shown = sorted((json_exact(x) for x in values), key=str)
            if len(shown) == 1:
                return f"{name} = {show_value(shown[0])}"
            return f"{name} in {{{', '.join(show_value(x) for x in shown)}}}"
    listed = [show_env(user_env(program, dict(zip(names, v))), **ENV_STYLE) for v in S[:6]]
    return f"{len(S)} output(s): " + "; ".join(listed) + ("; ..." if len(S) > 6 else "")
