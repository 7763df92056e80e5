"""The one result of an accuracy claim (`AccuracyResult`): its verdict, its scope (a grid or a
list of inputs, or every real input of a box) and its parts (one report per (input, gamma), or
one `RegionResult` per det region of a box), with its text and JSON; and the running counts
(`Tally`) a summarized run keeps instead of every report.

Why apart from `accuracy.report`: a report is one (input, gamma); the result is the claim's
answer - its scope, its vacuity, its first counterexample - said once for every route.
"""
from __future__ import annotations

import functools
import json
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterator

from dipc_plus.accuracy.report import (NOT_APPLICABLE, REFUTED, UNDECIDED, VERIFIED, Counterexample, InputSummary,
                                       beta_over, claim_json, env_json, env_text, fmt_q, input_key, kappa_clause)
from dipc_plus.accuracy.report import report_lines as input_report_lines
from dipc_plus.accuracy.vacuity import Vacuity, accuracy_vacuity
from dipc_plus.claims.accuracy_claim import AccuracyClaim
from dipc_plus.execution.json_spool import JsonSpool, RawJSON

BOX = "box"     # the inputs_kind of a result over every real input of a box


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

    def add(self, summary: InputSummary, count: int = 1) -> None:
        """Count one input's summary, or `count` inputs' that share it (a report class)."""
        marks = summary.marks
        self.merge(Tally(count, count * len(marks), count * sum(applies for applies, _ in marks),
                         count * sum(refuted for _, refuted in marks), summary.counterexample, summary.dd))

    def merge(self, later: "Tally") -> None:
        """Add the counts of the inputs that come after these (a worker's part, in input order)."""
        self.inputs += later.inputs
        self.obligations += later.obligations
        self.applicable += later.applicable
        self.refuted += later.refuted
        # inputs of one class share their dd object: no comparison then
        dd = later.dd_max
        if dd is not None and dd is not self.dd_max and (self.dd_max is None or dd > self.dd_max):
            self.dd_max = dd
        if self.counterexample is None:
            self.counterexample = later.counterexample


@dataclass
class RegionResult:
    """The verdict on one det region of a box (and one gamma): a part of a box claim's result."""
    det: dict
    condition: str            # the region as inequalities
    share: Fraction | None    # its share of the box's volume (None: not a box, not computed)
    gamma: Fraction
    verdict: str
    method: str
    reason: str = ""
    seconds: float = 0.0

    def to_json(self, program) -> dict:
        out = {"det": env_json(program, self.det), "region": self.condition, "share": "unknown" if self.share is None else fmt_q(self.share),
               "gamma": fmt_q(self.gamma), "verdict": self.verdict, "method": self.method,
               "seconds": round(self.seconds, 4)}
        if self.reason:
            out["reason"] = self.reason
        return out

    def line(self, program) -> str:
        text = (f"{self.condition:<44} det = {env_text(program, self.det):<24} share {'?' if self.share is None else fmt_q(self.share):<6} "
                f"{self.verdict} ({self.method})")
        return text + (f": {self.reason}" if self.reason else "")


