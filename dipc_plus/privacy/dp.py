"""Deciding differential privacy exactly, for every eps at once, and the tight privacy loss.

A `DPClaim` (privacy_claims) states, for every adjacent pair (u, u') of claimed
inputs, every output v and every eps of an interval,

    P[P(u) = v] <= e^budget * P[P(u') = v] + delta(eps).

Each (pair, output) is one sentence "for all eps in I: f(eps) >= 0" with
f = e^budget * p' + delta - p, an exact closed form, decided by `decide.decide`
(both directions of a pair are pairs).  A refutation carries (u, u', v, eps),
both probabilities as closed forms and certified decimals, and is re-checked by
an independent evaluation at high precision before it is reported; for a claim
at eps = ln r every probability is a rational and the comparison is exact.

The tight privacy loss is L(eps) = max ln(P[P(u)=v] / P[P(u')=v]) over adjacent
pairs and outputs: an upper envelope of exact ratios, computed piecewise with
certified breakpoints, with the pair and output attaining each piece; its
supremum ratio sup L(eps)/eps is exact when it is a limit at 0 or infinity
(checked by `decide`), else a certified enclosure.  For mechanisms whose
probabilities do not depend on eps the tight budget is ln of a rational.

Scale comes from `structure`: independent components (a pair differing in one
position only moves the component that reads it, so each component is checked
alone when delta = 0), kernel chains (shared prefixes between inputs) and
symmetric inputs (only canonical inputs and pair classes are evaluated).
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterable

from flint import arb

from dipc_plus.semantics import ir
from dipc_plus.exact.linear import LinForm, atom
from dipc_plus.exact.constraints import probability as constraints_probability
from dipc_plus.decision.decide import (CertificationError, working_precision, Interval, RealRoot, analyse, decide, dominant_term, recheck,
                     sign_at, simplest_rational, rational_gap)
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES, mul
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.privacy.claim import (Adjacency, DPClaim, EpsRange, EventInterval, _freeze, _same, constant_value,
                             fmt_q, ln_text, value_at_log)
from dipc_plus.semantics.distribution import output_distribution
from dipc_plus.semantics.structure import KernelChain, SymmetricRun, components, value_key

ZERO = ExpFrac.of(ExpPoly.ZERO)
ONE = ExpFrac.of(ExpPoly.ONE)
CHAIN_THRESHOLD = 12   # inputs to evaluate before a kernel chain pays off


# --------------------------------------------------------------------------- output tables


def outcome_table(dist, events: dict) -> dict:
    """{output key: exact probability} from a `semantics.Distribution`: finite outputs by
    value, real/integer outputs by the named event (an interval label)."""
    names = dist.names
    types = dist.types
    real_idx = [i for i, n in enumerate(names) if isinstance(types[n], (ir.RealT, ir.IntT))]
    table: dict = {}
    for outcome, entry in dist.entries.items():
        if not real_idx:
            key = tuple(outcome.values)
            table[key] = table[key] + entry.probability if key in table else entry.probability
            continue
        choices = [events[names[i]] for i in real_idx]
        for combo in itertools.product(*choices):
            extra, ok = [], True
            for i, ev in zip(real_idx, combo):
                v = outcome.values[i]
                if isinstance(v, LinForm) and not v.is_constant():
                    extra += _interval_atoms(v, ev)
                else:
                    c = v.const if isinstance(v, LinForm) else v
                    if c is None or not ev.contains(Fraction(c)):
                        ok = False
                        break
            if not ok:
                continue
            if extra:
                p = ExpFrac.of(constraints_probability(list(outcome.constraints) + extra, dist.noises))
                if p.is_zero():
                    continue
                p = mul(entry.weight, p)
            else:
                p = entry.probability
            key = tuple(outcome.values[i] if i not in real_idx else combo[real_idx.index(i)].label
                        for i in range(len(names)))
            table[key] = table[key] + p if key in table else p
    return {k: v for k, v in table.items() if not v.is_zero()}


def _interval_atoms(form: LinForm, ev: EventInterval) -> list:
    out = []
    if ev.lo is not None:
        out.append(atom(form, ">=" if ev.lo_closed else ">", LinForm.constant(ev.lo)))
    if ev.hi is not None:
        out.append(atom(form, "<=" if ev.hi_closed else "<", LinForm.constant(ev.hi)))
    return out


class TableSource:
    """Exact output tables of one (sub-)program, cached per input; a kernel chain
    (shared prefixes) when the program has one and many inputs are wanted."""

    def __init__(self, program: ir.Program, events: dict, *, use_chain: bool, expected: int,
                 max_states: int = DEFAULT_MAX_STATES):
        self.program = program
        self.events = {k: v for k, v in events.items() if k in dict(program.outputs)}
        self.max_states = max_states
        self.names = tuple(program.input_names())
        finite_out = all(isinstance(t, (ir.BoolT, ir.DomT)) for _, t in program.outputs)
        self.chain = KernelChain.build(program, max_states) if use_chain and finite_out else None
        self.use_chain = self.chain is not None and expected >= CHAIN_THRESHOLD
        self.cache: dict = {}
        self.chains_built = 0

    def __call__(self, env: dict) -> dict:
        key = tuple(_freeze_value(env[n]) for n in self.names)
        found = self.cache.get(key)
        if found is None:
            sub = {n: env[n] for n in self.names}
            if self.use_chain:
                found = {k: v for k, v in self.chain.distribution(sub).items() if not v.is_zero()}
            else:
                found = outcome_table(output_distribution(self.program, sub, max_states=self.max_states),
                                      self.events)
                self.chains_built += 1
            self.cache[key] = found
        return found

    def at_log(self, env: dict, r: Fraction) -> dict:
        """{output key: exact rational probability at eps = ln r} (None where it is irrational)."""
        key = (r,) + tuple(_freeze_value(env[n]) for n in self.names)
        found = self.cache.get(key)
        if found is None:
            sub = {n: env[n] for n in self.names}
            if self.use_chain:
                if getattr(self, "_point_chain", None) is None or self._point_r != r:
                    self._point_chain = self.chain.at_point(lambda f: _exact_or_fail(f, r))
                    self._point_r = r
                found = {k: v for k, v in self._point_chain.distribution(sub).items() if v != 0}
            else:
                found = {k: _exact_or_fail(v, r) for k, v in self(sub).items()}
            self.cache[key] = found
        return found

    @property
    def evaluations(self) -> int:
        return len(self.cache)

    @property
    def markov_chains(self) -> int:
        return self.chains_built + (self.chain.kernel_chains_built if self.chain is not None else 0)


def _exact_or_fail(f, r: Fraction) -> Fraction:
    v = value_at_log(f, r)
    if v is None:
        raise UserError(f"the probability {f} is not rational at eps = {ln_text(r)}",
                        hint="a claim at eps = ln(r) needs probabilities that are rational functions of e^eps "
                             "with integer exponents; give an eps interval instead")
    return v


def _freeze_value(v):
    if isinstance(v, bool) or isinstance(v, str):
        return (type(v).__name__, v)
    return ("num", Fraction(v))


# --------------------------------------------------------------------------- units of work


@dataclass
class Unit:
    """A (sub-)program checked on its own: the whole program, or one independent component."""
    label: str
    program: ir.Program
    inputs: tuple
    points: list
    grid: dict | None
    source: TableSource
    runs: list = field(default_factory=list)   # SymmetricRun
    symmetric_grid: bool = False
    all_points: object = None   # the claim, when `points` is its (possibly huge) input set

    def __post_init__(self):
        if self.points is None:
            self._claim = self.all_points
        else:
            self._claim = None

    def get_points(self) -> list:
        return self._claim.points if self._claim is not None else self.points

    @property
    def npoints(self) -> int:
        return self._claim.npoints if self._claim is not None else len(self.points)

    def table(self, env: dict) -> dict:
        return self.source(self.canon(env))

    def canon(self, env: dict) -> dict:
        if not self.runs:
            return env
        out = dict(env)
        for run in self.runs:
            vals = sorted((env[x] for x in run.inputs), key=value_key)
            out.update(zip(run.inputs, vals))
        return out

    def canon_pair(self, u: dict, w: dict) -> tuple[dict, dict]:
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


def plan(claim, structure: bool = True, *, max_states: int = DEFAULT_MAX_STATES, symmetry: bool = True) -> Plan:
    """Split the check into units (components when sound), find symmetric inputs
    (symmetry=False keeps components and kernel chains but evaluates every input)."""
    program = claim.program
    notes = []
    comps = None
    single = getattr(claim, "adjacency", None) is not None and claim.adjacency.single_coordinate
    # components need a grid: the pairs of a component are then exactly the projections of the
    # claim's pairs (with an explicit list, a projected pair may have no pair of the list above it)
    if structure and single and claim.delta_is_zero and claim.grid is not None:
        comps = components(program)
    if comps:
        units = []
        for k, c in enumerate(comps):
            grid = {n: claim.grid[n] for n in c.inputs} if claim.grid is not None else None
            pts, seen = [], set()
            source = claim.points if grid is None else \
                (dict(zip(c.inputs, combo)) for combo in itertools.product(*(grid[n] for n in c.inputs)))
            for u in source:
                sub = {n: u[n] for n in c.inputs}
                f = _freeze(sub)
                if f not in seen:
                    seen.add(f)
                    pts.append(sub)
            src = TableSource(c.program, claim.events, use_chain=structure, expected=len(pts), max_states=max_states)
            units.append(Unit(f"component {k + 1} ({', '.join(c.outputs)})", c.program, c.inputs, pts, grid, src))
        notes.append(f"independent components: {len(units)} (a pair differing in one position changes one "
                     "component; the others cancel in every ratio)")
        how = "components"
    else:
        src = TableSource(program, claim.events, use_chain=structure, expected=claim.npoints,
                          max_states=max_states)
        units = [Unit("whole program", program, tuple(program.input_names()), None, claim.grid, src,
                      all_points=claim)]
        how = "whole"
    if structure and symmetry:
        for unit in units:
            chain = unit.source.chain
            if chain is None or unit.npoints < CHAIN_THRESHOLD:
                continue
            runs = chain.symmetric_runs(unit.grid if unit.grid is not None else unit.get_points())
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


def _same_list(a, b) -> bool:
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))


# --------------------------------------------------------------------------- pairs


def canonical_points(unit: Unit) -> list:
    """Inputs up to the symmetry (all inputs without one)."""
    if not unit.runs:
        if unit.grid is not None:
            names = list(unit.inputs)
            return [dict(zip(names, c)) for c in itertools.product(*(unit.grid[n] for n in names))]
        return unit.get_points()
    if unit.grid is not None and unit.symmetric_grid:
        in_run = {x for run in unit.runs for x in run.inputs}
        others = [n for n in unit.inputs if n not in in_run]
        parts = []
        for run in unit.runs:
            vals = unit.grid[run.inputs[0]]
            parts.append([dict(zip(run.inputs, c)) for c in itertools.combinations_with_replacement(vals, len(run.inputs))])
        for n in others:
            parts.append([{n: v} for v in unit.grid[n]])
        out = []
        for combo in itertools.product(*parts):
            env = {}
            for d in combo:
                env.update(d)
            out.append({n: env[n] for n in unit.inputs})
        return out
    seen, out = set(), []
    for u in unit.get_points():
        c = unit.canon(u)
        f = _freeze(c)
        if f not in seen:
            seen.add(f)
            out.append(c)
    return out


def unit_pairs(unit: Unit, adjacency: Adjacency, claim_pairs=None) -> list:
    """Ordered adjacent pairs (u, u') of the unit's inputs, one per symmetry class."""
    seen: set = set()
    out: list = []

    def add(u, w):
        a, b = unit.canon_pair(u, w)
        key = (_freeze(a), _freeze(b))
        if key not in seen:
            seen.add(key)
            out.append((a, b))

    if adjacency.kind == "pairs":
        for u, w in claim_pairs or adjacency.pairs:
            add({n: u[n] for n in unit.inputs}, {n: w[n] for n in unit.inputs})
            add({n: w[n] for n in unit.inputs}, {n: u[n] for n in unit.inputs})
        return out
    if unit.grid is not None and (not unit.runs or unit.symmetric_grid):
        names = list(unit.inputs)
        for u in canonical_points(unit):
            for w in _grid_neighbours(u, names, unit.grid, adjacency):
                add(u, w)
        return out
    pts = unit.get_points()
    for u in pts:
        for w in pts:
            if adjacency.adjacent(u, w):
                add(u, w)
    return out


def _grid_neighbours(u: dict, names: list, grid: dict, adjacency: Adjacency) -> Iterable[dict]:
    if adjacency.single_coordinate:
        for n in names:
            for b in grid[n]:
                if not _same(b, u[n]) and adjacency.coordinate_ok(u[n], b):
                    w = dict(u)
                    w[n] = b
                    yield w
        return
    # linf / l1: every position may move
    options = []
    for n in names:
        opts = []
        for b in grid[n]:
            from dipc_plus.privacy.claim import _coord_distance
            d = _coord_distance(u[n], b)
            if d is not None and d <= adjacency.bound:
                opts.append((b, d))
        options.append(opts)
    for combo in itertools.product(*options):
        if all(_same(b, u[n]) for (b, _), n in zip(combo, names)):
            continue
        if adjacency.kind == "l1" and sum(d for _, d in combo) > adjacency.bound:
            continue
        yield {n: b for (b, _), n in zip(combo, names)}


# --------------------------------------------------------------------------- a point on a grid: min filters


FILTER_LIMIT = 2_000_000


def filter_applies(claim, unit: "Unit") -> bool:
    """At eps = ln r every probability is a rational, so 'for every neighbour u' of u' becomes
    'against the smallest neighbouring probability', a separable min filter on the grid."""
    if not claim.eps.is_log_point or unit.grid is None:
        return False
    if claim.adjacency.kind not in ("linf", "one-position", "hamming"):
        return False
    return math.prod(len(unit.grid[n]) for n in unit.inputs) <= FILTER_LIMIT


def _axis_neighbours(values: list, adjacency) -> list:
    from dipc_plus.privacy.claim import _coord_distance
    out = []
    for a in values:
        js = []
        for j, b in enumerate(values):
            if adjacency.kind == "hamming":
                js.append(j)
            else:
                d = _coord_distance(a, b)
                if d is not None and d <= adjacency.bound:
                    js.append(j)
        out.append(js)
    return out


def _axis_min(A, axis: int, nbrs: list):
    import numpy as np
    parts = []
    for js in nbrs:
        parts.append(np.minimum.reduce([A.take(j, axis=axis) for j in js]))
    return np.stack(parts, axis=axis)


def point_arrays(claim, unit: "Unit"):
    """(output keys, {key: array of exact probabilities over the grid}, axis names)."""
    import numpy as np
    names = list(unit.inputs)
    shape = tuple(len(unit.grid[n]) for n in names)
    r = claim.eps.log_of
    tables = {}
    keys: list = []
    seen = set()
    for idx in itertools.product(*(range(k) for k in shape)):
        env = {n: unit.grid[n][i] for n, i in zip(names, idx)}
        T = unit.source.at_log(unit.canon(env), r)
        tables[idx] = T
        for k in T:
            if k not in seen:
                seen.add(k)
                keys.append(k)
    arrays = {}
    for k in keys:
        A = np.empty(shape, dtype=object)
        for idx, T in tables.items():
            A[idx] = T.get(k, Fraction(0))
        arrays[k] = A
    return keys, arrays, names


def neighbour_minimum(A, unit: "Unit", names: list, adjacency):
    """M[u] = min over u's neighbours w (u itself included) of A[w]."""
    import numpy as np
    nb = [_axis_neighbours(unit.grid[n], adjacency) for n in names]
    if adjacency.kind == "linf":
        M = A
        for axis in range(len(names)):
            M = _axis_min(M, axis, nb[axis])
        return M
    mins = [_axis_min(A, axis, nb[axis]) for axis in range(len(names))]
    return np.minimum.reduce(mins) if len(mins) > 1 else mins[0]


def _argmin_neighbour(A, idx: tuple, unit: "Unit", names: list, adjacency):
    """A neighbour index of idx with the smallest A (brute force around one point)."""
    nb = [_axis_neighbours(unit.grid[n], adjacency) for n in names]
    best = None
    if adjacency.kind == "linf":
        cands = itertools.product(*(nb[a][idx[a]] for a in range(len(names))))
    else:
        cands = (idx[:a] + (j,) + idx[a + 1:] for a in range(len(names)) for j in nb[a][idx[a]])
    for c in cands:
        if c == idx:
            continue
        if best is None or A[c] < A[best]:
            best = c
    return best


def _env_at(unit: "Unit", names: list, idx: tuple) -> dict:
    return {n: unit.grid[n][i] for n, i in zip(names, idx)}


def point_filter_check(claim, unit: "Unit", checker: "Checker"):
    """(pairs, obligations, failing (u, w, v) or None) for a claim at eps = ln r."""
    import numpy as np
    keys, arrays, names = point_arrays(claim, unit)
    E, d = checker.E_at, checker.delta_at
    n = int(np.prod(A_shape(arrays, names, unit))) if arrays else 0
    for k in keys:
        A = arrays[k]
        M = neighbour_minimum(A, unit, names, claim.adjacency)
        for idx in np.ndindex(A.shape):
            if A[idx] > E * M[idx] + d:
                w = _argmin_neighbour(A, idx, unit, names, claim.adjacency)
                if A[idx] > E * A[w] + d:
                    return n, n * len(keys), (_env_at(unit, names, idx), _env_at(unit, names, w), k)
    return n, n * len(keys), None


def A_shape(arrays, names, unit):
    return tuple(len(unit.grid[n]) for n in names)


def point_filter_loss(claim, unit: "Unit"):
    """(best ratio or None for infinite, u, w, key) over the grid at eps = ln r."""
    import numpy as np
    keys, arrays, names = point_arrays(claim, unit)
    best = None
    for k in keys:
        A = arrays[k]
        M = neighbour_minimum(A, unit, names, claim.adjacency)
        for idx in np.ndindex(A.shape):
            a = A[idx]
            if a == 0:
                continue
            m = M[idx]
            if m == 0:
                w = _argmin_neighbour(A, idx, unit, names, claim.adjacency)
                return None, _env_at(unit, names, idx), _env_at(unit, names, w), k
            ratio = a / m
            if best is None or ratio > best[0]:
                best = (ratio, idx, k)
    ratio, idx, k = best
    A = arrays[k]
    w = _argmin_neighbour(A, idx, unit, names, claim.adjacency)
    if w is None or A[idx] / A[w] != ratio:  # the minimum was u itself: ratio 1
        w = w
    return ratio, _env_at(unit, names, idx), _env_at(unit, names, w), k


# --------------------------------------------------------------------------- one obligation


@dataclass
class Obligation:
    holds: bool
    witness: object = None     # Fraction eps, or 'ln' marker for a log point
    how: str = ""


class Checker:
    """Decides  p <= e^budget * q + delta  on the claim's eps range, with caching."""

    def __init__(self, claim: DPClaim):
        self.claim = claim
        self.eps = claim.eps
        self.budget = claim.budget
        self.E = ExpFrac.of(claim.budget.exp_value())
        self.delta = ExpFrac.of(claim.delta)
        self.cache: dict = {}
        self.decisions = 0
        if self.eps.is_log_point:
            r = self.eps.log_of
            self.E_at = claim.budget.exp_at_log(r)
            if self.E_at is None:
                raise UserError(f"e^({claim.budget}) is not rational at {self.eps}",
                                hint="with eps = ln(r) use an integer multiple of eps in the budget")
            self.delta_at = value_at_log(self.delta, r)
            self.delta_nonneg = self.delta_at >= 0
        else:
            self.delta_nonneg = self.delta.is_zero() or bool(decide(self.delta, ">=", self.eps.interval))

    def exact_at(self, f, what: str) -> Fraction:
        v = value_at_log(f, self.eps.log_of)
        if v is None:
            raise UserError(f"the {what} {f} is not rational at {self.eps}",
                            hint="a claim at eps = ln(r) needs probabilities that are rational functions of "
                                 "e^eps with integer exponents; give an eps interval instead")
        return v

    def check(self, p, q) -> Obligation:
        key = (p, q)
        found = self.cache.get(key)
        if found is not None:
            return found
        found = self._check(p, q)
        self.cache[key] = found
        return found

    def _check(self, p, q) -> Obligation:
        p, q = ExpFrac.of(p), ExpFrac.of(q)
        if self.eps.is_log_point:
            pv, qv = self.exact_at(p, "probability"), self.exact_at(q, "probability")
            ok = pv <= self.E_at * qv + self.delta_at
            return Obligation(ok, None if ok else self.eps.log_of, "exact rationals at the point")
        if p.is_zero() and self.delta_nonneg:
            return Obligation(True, how="p = 0")
        if p == q and self.delta_nonneg and self.budget.factor >= 1:
            return Obligation(True, how="p = p'")
        pc, qc, dc = constant_value(p), constant_value(q), constant_value(self.delta)
        I = self.eps.interval
        if pc is not None and qc is not None and dc is not None and self.budget.k == 0:
            ok = pc <= self.budget.factor * qc + dc
            return Obligation(ok, None if ok else simplest_rational(I.lo, I.hi, I.lo_closed, I.hi_closed),
                              "exact rationals")
        f = self.E * q + self.delta - p
        self.decisions += 1
        d = decide(f, ">=", I)
        if d.holds:
            return Obligation(True, how="decided")
        w = d.witness
        if w is None:  # cannot happen for >= (the failure set is open) but stay safe
            root = d.failure.root
            w = simplest_rational(root.lo, root.hi, True, True) if root is not None else I.lo
        return Obligation(False, w, "decided")


# --------------------------------------------------------------------------- results


@dataclass
class Counterexample:
    """(u, u', v, eps) with P[P(u)=v] > e^budget P[P(u')=v] + delta(eps), re-checked."""
    input: dict
    neighbour: dict
    output: dict
    eps: object                 # Fraction, or ('ln', r)
    p: object                   # ExpFrac
    q: object
    p_at: object                # arb ball or Fraction
    q_at: object
    bound_at: object            # e^budget * q + delta at eps
    ratio_at: object
    program: ir.Program | None = None
    component: str = ""

    def eps_text(self) -> str:
        if isinstance(self.eps, tuple):
            return ln_text(self.eps[1])
        return fmt_q(self.eps)

    def to_json(self) -> dict:
        return {
            "input": user_env(self.program, self.input),
            "neighbour": user_env(self.program, self.neighbour),
            "output": user_outputs(self.program, self.output),
            "eps": self.eps_text(),
            "probability": str(self.p),
            "neighbour_probability": str(self.q),
            "probability_value": _num_text(self.p_at),
            "neighbour_probability_value": _num_text(self.q_at),
            "bound_value": _num_text(self.bound_at),
            "ratio_value": _num_text(self.ratio_at),
        }


def _num_text(x) -> str:
    if isinstance(x, Fraction):
        return fmt_q(x)
    if x is None:
        return "inf"
    return x.str(20, radius=True)


def user_value(v):
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, Fraction):
        return int(v) if v.denominator == 1 else fmt_q(v)
    return str(v)


