"""An independent numerical witness for exact output probabilities.

It answers "what is P[outputs = v]" (and P[finite outputs = v and every real
output within gamma of a target]) of a program at one input and one eps, to
about 1e-12, *without* the DTMC, the constraint engines or expoly of dipc_plus.
Only the program's IR and `dipc_plus.semantics.evaluate` (deterministic Bool/DOM
expressions, coefficients of linear forms, user-function scores) are shared.

How it works
------------
1. **Executor with the noises as unknowns.**  Statements run on a set of
   states.  A real (integer) variable holds an affine form over *centred*
   noises: ``Lap(a*eps, mean)`` becomes ``mean + X`` with ``X ~ Lap(a eps, 0)``
   a fresh unknown, ``DLap`` likewise with an integer unknown.  A comparison
   whose difference still mentions unknowns forks the state in two, adding the
   half-space (or its complement) to the state's constraints; a comparison of
   constants is decided exactly.  The exponential mechanism and ``choose`` fork
   into one state per outcome with its float weight, computed here with mpmath
   (the weight expressions are walked by this module, not by the library).
   ``while`` loops run until the weight still inside is below 1e-16; that
   remainder is reported (`dropped`).  Equal states are merged.

2. **Probability of the constraints of a finished state** (the noises are
   independent, so the joint density is a product):

   * Laplace unknowns: the constraints are split into groups that share no
     unknown (a product of independent factors).  A group with one unknown is
     an interval, whose probability is the difference of the Laplace CDF (in
     closed form).  A larger group is integrated over its most connected
     unknown ``x`` by Gauss-Legendre, with the rest integrated recursively at
     each node (the constraints, with ``x`` substituted, are re-split).  The
     integrand is smooth between the ``x``-coordinates of the vertices of the
     arrangement formed by the constraint hyperplanes and the density kinks
     ``X_j = 0`` (the combinatorics of the slice change only there), so those
     coordinates, solved from the exact rational coefficients, are the
     breakpoints; each piece is split into sub-pieces no longer than
     2/(sum of the group's rates), and the two infinite ends are covered by
     pieces of doubling length until the pivot's own tail mass is below 2e-18.
     Every sub-piece gets `nodes` Gauss-Legendre nodes.
   * Discrete Laplace unknowns: the same splitting, with the one-unknown case
     summed term by term and larger groups summed over the pivot, each sum
     truncated at |k| <= K where the tail mass 2 p^(K+1)/(1+p) is below 1e-13.

`Witness(program, inputs, eps).marginal()` gives {finite output values: float};
`.within(targets, gamma)` the probability of an accuracy event.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations

import mpmath
import numpy as np

from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import call_function, eval_assign, eval_expr, lin_value_parts

LOOP_MASS = mpmath.mpf("1e-16")   # a while loop stops once this much weight is left inside it
MAX_LOOP_ITERATIONS = 10_000
DLAP_TAIL = 1e-13                 # truncation of discrete Laplace sums
TAIL_EXPONENT = 40.0              # Laplace pieces reach until rate*distance >= this (tail < 2e-18)


# --------------------------------------------------------------------------- affine forms


@dataclass(frozen=True)
class Form:
    """const + sum(coef * X_id) over centred noises X_id (coefficients exact)."""
    terms: tuple = ()          # sorted ((noise id, Fraction coef), ...), no zero coef
    const: Fraction = Fraction(0)

    @staticmethod
    def constant(c) -> "Form":
        return Form((), Fraction(c))

    @staticmethod
    def noise(nid: int) -> "Form":
        return Form(((nid, Fraction(1)),), Fraction(0))

    def plus(self, other: "Form", scale=1) -> "Form":
        coefs = dict(self.terms)
        for nid, c in other.terms:
            coefs[nid] = coefs.get(nid, Fraction(0)) + scale * c
        return Form(tuple(sorted((k, v) for k, v in coefs.items() if v != 0)), self.const + scale * other.const)

    def times(self, c) -> "Form":
        c = Fraction(c)
        if c == 0:
            return Form.constant(0)
        return Form(tuple((k, v * c) for k, v in self.terms), self.const * c)

    def is_constant(self) -> bool:
        return not self.terms


# A constraint is (op, form) meaning `form op 0`; op is '<=' for Laplace forms
# (boundaries have probability 0), and one of '<=', '==', '!=' for integer forms.


# --------------------------------------------------------------------------- states


class State:
    """Finite variables, affine forms of real/int variables, constraints on the noises."""
    __slots__ = ("env", "forms", "cons", "_key")

    def __init__(self, env: dict, forms: dict, cons: frozenset):
        self.env = env
        self.forms = forms
        self.cons = cons
        self._key = None

    def key(self):
        if self._key is None:
            self._key = (tuple(sorted(self.env.items(), key=lambda kv: kv[0])),
                         tuple(sorted(self.forms.items(), key=lambda kv: kv[0])), self.cons)
        return self._key

    def __hash__(self):
        return hash(self.key())

    def __eq__(self, other):
        return self.key() == other.key()

    def with_env(self, name, value) -> "State":
        env = dict(self.env)
        env[name] = value
        return State(env, self.forms, self.cons)

    def with_form(self, name, form: Form) -> "State":
        forms = dict(self.forms)
        forms[name] = form
        return State(self.env, forms, self.cons)

    def with_constraint(self, con) -> "State":
        return State(self.env, self.forms, self.cons | {con})


def _add(bag: dict, state: State, weight) -> None:
    bag[state] = bag[state] + weight if state in bag else weight


# --------------------------------------------------------------------------- executor


class Witness:
    """Run `program` at `inputs` ({flat name: value}, as `dipc_plus.semantics.inputs.bind_inputs` gives)
    and `eps` (a Fraction); then ask for probabilities."""

    def __init__(self, program: ir.Program, inputs: dict, eps, *, nodes: int = 16, dps: int = 30):
        self.program = program
        self.eps = Fraction(eps)
        self.nodes = nodes
        self.dps = dps
        self.noises: dict[int, tuple[str, Fraction]] = {}   # id -> ('lap' | 'dlap', rate a*eps as Fraction)
        self._noise_of_stmt: dict[int, int] = {}
        self.finished: dict[State, object] = {}
        self.dropped = mpmath.mpf(0)
        self._cprob: dict = {}
        types = dict(program.variables)
        types.update(dict(program.inputs))
        types.update(dict(program.outputs))
        self.types = types
        env, forms = {}, {}
        for name, value in inputs.items():
            if isinstance(types[name], (ir.RealT, ir.IntT)):
                forms[name] = Form.constant(value)
            else:
                env[name] = value
        with mpmath.workdps(dps):
            rest = self._block(program.body, {State(env, forms, frozenset()): mpmath.mpf(1)})
            for s, w in rest.items():
                _add(self.finished, s, w)

    # ----------------------------------------------------------------- statements

    def _block(self, stmts, frontier: dict) -> dict:
        for stmt in stmts:
            if not frontier:
                break
            frontier = self._stmt(stmt, frontier)
        return frontier

    def _stmt(self, stmt, frontier: dict) -> dict:
        if isinstance(stmt, ir.If):
            yes, no = self._split(stmt, stmt.cond, frontier)
            out = self._block(stmt.then, yes)
            for s, w in self._block(stmt.other, no).items():
                _add(out, s, w)
            return out
        if isinstance(stmt, ir.While):
            return self._while(stmt, frontier)
        if isinstance(stmt, ir.Exit):
            for s, w in frontier.items():
                _add(self.finished, s, w)
            return {}
        out: dict = {}
        for s, w in frontier.items():
            for s2, factor in self._simple(stmt, s):
                _add(out, s2, w * factor)
        return out

    def _split(self, stmt, cond, frontier):
        yes, no = {}, {}
        for s, w in frontier.items():
            value = eval_expr(cond, s.env, self.program, stmt.pos)
            assert isinstance(value, bool), f"condition {value!r} at {stmt.pos}"
            _add(yes if value else no, s, w)
        return yes, no

    def _while(self, stmt: ir.While, frontier: dict) -> dict:
        done: dict = {}
        for _ in range(MAX_LOOP_ITERATIONS):
            inside, out = self._split(stmt, stmt.cond, frontier)
            for s, w in out.items():
                _add(done, s, w)
            if not inside:
                return done
            if sum(inside.values()) < LOOP_MASS:
                self.dropped += sum(inside.values())
                return done
            frontier = self._block(stmt.body, inside)
        raise RuntimeError(f"while loop at {stmt.pos} still holds weight after {MAX_LOOP_ITERATIONS} iterations")

    def _simple(self, stmt, s: State):
        """[(state, weight factor)] after an assignment, a sample or a comparison."""
        if isinstance(stmt, ir.Assign):
            typ = self.types[stmt.target]
            if isinstance(typ, (ir.RealT, ir.IntT)):
                kind = "real" if isinstance(typ, ir.RealT) else "int"
                lin = stmt.expr if isinstance(stmt.expr, ir.Lin) else ir.Lin(kind, (), stmt.expr)
                return [(s.with_form(stmt.target, self._form(lin, s, stmt.pos)), 1)]
            return [(s.with_env(stmt.target, eval_assign(stmt, s.env, self.program)), 1)]
        if isinstance(stmt, ir.Compare):
            return self._compare(stmt, s)
        if isinstance(stmt, ir.Sample):
            d = stmt.dist
            if isinstance(d, ir.NoiseSample):
                nid = self._noise_of_stmt.setdefault(id(stmt), len(self._noise_of_stmt) + 1)
                self.noises[nid] = (d.kind, Fraction(d.rate) * self.eps)
                mean = self._form(d.mean, s, stmt.pos)
                return [(s.with_form(stmt.target, mean.plus(Form.noise(nid))), 1)]
            if isinstance(d, ir.ExpMech):
                return [(s.with_env(stmt.target, v), p) for v, p in self._expmech(stmt, s.env)]
            if isinstance(d, ir.Choose):
                return [(s.with_env(stmt.target, v), p) for v, p in self._choose(stmt, s.env)]
        raise TypeError(f"unknown statement {stmt!r}")

    def _form(self, lin: ir.Lin, s: State, pos) -> Form:
        coefs, const = lin_value_parts(lin, s.env, self.program, pos)
        form = Form.constant(const)
        for var, c in coefs.items():
            form = form.plus(s.forms[var], c)
        return form

    def _compare(self, stmt: ir.Compare, s: State):
        diff = self._form(stmt.lhs, s, stmt.pos).plus(self._form(stmt.rhs, s, stmt.pos), -1)
        op = stmt.op
        if diff.is_constant():
            c = diff.const
            truth = {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0, "==": c == 0, "!=": c != 0}[op]
            return [(s.with_env(stmt.target, truth), 1)]
        if stmt.lhs.kind == "real":
            # continuous: boundaries have probability 0
            if op in ("==", "!="):
                return [(s.with_env(stmt.target, op == "!="), 1)]
            le = diff if op in ("<", "<=") else diff.times(-1)      # the true branch: le <= 0
            return [(s.with_env(stmt.target, True).with_constraint(("<=", le)), 1),
                    (s.with_env(stmt.target, False).with_constraint(("<=", le.times(-1))), 1)]
        # integer forms: integer coefficients, so strict inequalities shift by one
        one = Form.constant(1)
        if op == "<=":
            t, f = ("<=", diff), ("<=", diff.times(-1).plus(one))
        elif op == "<":
            t, f = ("<=", diff.plus(one)), ("<=", diff.times(-1))
        elif op == ">=":
            t, f = ("<=", diff.times(-1)), ("<=", diff.plus(one))
        elif op == ">":
            t, f = ("<=", diff.times(-1).plus(one)), ("<=", diff)
        elif op == "==":
            t, f = ("==", diff), ("!=", diff)
        else:
            t, f = ("!=", diff), ("==", diff)
        return [(s.with_env(stmt.target, True).with_constraint(t), 1),
                (s.with_env(stmt.target, False).with_constraint(f), 1)]

    # ----------------------------------------------------------------- finite distributions

    def _mp(self, q) -> mpmath.mpf:
        q = Fraction(q)
        return mpmath.mpf(q.numerator) / q.denominator

    def _expmech(self, stmt: ir.Sample, env: dict):
        d = stmt.dist
        fn = self.program.functions[d.fn]
        args = [eval_expr(a, env, self.program, stmt.pos) for a in d.args]
        candidates = self.types[stmt.target].values
        scores = [Fraction(call_function(fn, args + [v], self.program, stmt.pos)) for v in candidates]
        top = max(scores)
        weights = [mpmath.exp(self._mp((sc - top) * Fraction(d.rate) * self.eps)) for sc in scores]
        total = sum(weights)
        return [(v, w / total) for v, w in zip(candidates, weights)]

    def _choose(self, stmt: ir.Sample, env: dict):
        d = stmt.dist
        definition = self.program.distributions[d.dist]
        args = [eval_expr(a, env, self.program, stmt.pos) for a in d.args]
        local = dict(zip((n for n, _ in definition.params), args))
        rate = None if d.rate is None else self._mp(Fraction(d.rate) * self.eps)
        totals: list = []
        for value_expr, weight_expr in definition.outcomes:
            value = eval_expr(value_expr, local, self.program, stmt.pos)
            if isinstance(value, Fraction) and value.denominator == 1:
                value = int(value)
            weight = self._weight(weight_expr, local, rate, stmt.pos)
            for entry in totals:
                if entry[0] == value and isinstance(entry[0], bool) == isinstance(value, bool):
                    entry[1] += weight
                    break
            else:
                totals.append([value, weight])
        total = sum(w for _, w in totals)
        assert total > 0 and all(w >= 0 for _, w in totals), f"bad weights at {stmt.pos}"
        return [(v, w / total) for v, w in totals if w > 0]

    def _weight(self, e, local: dict, rate, pos):
        """A distribution weight in mpmath: rate, eps, exp and + - * / over rationals."""
        if isinstance(e, ir.Rate):
            assert rate is not None
            return rate
        if isinstance(e, ir.Eps):
            return self._mp(self.eps)
        if isinstance(e, ir.ExpOf):
            return mpmath.exp(self._weight(e.arg, local, rate, pos))
        if isinstance(e, ir.Unary) and e.op == "-":
            return -self._weight(e.arg, local, rate, pos)
        if isinstance(e, ir.Binary) and e.op in "+-*/" and _mentions_rate(e):
            a = self._weight(e.left, local, rate, pos)
            b = self._weight(e.right, local, rate, pos)
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b}[e.op]()
        if isinstance(e, ir.Cond) and _mentions_rate(e):
            test = eval_expr(e.cond, local, self.program, pos)
            return self._weight(e.then if test else e.other, local, rate, pos)
        return self._mp(eval_expr(e, local, self.program, pos))

    # ----------------------------------------------------------------- questions

    def outputs(self, s: State) -> tuple:
        return tuple(s.forms[n] if n in s.forms else s.env[n] for n in self.program.output_names())

    def finite_names(self) -> list:
        return [n for n, t in self.program.outputs if isinstance(t, (ir.DomT, ir.BoolT))]

    def constraint_probability(self, cons) -> float:
        cons = frozenset(cons)
        if cons not in self._cprob:
            self._cprob[cons] = probability(cons, self.noises, self.nodes)
        return self._cprob[cons]

    def marginal(self) -> dict:
        """{values of the finite outputs, in declaration order: probability}."""
        names = self.finite_names()
        out: dict = {}
        for s, w in self.finished.items():
            key = tuple(s.env[n] for n in names)
            out[key] = out.get(key, 0.0) + float(w) * self.constraint_probability(s.cons)
        return out

    def within(self, targets: dict, gamma) -> float:
        """P[every finite output named in `targets` equals its target and every real one is
        within gamma of it] (flat output names)."""
        gamma = Fraction(gamma)
        total = 0.0
        for s, w in self.finished.items():
            extra = set()
            ok = True
            for name, target in targets.items():
                if isinstance(self.types[name], (ir.RealT, ir.IntT)):
                    form = s.forms[name]
                    up = form.plus(Form.constant(-Fraction(target) - gamma))           # form - t - g <= 0
                    down = form.times(-1).plus(Form.constant(Fraction(target) - gamma))  # t - g - form <= 0
                    for f in (up, down):
                        if f.is_constant():
                            ok = ok and f.const <= 0
                        else:
                            extra.add(("<=", f))
                else:
                    v = s.env[name]
                    ok = ok and v == target and isinstance(v, bool) == isinstance(target, bool)
            if ok:
                total += float(w) * self.constraint_probability(s.cons | frozenset(extra))
        return total


def _mentions_rate(e) -> bool:
    if isinstance(e, (ir.Rate, ir.Eps, ir.ExpOf)):
        return True
    if isinstance(e, ir.Unary):
        return _mentions_rate(e.arg)
    if isinstance(e, ir.Binary):
        return _mentions_rate(e.left) or _mentions_rate(e.right)
    if isinstance(e, ir.Cond):
        return _mentions_rate(e.cond) or _mentions_rate(e.then) or _mentions_rate(e.other)
    return False


# --------------------------------------------------------------------------- probabilities of constraints


def probability(cons, noises: dict, nodes: int = 16) -> float:
    """P[every constraint holds] for independent centred noises {id: (kind, rate)}."""
    lap, dlap = [], []
    for op, form in cons:
        kinds = {noises[n][0] for n, _ in form.terms}
        assert kinds <= {"lap", "exp"} or kinds == {"dlap"}, "a constraint mixes real and integer noises"
        row = (op, {n: c for n, c in form.terms}, float(form.const))
        (dlap if kinds == {"dlap"} else lap).append(row)
    rates = {n: float(r) for n, (_, r) in noises.items()}
    global _ONE_SIDED
    _ONE_SIDED = frozenset(n for n, (kind, _) in noises.items() if kind == "exp")
    p = 1.0
    if lap:
        p *= _lap_probability(lap, rates, nodes)
    if dlap and p:
        p *= _dlap_probability(dlap, rates)
    return p


def _components(rows: list) -> list:
    """Rows grouped so that no two groups share an unknown (union-find on unknowns)."""
    parent: dict = {}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for _, coefs, _ in rows:
        ids = list(coefs)
        for n in ids:
            parent.setdefault(n, n)
        for n in ids[1:]:
            a, b = find(ids[0]), find(n)
            if a != b:
                parent[a] = b
    groups: dict = {}
    for row in rows:
        groups.setdefault(find(next(iter(row[1]))), []).append(row)
    return list(groups.values())


def _substitute(rows: list, var, value: float) -> tuple[list, bool]:
    """Rows with `var` = value; (remaining rows, False) if a constant row is violated."""
    out = []
    for op, coefs, const in rows:
        if var in coefs:
            const = const + float(coefs[var]) * value
            coefs = {n: c for n, c in coefs.items() if n != var}
        if not coefs:
            if op == "<=" and not const <= 0:
                return [], False
            if op == "==" and const != 0:
                return [], False
            if op == "!=" and const == 0:
                return [], False
            continue
        out.append((op, coefs, const))
    return out, True


def _pivot(rows: list):
    """The unknown that appears in the most rows (ties: the smallest id)."""
    count: dict = {}
    for _, coefs, _ in rows:
        for n in coefs:
            count[n] = count.get(n, 0) + 1
    return min(count, key=lambda n: (-count[n], n))


# ----------------------------------------------------------------- Laplace (and one-sided exponential)

_ONE_SIDED: frozenset = frozenset()   # the unknowns of the current `probability` call that are ExpNoise


def _density(x, n, b):
    """The density of unknown n at x: Laplace (b/2) e^(-b|x|), or ExpNoise b e^(-b x) on x > 0."""
    if n in _ONE_SIDED:
        return np.where(x > 0, b * np.exp(-b * np.maximum(x, 0.0)), 0.0)
    return 0.5 * b * np.exp(-b * np.abs(x))


def _interval(lo, hi, n, b):
    """P[lo <= X_n <= hi] in closed form, for either kind of real unknown."""
    if n in _ONE_SIDED:
        lo, hi = np.maximum(np.asarray(lo, dtype=float), 0.0), np.maximum(np.asarray(hi, dtype=float), 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.where(hi > lo, np.exp(-b * lo) - np.exp(-b * hi), 0.0)
    return _lap_interval(lo, hi, b)


def _lap_probability(rows: list, rates: dict, nodes: int) -> float:
    p = 1.0
    for group in _components(rows):
        p *= _lap_group(group, rates, nodes)
        if p == 0.0:
            return 0.0
    return p


def _lap_group(rows: list, rates: dict, nodes: int) -> float:
    unknowns = sorted({n for _, coefs, _ in rows for n in coefs})
    if len(unknowns) == 1:
        (x,) = unknowns
        lo, hi = _bounds(rows, x, {})
        return float(_interval(lo, hi, x, rates[x]))
    x = _pivot(rows)
    b = rates[x]
    total_rate = sum(rates[n] for n in unknowns)
    xs, ws = _nodes(_breakpoints(rows, unknowns, x), b, total_rate, nodes)
    values = ws * _density(xs, x, b)
    own = [r for r in rows if set(r[1]) == {x}]        # rows on x alone: indicators
    for _, coefs, const in own:
        values = values * (float(coefs[x]) * xs + const <= 0)
    others = [r for r in rows if set(r[1]) != {x}]
    for group in _components([(op, {n: c for n, c in coefs.items() if n != x}, const)
                              for op, coefs, const in others]):
        ids = {n for _, coefs, _ in group for n in coefs}
        full = [r for r in others if set(r[1]) - {x} <= ids]
        if len(ids) == 1:   # one more unknown y: its interval moves with x, vectorised
            (y,) = ids
            lo, hi = _bounds(full, y, {x: xs})
            values = values * _interval(lo, hi, y, rates[y])
        else:               # a larger group: recurse node by node
            inner = np.zeros(len(xs))
            for i in np.flatnonzero(values).tolist():
                rest, ok = _substitute(full, x, float(xs[i]))
                if ok:
                    inner[i] = _lap_probability(rest, rates, nodes) if rest else 1.0
            values = values * inner
    return float(values.sum())


def _bounds(rows: list, y, fixed: dict):
    """lo, hi with rows <=> lo <= y <= hi, the other unknowns of the rows taking the values in `fixed`."""
    lo, hi = -math.inf, math.inf
    for _, coefs, const in rows:
        shift = const
        for n, c in coefs.items():
            if n != y:
                shift = shift + float(c) * fixed[n]
        c = float(coefs[y])
        bound = -shift / c
        if c > 0:
            hi = np.minimum(hi, bound)
        else:
            lo = np.maximum(lo, bound)
    return lo, hi


def _lap_interval(lo, hi, b: float):
    """P[lo <= X <= hi] for X ~ Lap(b, 0) (arrays allowed), without cancellation in the tails."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        right = 0.5 * (np.exp(-b * lo) - np.exp(-b * hi))         # 0 <= lo < hi
        left = 0.5 * (np.exp(b * hi) - np.exp(b * lo))            # lo < hi <= 0
        middle = 1.0 - 0.5 * np.exp(b * lo) - 0.5 * np.exp(-b * hi)
        value = np.where(lo >= 0, right, np.where(hi <= 0, left, middle))
    return np.where(hi > lo, value, 0.0)


