"""An eps-DP grid check whose pairs share their work by output support and monotonicity.

Why it exists: the per-pair walk of `check.check_dp` asks, for every ordered adjacent pair
(u, u') and every output o, whether P_u[o] <= e^budget P_u'[o] on the eps interval.  With
L-inf adjacency on {-1, 0, 1}^m there are 7^m - 3^m pairs, each hashing its two closed forms
per output, and the listed pairs were most of the memory (SVT Alg. 1, m = 7: 552 MB).  But
P_u[o] depends on u only through S_o, the real inputs read on the paths to o
(`semantics.output_support`), so the obligation of o at (u, u') is a function of
(u|S_o, u'|S_o).  Here the grid's pairs are never listed: per output, the pairs of its
support's sub-grid are walked once each, with the number of whole pairs above each one
(L-inf neighbourhoods are a product over coordinates), and each distinct pair of closed forms
is settled once (closed forms are interned, so it is found by identity).  When P[o] is proved
monotone in every input it reads (`semantics.output_monotone`), the smallest P_u'[o] over u's
neighbours is at one corner for every eps, so one certified decision there implies the
obligations at all of u's neighbours.

Soundness does not rest on the supports: every input's table is computed anyway (an output
whose support is every input needs them all), and each P_u[o] is checked to be the very closed
form stored for (o, u|S_o); any mismatch, an output the walk did not name, or a failing
obligation hands the claim back to the per-pair walk, which then finds the first failure in
pair order exactly as before.  Verdicts and counts (pairs, obligations, decisions, output
tables used) are the per-pair walk's: each shared obligation counts once per whole pair above
it, and one implied by a decision counts as decided.  `DIPC_CLASSES=off` turns this path off
(benchmarks, identity checks).  Where the queries' symmetry is proved, `orbit_pairs` runs first
and computes tables at orbit representatives only; this path is what remains where it is not.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from dipc_plus.execution.accelerators import CLASSES_ENV, classes_enabled
from dipc_plus.claims.distances import value_gap
from dipc_plus.errors import UserError
from dipc_plus.execution import ledger
from dipc_plus.privacy.output_tables import ZERO
from dipc_plus.semantics.output_monotone import output_directions
from dipc_plus.semantics import ir
from dipc_plus.semantics.output_support import output_support
from dipc_plus.semantics.values import freeze_value

SUPPORT_PATH = "output supports"
PAIR_PATH = "per pair"



@dataclass
class SupportOutcome:
    """What the support path found: the per-pair walk's counts when every obligation held, or
    `fallback` (why the per-pair walk must run instead)."""
    pairs: int = 0
    obligations: int = 0
    decisions: int = 0
    used: set | int = field(default_factory=set)   # table keys of the inputs some pair uses (orbit path: their number)
    fallback: str | None = None
    path: str = SUPPORT_PATH     # which sharing found the counts
    extra: dict = field(default_factory=dict)   # the path's own bookkeeping, for `work`
    keys: int = 0                # (output, restricted pair) keys walked
    distinct: int = 0            # distinct (p, p') obligations met
    direct: int = 0              # of them, run through the certified procedure
    implied: int = 0             # of them, implied by the one at the worst neighbour (monotone P)
    monotone: int = 0            # outputs proved monotone in every input they read

    def settle(self, p, q, many: int, decided: dict, checker, corner) -> bool:
        """Count the obligation p <= e^budget q (+ delta) for the `many` whole pairs above it, settled
        once per distinct (p, q) (`decided`, by identity): without the certified procedure when it
        can be, else implied by the one against `corner()`, the form at the worst neighbour, when P
        is monotone (q >= that form for every eps; `corner` None: not proved), else decided.
        False when it fails."""
        ob = decided.get((id(p), id(q)))
        self.keys += 1
        if ob is None:
            ob = checker.shortcut(p, q)
            if ob is None and corner is not None:
                c = corner()
                ob = decided.get((id(p), id(c))) or checker.shortcut(p, c)
                if ob is None:
                    self.direct += 1
                    ob = checker.check(p, c)
                decided[(id(p), id(c))] = ob
                if ob.holds:
                    self.implied += 1
                    ob = type(ob)(True, how="decided")   # check.Obligation (check imports this module)
            elif ob is None:
                self.direct += 1
                ob = checker.check(p, q)
            decided[(id(p), id(q))] = ob
        if not ob.holds:
            return False
        self.obligations += many
        self.decisions += many * (ob.how == "decided")
        return True

    def work(self) -> dict:
        return {"path": self.path if self.fallback is None else PAIR_PATH,
                **({"reason": self.fallback} if self.fallback else {}),
                "pair_keys": self.keys, "distinct_obligations": self.distinct, "decided": self.direct,
                "implied_by_monotonicity": self.implied, "monotone_outputs": self.monotone, **self.extra}


def refusal(claim, plan, shard) -> str | None:
    """Why the support path does not apply to this check (None: it does)."""
    if not classes_enabled():
        return f"{CLASSES_ENV}=off"
    if shard is not None:
        return "a shard checks a part of the pair list"
    if not claim.delta_is_zero or claim.eps.is_log_point:
        return "delta != 0 or eps = ln r"
    if claim.adjacency.kind != "linf" or claim.grid is None:
        return "not an L-inf grid"
    if plan.how != "whole" or len(plan.units) != 1 or plan.units[0].runs:
        return "components or symmetric inputs"
    unit = plan.units[0]
    if any(len({freeze_value(b) for b in unit.grid[n]}) != len(unit.grid[n]) for n in unit.inputs):
        return "repeated grid values"
    return None


def neighbour_indices(values: list, bound) -> list:
    """For each grid value's index, the indices within L-inf distance `bound` (itself included),
    in grid order (as plan._grid_neighbours lists them)."""
    return [[j for j, b in enumerate(values) if value_gap(a, b) <= bound] for a in values]


def grid_pair_count(unit, bound) -> int:
    """The ordered pairs u != u' of the unit's grid at L-inf distance <= bound: a product over
    coordinates of the adjacent (a, b) (a = b included), less the pairs u = u'."""
    nbrs = [neighbour_indices(unit.grid[n], bound) for n in unit.inputs]
    return math.prod(sum(len(js) for js in nb) for nb in nbrs) - math.prod(len(nb) for nb in nbrs)