@dataclass
class AccuracyResult:
    """The verdict on an accuracy claim over its scope, with its parts.  On a grid or a list of
    inputs: one report per (input, gamma) - or, for a check run with `summarize`, its `tally` and
    what `summarize` kept of each input.  On a box (`inputs_kind` "box"): the reduction (`method`
    for the JSON, `method_note` for the text), its proved `checks`, one `RegionResult` per det
    region, the one `sentence` every region reduces to (when there is one) and the counterexample."""
    claim: AccuracyClaim
    reports: list = field(default_factory=list)
    seconds: float = 0.0
    kappa: int = 1
    boundary: bool = False
    dd_over: str = "reals"
    inputs_kind: str = "grid"      # 'grid' | 'list' | 'table': the claim's inputs, or 'list' for --input; or BOX
    scope_points: list | None = None   # the inputs the verdict is about (all of a sharded run's)
    tally: Tally = field(default_factory=Tally)   # the counts, made as the inputs were checked (none on a box)
    kept: list | None = None           # what `summarize` kept of each input (JSON dicts, text lines)
    work: dict | None = None           # how the work was shared (accuracy.classes.InputClasses.work)
    checks: list = field(default_factory=list)     # box: (name, what was proved)
    regions: list = field(default_factory=list)    # box: RegionResult per det region and gamma
    method: str = "corner reduction"
    method_note: str = ""
    sentence: str | None = None
    found: Counterexample | None = None            # box: the re-checked counterexample

    @property
    def on_a_box(self) -> bool:
        return self.inputs_kind == BOX

    @functools.cached_property
    def scope(self):
        """What the verdict covers: the checked inputs (a grid or a list) and the parameter values
        (computed once: the JSON and the text both print it)."""
        from dipc_plus.claims.scope import box_scope, inputs_scope
        if self.on_a_box:
            return box_scope(self.claim.program, self.claim.points.bounds, str(self.claim.eps))
        kind = "grid" if self.inputs_kind == "grid" else "list"
        return inputs_scope(self.claim.program, points=self.scope_points, kind=kind, eps=str(self.claim.eps))

    @property
    def vacuous(self) -> bool:
        """Verified with no obligation that applies (dd(u) does not exceed alpha anywhere)."""
        if self.on_a_box:
            return self.verdict == VERIFIED and all(r.verdict == NOT_APPLICABLE for r in self.regions)
        return self.verdict == VERIFIED and not self.tally.applicable

    @property
    def vacuity(self) -> Vacuity | None:
        """Why the answer is vacuous (the claim applies at no input), naming the field; None when it is not.
        Inputs chosen with --input are a list where the claim's are not: the advice is then --input.
        A box result says its vacuity in its text."""
        if self.on_a_box:
            return None
        return accuracy_vacuity(self, given_inputs=self.given_inputs)

    @property
    def given_inputs(self) -> bool:
        """The inputs were chosen with --input (a list where the claim's are not)."""
        return self.inputs_kind == "list" and self.claim.inputs_kind != "list"

    def by_input(self) -> dict:
        """The kept reports grouped by input, in input order."""
        out: dict = {}
        for r in self.reports:
            out.setdefault(input_key(r.input), []).append(r)
        return out

    @property
    def failing(self) -> list:
        return [r for r in self.reports if r.verdict == REFUTED]

    @property
    def applicable(self) -> list:
        return [r for r in self.reports if r.applies]

    @property
    def verdict(self) -> str:
        if self.on_a_box:
            if self.found is not None:
                return REFUTED
            return UNDECIDED if any(r.verdict == UNDECIDED for r in self.regions) else VERIFIED
        return REFUTED if self.tally.refuted else VERIFIED

    @property
    def counterexample(self) -> Counterexample | None:
        return self.found if self.on_a_box else self.tally.counterexample

    def to_json(self, full: bool = True, encoded: bool = False) -> dict:
        """The result as JSON values.  `encoded`: a summarized run's reports as kept (each input's
        JSON text, `execution.json_spool`), for `commands.common.print_json` to copy; otherwise
        decoded, as Python values."""
        if self.on_a_box:
            return self.box_json()
        out = {
            "verdict": self.verdict,
            "scope": self.scope.to_json(),
            "vacuous": self.vacuous,
            "vacuity": None if self.vacuity is None else self.vacuity.to_json(),
            **claim_json(self.claim),
            "dd_over": self.dd_over,
            "convention": "dd(u) >= alpha (paper, section 7)" if self.boundary else "dd(u) > alpha (Definition 2)",
            "kappa": self.kappa,
            "inputs_checked": self.tally.inputs,
            "obligations": self.tally.obligations,
            "obligations_applicable": self.tally.applicable,
            "obligations_refuted": self.tally.refuted,
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
        """The command's text report of the run (`report_lines` joined; a box lists every region:
        `verbose` changes nothing there)."""
        if self.on_a_box:
            return self.box_report()
        return "\n".join(self.report_lines(verbose, worst))

    def report_lines(self, verbose: bool = False, worst: list | None = None) -> Iterator[str]:
        """The report of a run, line by line: one line per input (every report in full with `verbose`), or
        with `worst` (accuracy.summary.InputMargin, worst first) the worst inputs only.  A summarized run's
        input lines come from its temporary file one at a time, so a grid of millions of inputs is printed
        without holding its text (`execution.json_spool`)."""
        program = self.claim.program
        conv = "dd(u) >= alpha (the paper's convention)" if self.boundary else "dd(u) > alpha (Definition 2)"
        yield from self.head_lines(f"{conv}, dd over {self.dd_over}")
        if self.claim.note:
            yield f"note:   {self.claim.note}"
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
            for reps in self.by_input().values():
                yield from input_report_lines(reps, verbose)
        if not verbose:
            yield ""
        yield from self.verdict_lines(verbose)

    def verdict_lines(self, verbose: bool) -> Iterator[str]:
        """The end of a text report: the counts, the work, the verdict and what it covers."""
        t = self.tally
        yield (f"{t.inputs} input(s), {t.obligations} obligation(s), {t.applicable} where the claim "
               f"applies, {t.refuted} refuted; {self.seconds:.2f} s")
        if self.work is not None:
            yield work_text(self.work)
        yield from self.verdict_sentences(verbose)
        yield self.scope.coverage()

    def head_lines(self, convention: str) -> list[str]:
        """A text report's first lines: the claim and which inputs it speaks about."""
        return [f"claim:  {self.claim.describe()}", f"        inputs with {convention}{kappa_clause(self.kappa)}"]

    def verdict_sentences(self, verbose: bool = False) -> list[str]:
        """The verdict as a text report says it, on a grid or list of inputs and on a box alike: a
        refutation with its counterexample (a grid's `verbose` report has shown it already), an
        undecided box, or what is verified (vacuously or not) over the scope."""
        scope, box = self.scope, self.on_a_box
        if self.verdict == REFUTED:
            cex = self.counterexample
            how = ("a point of the box, re-checked by the per-point path and an independent certified evaluation"
                   if box else "re-checked by an independent certified evaluation")
            lines = [f"REFUTED at {env_text(self.claim.program, cex.input)}, eps = {fmt_q(cex.eps)} ({how})"]
            return lines if verbose and not box else lines + [cex.describe()]
        if self.verdict == UNDECIDED:
            return [f"UNDECIDED {scope.summary()}: the regions marked undecided (share "
                    f"{share_text(self.undecided_share())} of the box) are neither proved nor refuted; "
                    f"{self.others_text()}"]
        if self.vacuous:
            return [scope.vacuously("the claim applies to no input of the box, dd <= alpha there" if box else
                                    "the claim applies to none of these inputs")]
        where = "real input of the box" if box else "input"
        return [scope.verified(f"P[error] <= {beta_over(self.kappa)} for every eps in {self.claim.eps} at "
                               f"every {where} where the claim applies")]

    def undecided_share(self):
        """The undecided regions' share of the box, or None when one of them is not a box."""
        seen = {r.condition: r.share for r in self.regions if r.verdict == UNDECIDED}
        if any(v is None for v in seen.values()):
            return None
        return sum(seen.values(), Fraction(0))

    def others_text(self) -> str:
        """What the regions that are not undecided are, counted by verdict (true for any mix)."""
        counts = Counter(r.verdict for r in self.regions if r.verdict != UNDECIDED)
        if not counts:
            return "no other region"
        if len(counts) == 1:
            return f"every other region is {next(iter(counts))}"
        return "of the others, " + ", ".join(f"{n} {verdict}" for verdict, n in counts.items())

    def box_json(self) -> dict:
        program = self.claim.program
        out = {"verdict": self.verdict, "vacuous": self.vacuous, "scope": self.scope.to_json(),
               **claim_json(self.claim), "kappa": self.kappa,
               "method": self.method, "checks": [{"name": n, "proved": t} for n, t in self.checks],
               **({} if self.sentence is None else {"sentence": self.sentence}),
               "regions": [r.to_json(program) for r in self.regions],
               "undecided_share": share_text(self.undecided_share()), "seconds": round(self.seconds, 3)}
        if self.found is not None:
            out["counterexample"] = self.found.to_json()
        return out

    def box_report(self) -> str:
        lines = self.head_lines("dd(u) > alpha (Definition 2)")
        lines.append(f"{self.method}{self.method_note}; proved preconditions:")
        lines += [f"  {n}: {t}" for n, t in self.checks]
        if self.sentence:
            lines.append(f"every region reduces to: {self.sentence}")
        lines.append("")
        lines += [r.line(self.claim.program) for r in self.regions]
        lines.append("")
        lines += self.verdict_sentences()
        lines.append(f"{len(self.regions)} region verdict(s); {self.seconds:.2f} s")
        lines.append(self.scope.coverage())
        return "\n".join(lines)


def share_text(share) -> str:
    """A share of the box as text; None means a region that is not a box (its volume is not computed)."""
    return "unknown (a region that is not a box)" if share is None else fmt_q(share)


def work_text(work: dict) -> str:
    """One line on how the work was shared (accuracy.classes)."""
    text = f"work: {work['path']}"
    if work.get("distributions") is not None:
        text += f"; {work['distributions']} output distribution(s) computed"
    if work.get("decisions") is not None:
        text += f", {work['decisions']} certified decision(s) run"
    return text + f" for {work['inputs']} input(s)"