def _breakpoints(rows: list, unknowns: list, x) -> list:
    """x-coordinates of the vertices of the arrangement {rows} + {X_j = 0}."""
    k = len(unknowns)
    matrix = tuple(tuple(coefs.get(n, Fraction(0)) for n in unknowns) for _, coefs, _ in rows)
    rhs_rows = [-const for _, _, const in rows] + [0.0] * k
    points = set()
    for subset, inverse_row in _vertex_rows(matrix, unknowns.index(x)):
        points.add(sum(inverse_row[j] * rhs_rows[i] for j, i in enumerate(subset)))
    return sorted(points)


@lru_cache(maxsize=100_000)
def _vertex_rows(matrix: tuple, p: int) -> list:
    """For every nonsingular choice of k hyperplanes among matrix's rows and the unit rows:
    (chosen indices, row p of the inverse as floats); exact rational elimination."""
    k = len(matrix[0])
    hyper = list(matrix) + [tuple(Fraction(int(i == j)) for j in range(k)) for i in range(k)]
    out = []
    for subset in combinations(range(len(hyper)), k):
        inv = _inverse([hyper[i] for i in subset])
        if inv is not None:
            out.append((subset, tuple(float(v) for v in inv[p])))
    return out


def _inverse(rows: list):
    k = len(rows)
    a = [list(r) + [Fraction(int(i == j)) for j in range(k)] for i, r in enumerate(rows)]
    for col in range(k):
        piv = next((r for r in range(col, k) if a[r][col] != 0), None)
        if piv is None:
            return None
        a[col], a[piv] = a[piv], a[col]
        inv = 1 / a[col][col]
        a[col] = [v * inv for v in a[col]]
        for r in range(k):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [v - f * w for v, w in zip(a[r], a[col])]
    return [row[k:] for row in a]


