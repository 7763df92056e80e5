"""Units of work and the pairs of neighbouring inputs a privacy claim is checked on.

Why it exists: scale comes from structure, and this module decides it once for the
checker and the loss: independent components (a pair that differs in one position
only moves the component reading it, so each component is checked alone when delta
= 0), kernel chains (shared prefixes between inputs) and symmetric inputs (only
canonical inputs and pair classes are evaluated).  `lift_witness` turns a witness
found in one unit back into whole inputs, outputs and probabilities.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from dipc_plus.claims.adjacency import Adjacency
from dipc_plus.claims.distances import value_gap
from dipc_plus.claims.grid_points import GridPoints
from dipc_plus.semantics.values import distinct, freeze_env, freeze_value, value_key, values_equal
from dipc_plus.privacy.output_tables import CHAIN_THRESHOLD, ZERO, TableSource
from dipc_plus.semantics import ir
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES
from dipc_plus.semantics.structure import components

@dataclass
class Unit:
    """A (sub-)program checked on its own: the whole program, or one independent component."""
    label: str
    program: ir.Program
    inputs: tuple
    points: Sequence            # its inputs: a list, or the claim's `GridPoints` (made when read)
    grid: dict | None
    source: TableSource
    runs: list = field(default_factory=list)   # SymmetricRun
    symmetric_grid: bool = False

    def table(self, env: dict) -> dict:
        return self.source(self.canon(env))

    def table_key(self, env: dict) -> tuple:
        """Which output table `table(env)` is (symmetric inputs share one)."""
        return self.source.key_of(self.canon(env))

    def canon(self, env: dict) -> dict:
        """The input with each symmetric run's values sorted: the representative of its class."""
        return self.canon_pair(env, env)[0]

    def canon_pair(self, u: dict, w: dict) -> tuple[dict, dict]:
        """The pair with each symmetric run's (u, w) value pairs sorted (by u's value first)."""
        if not self.runs:
            return u, w
        a, b = dict(u), dict(w)
        for run in self.runs:
            pairs = sorted(((u[x], w[x]) for x in run.inputs), key=lambda p: (value_key(p[0]), value_key(p[1])))
            for x, (p, q) in zip(run.inputs, pairs):
                a[x], b[x] = p, q
        return a, b


@dataclass
class Plan:
    units: list
    how: str                      # 'whole' | 'components'
    notes: list = field(default_factory=list)


def plan(claim, structure: bool | None = True, *, max_states: int = DEFAULT_MAX_STATES, symmetry: bool = True) -> Plan:
    """Split the check into units (components when sound), find symmetric inputs
    (symmetry=False keeps components and kernel chains but evaluates every input); `structure`
    None uses the claim's own setting."""
    structure = claim.structure if structure is None else structure
    program = claim.program
    notes = []
    comps = None
    single = getattr(claim, "adjacency", None) is not None and claim.adjacency.single_coordinate
    # components need a grid: the pairs of a component are then exactly the projections of the
    # claim's pairs (with an explicit list, a projected pair may have no pair of the list above it)
    if structure and single and claim.delta_is_zero and claim.grid is not None:
        comps = components(program)
        # an input two components read changes both at once: their losses add, so split only when
        # every input belongs to at most one component
        if comps and not _inputs_disjoint(comps):
            comps = None
    if comps:
        units = [_component_unit(claim, k, c, structure, max_states) for k, c in enumerate(comps)]
        notes.append(f"independent components: {len(units)} (a pair differing in one position changes one "
                     "component; the others cancel in every ratio)")
        how = "components"
    else:
        src = TableSource(program, claim.events, use_chain=structure, expected=claim.npoints,
                          max_states=max_states)
        units = [Unit("whole program", program, tuple(program.input_names()), claim.points, claim.grid, src)]
        how = "whole"
    if structure and symmetry:
        for unit in units:
            chain = unit.source.chain
            if chain is None or len(unit.points) < CHAIN_THRESHOLD:
                continue
            runs = chain.symmetric_runs(unit.grid if unit.grid is not None else unit.points)
            if runs:
                unit.runs = runs
                unit.source.use_chain = True
                unit.symmetric_grid = unit.grid is not None and all(
                    _same_list(unit.grid[x], unit.grid[run.inputs[0]]) for run in runs for x in run.inputs)
                for run in runs:
                    notes.append(f"{unit.label}: symmetric inputs: {run} (kernels commute, checked exactly)")
        for unit in units:
            if unit.source.use_chain and not unit.runs:
                notes.append(f"{unit.label}: kernel chain with {len(unit.source.chain.blocks)} blocks "
                             "(shared prefixes)")
    return Plan(units, how, notes)