def user_env(program: ir.Program | None, env: dict) -> dict:
    """{'x[1]': 0, 'x[2]': 1} -> {'x': [0, 1]} (arrays back together), JSON-ready values."""
    if program is None:
        return {k: user_value(v) for k, v in env.items()}
    out: dict = {}
    done = set()
    for name, elems in program.arrays.items():
        if all(e in env for e in elems):
            out[name] = [user_value(env[e]) for e in elems]
            done |= set(elems)
    for k, v in env.items():
        if k not in done:
            out[k] = user_value(v)
    return out


def user_outputs(program: ir.Program | None, out: dict) -> dict:
    return user_env(program, out)


def show_outputs(out: dict, program: ir.Program | None = None) -> str:
    return show_env(out, program)


def show_env(env: dict, program: ir.Program | None = None) -> str:
    d = user_env(program, env)
    parts = []
    for k, v in d.items():
        if isinstance(v, list):
            parts.append(f"{k}=[{', '.join(_show(x) for x in v)}]")
        else:
            parts.append(f"{k}={_show(v)}")
    return ", ".join(parts)


def _show(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


@dataclass
class PrivacyResult:
    claim: DPClaim
    verified: bool
    counterexample: Counterexample | None
    pairs: int
    obligations: int
    decisions: int
    seconds: float
    plan: Plan
    evaluations: int = 0
    markov_chains: int = 0

    @property
    def verdict(self) -> str:
        return "verified" if self.verified else "refuted"

    def to_json(self) -> dict:
        c = self.claim
        out = {
            "verdict": self.verdict,
            "kind": "dp",
            "claim": c.file,
            "program": c.program.name,
            "program_path": c.program.source,
            "params": {k: user_value(v) for k, v in c.program.params.items()},
            "statement": c.describe(),
            "budget": str(c.budget),
            "delta": c.delta_text,
            "eps": str(c.eps),
            "adjacency": c.adjacency.kind,
            "inputs": len(c.points),
            "pairs_checked": self.pairs,
            "obligations": self.obligations,
            "decisions": self.decisions,
            "distributions": self.evaluations,
            "seconds": round(self.seconds, 3),
            "structure": self.plan.notes,
        }
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample.to_json()
        return out


# --------------------------------------------------------------------------- checking a claim


def check_dp(claim: DPClaim, *, structure: bool | None = None, symmetry: bool = True,
             max_states: int = DEFAULT_MAX_STATES) -> PrivacyResult:
    """Decide the claim exactly; the first failing (pair, output) in input order is returned
    as a re-checked counterexample."""
    t0 = time.perf_counter()
    use = claim.structure if structure is None else structure
    pl = plan(claim, use, max_states=max_states, symmetry=symmetry)
    checker = Checker(claim)
    pairs = obligations = 0
    for unit in pl.units:
        if filter_applies(claim, unit):
            n, m, bad = point_filter_check(claim, unit, checker)
            pairs += n
            obligations += m
            if bad is not None:
                u, w, v = bad
                cex = _counterexample(claim, pl, unit, u, w, v, claim.eps.log_of, checker)
                return _result(claim, False, cex, pairs, obligations, checker, t0, pl)
            continue
        for u, w in unit_pairs(unit, claim.adjacency):
            pairs += 1
            P, Q = unit.table(u), unit.table(w)
            for v in _keys(P, Q):
                obligations += 1
                p, q = P.get(v, ZERO), Q.get(v, ZERO)
                ob = checker.check(p, q)
                if not ob.holds:
                    cex = _counterexample(claim, pl, unit, u, w, v, ob.witness, checker)
                    return _result(claim, False, cex, pairs, obligations, checker, t0, pl)
    return _result(claim, True, None, pairs, obligations, checker, t0, pl)


def _result(claim, ok, cex, pairs, obligations, checker, t0, pl) -> PrivacyResult:
    return PrivacyResult(claim, ok, cex, pairs, obligations, checker.decisions, time.perf_counter() - t0, pl,
                         sum(u.source.evaluations for u in pl.units),
                         sum(u.source.markov_chains for u in pl.units))


def _keys(P: dict, Q: dict) -> list:
    keys = list(P)
    keys += [k for k in Q if k not in P]
    return keys


def _lift(claim: DPClaim, pl: Plan, unit: Unit, u: dict, w: dict, v: tuple):
    """Full inputs, output and exact probabilities for a unit-level witness."""
    program = claim.program
    out_names = program.output_names()
    if pl.how == "whole":
        P, Q = unit.table(u), unit.table(w)
        return dict(u), dict(w), dict(zip(out_names, v)), P.get(v, ZERO), Q.get(v, ZERO)
    base = claim.first_point()
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


def _counterexample(claim: DPClaim, pl: Plan, unit: Unit, u, w, v, witness, checker: Checker) -> Counterexample:
    full_u, full_w, outputs, p, q = _lift(claim, pl, unit, u, w, v)
    p, q = ExpFrac.of(p), ExpFrac.of(q)
    if claim.eps.is_log_point:
        r = claim.eps.log_of
        pv, qv = checker.exact_at(p, "probability"), checker.exact_at(q, "probability")
        bound = checker.E_at * qv + checker.delta_at
        if not pv > bound:
            raise CertificationError("the exact re-check of the counterexample failed")
        ratio = pv / qv if qv else None
        return Counterexample(full_u, full_w, outputs, ("ln", r), p, q, pv, qv, bound, ratio, claim.program,
                              unit.label if pl.how == "components" else "")
    eps = Fraction(witness)
    f = checker.E * q + checker.delta - p
    if recheck(f, eps, ">="):
        raise CertificationError(f"decide.recheck does not confirm the counterexample at eps = {eps}")
    p_at, q_at, bound_at = independent_values(p, q, checker, eps)
    with working_precision(256):
        ratio = None if q.is_zero() else (p_at / q_at)
    return Counterexample(full_u, full_w, outputs, eps, p, q, p_at, q_at, bound_at, ratio, claim.program,
                          unit.label if pl.how == "components" else "")


def independent_values(p, q, checker: Checker, eps: Fraction, prec: int = 256):
    """p(eps), q(eps) and the bound e^budget q + delta as arb balls, evaluated term by term
    at rising precision (no factoring, no root isolation) until p > bound is certified."""
    while prec <= 1 << 14:
        with working_precision(prec):
            p_at = ExpFrac.of(p).arb_value(eps, prec)
            q_at = ExpFrac.of(q).arb_value(eps, prec)
            e_at = checker.E.arb_value(eps, prec)
            d_at = checker.delta.arb_value(eps, prec)
            bound = e_at * q_at + d_at
        if p_at > bound:
            return p_at, q_at, bound
        if p_at <= bound:
            raise CertificationError(f"independent evaluation contradicts the counterexample at eps = {eps}")
        prec *= 2
    raise CertificationError(f"cannot separate p and the bound at eps = {eps}")


# --------------------------------------------------------------------------- the tight privacy loss


@dataclass
class Candidate:
    """One likelihood ratio p/p' with the pair and output it comes from."""
    ratio: ExpFrac
    input: dict
    neighbour: dict
    output: dict
    p: ExpFrac
    q: ExpFrac


@dataclass
class LossPiece:
    lo: object            # Fraction or RealRoot
    hi: object            # Fraction, RealRoot or None (inf)
    candidate: Candidate

    def where(self) -> str:
        return f"({_bname(self.lo)}, {_bname(self.hi)})"


@dataclass
class SupRatio:
    """sup over eps of L(eps)/eps: exact (value) or enclosed in [lo, hi]."""
    value: Fraction | None = None
    lo: Fraction | None = None
    hi: Fraction | None = None
    infinite: bool = False
    how: str = ""
    at_eps: Fraction | None = None
    candidate: Candidate | None = None

    def text(self) -> str:
        if self.infinite:
            return "inf"
        if self.value is not None:
            return fmt_q(self.value)
        return f"in [{_dec(self.lo)}, {_dec(self.hi)}]"


def _dec(x: Fraction, digits: int = 8) -> str:
    return f"{float(x):.{digits}g}"


@dataclass
class LossResult:
    claim: DPClaim
    infinite: Candidate | None = None    # p > 0 = p'
    constant: Fraction | None = None     # eps-independent: max ratio (tight eps = ln of it)
    constant_candidate: Candidate | None = None
    point_ratio: Fraction | None = None  # at eps = ln r: the max ratio there
    point_candidate: Candidate | None = None
    pieces: list = field(default_factory=list)
    sup: SupRatio | None = None
    candidates: int = 0
    distinct: int = 0
    pairs: int = 0
    seconds: float = 0.0
    plan: Plan | None = None

    def loss_text(self) -> str:
        if self.infinite is not None:
            return "inf"
        if self.point_ratio is not None:
            return ln_text(self.point_ratio)
        if self.constant is not None:
            return ln_text(self.constant)
        if len(self.pieces) == 1:
            return loss_expr(self.pieces[0].candidate.ratio)
        return "piecewise: " + "; ".join(f"{loss_expr(pc.candidate.ratio)} on {pc.where()}" for pc in self.pieces)

    def to_json(self) -> dict:
        c = self.claim
        out = {"program": c.program.source, "claim": c.file, "eps": str(c.eps), "adjacency": c.adjacency.kind,
               "pairs": self.pairs, "ratios": self.candidates, "distinct_ratios": self.distinct,
               "seconds": round(self.seconds, 3)}
        if self.infinite is not None:
            out["loss"] = "inf"
            out["witness"] = _cand_json(c.program, self.infinite)
            return out
        if self.point_ratio is not None:
            out["loss"] = ln_text(self.point_ratio)
            out["loss_decimal"] = _dec(Fraction(math.log(self.point_ratio)).limit_denominator(10 ** 12), 12) \
                if self.point_ratio > 0 else "-inf"
            out["witness"] = _cand_json(c.program, self.point_candidate)
            return out
        if self.constant is not None:
            out["loss"] = ln_text(self.constant)
            out["tight_eps"] = ln_text(self.constant)
            out["witness"] = _cand_json(c.program, self.constant_candidate)
            return out
        out["loss"] = [{"from": _bname(pc.lo), "to": _bname(pc.hi), "ratio": str(pc.candidate.ratio), "loss": loss_expr(pc.candidate.ratio),
                        "witness": _cand_json(c.program, pc.candidate)} for pc in self.pieces]
        if self.sup is not None:
            out["sup_loss_over_eps"] = self.sup.text()
        return out


def loss_expr(r) -> str:
    """ln of an exact ratio, simplified when it is c*e^(a*eps): 'a*eps + ln(c)'."""
    r = ExpFrac.of(r)
    if r.den.is_constant():
        mons = list(r.num.monomials())
        if len(mons) == 1 and mons[0][1] == 0 and mons[0][0] > 0:
            c, _, a = mons[0]
            c = c / r.den.constant_value()
            parts = []
            if a:
                parts.append("eps" if a == 1 else f"{fmt_q(a)}*eps")
            if c != 1 or not parts:
                parts.append(ln_text(c))
            return " + ".join(parts).replace("+ -", "- ")
    return f"ln({r})"


def _cand_json(program, cand: Candidate) -> dict:
    return {"input": user_env(program, cand.input), "neighbour": user_env(program, cand.neighbour),
            "output": user_outputs(program, cand.output), "probability": str(cand.p),
            "neighbour_probability": str(cand.q)}


def _bname(b) -> str:
    if b is None:
        return "inf"
    if isinstance(b, RealRoot):
        return b.short()
    return fmt_q(b)


def privacy_loss(claim: DPClaim, *, structure: bool | None = None, sup: bool = True, symmetry: bool = True,
                 max_states: int = DEFAULT_MAX_STATES) -> LossResult:
    """The exact tight loss L(eps) over the claim's pairs and outputs."""
    t0 = time.perf_counter()
    use = claim.structure if structure is None else structure
    pl = plan(claim, use, max_states=max_states, symmetry=symmetry)
    res = LossResult(claim, plan=pl)
    cands: dict = {}
    npairs = nratios = 0
    if claim.eps.is_log_point and all(filter_applies(claim, unit) for unit in pl.units):
        best = None
        for unit in pl.units:
            ratio, u, w, v = point_filter_loss(claim, unit)
            npairs += math.prod(len(unit.grid[n]) for n in unit.inputs)
            if ratio is None:
                fu, fw, out, pp, qq = _lift(claim, pl, unit, u, w, v)
                res.infinite = Candidate(None, fu, fw, out, pp, qq)
                res.pairs, res.seconds = npairs, time.perf_counter() - t0
                return res
            if best is None or ratio > best[0]:
                best = (ratio, unit, u, w, v)
        ratio, unit, u, w, v = best
        fu, fw, out, pp, qq = _lift(claim, pl, unit, u, w, v)
        res.point_ratio = ratio
        res.point_candidate = Candidate(ExpFrac.of(pp) / ExpFrac.of(qq), fu, fw, out, ExpFrac.of(pp), ExpFrac.of(qq))
        res.pairs, res.seconds = npairs, time.perf_counter() - t0
        return res
    for unit in pl.units:
        for u, w in unit_pairs(unit, claim.adjacency):
            npairs += 1
            P, Q = unit.table(u), unit.table(w)
            for v, p in P.items():
                if p.is_zero():
                    continue
                nratios += 1
                q = Q.get(v, ZERO)
                if q.is_zero():
                    fu, fw, out, pp, qq = _lift(claim, pl, unit, u, w, v)
                    res.infinite = Candidate(None, fu, fw, out, pp, qq)
                    res.pairs, res.candidates, res.distinct = npairs, nratios, len(cands)
                    res.seconds = time.perf_counter() - t0
                    return res
                r = p / q
                if r not in cands:
                    cands[r] = (unit, u, w, v)
    res.pairs, res.candidates, res.distinct = npairs, nratios, len(cands)

    def make(r, info):
        unit, u, w, v = info
        fu, fw, out, pp, qq = _lift(claim, pl, unit, u, w, v)
        return Candidate(r, fu, fw, out, ExpFrac.of(pp), ExpFrac.of(qq))

    if not cands:
        raise UserError("no pair of adjacent inputs to compare", hint="check the inputs and the adjacency")
    if claim.eps.is_log_point:
        rr = claim.eps.log_of
        best = None
        for r, info in cands.items():
            val = value_at_log(r, rr)
            if val is None:
                raise UserError(f"the ratio {r} is not rational at {claim.eps}",
                                hint="give an eps interval instead")
            if best is None or val > best[0]:
                best = (val, r, info)
        res.point_ratio = best[0]
        res.point_candidate = make(best[1], best[2])
    elif all(constant_value(r) is not None for r in cands):
        best = max(cands, key=lambda r: constant_value(r))
        res.constant = constant_value(best)
        res.constant_candidate = make(best, cands[best])
    else:
        pieces = envelope([(r, info) for r, info in cands.items()], claim.eps.interval)
        res.pieces = [LossPiece(lo, hi, make(r, info)) for lo, hi, r, info in pieces]
        if sup:
            res.sup = sup_ratio(res.pieces, claim.eps.interval)
    res.seconds = time.perf_counter() - t0
    return res


# --------------------------------------------------------------------------- upper envelopes


def _samples(I: Interval) -> list[Fraction]:
    base = [Fraction(1, 16), Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4),
            Fraction(8), Fraction(16)]
    if I.is_point():
        return [I.lo]
    out = [x for x in base if I.contains(x)]
    hi = I.hi if I.hi is not None else max(I.lo * 4, Fraction(16))
    for k in range(1, 8):
        x = I.lo + (hi - I.lo) * Fraction(k, 8)
        if I.contains(x):
            out.append(x)
    return sorted(set(out)) or [simplest_rational(I.lo, I.hi, I.lo_closed, I.hi_closed)]


