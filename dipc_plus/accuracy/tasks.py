"""What runs on a worker of an accuracy check: one range of inputs, checked by the checker the
worker's `Source` gives (`accuracy.checker.build_checker` rebuilds it from the claim file).

Why apart from the checker: a task is a module-level function and small picklable data
(`execution.executor`); only exact values travel, so a report leaves a worker without its
program and the client attaches its own.  A task returns one `SummaryPart`, reduced
where it was checked: sending each input and its summary back (Sparse c = 1 m = 12: 531,441 of
them) and adding them up one by one in the client made two workers slower than one process.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from dipc_plus.accuracy.result import Tally

SPOOLED = ("json", "text", "text-verbose")   # the summaries kept in a temporary file, not in memory
from dipc_plus.execution import ledger


@dataclass
class SummaryPart:
    """A summarized range of inputs, reduced: its counts and first counterexample (`tally`), what
    the command prints of its inputs (`kept`: one JSON value a line, as one text, for the SPOOLED
    ways: a report's JSON, or a text line as a JSON string), what `collect` made of each input (in input order, or None), and the ledger's
    records of its inputs (`ledger.lines`, empty when no guard listens)."""
    tally: Tally
    kept: object
    collected: list | None = None
    records: str = ""
    reports: list | None = None    # its inputs' reports, brought home (a run with `absorb`)

    def attach(self, program) -> None:
        """Point every report and counterexample of the part at `program`: None before the part
        leaves a worker, the client's own program when it arrives."""
        reports = self.reports or []
        for r in reports:
            r.program = program
        for cex in [r.counterexample for r in reports] + [self.tally.counterexample]:
            if cex is not None:
                cex.program = program

    @staticmethod
    def of(pairs: list, how: str, collect, shown, record: bool) -> "SummaryPart":
        """The part of these (input, InputSummary) pairs; with `record`, their ledger records, each
        input named by `shown(u)`."""
        tally = Tally()
        kept: list = []
        for _, summary in pairs:
            tally.add(summary)
            kept += summary.kept
        records = ledger.lines("input", ((shown(u), s.verdict) for u, s in pairs)) if record else ""
        # one line per value: a report's JSON (a str is its text already), or a text line as a JSON string
        # (a line may hold newlines)
        if how in SPOOLED:
            kept = "".join((v if how == "json" and isinstance(v, str) else json.dumps(v)) + "\n" for v in kept)
        return SummaryPart(tally, kept, [s.collected for _, s in pairs] if collect is not None else None,
                           records, [r for _, s in pairs for r in s.reports or ()])


def check_range(source, task):
    """One task: the `SummaryPart` of a range of inputs (with `record`, the ledger's records of its
    inputs: a guard listens to the client; an unsummarized run's reports ride in it); in a worker,
    detached from the program (the client attaches its own), so only exact values travel."""
    from dipc_plus.execution.executor import in_worker
    points, kappa, stop_at_first, summarize, collect, absorb, record = task
    checker = source.get()
    out = checker.check_points(points, kappa, stop_at_first, summarize, collect, absorb)
    part = SummaryPart.of(out, summarize, collect, checker.texts.shown, record)
    if in_worker():   # its reports (a few closed forms each, never a distribution) travel too
        part.attach(None)
    return part
