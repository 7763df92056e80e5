"""The eps-DP grid check by output support with the queries' proved symmetry: tables per orbit.

Why it exists: the support path (`support_pairs`) still computes the output table of every input
(3^m of them) and walks 7^k sub-pairs per output.  For an online program `privacy.online.symmetry`
proves, per output o, groups of input positions whose queries may be permuted without changing
P_u[o], and the positions P_u[o] does not read.  So P_u[o] is a function of o's orbit key: per
group, the sorted grid values of u on it (positions off o's support left out).  Here:

* tables are computed only at one representative input per (output, orbit key) (the group's
  values sorted, positions off the support at the first grid value), and every output of every
  computed table is stored under its own key, so each table also re-checks the symmetry at the
  other outputs (a closed form that differs within an orbit hands the check back);
* an output's sub-pairs (u|S, u'|S) are walked as one multiset of coordinate pairs (a, b) per
  group, adjacent under L-inf, with the number of sequences it stands for (a multinomial) times
  the whole pairs above it off S, so pairs, obligations and decisions count exactly as the
  per-pair walk counts them; the monotone shortcut of `support_pairs` applies unchanged.

Soundness now rests on the symmetry proof (and on `semantics.output_support` only where the two
agree: a position the proof reads must be in the output's support), no longer on computing
every table.  Where the proof refuses, `support_pairs` computes every input as before; when an
obligation fails, the per-pair walk finds the first failure in pair order.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter

from dipc_plus.errors import UserError
from dipc_plus.privacy.dp.support_pairs import (SharedForms, SupportOutcome, check_shared,
                                                 neighbour_indices, store_forms, support_forms, supports_of,
                                                 worst_neighbour)
from dipc_plus.privacy.online.symmetry import Exchangeability
from dipc_plus.privacy.output_tables import ZERO
from dipc_plus.semantics.values import freeze_value

ORBIT_PATH = "output orbits"


def _placed(groups: tuple, key: tuple, size: int) -> tuple:
    """The tuple of `size` values with each group's positions given its part of the orbit key, in
    order (0 elsewhere): the orbit's representative."""
    out = [0] * size
    for g, part in zip(groups, key):
        for k, v in zip(g, part):
            out[k] = v
    return tuple(out)


class OrbitKeys:
    """Per output, its groups restricted to its support S: the key of an input (indices into the
    common grid, all positions) and of a sub-input (indices on S, in S's order).  A key's
    representative is `_placed(groups, key, n)` (on S: `_placed(on_s, key, len(S))`)."""

    def __init__(self, S: tuple, groups):
        inside = set(S)
        self.S = S
        parts = [tuple(k for k in g if k in inside) for g in (*groups.groups, groups.unread)]
        self.groups = [g for g in parts if g]
        self.on_s = [tuple(S.index(k) for k in g) for g in self.groups]

    def of_input(self, idx: tuple) -> tuple:
        return tuple(tuple(sorted(idx[k] for k in g)) for g in self.groups)

    def of_sub(self, a: tuple) -> tuple:
        return tuple(tuple(sorted(a[i] for i in g)) for g in self.on_s)

    def keys(self, values: int):
        """Every key: per group a multiset of grid indices of its size."""
        return itertools.product(*(itertools.combinations_with_replacement(range(values), len(g))
                                   for g in self.groups))


def pair_multisets(size: int, kinds: list) -> list:
    """The multisets of `size` coordinate pairs (a, b) from `kinds`: (a's sorted values, b's sorted
    values, how many sequences of pairs have this multiset, whether every pair has a = b)."""
    out = []
    for combo in itertools.combinations_with_replacement(range(len(kinds)), size):
        count = math.factorial(size) // math.prod(math.factorial(c) for c in Counter(combo).values())
        a = tuple(kinds[t][0] for t in combo)
        b = tuple(sorted(kinds[t][1] for t in combo))
        out.append((a, b, count, all(kinds[t][0] == kinds[t][1] for t in combo)))
    return out