def _inputs_disjoint(comps) -> bool:
    """Does no input belong to two of the components?"""
    seen = [n for c in comps for n in c.inputs]
    return len(seen) == len(set(seen))


def _component_unit(claim, k: int, c, structure: bool, max_states: int) -> Unit:
    """The unit of the k-th independent component `c`: its inputs' part of the claim's grid."""
    grid = {n: claim.grid[n] for n in c.inputs}
    pts = distinct(GridPoints(grid))
    src = TableSource(c.program, claim.events, use_chain=structure, expected=len(pts), max_states=max_states)
    return Unit(f"component {k + 1} ({', '.join(c.outputs)})", c.program, c.inputs, pts, grid, src)


def _same_list(a, b) -> bool:
    return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))


# --------------------------------------------------------------------------- pairs


def canonical_points(unit: Unit) -> list:
    """The inputs of a grid unit up to its symmetry: every input without one; with one (only when
    `symmetric_grid`: every run's inputs have the same values), each run's values as a multiset."""
    if not unit.runs:
        return list(GridPoints({n: unit.grid[n] for n in unit.inputs}))
    in_run = {x for run in unit.runs for x in run.inputs}
    others = [n for n in unit.inputs if n not in in_run]
    parts = [[dict(zip(run.inputs, c)) for c in itertools.combinations_with_replacement(unit.grid[run.inputs[0]],
                                                                                      len(run.inputs))]
             for run in unit.runs]
    parts += [[{n: v} for v in unit.grid[n]] for n in others]
    merged = ({x: v for part in combo for x, v in part.items()} for combo in itertools.product(*parts))
    return [{n: env[n] for n in unit.inputs} for env in merged]


def unit_pairs(unit: Unit, adjacency: Adjacency) -> list:
    """Ordered adjacent pairs (u, u') of the unit's inputs, one per symmetry class."""
    if adjacency.kind == "pairs":
        listed = [pair for u, w in adjacency.pairs for pair in ((u, w), (w, u))]
        found = (({n: u[n] for n in unit.inputs}, {n: w[n] for n in unit.inputs}) for u, w in listed)
    elif unit.grid is not None and (not unit.runs or unit.symmetric_grid):
        names = list(unit.inputs)
        found = ((u, w) for u in canonical_points(unit) for w in _grid_neighbours(u, names, unit.grid, adjacency))
        # without symmetric runs, distinct grid values give distinct pairs: no need to hash
        # every pair to drop repeats (most of the time of listing a large grid's pairs)
        if not unit.runs and all(len({freeze_value(b) for b in unit.grid[n]}) == len(unit.grid[n]) for n in names):
            return list(found)
    else:
        found = adjacent_point_pairs(unit.points, adjacency)
    return distinct((unit.canon_pair(u, w) for u, w in found), key=lambda pair: tuple(map(freeze_env, pair)))


def adjacent_point_pairs(points, adjacency: Adjacency) -> list:
    """The ordered pairs (u, u') of distinct adjacent points of a list, in list order."""
    return [(u, w) for u in points for w in points if u != w and adjacency.adjacent(u, w)]


def _grid_neighbours(u: dict, names: list, grid: dict, adjacency: Adjacency) -> Iterable[dict]:
    if adjacency.single_coordinate:
        for n in names:
            for b in grid[n]:
                if not values_equal(b, u[n]) and adjacency.coordinate_ok(u[n], b):
                    w = dict(u)
                    w[n] = b
                    yield w
        return
    # linf / l1: every position may move, each to the values within the bound (with their distance)
    options = [[(b, d) for b in grid[n] if (d := value_gap(u[n], b)) <= adjacency.bound] for n in names]
    for combo in itertools.product(*options):
        if all(values_equal(b, u[n]) for (b, _), n in zip(combo, names)):
            continue
        if adjacency.kind == "l1" and sum(d for _, d in combo) > adjacency.bound:
            continue
        yield {n: b for (b, _), n in zip(combo, names)}


