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

The rule is `AccuracyClaim.applies_at`; `AccuracyChecker.obligations` applies it.

Every counterexample also carries `alpha_strict`, a rational alpha' < dd(u) at
which the same (input, eps) still fails, so it refutes Definition 2 literally
even when it was found at alpha = dd(u).
"""
from __future__ import annotations

import contextlib
import dataclasses
import gc
import time
from collections import OrderedDict
from collections.abc import Sequence
from fractions import Fraction
from typing import Iterable, Mapping

from dipc_plus.accuracy.class_reports import InputTexts, ReportClass
from dipc_plus.accuracy.classes import InputClasses
from dipc_plus.accuracy.report import (REFUTED, Counterexample, InputReport, fmt_q, input_key, separated,
                                       summarize_input)
from dipc_plus.accuracy.result import AccuracyResult, Tally
from dipc_plus.accuracy.tasks import SPOOLED, check_range
from dipc_plus.claims.accuracy_claim import AccuracyClaim
from dipc_plus.claims.claim_file import Claim
from dipc_plus.claims.disagreement import Disagreement
from dipc_plus.claims.grid_points import GridPoints
from dipc_plus.claims.distances import INF
from dipc_plus.decision.decide import CertificationError, Decision, decide, recheck
from dipc_plus.errors import UserError
from dipc_plus.exact.constraints import forget_constraint_sets
from dipc_plus.execution import ledger
from dipc_plus.execution.json_spool import JsonSpool
from dipc_plus.execution.options import DEFAULT_OPTIONS, RunOptions
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.exact.memo import remember
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES
from dipc_plus.semantics.distribution import certified, output_distribution


class _HashedKey(tuple):
    """A tuple whose hash is computed once: hashing an input key hashes every Fraction in it."""

    def __hash__(self):
        found = self.__dict__.get("hash")
        if found is None:   # a Fraction's own hash costs a modular inverse: hash its two integers
            found = self.__dict__["hash"] = hash(tuple(
                (k, t, v.numerator, v.denominator) if type(v) is Fraction else (k, t, v) for k, (t, v) in self))
        return found

    def __reduce__(self):   # a plain tuple on the wire (str hashes differ between processes)
        return tuple, (tuple(self),)


_COMPLEMENTS = 4096   # 1 - p remembered (both ways) for the latest error probabilities
_FREEZE_EVERY = 20000   # kept inputs between two freezes of the garbage collector's view
_REPORT_CLASSES = 65536   # report classes a checker remembers (then no more are added)
_WORKER_TASK_INPUTS = 4096   # the most inputs of one task on a worker: what the client receives at once
_TASK_SECONDS = 0.05   # how long a task in this process should take (the bar and the ledger move per task)
_SENTENCES = 256   # decided sentences an AccuracyChecker remembers (least recently used dropped)


def _key(distance):
    """A distance as a cache key (distances are frozen dataclasses; unhashable ones are not shared)."""
    try:
        hash(distance)
        return distance
    except TypeError:
        return ("unshared", id(distance))


def accuracy_table(claim: Claim) -> AccuracyClaim:
    """The claim file's [accuracy] claim, or the one refusal every accuracy entry point gives."""
    if claim.accuracy is None:
        raise UserError("the claim file has no [accuracy] table", file=claim.file,
                        hint="add an [accuracy] table (see docs/claims.md)")
    return claim.accuracy