def refusal_of_grid(grid: list) -> str | None:
    """Why orbit keys cannot be grid indices: the positions' grids are not one list of values."""
    first = [freeze_value(v) for v in grid[0]]
    if any([freeze_value(v) for v in g] != first for g in grid[1:]):
        return "the positions' grids differ (sorting within an orbit needs one grid)"
    return None


class Orbits(SharedForms):
    """The shared walk's forms keyed by orbit: per output its `OrbitKeys` (None: no path gives it)
    and its closed forms by orbit key; the sub-pairs are multisets of coordinate pairs per group."""
    path = ORBIT_PATH

    def __init__(self, sup, directions, names, grid, nb: list, keys: dict, stored: dict, tables_computed: int, used):
        super().__init__(sup, directions, names, grid, [nb] * len(grid),
                         {o: k.S for o, k in keys.items() if k is not None}, stored, used)
        self.keys = keys
        self.kinds = [(x, y) for x in range(len(grid[0])) for y in nb[x]]   # adjacent coordinate pairs
        self.multisets: dict = {}     # group size -> pair_multisets (shared by the outputs)
        self.extra.update(tables_computed=tables_computed, orbit_keys=sum(len(s) for s in stored.values()))

    def probability(self, o, idx: tuple):
        """P_u[o] at the input with grid indices `idx`, as the check reads it (ZERO: no path)."""
        k = self.keys[o]
        return ZERO if k is None else self.stored[o][k.of_input(idx)]

    def sub_pairs(self, o):
        """One multiset of coordinate pairs per group at a time: (p, q, how many sequences of
        sub-pairs it stands for, every pair has a = b, a's orbit key)."""
        forms, lists = self.stored[o], []
        for g in self.keys[o].groups:
            if len(g) not in self.multisets:
                self.multisets[len(g)] = pair_multisets(len(g), self.kinds)
            lists.append(self.multisets[len(g)])
        for combo in itertools.product(*lists):
            a = tuple(c[0] for c in combo)
            yield (forms[a], forms[tuple(c[1] for c in combo)], math.prod(c[2] for c in combo),
                   all(c[3] for c in combo), a)

    def corner(self, o, a, worst):
        k = self.keys[o]
        return self.stored[o][k.of_sub(worst(_placed(k.on_s, a, len(k.S))))]


def orbit_tables(claim, unit, supports: tuple, tables=None) -> Orbits | str:
    """The symmetry proof, then the tables at one representative per (output, orbit key) (`supports`:
    what `support_pairs.supports_of` found); or why the check must compute every input."""
    sup, directions, names, grid, where = supports
    try:
        proof = Exchangeability(unit.program)
    except UserError as err:
        return f"{err.location()}: {err.message}"
    if names != unit.program.input_names():   # the proof numbers positions as the program's inputs
        return "the unit's inputs are not the program's, in order"
    why = refusal_of_grid(grid)
    if why is not None:
        return why
    keys: dict = {}
    for o in sup.outputs:
        try:
            groups = proof.of(o)
        except UserError as err:   # too many ways to o: the proof is given up, not the check
            return f"{err.location()}: {err.message}"
        if groups is not None and not groups.read <= set(where[o]):
            return f"output {o}: the symmetry proof reads a query outside its support"
        keys[o] = None if groups is None else OrbitKeys(where[o], groups)
    stored = _store_orbit_tables(unit, grid, keys, tables)
    if isinstance(stored, str):
        return stored
    nb = neighbour_indices(grid[0], claim.adjacency.bound)
    # the tables some pair uses, as the per-pair walk counts them: counted, not listed where the count
    # applies (SVT with 15 queries: 3^15 keys reached the 8 GiB limit in a set)
    used = used_table_count(unit, grid, nb)
    used = used if used is not None else used_table_keys(unit, grid, nb)
    return Orbits(sup, directions, names, grid, nb, keys, *stored, used)