def lift_witness(claim, pl: Plan, unit: Unit, u: dict, w: dict, v: tuple):
    """Full inputs, output and exact probabilities for a unit-level witness."""
    program = claim.program
    out_names = program.output_names()
    if pl.how == "whole":
        P, Q = unit.table(u), unit.table(w)
        return dict(u), dict(w), dict(zip(out_names, v)), P.get(v, ZERO), Q.get(v, ZERO)
    base = claim.points[0]
    full_u = {n: (u[n] if n in u else base[n]) for n in program.input_names()}
    full_w = {n: (w[n] if n in w else base[n]) for n in program.input_names()}
    outputs = dict(zip(unit.program.output_names(), v))
    p = unit.table(u).get(v, ZERO)
    q = unit.table(w).get(v, ZERO)
    for other in pl.units:
        if other is unit:
            continue
        T = other.table({n: full_u[n] for n in other.inputs})
        # the most likely output of the other component (same at u and u': its inputs agree)
        best = max(T.items(), key=lambda kv: kv[1](1.0))
        outputs.update(zip(other.program.output_names(), best[0]))
        p = p * best[1]
        q = q * best[1]
    outputs = {n: outputs[n] for n in out_names}
    return full_u, full_w, outputs, p, q


class PairWork:
    """The pairs of a privacy check as a fixed list of items, cut into tasks for workers.

    Items are (unit, pair index), or (unit, None) for a unit checked whole (`whole(unit)`:
    the DP point filter); a task (unit, start, stop) never crosses a unit, and `shard` (i, n)
    selects the i-th of n contiguous parts of the items, so parts made on different machines
    join in item order (`dipc merge`)."""

    def __init__(self, claim, pl: Plan, whole=lambda unit: False):
        self.claim, self.plan = claim, pl
        self._whole = [whole(unit) for unit in pl.units]
        self._pairs = self._items = None

    @property
    def pairs(self) -> list:
        """Per unit, its list of pairs (None for a unit checked whole), listed when first asked
        for: a check that shares work by output support (`support_pairs`) never lists them."""
        if self._pairs is None:
            self._pairs = [None if whole else unit_pairs(unit, self.claim.adjacency)
                           for unit, whole in zip(self.plan.units, self._whole)]
        return self._pairs

    def items(self) -> list[tuple[int, int | None]]:
        if self._items is None:
            self._items = [it for k, pairs in enumerate(self.pairs)
                           for it in ([(k, None)] if pairs is None else [(k, i) for i in range(len(pairs))])]
        return self._items

    def shard_range(self, shard) -> tuple[int, int, int]:
        """(start, stop, total): the items of part i of n (`shard`), or all of them for None."""
        from dipc_plus.execution.executor import shard_chunk
        total = len(self.items())
        return (*shard_chunk(total, shard), total)

    def sized_tasks(self, executor, shard=None) -> tuple[list, list]:
        """(tasks, their sizes) covering the items of `shard` or of the whole check, for `executor`: in
        this process one item per task (the ledger and the bar move with each pair), in workers a few
        contiguous ranges per worker.  A task is (unit, start, stop), start None for a unit checked whole."""
        from dipc_plus.execution.executor import chunks
        a, b, _ = self.shard_range(shard)
        items = self.items()[a:b]
        tasks = []
        for a, b in chunks(len(items), 4 * executor.jobs if executor.parallel else len(self.items())):
            for k, same in itertools.groupby(items[a:b], key=lambda item: item[0]):   # a task never crosses a unit
                same = list(same)
                tasks.append((k, None, None) if same[0][1] is None else (k, same[0][1], same[-1][1] + 1))
        return tasks, [1 if a is None else b - a for _, a, b in tasks]