def _argmax_at(funcs: list, x: Fraction) -> int:
    """Index of the largest function at the rational x (certified: compares by exact signs)."""
    best = 0
    for i in range(1, len(funcs)):
        if sign_at(funcs[i] - funcs[best], x) > 0:
            best = i
    return best


def envelope(cands: list, I: Interval) -> list:
    """Upper envelope of exact functions on I: [(lo, hi, function, info)], maximal pieces.

    Members are pruned first: a function dominated on all of I by a kept one (decided
    exactly) is dropped; the kept set's pairwise crossings cut I into pieces, each with a
    certified maximum at a rational sample point."""
    funcs = [ExpFrac.of(r) for r, _ in cands]
    if len(funcs) == 1:
        return [(I.lo, I.hi, cands[0][0], cands[0][1])]
    samples = _samples(I)
    keep: list[int] = []
    for x in samples:
        i = _argmax_at(funcs, x)
        if i not in keep:
            keep.append(i)
    for j in range(len(funcs)):
        if j in keep:
            continue
        dominated = False
        for i in keep:
            if decide(funcs[i] - funcs[j], ">=", I).holds:
                dominated = True
                break
        if not dominated:
            keep.append(j)
    if len(keep) == 1:
        i = keep[0]
        return [(I.lo, I.hi, cands[i][0], cands[i][1])]
    roots = []
    for a, b in itertools.combinations(keep, 2):
        roots += analyse(funcs[a] - funcs[b], I).roots
    cuts = _sorted_breakpoints(roots)
    bounds = [I.lo] + cuts + [I.hi]
    pieces = []
    for left, right in zip(bounds, bounds[1:]):
        if right is not None and not isinstance(left, RealRoot) and not isinstance(right, RealRoot) and left == right:
            continue
        a, b = rational_gap(left, right)
        x = simplest_rational(a, b)
        sub = [funcs[i] for i in keep]
        i = keep[_argmax_at(sub, x)]
        if pieces and pieces[-1][2] is funcs[i]:
            pieces[-1][1] = right
        else:
            pieces.append([left, right, funcs[i], i])
    return [(lo, hi, cands[i][0], cands[i][1]) for lo, hi, _, i in pieces]