def worst_neighbour(o, S: tuple, names: list, grid: list, nbrs: list, directions: dict):
    """For an output whose probability is monotone in every input of its support S: a function
    of a (indices on S) giving the neighbour b (a itself allowed) where P[o] is smallest, each
    coordinate moved as far as it may against P's direction; None when not proved monotone."""
    d = directions.get(o)
    if d is None or any(names[k] not in d for k in S):
        return None
    # the direction d[name] is UP (the smallest value gives the lowest P) or DOWN (the largest does)
    pick = [[min(js, key=lambda j: d[names[k]] * grid[k][j]) for js in nbrs[k]] for k in S]
    return lambda a: tuple(choice[i] for choice, i in zip(pick, a))


def tables_here(unit, envs: list):
    """The output tables of `envs` computed in this process, in order; each leaves the source's
    cache once read (the check keeps only the per-output forms it needs)."""
    for env in envs:
        table = unit.table(env)
        unit.source.cache.pop(unit.table_key(env), None)
        yield table


def supports_of(claim, unit):
    """(output supports, proved directions, the unit's inputs, their grids, per output the positions
    of its support) of the program, or the reason the per-pair walk applies."""
    finite = [n for n, t in unit.program.inputs if not isinstance(t, ir.RealT)]
    if finite:
        return f"the input '{finite[0]}' is not real"
    try:
        sup = output_support(unit.program)
        directions = output_directions(unit.program)
    except UserError as err:   # NotSymbolic, or a walk past its limits: the per-pair walk applies
        return err.message
    if set(sup.inputs) != set(unit.inputs):
        return "the grid's inputs are not the program's real inputs"
    names = list(unit.inputs)
    position = {n: i for i, n in enumerate(names)}
    where = {o: tuple(position[n] for n in sup.support[o]) for o in sup.outputs}
    return sup, directions, names, [unit.grid[n] for n in names], where


def store_forms(unit, grid: list, indices: list, outputs, key_of, tables, differs: str, on_input=None) -> dict | str:
    """The tables of the inputs at the grid `indices` (`tables(envs)` yields them in order; default
    `tables_here`), their closed forms interned (one object per distinct form) and stored per output
    o under `key_of(o, idx)` (None: P[o] must be 0 there); each P_u[o] is checked against the store,
    and `on_input(idx, env)` sees every input.  The store, or the reason the per-pair walk applies."""
    names = list(unit.inputs)
    envs = [{n: grid[k][i] for k, (n, i) in enumerate(zip(names, idx))} for idx in indices]
    interned: dict = {ZERO: ZERO}
    stored: dict = {o: {} for o in outputs}
    for idx, env, table in zip(indices, envs, (tables or (lambda xs: tables_here(unit, xs)))(envs)):
        unknown = [o for o in table if o not in stored]
        if unknown:
            return f"output {unknown[0]} is not among the symbolic walk's"
        if on_input is not None:
            on_input(idx, env)
        for o in stored:
            p = table.get(o, ZERO)
            p = interned.setdefault(p, p)
            key = key_of(o, idx)
            if key is None:
                if p is not ZERO:
                    return f"output {o}: the symmetry proof finds no way to it, yet P > 0 at some input"
            elif stored[o].setdefault(key, p) is not p:
                return f"output {o}: P differs between {differs}"
    return stored