class AccuracyChecker:
    """Checks one accuracy claim input by input, caching every exact object it builds.

    The output distribution of an input is built once and reused for every gamma
    and kappa; det(u), dd(u), beta(alpha, gamma) and P_err(u, gamma) are cached too,
    so the sweep and the plots reuse the accuracy check's work.
    """

    def __init__(self, claim: AccuracyClaim | Claim, *, dd_over: str | None = None, boundary: bool = False,
                 max_states: int | None = DEFAULT_MAX_STATES, shared: dict | None = None,
                 options: RunOptions = DEFAULT_OPTIONS):
        """`options`: the run's RunOptions (its reference mode switches the input classes and the
        argmax integral off).  `shared`: a dict reused by checkers of claims about the same program and
        parameters (e.g. one grid and several alphas), so each input's distribution,
        det, dd over the reals and error probabilities are computed once."""
        if isinstance(claim, Claim):
            claim = accuracy_table(claim)
        if dd_over is not None and dd_over != claim.dd_over:
            if claim.det == "table" and dd_over == "reals":
                raise UserError("with a det table, dd can only be taken over the table's inputs",
                                file=claim.file, hint="use --dd-over grid (or det = \"noise-free\")")
            claim = dataclasses.replace(claim, dd_over=dd_over)
        self.claim = claim
        self.program = claim.program
        self.boundary = boundary
        self.max_states = DEFAULT_MAX_STATES if max_states is None else max_states
        self.options = options
        self._shortcuts = options.allows("argmax-integral")
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
        self._bounds: dict = {}
        self._complements: dict = {}   # see _one_minus
        self._decisions: dict = shared.setdefault(("decisions", claim.det, _key(claim.output_distance),
                                                   claim.beta.text, claim.eps), {})
        self._sentences: OrderedDict = OrderedDict()   # see decide_sentence
        self._entries: dict = {}    # input key -> its keys in _perr and _decisions (forget)
        self._last_key = None                           # see _input_key
        self._space = None
        # orbits, argmax det and decisions shared by exact key
        self.classes = InputClasses(self.program, enabled=None if options.allows("input-classes") else False,
                                    noise_free_det=claim.det == "noise-free",
                                    output_distance=claim.output_distance, input_distance=claim.input_distance,
                                    dd_over=claim.dd_over)
        self._report_classes: dict = {}   # see check_points
        self.texts = InputTexts(self.program)   # inputs as the reports and the ledger print them
        self.timings = {"dd": 0.0, "distribution": 0.0, "ball": 0.0, "decide": 0.0}   # see _timed

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
            det_u = self.det(u)   # the input classes share dd over the reals only (None otherwise)
            found = self.classes.dd(u, det_u, self._space_dd)
            self._dd[key] = found if found is not None else self._space_dd(u, det_u)
        return self._dd[key]

    def _space_dd(self, u: Mapping, det_u: dict) -> Disagreement:
        """dd in the claim's space (`AccuracyClaim.dd_space`: the grid with this checker's det, or
        the reals, that space shared between claims about the same program and input distance)."""
        with self._timed("dd"):   # timed only where computed: a shared dd costs a lookup
            if self._space is None:
                if self.claim.dd_over == "grid":
                    self._space = self.claim.dd_space(det=self.det)
                else:
                    key = ("real-space", _key(self.claim.input_distance), self.classes.enabled)
                    if key not in self._shared:
                        self._shared[key] = self.claim.dd_space(argmax_formula=self.classes.enabled)
                    self._space = self._shared[key]
            return self._space.dd(u, det_u)

    @contextlib.contextmanager
    def _timed(self, part: str):
        """Add the block's CPU seconds to `timings[part]` (what the caches did not have, for benchmarks)."""
        start = time.process_time()
        try:
            yield
        finally:
            self.timings[part] += time.process_time() - start

    def beta(self, alpha, gamma):
        key = (alpha, gamma)
        if key not in self._beta:
            self._beta[key] = self.claim.beta_at(alpha, gamma)
        return self._beta[key]

    def distribution(self, u: Mapping):
        key = self._input_key(u)
        if key not in self._dist:
            with self._timed("distribution"):
                self._dist[key] = self.classes.distribution(
                    u, lambda v: output_distribution(self.program, v, max_states=self.max_states,
                                                     shortcuts=self._shortcuts))
        return self._dist[key]

    def _compute_distribution(self, u: Mapping):
        """u's output distribution by the per-point path (no class, not cached here)."""
        with self._timed("distribution"):
            return output_distribution(self.program, u, max_states=self.max_states, shortcuts=self._shortcuts)

    def _one_minus(self, p: ExpFrac) -> ExpFrac:
        """1 - p, one object per p for the inputs that share p (accuracy.classes), both ways: its
        hash (decisions by key) and its text (the report) are then made once."""
        found = self._complements.get(p)
        if found is None:
            found = remember(self._complements, _COMPLEMENTS, p, ExpFrac.of(1) - p)
            self._complements[found] = p
        return found

    def bound_of(self, alpha, gamma, kappa: int):
        """beta(alpha, gamma) / kappa (InputReport.bound), one object per (alpha, gamma, kappa)."""
        key = (alpha, gamma, kappa)
        found = self._bounds.get(key)
        if found is None:
            found = self._bounds[key] = ExpFrac.of(self.beta(alpha, gamma)) * Fraction(1, kappa)
        return found

    def p_error(self, u: Mapping, gamma) -> ExpFrac:
        """1 - P[P(u) in B(det(u), u, gamma)], exactly."""
        key = (self._input_key(u), Fraction(gamma))
        if key not in self._perr:
            correct = self.classes.ball_probability(self.claim, u, self.det(u), key[1], self._compute_distribution)
            if correct is None:
                dist = self.distribution(u)
                with self._timed("ball"):
                    correct = self.claim.ball_probability(dist, u, self.det(u), key[1])
            self._keep(self._perr, key, self._one_minus(ExpFrac.of(correct)))
        return self._perr[key]

    def _keep(self, cache: dict, key: tuple, value) -> None:
        """cache[key] = value, noted under its input's key (key[0]) for forget."""
        cache[key] = value
        self._entries.setdefault(key[0], []).append((cache, key))

    def forget(self, u: Mapping, everything: bool = True) -> None:
        """Drop u's output distribution (streaming; see __init__), and with `everything` all that is
        cached about u (a summarized run: memory independent of the grid's size).  The caches then
        hold one input, so scanning them is cheap."""
        if self._keep_distributions:
            return
        key = self._input_key(u)
        self._dist.pop(key, None)
        if everything:
            for cache in (self._det, self._dd):
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
        return [self.check(u, alpha, gamma, applies, kappa) for alpha, gamma, applies in self.obligations(u)]

    def check(self, u: Mapping, alpha, gamma, applies: bool = True, kappa: int = 1) -> InputReport:
        start = time.perf_counter()
        report = InputReport(self.program, dict(u), self.det(u), self.dd(u), alpha, gamma, applies, kappa)
        if applies:
            report.beta = self.beta(alpha, gamma)
            report.p_error = self.p_error(u, gamma)
            report.p_correct = self._one_minus(report.p_error)
            key = (self._input_key(u), alpha, gamma, kappa)
            if key not in self._decisions:   # timed where decided (decide_sentence), not per input
                decision = self.classes.decide(report.p_error, self.bound_of(alpha, gamma, kappa), self.decide_sentence)
                cex = None
                if not decision.holds:
                    with self._timed("decide"):
                        cex = self.counterexample(u, alpha, gamma, kappa, decision)
                self._keep(self._decisions, key, (decision, cex))
            report.decision, report.counterexample = self._decisions[key]
        report.seconds = time.perf_counter() - start
        return report

    def decide_sentence(self, sentence: ExpFrac) -> Decision:
        """decide(sentence >= 0 for every eps of the claim), remembered for the `_SENTENCES` latest
        sentences: a grid's inputs share few closed forms (Sparse c=1 m=7: 8 for 1094 inputs), and
        a Decision depends on nothing but the sentence and the interval."""
        found = self._sentences.get(sentence)
        if found is None:
            with self._timed("decide"):
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
        p_err, bound = self.p_error(u, gamma), self.bound_of(alpha, gamma, kappa)
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
        if dd <= 0:
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
            if certified(p_err, cex.eps, 192) > certified(beta, cex.eps, 192):
                cex.alpha_strict = a
                return
        cex.alpha_strict_note = "no rational alpha < dd(u) found where it fails (the claim fails only in the limit)"

    def check_points(self, points: list, kappa: int = 1, stop_at_first: bool = False,
                     summarize: str | None = None, collect=None, absorb: bool = False) -> list:
        """[(input, InputSummary)] for these inputs in order, `summarize` (a key of SUMMARIES) saying
        what each summary keeps (`collect(reports)`, if given, goes into the summary, and with
        `absorb` the reports themselves).  A summarized input leaves nothing cached about it; an
        unsummarized one (None) keeps its reports (`absorb`) and drops only its distribution.  With
        stop_at_first, up to and including the first input that refutes.

        A summarized input whose report class (`InputClasses.report_key`) was seen is summarized
        from the class (`accuracy.class_reports`), without checking it again."""
        out = []
        classed = summarize is not None and collect is None and not absorb and self.classes.share_dd
        for u in points:
            start = time.perf_counter()
            key = self.classes.report_key(self.claim, u) if classed else None
            if key is not None:
                key = (key, kappa, summarize, self.boundary)
                found = self._report_classes.get(key)
                if found is not None:
                    out.append((u, found.summary(u, time.perf_counter() - start)))
                    continue
            summary = summarize_input(self.check_input(u, kappa), summarize or "nothing", collect,
                                      absorb or summarize is None)
            out.append((u, summary))
            if key is not None and len(self._report_classes) < _REPORT_CLASSES:
                made = ReportClass.of(u, summary, summarize, self.texts)
                if made is not None:
                    self._report_classes[key] = made
            self.forget(u, everything=summarize is not None)
            if stop_at_first and summary.verdict == REFUTED:
                break
        return out

    def absorb(self, reports: list) -> None:
        """Keep what reports that arrived from a run's parts (their program attached) computed (det,
        dd, P_err, decisions), so a later run in this process (the sweep's other kappas) reuses it."""
        for r in reports:
            key = input_key(r.input)
            self._det.setdefault(key, r.det)
            self._dd.setdefault(key, r.dd)
            if r.applies:
                for cache, k, value in ((self._perr, (key, r.gamma), r.p_error),
                                        (self._decisions, (key, r.alpha, r.gamma, r.kappa),
                                         (r.decision, r.counterexample))):
                    if k not in cache:
                        self._keep(cache, k, value)

    def run(self, points: Iterable[Mapping] | None = None, kappa: int = 1, *, progress: bool = False,
            stop_at_first: bool = False, description: str = "accuracy", jobs: int = 1,
            executor=None, summarize: str | None = None, collect=None, gather=None,
            absorb: bool = False) -> AccuracyResult:
        """Check every given input (default: every input of the claim), in input order; the inputs
        are cut into ranges computed by `executor` (default: `jobs` local processes).

        With `summarize` (a key of SUMMARIES: "json", "text", "text-verbose", "nothing"), each input
        is reduced where it is checked to its JSON or text lines and its counts (`InputSummary`,
        `Tally`), and nothing about it stays cached: the run's memory does not grow with the number
        of inputs (a "json" run's reports go to a temporary file, `execution.json_spool.JsonSpool`),
        and the workers, not this process, print the closed forms.  A summarized run may
        also reduce each input's reports with `collect` (picklable: it runs where the input is
        checked) and hand the results, in input order, to `gather` here; with `absorb`, what its
        reports computed is kept in this checker all the same (`absorb`, for a later run at another
        kappa), and what `collect` made refers to reports that carry the program again."""
        from dipc_plus.execution.executor import Executor, Source, shrinking_ranges
        from dipc_plus.execution.run import TaskRun
        given = points
        points = self.claim.points if points is None else points
        if not isinstance(points, (list, GridPoints)):
            points = list(points)
        executor = executor if executor is not None else Executor.local(jobs)
        start = time.perf_counter()
        source = self.source if self.source is not None else Source(None, (), (), key=f"checker-{id(self)}")
        source.seed(self)
        # in this process ranges timed to move the bar and the ledger often (_TimedTasks);
        # in workers contiguous ranges, long then shrinking (neighbours share cache entries), at most
        # _WORKER_TASK_INPUTS each; a summarized task comes back as one accuracy.tasks.SummaryPart
        if (collect is not None or gather is not None or absorb) and summarize is None:
            raise ValueError("collect, gather and absorb need a summarized run")
        rest = (kappa, stop_at_first, summarize, collect, absorb, ledger.active())
        tasks = (_RangeTasks(points, shrinking_ranges(len(points), executor.jobs, _WORKER_TASK_INPUTS), rest)
                 if executor.parallel else _TimedTasks(points, rest))
        reports: list[InputReport] = []   # an unsummarized run's, brought home by its parts
        tally = Tally()
        kept = JsonSpool() if summarize in SPOOLED else []   # each input's JSON or text goes to a file as it comes
        frozen = 0   # inputs kept when the garbage collector last froze what it had (see _FREEZE_EVERY)
        with TaskRun(len(points), description, "input", progress=progress) as run, _frozen_kept():
            for part in run.parts(check_range, source, tasks, executor=executor, sizes=tasks.sizes):
                self._take_summary(part, tally, kept, gather)   # a SummaryPart, in input order
                if summarize is None:
                    reports += part.reports
                if stop_at_first and part.tally.counterexample is not None:   # an input of the part refutes
                    break
                if tally.inputs >= frozen + _FREEZE_EVERY:
                    frozen = tally.inputs
                    gc.freeze()
        result = AccuracyResult(self.claim, reports, time.perf_counter() - start, kappa, self.boundary,
                                self.claim.dd_over, self.claim.inputs_kind if given is None else "list",
                                scope_points=points[:tally.inputs], tally=tally,
                                kept=kept if summarize is not None else None)
        result.work = self.classes.work(result.tally.inputs, in_process=not executor.parallel)
        return result

    def _take_summary(self, part, tally: Tally, kept, gather) -> None:
        """Merge one summarized part (in input order): its counts, its JSON or text lines, what it
        collected (to `gather`) and its ledger records."""
        part.attach(self.program)
        tally.merge(part.tally)
        if part.kept:   # only a SPOOLED run's parts keep anything (text: one JSON value a line)
            kept.append_lines(part.kept, part.kept.count("\n"))
        self.absorb(part.reports)
        if gather is not None:
            for collected in part.collected:
                gather(collected)
        ledger.record_lines(part.records)