def _sorted_breakpoints(roots: list, max_rounds: int = 60) -> list:
    """Distinct zeros in increasing order with disjoint enclosures; enclosures that still
    overlap after many refinements are taken as one zero (common crossing points)."""
    roots = sorted(roots, key=lambda r: (r.lo, r.hi))
    out: list = []
    for r in roots:
        if out:
            last = out[-1]
            rounds = 0
            while last.hi >= r.lo and rounds < max_rounds and not (last.exact is not None and r.exact is not None):
                last.refine()
                r.refine()
                rounds += 1
            if last.hi >= r.lo:
                if last.exact is not None and r.exact is not None and last.exact != r.exact:
                    pass
                else:
                    continue  # the same point
        out.append(r)
    out.sort(key=lambda r: (r.lo, r.hi))
    return out


# --------------------------------------------------------------------------- sup L(eps)/eps


def _value_at_zero(h: ExpPoly) -> Fraction:
    total = Fraction(0)
    for poly in h.terms.values():
        cs = poly.coeffs()
        if cs:
            total += Fraction(int(cs[0].p), int(cs[0].q))
    return total


def _limits(r: ExpFrac, I: Interval):
    """lim ln r / eps at the ends of I that are 0 or inf: (at 0 or None, at inf or None);
    values are Fractions or +/-inf floats."""
    at0 = at_inf = None
    if I.lo == 0:
        n0, d0 = _value_at_zero(r.num), _value_at_zero(r.den)
        if d0 != 0:
            v = n0 / d0
            if v > 1:
                at0 = math.inf
            elif v < 1:
                at0 = -math.inf
            else:
                dn = _value_at_zero(r.num.derivative())
                dd = _value_at_zero(r.den.derivative())
                at0 = (dn * d0 - n0 * dd) / (d0 * d0)
    if I.hi is None:
        _, _, qn = dominant_term(r.num)
        _, _, qd = dominant_term(r.den)
        at_inf = qn - qd
    return at0, at_inf


