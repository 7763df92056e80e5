"""What runs on a worker of an accuracy check: one range of inputs, checked by the checker the
worker's `Source` gives (`accuracy.checker.build_checker` rebuilds it from the claim file).

Why apart from the checker: a task is a module-level function and small picklable data
(`execution.executor`); only exact values travel, so a report leaves a worker without its
program and the client attaches its own.
"""
from __future__ import annotations


def check_range(source, task) -> list:
    """One task: the reports of a range of inputs; in a worker, detached from the program
    (the client attaches its own), so only exact values travel."""
    from dipc_plus.execution.executor import in_worker
    points, kappa, stop_at_first, summarize, collect = task
    out = source.get().check_points(points, kappa, stop_at_first, summarize, collect)
    if in_worker():
        for _, reps in out:
            if summarize is None:
                attach_program(reps, None)
            elif reps.counterexample is not None:
                reps.counterexample.program = None
    return out


def attach_program(reports: list, program) -> None:
    """Point every report (and its counterexample) at `program`: None before a report leaves a
    worker, the client's own program when it arrives."""
    for r in reports:
        r.program = program
        if r.counterexample is not None:
            r.counterexample.program = program