@lru_cache(maxsize=64)
def _legendre(n: int):
    return np.polynomial.legendre.leggauss(n)


def _nodes(points: list, rate: float, total_rate: float, n: int):
    """Gauss-Legendre nodes and weights on the real line for a density of rate `rate`
    times a function smooth between `points` (which include 0)."""
    t, w = _legendre(n)
    step = 2.0 / total_rate
    pieces = []
    merged = [points[0]]
    for v in points[1:]:
        if v - merged[-1] > 1e-12 * max(1.0, abs(v)):
            merged.append(v)
    for a, b in zip(merged[:-1], merged[1:]):
        m = max(1, math.ceil((b - a) / step))
        edges = np.linspace(a, b, m + 1)
        pieces.extend(zip(edges[:-1], edges[1:]))
    reach = TAIL_EXPONENT / rate
    for sign, start in ((1.0, merged[-1]), (-1.0, merged[0])):
        length, covered = 1.0 / total_rate, 0.0
        while covered < reach:
            a, b = start + sign * covered, start + sign * (covered + length)
            pieces.append((min(a, b), max(a, b)))
            covered += length
            length *= 2.0
    xs, ws = [], []
    for a, b in pieces:
        half = 0.5 * (b - a)
        xs.append(0.5 * (a + b) + half * t)
        ws.append(half * w)
    return np.concatenate(xs), np.concatenate(ws)