def _bounded_by(r: ExpFrac, k: Fraction, I: Interval) -> bool:
    """Is r(eps) <= e^(k eps) on all of I (decided exactly)?"""
    return decide(ExpFrac.of(ExpPoly.exp(k)) - r, ">=", I).holds


def sup_ratio(pieces: list, I: Interval, tolerance: Fraction = Fraction(1, 10 ** 5)) -> SupRatio:
    """sup over eps in I of L(eps)/eps, L = ln of the envelope (= max over its members)."""
    best: SupRatio | None = None
    for piece in pieces:
        s = _sup_one(piece.candidate, I, tolerance)
        if s.infinite:
            return s
        key = s.value if s.value is not None else s.hi
        bkey = None if best is None else (best.value if best.value is not None else best.hi)
        if best is None or key > bkey:
            best = s
    return best


def _sup_one(cand: Candidate, I: Interval, tolerance: Fraction) -> SupRatio:
    r = ExpFrac.of(cand.ratio)
    at0, at_inf = _limits(r, I)
    if at0 == math.inf:
        return SupRatio(infinite=True, how="L(eps)/eps -> inf as eps -> 0 (the ratio exceeds 1 at eps = 0)",
                        candidate=cand)
    exact = [x for x in (at0, at_inf) if isinstance(x, Fraction)]
    if exact:
        k = max(exact)
        # e^(k eps) in the sentence: its denominator joins the others (t = e^(eps/L)); a large L
        # makes the polynomial in t too big to be worth it, and the enclosure below is used
        L = math.lcm(k.denominator, r.num.denominator_lcm(), r.den.denominator_lcm())
        if L <= 48 and _bounded_by(r, k, I):
            where = "eps -> 0" if k == at0 else "eps -> inf"
            return SupRatio(value=k, how=f"exact: the limit as {where}, an upper bound on I (decided)",
                            candidate=cand)
    # interior maximum: a certified enclosure by interval branch and bound
    lo_k, at, hi_k = _sup_bnb(r, I, tolerance)
    return SupRatio(lo=lo_k, hi=hi_k, how=f"certified enclosure (interval branch and bound; the maximum "
                                          f"is near eps = {float(at):.6g})", at_eps=at, candidate=cand)