class _TimedTasks:
    """The tasks of a run in this process, made as they are asked for: (points[a:b], *rest), each
    range about _TASK_SECONDS long by the time the previous ones took (one input first, at most
    twice the previous size).  The bar and the ledger move with each task; one task per input
    cost more than checking an input from its class (Sparse c = 1 m = 12: 531,441 tasks)."""

    def __init__(self, points, rest: tuple):
        self.points, self.rest = points, rest
        self.sizes: list = []   # the inputs of each task made so far (the progress bar's steps)

    def __iter__(self):
        start, size, n = 0, 1, len(self.points)
        while start < n:
            stop = min(n, start + size)
            self.sizes.append(stop - start)
            began = time.perf_counter()
            yield (self.points[start:stop], *self.rest)   # resumed once the task and its part are done
            took = time.perf_counter() - began
            size = max(1, min(2 * size, int(size * _TASK_SECONDS / took) if took > 0 else 2 * size))
            start = stop


class _RangeTasks(Sequence):
    """The tasks of a run on workers, each made when it is read: (points[a:b], *rest) per range."""

    def __init__(self, points, ranges: list, rest: tuple):
        self.points, self.ranges, self.rest = points, ranges, rest
        self.sizes = [b - a for a, b in ranges]   # the inputs of each task (the progress bar's steps)

    def __len__(self) -> int:
        return len(self.ranges)

    def __getitem__(self, i: int) -> tuple:
        a, b = self.ranges[i]
        return (self.points[a:b], *self.rest)


@contextlib.contextmanager
def _frozen_kept():
    """What a summarized run keeps of each input (its JSON or text) only grows: every
    _FREEZE_EVERY inputs it is frozen out of the cyclic garbage collector's view, which otherwise
    walks all of it at each full collection (a fifth of the CPU at 59,049 inputs, more beyond).
    Frozen objects are still freed by reference counting; everything is unfrozen at the end."""
    try:
        yield
    finally:
        gc.unfreeze()


def build_checker(claim_path: str, params: tuple, dd_over, boundary: bool, max_states: int,
                  reference: bool = False) -> AccuracyChecker:
    """The checker a worker rebuilds from the claim file (`execution.executor.Source`)."""
    from dipc_plus.claims.claim_file import load_claim
    return AccuracyChecker(load_claim(claim_path, dict(params)), dd_over=dd_over, boundary=boundary,
                           max_states=max_states, options=RunOptions(max_states=max_states, reference=reference))