# ----------------------------------------------------------------- discrete Laplace


def _dlap_reach(rate: float) -> int:
    """K with P[|Z| > K] = 2 p^(K+1) / (1 + p) below DLAP_TAIL, p = e^-rate."""
    p = math.exp(-rate)
    k = 0
    while 2 * p ** (k + 1) / (1 + p) >= DLAP_TAIL:
        k += 1
    return k


def _dlap_pmf(rate: float, ks: np.ndarray) -> np.ndarray:
    p = math.exp(-rate)
    return (1 - p) / (1 + p) * np.exp(-rate * np.abs(ks))


def _dlap_probability(rows: list, rates: dict) -> float:
    p = 1.0
    for group in _components(rows):
        unknowns = sorted({n for _, coefs, _ in group for n in coefs})
        if len(unknowns) == 1:
            (x,) = unknowns
            reach = _dlap_reach(rates[x])
            ks = np.arange(-reach, reach + 1)
            ok = np.ones(len(ks), dtype=bool)
            for op, coefs, const in group:
                v = float(coefs[x]) * ks + const
                ok &= (v <= 0) if op == "<=" else (v == 0) if op == "==" else (v != 0)
            p *= float(_dlap_pmf(rates[x], ks)[ok].sum())
        else:
            x = _pivot(group)
            reach = _dlap_reach(rates[x])
            ks = np.arange(-reach, reach + 1)
            total = 0.0
            for k, mass in zip(ks.tolist(), _dlap_pmf(rates[x], ks).tolist()):
                rest, ok = _substitute(group, x, float(k))
                if ok:
                    total += mass * (_dlap_probability(rest, rates) if rest else 1.0)
            p *= total
        if p == 0.0:
            return 0.0
    return p