def _ball(f, x, prec: int = 128) -> arb:
    with working_precision(prec):
        return ExpFrac.of(f).arb_value(x, prec)


def _box(a: Fraction, b: Fraction, prec: int = 128) -> arb:
    with working_precision(prec):
        return arb(a.numerator) / arb(a.denominator) if a == b else \
            (arb(a.numerator) / arb(a.denominator)).union(arb(b.numerator) / arb(b.denominator))


def _g_upper(r: ExpFrac, a: Fraction, b: Fraction, dr: ExpFrac, prec: int = 128):
    """An upper bound of g = ln r(eps)/eps on [a, b] (0 < a) by the mean-value form
    g(m) + sup|g'| (b - a)/2 with g' = r'/(r eps) - ln r / eps^2; None when it is not finite."""
    with working_precision(prec):
        box = _box(a, b, prec)
        m = (a + b) / 2
        mb = _box(m, m, prec)
        rv, dv = ExpFrac.of(r).arb_value(box, prec), dr.arb_value(box, prec)
        rm = ExpFrac.of(r).arb_value(mb, prec)
        if not (rv > 0 and rm > 0):
            return None
        gm = rm.log() / mb
        gp = dv / (rv * box) - rv.log() / (box * box)
        bound = gm + gp.abs_upper() * (arb(b.numerator) / arb(b.denominator) - arb(a.numerator) / arb(a.denominator)) / 2
        if not bound.is_finite():
            return None
        return _arb_upper(bound)