class SharedForms:
    """What the one walk of shared obligations (`check_shared`) reads: the supports and proved
    directions, the grid and its neighbours, the inputs' table keys some pair uses, and per output
    its closed forms.  Here (the support path) they are keyed by the input's indices on the
    output's support S (`where[o]`); `orbit_pairs.Orbits` keys them by orbit key instead."""
    path = SUPPORT_PATH

    def __init__(self, sup, directions, names: list, grid: list, nbrs: list, where: dict, stored: dict, used):
        self.sup, self.directions, self.names, self.grid, self.nbrs = sup, directions, names, grid, nbrs
        self.where, self.stored, self.used = where, stored, used
        self.extra: dict = {}

    def sub_pairs(self, o):
        """The sub-pairs (a, b) of o's support's sub-grid: (p, q, how many sequences, a = b, a)."""
        S, forms = self.where[o], self.stored[o]
        for a in itertools.product(*(range(len(self.grid[k])) for k in S)):
            p = forms[a]
            for b in itertools.product(*(self.nbrs[k][i] for k, i in zip(S, a))):
                yield p, forms[b], 1, a == b, a

    def corner(self, o, a, worst):
        """P[o] at the worst neighbour of the sub-input `a` (as `sub_pairs` gives it)."""
        return self.stored[o][worst(a)]


def support_forms(claim, unit, supports: tuple, tables=None) -> SharedForms | str:
    """Every input's table, stored per output under its indices on the output's support (`supports`:
    what `supports_of` found); or the reason the per-pair walk applies."""
    sup, directions, names, grid, where = supports
    nbrs = [neighbour_indices(vals, claim.adjacency.bound) for vals in grid]
    used: set = set()
    def note_used(idx, env):   # u has a neighbour: its table is used
        if any(len(nb[i]) > 1 for nb, i in zip(nbrs, idx)):
            used.add(unit.table_key(env))
    stored = store_forms(unit, grid, list(itertools.product(*(range(len(v)) for v in grid))), sup.outputs,
                         lambda o, idx: tuple(idx[k] for k in where[o]), tables, "inputs that agree on its support",
                         note_used)
    if isinstance(stored, str):
        return stored
    return SharedForms(sup, directions, names, grid, nbrs, where, stored, used)


def check_shared(forms: SharedForms | str, checker, run=None) -> SupportOutcome:
    """The grid check over the obligations `forms` enumerates per output (`where[o]` None: P[o] = 0
    everywhere, no obligation), each counted for the whole pairs above it (any adjacent values off
    S, less those with u = u' when a = b); `fallback` says why it does not apply (`forms` is that
    reason) or that an obligation failed: the per-pair walk then finds the first."""
    if isinstance(forms, str):
        return SupportOutcome(fallback=forms)
    grid, nbrs = forms.grid, forms.nbrs
    weight = [sum(len(js) for js in nb) for nb in nbrs]          # adjacent (a, b) per coordinate
    out = SupportOutcome(path=forms.path, used=forms.used, extra=forms.extra,
                         pairs=math.prod(weight) - math.prod(len(v) for v in grid))
    decided: dict = {}                                            # (id p, id p') -> Obligation
    for o in forms.sup.outputs:
        S = forms.where.get(o)
        if S is None:
            continue
        rest = math.prod(weight[k] for k in range(len(grid)) if k not in S)
        same = math.prod(len(grid[k]) for k in range(len(grid)) if k not in S)
        worst = worst_neighbour(o, S, forms.names, grid, nbrs, forms.directions)
        held = 0
        for p, q, count, diagonal, a in forms.sub_pairs(o):
            many = count * (rest - same * diagonal)
            if many == 0 or (p is ZERO and q is ZERO):   # o in neither table: no obligation
                continue
            if not out.settle(p, q, many, decided, checker, worst and (lambda: forms.corner(o, a, worst))):
                return SupportOutcome(fallback=f"output {o} fails at some pair: the per-pair walk finds the first")
            held += many
        if run is not None and ledger.active():
            run.record([(f"every pair of neighbouring inputs, output {o} ({held} obligations)", "holds")])
    out.distinct = len(decided)
    out.monotone = sum(1 for d in forms.directions.values() if d is not None)
    if run is not None:
        run.advance(out.pairs)
    return out
