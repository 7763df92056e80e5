"""The one decision entry for accuracy claims: the claim, or how far its beta divides (the sweep).

Why it exists: the scope of a claim (its grid or list, the inputs a user gave, or every real
input of a box) picks the route, and that choice is made here once for `dipc accuracy`,
`dipc sweep` and the API's `check_accuracy` and `sweep`, which differ only in how they show the
result.  Options travel as one `execution.options.RunOptions`.
"""
from __future__ import annotations

import functools

from dipc_plus.accuracy.grid_classes import counted_summary
from dipc_plus.accuracy.summary import WorstInputs, input_margin
from dipc_plus.claims.grid_points import GridPoints
from dipc_plus.errors import UserError
from dipc_plus.execution.executor import shard_chunk


def decides_box(checker, points) -> bool:
    """A box claim with no inputs given is decided over every real input of its box."""
    return checker.claim.inputs_kind == "box" and points is None


def decide_accuracy(checker, points, kappa: int, options, *, paper: bool = False, first: bool = False,
                    worst: WorstInputs | None = None, summarize: str | None = None, executor=None):
    """The claim with beta/kappa: an `AccuracyResult` over the claim's inputs or `points` (the part
    `options.shard` names; with `worst` the worst inputs gathered, counted by report class where
    they apply), or one over every real input of a box claim (its regions its parts)."""
    if decides_box(checker, points):
        if options.shard is not None or worst is not None:
            raise UserError("a box claim is decided as a whole (its det regions), not input by input",
                            hint="leave out --shard and --summary (or check one input with --input)")
        from dipc_plus.accuracy.box import decide_box
        return decide_box(checker.claim, kappa, options.max_states, boundary=paper, options=options)
    every = checker.claim.points if points is None else points
    if not isinstance(every, GridPoints):   # a claim's grid stays one: its points are made when read
        every = list(every)
    start, stop = shard_chunk(len(every), options.shard)
    todo = every if options.shard is None else every[start:stop]
    collect = functools.partial(input_margin, interval=checker.claim.eps) if worst else None
    # counting a summary by report class is an accelerator: not in reference mode
    counted = worst is not None and options.allows("input-classes")
    result = counted_summary(checker, todo, kappa, collect, worst, first) if counted else None
    if result is None:
        result = checker.run(todo, kappa, progress=options.progress, stop_at_first=first,
                             executor=executor if executor is not None else options.run_on(), summarize=summarize,
                             collect=collect, gather=worst.add if worst else None)
    if points is None:
        result.inputs_kind = checker.claim.inputs_kind
    if options.shard is not None:
        result.scope_points = every
    return result


def decide_sweep(checker, points, options, *, kappa_max: int, digits: int, paper: bool = False,
                 reports: bool = False, summarize: str = "json", executor=None):
    """The largest kappa with beta/kappa verified, kappa* and the counterexample for kappa + 1: a
    `accuracy.sweep_result.SweepResult` over the claim's inputs or `points`, or over a box claim's box."""
    if kappa_max < 1:
        raise UserError(f"--kappa-max must be at least 1, not {kappa_max}", hint="use e.g. --kappa-max 100")
    if not 1 <= digits <= 60:
        raise UserError(f"--digits must be between 1 and 60, not {digits}", hint="use e.g. --digits 10")
    if decides_box(checker, points):
        if paper:
            raise UserError("a box claim is decided under Definition 2 (dd(u) > alpha)", hint="leave out --paper")
        if reports:
            raise UserError("a box sweep has no per-input reports: it decides the box's det regions",
                            hint="leave out --reports (the regions are in the JSON)")
        from dipc_plus.accuracy.box_sweep import box_sweep
        return box_sweep(checker.claim, kappa_max=kappa_max, digits=digits, max_states=options.max_states,
                         options=options)
    from dipc_plus.accuracy.sweep import sweep
    return sweep(checker, kappa_max=kappa_max, digits=digits, points=points, progress=options.progress,
                 executor=executor if executor is not None else options.run_on(), summarize=summarize)