def _arb_upper(b: arb) -> Fraction:
    m, e = b.upper().man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)


def _near_zero_bound(r: ExpFrac, delta: Fraction, pieces: int = 32) -> Fraction | None:
    """Upper bound of ln r(eps)/eps on (0, delta] when r(0) = 1: ln r <= r - 1 = eps r'(xi)
    with 0 < xi < eps, so sup r' on [0, delta] (evaluated on `pieces` sub-boxes) bounds it."""
    d = ExpFrac(r.num.derivative() * r.den - r.num * r.den.derivative(), r.den * r.den)
    best = None
    for k in range(pieces):
        with working_precision(128):
            ball = d.arb_value(_box(delta * Fraction(k, pieces), delta * Fraction(k + 1, pieces)), 128)
        if not ball.is_finite():
            return None
        u = _arb_upper(ball)
        best = u if best is None else max(best, u)
    return best


def _tail_bound(r: ExpFrac, B: Fraction):
    """(B', bound) with ln r(eps)/eps <= bound for all eps >= B' >= B, from the dominant terms."""
    def parts(h: ExpPoly):
        c, d, Q = dominant_term(h)
        rest = [(abs(a), i - d, q - Q) for a, i, q in h.monomials() if (i, q) != (d, Q)]
        x0 = Fraction(1)
        for _, m, k in rest:
            if k < 0 and m > 0:
                x0 = max(x0, Fraction(m) / -k)
        return c, d, Q, rest, x0

    def R(rest, x: Fraction) -> float:
        # decreasing in x beyond x0; an upper estimate with outward rounding by arb
        with working_precision(128):
            xb = arb(x.numerator) / arb(x.denominator)
            total = arb(0)
            for a, m, k in rest:
                power = xb ** m if m >= 0 else 1 / xb ** (-m)
                total += arb(a.numerator) / arb(a.denominator) * power * (arb(k.numerator) / arb(k.denominator) * xb).exp()
            return total
    num, den = r.num, r.den
    if dominant_term(den)[0] < 0:  # the same ratio with both signs flipped
        num, den = -num, -den
    cn, dn, qn, rn, xn = parts(num)
    cd, dd, qd, rd, xd = parts(den)
    if cn <= 0 or cd <= 0:
        return None
    Bp = max(B, xn, xd)
    for _ in range(60):
        with working_precision(128):
            Rn, Rd = R(rn, Bp), R(rd, Bp)
            if Rd < 1:
                C = (arb(cn.numerator) / arb(cn.denominator) / (arb(cd.numerator) / arb(cd.denominator))
                     * (1 + Rn) / (1 - Rd)).log()
                dl = dn - dd
                Cu = _arb_upper(C)
                xb = arb(Bp.numerator) / arb(Bp.denominator)
                if dl > 0:
                    # (dl ln x + C)/x decreases once ln x >= 1 - C/dl
                    if _arb_upper(xb.log()) >= 1 - Cu / dl + 1:
                        val = (dl * xb.log() + C) / xb
                        return Bp, qn - qd + max(Fraction(0), _arb_upper(val))
                else:
                    return Bp, qn - qd + max(Fraction(0), Cu / Bp)
        Bp *= 2
    return None


