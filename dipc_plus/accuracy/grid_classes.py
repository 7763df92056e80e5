"""`dipc accuracy --summary` on a grid counted by report class, without visiting its inputs.

Why: a summary needs of each input only its counts (obligations, applicable, refuted), its dd,
its margin and, for the first refuted input, its counterexample; every one of them is the same
for all inputs of a report class (`accuracy.classes.InputClasses.report_key`) but the input
itself.  An input's class is fixed by its det path and its values on the names the key reads
(`report_positions`: the det region's support and the supports of the outputs in its ball);
every other input is free.  So each class is one assignment of those names that satisfies its
path's condition, its size the product of the free names' value counts, and its first input in
grid order the assignment with every free name at its first value.  Sparse c = 1 on
{-1,0,1}^20 (3.5 billion inputs) has 41 classes.  The per-input path (`AccuracyChecker.run`)
stays the reference; tests/test_grid_classes.py compares the two.  An argmax of iid noisy reads
has no output supports; its classes are the orbits of `accuracy.argmax_orbit_classes`.
"""
from __future__ import annotations

import functools
import itertools
import math
import time
from dataclasses import replace

from dipc_plus.accuracy.argmax_orbit_classes import orbit_classes, orbit_classes_apply
from dipc_plus.accuracy.report import summarize_input
from dipc_plus.accuracy.result import AccuracyResult, Tally
from dipc_plus.claims.grid_points import GridPoints

MAX_CLASS_ASSIGNMENTS = 1 << 16   # assignments of det paths' names tried before the per-input path is used


class _NotCounted(Exception):
    """The grid's classes are not countable here: the per-input path is used."""


def counted_summary(checker, points, kappa: int, collect, worst, stop_at_first: bool) -> AccuracyResult | None:
    """The result `checker.run(points, kappa, summarize="nothing", collect=collect, gather=worst.add)`
    gives (`worst`: an accuracy.summary.WorstInputs, filled here too), from the grid's report
    classes; None where they do not apply (then run the per-input path).  The one place that
    decides whether grid classes are used."""
    if stop_at_first or not isinstance(points, GridPoints) or points.grid is None:
        return None
    start = time.perf_counter()
    try:
        found = sorted(_classes(checker, points.ranges, kappa, collect), key=lambda c: c[0])
    except _NotCounted:
        return None
    tally = Tally()
    firsts = []        # (grid index, margin) of the first inputs of each class
    for index, size, summary, first_inputs in found:
        tally.add(summary, size)
        if summary.collected is not None:
            firsts += [(_index(points.ranges, u), replace(summary.collected, input=u))
                       for u in first_inputs(worst.n)]
    if tally.inputs != len(points):   # the paths are disjoint and cover the grid: a bug, not a verdict
        raise RuntimeError(f"grid classes count {tally.inputs} inputs of {len(points)}")
    for _, margin in sorted(firsts, key=lambda item: item[0]):
        worst.add(margin)
    result = AccuracyResult(checker.claim, [], time.perf_counter() - start, kappa, checker.boundary,
                            checker.claim.dd_over, "list", scope_points=points, tally=tally, kept=[])
    result.work = checker.classes.work(result.tally.inputs, in_process=True)
    return result


def _classes(checker, ranges: dict, kappa: int, collect):
    """(grid index of its first input, its size, that input's InputSummary, first_inputs(n)) per
    report class of the grid: its orbits when the program is an argmax they apply to
    (`accuracy.argmax_orbit_classes`), else its det paths' classes; _NotCounted where neither does."""
    classes, claim = checker.classes, checker.claim
    if orbit_classes_apply(checker, ranges):
        for first, size, first_inputs in orbit_classes(ranges):
            yield _index(ranges, first), size, _summary(checker, first, kappa, collect), first_inputs
        return
    if not classes.share_dd or classes.support is None or not classes.regions.scan:
        raise _NotCounted
    first = {name: values[0] for name, values in ranges.items()}
    budget = [MAX_CLASS_ASSIGNMENTS]
    for key, _, condition in classes.regions.paths:
        names = classes.regions.support[key]
        for fixed in _assignments(ranges, names, condition, budget):
            u = dict(first, **fixed)
            summary = _summary(checker, u, kappa, collect)
            read = classes.report_positions(claim, u)
            if read is None or read[0] != key:
                raise _NotCounted
            extra = [name for name in read[1] if name not in fixed]
            for values in _product(ranges, extra, budget):
                v = dict(u, **dict(zip(extra, values)))
                if extra:
                    summary = _summary(checker, v, kappa, collect)
                    if classes.report_positions(claim, v) != read:
                        raise _NotCounted
                free = [name for name in ranges if name not in read[1]]
                yield (_index(ranges, v), math.prod(len(ranges[name]) for name in free), summary,
                       functools.partial(_first_inputs, ranges, v, free))


def _summary(checker, u: dict, kappa: int, collect):
    """Input u's summary (as a summarized "nothing" run makes it), nothing cached about u kept."""
    reports = checker.check_input(u, kappa)
    summary = summarize_input(reports, "nothing", collect)
    checker.forget(u)
    return summary


def _assignments(ranges: dict, names: tuple, condition: list, budget: list):
    """The assignments of `names` (each over its grid values) where every constraint of a path's
    condition (`classes._compiled`) holds; a constraint on one name filters that name's values."""
    if any(name not in ranges for name in names):
        raise _NotCounted
    allowed = {name: list(ranges[name]) for name in names}
    joint = []
    for terms, holds, rhs, _ in condition:
        if len(terms) == 1:
            name, c = terms[0]
            allowed[name] = [v for v in allowed[name] if holds(c * v, rhs)]
        else:
            joint.append((terms, holds, rhs))
    for values in _product(allowed, list(names), budget):
        u = dict(zip(names, values))
        if all(holds(sum(c * u[name] for name, c in terms), rhs) for terms, holds, rhs in joint):
            yield u


def _product(ranges: dict, names: list, budget: list):
    """Every assignment of `names`, charged to the budget before any is made."""
    budget[0] -= math.prod(len(ranges[name]) for name in names)
    if budget[0] < 0:
        raise _NotCounted
    return itertools.product(*(ranges[name] for name in names))


def _index(ranges: dict, u: dict) -> int:
    """u's index in the grid's order (the last name varies fastest)."""
    index = 0
    for name, values in ranges.items():
        index = index * len(values) + values.index(u[name])
    return index


def _first_inputs(ranges: dict, first: dict, free: list, n: int) -> list:
    """The first n inputs in grid order of the class whose first input is `first`."""
    return [dict(first, **dict(zip(free, values)))
            for values in itertools.islice(itertools.product(*(ranges[name] for name in free)), n)]
