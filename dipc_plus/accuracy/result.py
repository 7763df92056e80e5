"""The verdict on an accuracy claim over a set of inputs (`AccuracyResult`), and the running
counts (`Tally`) a summarized run keeps instead of every report.

Why apart from `accuracy.report`: a report is one (input, gamma); the result is the claim's
answer - its scope, its vacuity, its first counterexample in input order - and its JSON.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Iterator

from dipc_plus.accuracy.report import (REFUTED, VERIFIED, Counterexample, InputSummary, beta_over, claim_json, env_text,
                                       fmt_q, input_key, kappa_clause)
from dipc_plus.accuracy.report import report_lines as input_report_lines
from dipc_plus.accuracy.vacuity import Vacuity, accuracy_vacuity
from dipc_plus.claims.accuracy_claim import AccuracyClaim
from dipc_plus.execution.json_spool import JsonSpool, RawJSON


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
        dd = summary.dd   # inputs of one class share their dd object: no comparison then
        if dd is not None and dd is not self.dd_max and (self.dd_max is None or dd > self.dd_max):
            self.dd_max = dd
        self.obligations += len(summary.marks)
        self.applicable += sum(applies for applies, _ in summary.marks)
        self.refuted += sum(refuted for _, refuted in summary.marks)
        if self.counterexample is None:
            self.counterexample = summary.counterexample

    def merge(self, later: "Tally") -> None:
        """Add the counts of the inputs that come after these (a worker's part, in input order)."""
        self.inputs += later.inputs
        self.obligations += later.obligations
        self.applicable += later.applicable
        self.refuted += later.refuted
        if later.dd_max is not None and (self.dd_max is None or later.dd_max > self.dd_max):
            self.dd_max = later.dd_max
        if self.counterexample is None:
            self.counterexample = later.counterexample


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

    def to_json(self, full: bool = True, encoded: bool = False) -> dict:
        """The result as JSON values.  `encoded`: a summarized run's reports as kept (each input's
        JSON text, `execution.json_spool`), for `commands.common.print_json` to copy; otherwise
        decoded, as Python values."""
        out = {
            "verdict": self.verdict,
            "scope": self.scope.to_json(),
            "vacuous": self.vacuous,
            "vacuity": None if self.vacuity is None else self.vacuity.to_json(),
            **claim_json(self.claim),
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
        if self.kept is None:
            out["reports"] = [r.to_json(full) for r in self.reports]
        else:
            out["reports"] = self.kept if encoded else [json.loads(r) if isinstance(r, RawJSON) else r
                                                        for r in self.kept]
        return out

    def report(self, verbose: bool = False, worst: list | None = None) -> str:
        """The command's text report of the run (`report_lines` joined)."""
        return "\n".join(self.report_lines(verbose, worst))

    def report_lines(self, verbose: bool = False, worst: list | None = None) -> Iterator[str]:
        """The report of a run, line by line: one line per input (every report in full with `verbose`), or
        with `worst` (accuracy.summary.InputMargin, worst first) the worst inputs only.  A summarized run's
        input lines come from its temporary file one at a time, so a grid of millions of inputs is printed
        without holding its text (`execution.json_spool`)."""
        claim = self.claim
        program = claim.program
        conv = "dd(u) >= alpha (the paper's convention)" if self.boundary else "dd(u) > alpha (Definition 2)"
        yield f"claim:  {claim.describe()}"
        yield f"        inputs with {conv}, dd over {self.dd_over}{kappa_clause(self.kappa)}"
        if claim.note:
            yield f"note:   {claim.note}"
        yield ""
        if worst is not None:
            yield (f"the {len(worst)} worst input(s) where the claim applies (smallest inf over eps of "
                   f"beta/P[error]; P[error] <= {beta_over(self.kappa)} fails where it is below {self.kappa}):"
                   if worst else "no input where the claim applies: no worst input")
            for m in worst:
                yield "  " + m.text(program)
        elif self.kept is not None:
            yield from (self.kept.values() if isinstance(self.kept, JsonSpool) else self.kept)
        else:
            by_input: dict = {}
            for r in self.reports:
                by_input.setdefault(tuple(r.input.items()), []).append(r)
            for reps in by_input.values():
                yield from input_report_lines(reps, verbose)
        if not verbose:
            yield ""
        yield from self.verdict_lines(verbose)

    def verdict_lines(self, verbose: bool) -> Iterator[str]:
        """The end of a text report: the counts, the work, the verdict and what it covers."""
        claim, program = self.claim, self.claim.program
        applicable = self.n_applicable
        yield (f"{self.inputs} input(s), {self.n_obligations} obligation(s), {applicable} where the claim "
               f"applies, {self.n_refuted} refuted; {self.seconds:.2f} s")
        if self.work is not None:
            yield work_text(self.work)
        scope = self.scope
        if self.verdict == "verified":
            if applicable == 0:
                yield scope.vacuously("the claim applies to none of these inputs")
            else:
                yield scope.verified(f"P[error] <= {beta_over(self.kappa)} for every eps in {claim.eps} at every "
                                     "input where the claim applies")
            yield scope.coverage()
        else:
            cex = self.counterexample
            yield (f"REFUTED at {env_text(program, cex.input)}, eps = {fmt_q(cex.eps)} "
                   f"(re-checked by an independent certified evaluation)")
            if not verbose:
                yield cex.describe()
            yield scope.coverage()


def work_text(work: dict) -> str:
    """One line on how the work was shared (accuracy.classes)."""
    text = f"work: {work['path']}"
    if work.get("distributions") is not None:
        text += f"; {work['distributions']} output distribution(s) computed"
    if work.get("decisions") is not None:
        text += f", {work['decisions']} certified decision(s) run"
    return text + f" for {work['inputs']} input(s)"