def _sup_bnb(r: ExpFrac, I: Interval, tol: Fraction, max_boxes: int = 20000):
    """(certified lower bound, where, certified upper bound) of sup ln r(eps)/eps on I."""
    lo_k, at = _lower_bound(r, I)
    uppers = []
    a = I.lo
    if a == 0:
        delta = Fraction(1, 16)
        nz = _near_zero_bound(r, delta)
        while (nz is None or nz > lo_k + tol) and delta > Fraction(1, 1 << 24):
            delta /= 4
            nz = _near_zero_bound(r, delta)
        if nz is None:
            raise CertificationError("no bound for L(eps)/eps near eps = 0")
        uppers.append(nz)
        a = delta
    if I.hi is None:
        B = max(a * 2, Fraction(16))
        tail = _tail_bound(r, B)
        while tail is not None and tail[1] > lo_k + tol and B < 1 << 16:
            B *= 4
            tail = _tail_bound(r, B)
        if tail is None:
            raise CertificationError("no bound for L(eps)/eps as eps -> inf")
        b, tb = tail
        uppers.append(tb)
    else:
        b = I.hi
    dr = ExpFrac(r.num.derivative() * r.den - r.num * r.den.derivative(), r.den * r.den)
    boxes = []
    n = 64
    for k in range(n):
        boxes.append((a + (b - a) * Fraction(k, n), a + (b - a) * Fraction(k + 1, n)))
    done_upper = max(uppers) if uppers else None
    count = 0
    while boxes:
        count += 1
        if count > max_boxes:
            raise CertificationError("the branch and bound for sup L(eps)/eps did not converge")
        x, y = boxes.pop()
        u = _g_upper(r, x, y, dr)
        if u is not None and u <= lo_k + tol:
            done_upper = u if done_upper is None else max(done_upper, u)
            continue
        mid = (x + y) / 2
        # a better lower bound from the midpoint
        v = _ball(r, mid)
        if v > 0:
            with working_precision(128):
                gk = _arb_lower(v.log() / (arb(mid.numerator) / arb(mid.denominator)))
            if gk > lo_k:
                lo_k, at = gk, mid
        if u is not None and y - x < tol / 1024:
            done_upper = u if done_upper is None else max(done_upper, u)
            continue
        boxes += [(x, mid), (mid, y)]
    return lo_k, at, max(done_upper, lo_k) if done_upper is not None else lo_k


def _lower_bound(r: ExpFrac, I: Interval) -> tuple[Fraction, Fraction]:
    """A rational k <= L(x)/x at some rational x of I (certified), found by a scan."""
    best_k, best_x = None, None
    xs = _samples(I)
    # refine around the best sample (floats only choose where to look; the bound is certified)
    for _ in range(12):
        for x in xs:
            ball = (r.arb_value(x, 128).log()) / arb(x.numerator) * arb(x.denominator)
            k = _arb_lower(ball)
            if best_k is None or k > best_k:
                best_k, best_x = k, x
        step = (best_x / 4 if best_x else Fraction(1, 8)) / 2 ** _
        xs = [Fraction(x).limit_denominator(1 << 20) for x in (best_x - step, best_x - step / 2, best_x + step / 2, best_x + step)]
        xs = [x for x in xs if x > 0 and I.contains(x)]
    return best_k, best_x


def _arb_lower(b: arb) -> Fraction:
    m, e = b.lower().man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)