def check_by_sharing(claim, unit, checker, run=None, tables=None, decide_many=None) -> SupportOutcome:
    """The grid check of `unit` (the whole program) over output orbits where the queries' symmetry
    is proved, else by output support (`support_pairs`; the work record says why not orbits), both
    walked by `check_shared`.  `tables(envs)` yields the output tables of a list of inputs in order
    (default `tables_here`); `decide_many(pairs)` (with workers) decides a list of (p, p') at once
    into the checker's cache.  The supports and directions are found once, for both."""
    supports = supports_of(claim, unit)
    if isinstance(supports, str):
        return check_shared(supports, checker, run)
    orbits = orbit_tables(claim, unit, supports, tables)
    if isinstance(orbits, str):
        forms = support_forms(claim, unit, supports, tables)
        if not isinstance(forms, str):
            forms.extra["symmetry"] = orbits
        return check_shared(forms, checker, run)
    if decide_many is not None:
        _decide_corners(orbits, checker, decide_many)
    return check_shared(orbits, checker, run)


def _decide_corners(orbits: Orbits, checker, decide_many) -> None:
    """Put in the checker's cache, decided at once (on workers), the obligations the walk will ask
    at each orbit key's worst neighbour (monotone outputs), so that the walk finds them there; the
    counts are the walk's, whatever is decided here."""
    wanted: dict = {}
    for o, k in orbits.keys.items():
        worst = None if k is None else worst_neighbour(o, k.S, orbits.names, orbits.grid, orbits.nbrs,
                                                       orbits.directions)
        if worst is None:
            continue
        for key, p in orbits.stored[o].items():     # an input's key is also the key of its part on S
            c = orbits.corner(o, key, worst)
            if (id(p), id(c)) not in wanted and (p, c) not in checker.cache and checker.shortcut(p, c) is None:
                wanted[(id(p), id(c))] = (p, c)
    decide_many(list(wanted.values()))


def _store_orbit_tables(unit, grid, keys: dict, tables) -> tuple | str:
    """The tables at one representative per (output, orbit key), every output of each stored under
    its key (`support_pairs.store_forms`); (the store, the tables computed), or why the check must
    compute every input."""
    reps: dict = {}
    for k in keys.values():
        if k is not None:
            for key in k.keys(len(grid[0])):
                reps.setdefault(_placed(k.groups, key, len(grid)), None)
    stored = store_forms(unit, grid, list(reps), keys, lambda o, idx: keys[o] and keys[o].of_input(idx), tables,
                         "inputs of one orbit")
    return stored if isinstance(stored, str) else (stored, len(reps))


def used_table_count(unit, grid, nb) -> int | None:
    """How many distinct table keys (`unit.table_key`: the values on the table's input names, each
    symmetric run's sorted) the inputs with a moving value (one with a neighbour besides itself)
    have; None where the inputs are not laid out as this count assumes (then list them).

    A key fixes each run's multiset of values and each other kept name's value.  With a name the
    table does not read, every key is some moving input's (move that name); else a key is a moving
    input's iff its values include a moving one: all keys less those over the still values."""
    names = list(unit.inputs)
    values = grid[0]
    kept = set(unit.source.names)
    runs = [tuple(run.inputs) for run in unit.runs]
    in_runs = [x for run in runs for x in run]
    if (any(list(g) != list(values) for g in grid) or len(set(map(freeze_value, values))) != len(values)
            or len(set(in_runs)) != len(in_runs) or not set(in_runs) <= kept & set(names) or not kept <= set(names)):
        return None
    moving = sum(1 for js in nb if len(js) > 1)
    if not moving:
        return 0
    singles = len(kept) - len(in_runs)

    def keys(v: int) -> int:   # multisets of each run's values, times the other kept names' values
        return math.prod(math.comb(v + len(run) - 1, len(run)) for run in runs) * v ** singles
    total = keys(len(values))
    return total if len(kept) < len(names) else total - keys(len(values) - moving)


def used_table_keys(unit, grid, nb) -> set:
    """The table keys `used_table_count` counts, listed input by input (its reference)."""
    names = list(unit.inputs)
    moves = [len(js) > 1 for js in nb]   # per grid index: a neighbour besides itself
    if not any(moves):
        return set()
    return {unit.table_key({x: grid[j][i] for j, (x, i) in enumerate(zip(names, idx))})
            for idx in itertools.product(range(len(grid[0])), repeat=len(names)) if any(moves[i] for i in idx)}
