"""Concrete sampler: run a DiPWhile+ program many times at one rational eps.

This is the independent witness the exact engine is tested against: it executes
`ir.Program` statement by statement, with no symbolic reasoning.  Its statement walk
stays its own, vectorised: N runs execute in lockstep (a statement applies to the array
of *active* run indices; `if` splits them, `while` iterates until no run is left inside
it, `exit` retires runs), which the one-path-at-a-time walks (`semantics.walk`, the chain)
cannot do.  What it shares with them: `instructions.reads`, `evaluate` (every expression,
condition, linear form and weight) and `exact.linear.holds`.

State per variable: Bool and DOM values as small integer codes (index into the
variable's domain, -1 = unassigned), reals as float64 (NaN = unassigned), integer
samples as int64.  Deterministic expressions are evaluated by
`dipc_plus.semantics.evaluate`, once per *group* of runs that agree on the variables the
expression reads (and cached across chunks), so the Python cost does not grow
with N.

Typical use::

    result = simulate(program, bind_inputs(program, given), Fraction(27, 82), 10**6, seed=1)
    result.distribution()        # {(3,): 353375, (2,): 352812, (1,): 293813}  (NoisyMax, q=[-1,0,0])
    result.probability(lambda cols: cols["out"] == 1).interval(0.99)   # Wilson interval
    result.probability(result.within(Fraction(1), {"val[2]": 2}))      # real outputs near a centre

The results themselves (`SampleResult`, `Frequency`) live in `semantics.samples`.
`Sampler` is one concept -- the lockstep executor of every statement kind with its
per-group evaluation cache -- so it stays one class.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Callable, Mapping

from dipc_plus.execution.lazy import lazy_import

np = lazy_import("numpy")

from dipc_plus.exact import noises
from dipc_plus.exact.linear import holds
from dipc_plus.exact.sparse import sparse_add
from dipc_plus.semantics import evaluate, ir
from dipc_plus.semantics.instructions import assigned as assigned_in, contains_exit, own_reads, reads
from dipc_plus.semantics.values import plain_number
from dipc_plus.semantics.weight_check import check_weights_at
from dipc_plus.errors import UserError
from dipc_plus.semantics.samples import UNSET_INT, SampleResult, distinct_rows, finite_domains

DEFAULT_CHUNK = 1 << 17          # runs per lockstep batch (bounds memory)
DEFAULT_MAX_ITERATIONS = 100_000  # guard for `while` loops that (almost) never end

# how each kind of variable is held: its column's dtype and the mark of "not yet assigned"
_COLUMNS = {"code": ("int32", -1), "real": ("float64", math.nan), "int": ("int64", UNSET_INT)}


# --------------------------------------------------------------------------- eps and inputs


def as_eps(value) -> Fraction:
    """A positive rational eps from a Fraction, int, float or text like '27/82'; a float is read as
    the decimal it prints (0.1 is 1/10), as `inputs.python_value` and the command line read it."""
    where = "eps"
    if isinstance(value, str):
        text = value.strip()
        try:
            eps = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise UserError(f"{where} '{value}' is not a rational number",
                            hint="write eps as an integer, p/q or a decimal, e.g. --eps 27/82 or --eps 0.5") from None
    elif isinstance(value, bool) or not isinstance(value, (numbers.Rational, float)):
        raise UserError(f"{where} {value!r} is not a rational number", hint="give eps as a Fraction, e.g. Fraction(1, 2)")
    else:
        if isinstance(value, float) and not math.isfinite(value):
            raise UserError(f"{where} {value} is not a finite number", hint="write e.g. --eps 1/2")
        eps = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    if eps <= 0:
        raise UserError(f"{where} must be positive, not {eps}", hint="the privacy budget is a positive rational, e.g. --eps 1/2")
    return eps


# --------------------------------------------------------------------------- the sampler


class Sampler:
    """Executes one program at one eps on one input; reusable across chunks (it keeps
    the per-group evaluation cache)."""

    def __init__(self, program: ir.Program, inputs: Mapping[str, object], eps,
                 max_iterations: int = DEFAULT_MAX_ITERATIONS):
        self.program = program
        self.eps = as_eps(eps)
        self.max_iterations = int(max_iterations)
        missing = [n for n in program.input_names() if n not in inputs]
        if missing:
            raise UserError(f"missing input(s): {', '.join(missing)}",
                            hint="give each with --input NAME=VALUE (arrays as NAME=[v1,v2,...])")
        self.inputs = {n: inputs[n] for n in program.input_names()}
        self.types = dict(program.variables)
        for name, typ in [*program.inputs, *program.outputs]:
            self.types.setdefault(name, typ)
        assigned = assigned_in(program.body)
        # Inputs the program never assigns are constants: they live in every
        # evaluation environment and are folded exactly into linear forms.
        self.constants = {n: v for n, v in self.inputs.items() if n not in assigned}
        self.state_vars = [n for n in self.types if n not in self.constants]
        self.domains = finite_domains(self.types.items())
        self.code_of = {n: {v: i for i, v in enumerate(vals)} for n, vals in self.domains.items()}
        self._cache: dict = {}
        self._reads: dict = {}
        self._exits: dict = {}
        self.rng: np.random.Generator | None = None
        self.n = 0

    # ----------------------------------------------------------------- driving

    def run(self, n: int, rng: np.random.Generator) -> SampleResult:
        """Execute n runs in lockstep and return their outputs (n > 0: `simulate` checks it)."""
        n = int(n)
        self.rng = rng
        self.n = n
        stores = {kind: {} for kind in _COLUMNS}
        self.codes, self.reals, self.ints = stores.values()
        columns = {}
        for name in self.state_vars:
            dtype, unset = _COLUMNS[self._kind(name)]
            stores[self._kind(name)][name] = columns[name] = np.full(n, unset, dtype=dtype)
        for name, value in self.inputs.items():
            if name not in self.constants:
                columns[name][:] = self._stored(name, value)
        self._block(self.program.body, np.arange(n, dtype=np.intp))
        outputs = {name: np.full(n, self._stored(name, self.constants[name]), dtype=_COLUMNS[self._kind(name)][0])
                   if name in self.constants else columns[name]   # an output that is also an untouched input
                   for name, _ in self.program.outputs}
        return SampleResult(self.program, self.eps, self.inputs, outputs, n)

    def _kind(self, name: str) -> str:
        """How a variable is held (a key of _COLUMNS): a Bool/DOM code, a real or an integer."""
        return "code" if name in self.domains else "real" if isinstance(self.types[name], ir.RealT) else "int"

    def _stored(self, name: str, value):
        """A value as its variable's column holds it: a code, a float or an int."""
        kind = self._kind(name)
        return self._code(name, value, ir.NOWHERE) if kind == "code" else float(value) if kind == "real" else int(value)

    # ----------------------------------------------------------------- statements

    def _block(self, stmts, idx: np.ndarray) -> np.ndarray:
        """Run statements on the active runs `idx`; return the runs still active after them (each
        statement's handler in _STATEMENTS returns the runs still active after it)."""
        for stmt in stmts:
            if not len(idx):
                break
            idx = _STATEMENTS[type(stmt)](self, stmt, idx)
        return idx

    def _if(self, stmt: ir.If, idx: np.ndarray) -> np.ndarray:
        cond = self._condition(stmt, idx)
        yes = self._block(stmt.then, idx[cond])
        no = self._block(stmt.other, idx[~cond])
        return self._union((yes, no)) if self._may_exit(stmt) else idx  # else every run of idx is still active

    def _while(self, stmt: ir.While, idx: np.ndarray) -> np.ndarray:
        left = []
        iterations = 0
        while len(idx):
            cond = self._condition(stmt, idx)
            left.append(idx[~cond])
            inside = idx[cond]
            if not len(inside):
                break
            iterations += 1
            if iterations > self.max_iterations:
                raise UserError.at(
                    stmt.pos,
                    f"{len(inside)} of {self.n} runs are still in this loop after {self.max_iterations} iterations",
                    hint="the loop may not terminate with probability 1 at this input and eps; "
                         "if it is merely slow, raise the limit (--max-iterations)")
            idx = self._block(stmt.body, inside)
        return self._union(left)

    def _union(self, parts) -> np.ndarray:
        """Disjoint sorted index arrays merged into one sorted array (O(N), no sort)."""
        parts = [p for p in parts if len(p)]
        if len(parts) <= 1:
            return parts[0] if parts else np.zeros(0, dtype=np.intp)
        mask = np.zeros(self.n, dtype=bool)
        for part in parts:
            mask[part] = True
        return np.flatnonzero(mask)

    def _may_exit(self, stmt) -> bool:
        found = self._exits.get(id(stmt))
        if found is None:
            found = self._exits[id(stmt)] = contains_exit([stmt])
        return found

    def _assign(self, stmt: ir.Assign, idx: np.ndarray) -> np.ndarray:
        target = stmt.target
        if target in self.codes:
            self.codes[target][idx] = self._per_run(
                stmt, idx, lambda e: self._code(target, evaluate.eval_assign(stmt, e, self.program), stmt.pos), np.int32)
            return idx
        kind = "real" if target in self.reals else "int"
        lin = stmt.expr if isinstance(stmt.expr, ir.Lin) else ir.Lin(kind, (), stmt.expr)
        values = self._lin_values(stmt, lin, idx, kind)
        (self.reals if kind == "real" else self.ints)[target][idx] = values
        return idx

    def _compare(self, stmt: ir.Compare, idx: np.ndarray) -> np.ndarray:
        kind = stmt.lhs.kind

        def difference(env):
            lc, lk = self._lin_parts(stmt, stmt.lhs, env)
            rc, rk = self._lin_parts(stmt, stmt.rhs, env)
            coefs = sparse_add(lc, {var: -c for var, c in rc.items()})
            return {v: c for v, c in coefs.items() if c != 0}, lk - rk

        parts, inverse = self._per_group(stmt, idx, difference)
        # a group whose difference reads no variable is decided exactly, the others in floats
        decided = np.asarray([not coefs for coefs, _ in parts])
        truth = np.asarray([not coefs and holds(const, stmt.op) for coefs, const in parts], dtype=bool)
        result = truth[inverse]
        if not decided.all():
            values = evaluate.COMPARISON[stmt.op](self._combine(stmt, parts, inverse, idx, kind), 0)
            result = np.where(decided[inverse], result, values)
        self.codes[stmt.target][idx] = result.astype(np.int32)
        return idx

    def _sample(self, stmt: ir.Sample, idx: np.ndarray) -> np.ndarray:
        dist = stmt.dist
        target = stmt.target
        m = len(idx)
        if isinstance(dist, ir.NoiseSample):
            spec = noises.by_kind(dist.kind)
            store = self.reals if spec.value_type == "real" else self.ints
            mean = self._lin_values(stmt, dist.mean, idx, spec.value_type)
            store[target][idx] = mean + spec.draw(self.rng, Fraction(dist.rate) * self.eps, m)
        elif isinstance(dist, (ir.ExpMech, ir.Choose)):
            weigh = self._exp_mech_probs if isinstance(dist, ir.ExpMech) else self._choose_probs
            table, inverse = self._per_group(stmt, idx, lambda e: weigh(stmt, e))
            self.codes[target][idx] = draw_categorical(self.rng, np.asarray(table), inverse)
        else:  # pragma: no cover
            raise TypeError(f"unknown distribution {dist!r}")
        return idx

    # ----------------------------------------------------------------- categorical weights

    def _exp_mech_probs(self, stmt: ir.Sample, env: dict) -> np.ndarray:
        """P(v) ∝ exp(a eps F(args, v)) over the target's domain, via log-sum-exp."""
        dist = stmt.dist
        scores = evaluate.expmech_scores(dist, self.domains[stmt.target], env, self.program, stmt.pos)
        scale = Fraction(dist.rate) * self.eps
        logs = [scale * score for _, score in scores]
        top = max(logs)  # exact shift, so no float ever overflows
        weights = np.asarray([math.exp(float(max(x - top, -800))) for x in logs])
        return weights / weights.sum()

    def _choose_probs(self, stmt: ir.Sample, env: dict) -> np.ndarray:
        """The user distribution's weights (floats; mpmath when a float overflows), normalised."""
        dist = stmt.dist
        check_weights_at(dist, env, self.program, stmt.pos, self.eps)   # exact signs; the floats below only draw
        size = len(self.domains[stmt.target])
        try:
            pairs = evaluate.choose_weights(dist, env, self.program, float(self.eps), math.exp, float, stmt.pos)
            weights = self._weight_vector(stmt, pairs, size, float)
        except (OverflowError, _NonFinite):
            weights = None
        if weights is None or not np.maximum(weights, 0).sum() > 0:
            # redo with mpmath's unbounded exponents, scaled by the largest weight
            import mpmath
            mp = lambda q: mpmath.mpf(Fraction(q).numerator) / Fraction(q).denominator  # noqa: E731
            pairs = evaluate.choose_weights(dist, env, self.program, mp(self.eps), mpmath.exp, mp, stmt.pos)
            top = max(abs(w) for _, w in pairs)
            weights = self._weight_vector(stmt, [(v, w / top if top else w) for v, w in pairs], size, float)
        weights = np.maximum(weights, 0)   # a float below an exact 0 (rounding)
        return weights / weights.sum()

    def _weight_vector(self, stmt, pairs, size, convert) -> np.ndarray:
        weights = np.zeros(size)
        for value, weight in pairs:
            weights[self._code(stmt.target, value, stmt.pos)] += convert(weight)
        if not np.isfinite(weights).all():
            raise _NonFinite()
        return weights

    # ----------------------------------------------------------------- deterministic pieces

    def _reads_of(self, node) -> list:
        """Grouping keys of a statement: state (non-constant) Bool/DOM variables its expressions read."""
        key = id(node)
        found = self._reads.get(key)
        if found is None:
            names = own_reads(node, terms=False) if isinstance(node, ir.Stmt) else reads(node, terms=False)
            bad = [n for n in names if n not in self.constants and n not in self.codes]
            if bad:
                raise UserError.at(getattr(node, "pos", ir.NOWHERE),
                                   f"'{bad[0]}' is read here but is not a Bool or DOM variable")
            found = sorted(n for n in names if n in self.codes)
            self._reads[key] = found
        return found

    def _per_group(self, node, idx: np.ndarray, compute, tag: tuple = ()):
        """compute(env) once per group of the runs idx that agree on the Bool/DOM variables
        `node` reads, cached per statement (and `tag`) and group across chunks: (the values,
        each run's group)."""
        names = self._reads_of(node)
        keys, inverse = self._groups(node, names, idx)
        values = []
        for codes in keys:
            slot = (id(node), tag + codes)
            try:
                values.append(self._cache[slot])
            except KeyError:
                env = dict(self.constants)
                env.update((name, self.domains[name][code]) for name, code in zip(names, codes))
                values.append(self._cache.setdefault(slot, compute(env)))
        return values, inverse

    def _groups(self, node, names: list, idx: np.ndarray):
        """Split runs idx by the values of `names`: (the groups' codes, each run's group)."""
        if not names:
            return [()], np.zeros(len(idx), dtype=np.intp)
        # codes run from -1 (unassigned): shifted by one for `distinct_rows`
        cols = [self._take(self.codes[n], idx).astype(np.int64) + 1 for n in names]
        rows, inverse, _ = distinct_rows(cols, [len(self.domains[n]) + 1 for n in names])
        keys = [tuple(code - 1 for code in row) for row in rows]
        for codes in keys:
            for name, code in zip(names, codes):
                if code < 0:
                    raise evaluate.read_before_assigned(getattr(node, "pos", ir.NOWHERE), name)
        return keys, inverse

    def _code(self, target: str, value, pos) -> int:
        """The code of a Bool/DOM value in the target's domain (UserError if outside)."""
        typ = self.types[target]
        if isinstance(typ, ir.BoolT):
            if isinstance(value, (bool, np.bool_)):
                return int(bool(value))
        elif not isinstance(value, (bool, np.bool_)):
            code = self.code_of[target].get(plain_number(value))
            if code is not None:
                return code
        raise UserError.at(pos, f"value {value!r} is outside the domain {typ} of '{target}'",
                           hint="check the arithmetic feeding this assignment, or widen the declared domain")

    def _per_run(self, stmt, idx: np.ndarray, compute, dtype) -> np.ndarray:
        """compute(env) once per group of the runs idx (`_per_group`), as one `dtype` value per run."""
        table, inverse = self._per_group(stmt, idx, compute)
        return np.asarray(table, dtype=dtype)[inverse]

    def _condition(self, stmt, idx: np.ndarray) -> np.ndarray:
        """The truth of an `if` or `while` condition on each run of idx."""
        return self._per_run(stmt, idx, lambda e: evaluate.eval_condition(stmt.cond, e, self.program, stmt.pos), bool)

    def _lin_parts(self, node, lin: ir.Lin, env: dict):
        """({state variable: exact coefficient}, exact constant) of a linear form in one group.

        Constant (never assigned) real/int inputs are folded into the constant
        exactly, so comparisons between inputs and constants are decided exactly.
        """
        pos = getattr(node, "pos", ir.NOWHERE)
        coefs, const = evaluate.lin_value_parts(lin, env, self.program, pos)
        kept = {}
        for var, coef in coefs.items():
            if var in self.constants:
                const += coef * Fraction(self.constants[var])
            elif var in self.reals or var in self.ints:
                kept[var] = coef
            else:
                raise UserError.at(pos, f"'{var}' in a linear form is not a real or integer variable")
        return kept, const

    def _lin_values(self, node, lin: ir.Lin, idx: np.ndarray, kind: str) -> np.ndarray:
        # A statement evaluates at most one linear form here (Assign: its value,
        # Sample: the mean), so the statement identifies it in the cache.
        parts, inverse = self._per_group(node, idx, lambda e: self._lin_parts(node, lin, e), ("lin",))
        return self._combine(node, parts, inverse, idx, kind)

    def _combine(self, node, parts: list, inverse: np.ndarray, idx: np.ndarray, kind: str) -> np.ndarray:
        """Evaluate per-group linear forms `parts` on the runs idx (group of each run: inverse).

        The result may be a read-only view of a state array; callers never modify it in place.
        """
        pos = getattr(node, "pos", ir.NOWHERE)
        variables = sorted({v for coefs, _ in parts for v in coefs})
        single = len(parts) == 1
        integer = kind == "int"
        if integer:
            for coefs, const in parts:
                if any(Fraction(c).denominator != 1 for c in coefs.values()) or Fraction(const).denominator != 1:
                    raise UserError.at(pos, "an integer expression has a non-integer coefficient or constant",
                                       hint="integer expressions (DLap samples) need integer coefficients")
        convert, dtype, store = (int, np.int64, self.ints) if integer else (float, np.float64, self.reals)
        values = None
        for var in variables:
            column = self._take(store[var], idx)
            coefs = np.asarray([convert(c.get(var, 0)) for c, _ in parts], dtype=dtype)
            if single:
                used = column
                term = column if coefs[0] == 1 else coefs[0] * column
            else:
                per_run = coefs[inverse]
                nonzero = per_run != 0
                used = column[nonzero]
                term = np.where(nonzero, per_run * column, 0)
            unset = (used == UNSET_INT) if integer else np.isnan(used)
            if unset.any():
                raise evaluate.read_before_assigned(pos, var)
            values = term if values is None else values + term
        consts = np.asarray([convert(const) for _, const in parts], dtype=dtype)
        if values is None:
            return np.full(len(idx), consts[0], dtype=dtype) if single else consts[inverse]
        if single:
            return values + consts[0] if consts[0] != 0 else values
        return values + consts[inverse]

    def _take(self, array: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """array[idx] for reading; the array itself when idx is every run (idx is sorted and unique)."""
        return array if len(idx) == self.n else array[idx]


# how each statement runs on the active runs: the handler returns the runs still active after it
_STATEMENTS = {ir.Assign: Sampler._assign, ir.Sample: Sampler._sample, ir.Compare: Sampler._compare,
               ir.If: Sampler._if, ir.While: Sampler._while, ir.Exit: lambda sampler, stmt, idx: idx[:0]}


class _NonFinite(Exception):
    """A float weight came out infinite or NaN (overflow): retry with mpmath."""


# --------------------------------------------------------------------------- primitive samplers


def draw_categorical(rng: np.random.Generator, probs: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    """One code per run: run i draws from row probs[inverse[i]] by inverse CDF.

    An outcome of probability 0 is never drawn: each row's CDF ends at exactly
    1.0 and the search is right-sided.
    """
    m = len(inverse)
    u = rng.random(m)
    cdf = np.cumsum(probs, axis=1)
    cdf /= cdf[:, -1:]
    if len(cdf) == 1:
        return np.searchsorted(cdf[0], u, side="right").astype(np.int32)
    out = np.empty(m, dtype=np.int32)
    order = np.argsort(inverse, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(inverse, minlength=len(cdf)))))
    for g in range(len(cdf)):
        members = order[bounds[g]:bounds[g + 1]]
        if len(members):
            out[members] = np.searchsorted(cdf[g], u[members], side="right")
    return out


# --------------------------------------------------------------------------- entry point


def simulate(program: ir.Program, inputs: Mapping[str, object], eps, n: int, *, seed: int | None = None,
             chunk: int = DEFAULT_CHUNK, max_iterations: int = DEFAULT_MAX_ITERATIONS,
             progress: Callable[[int], None] | None = None) -> SampleResult:
    """Run `program` n times at `eps` on `inputs` ({flat name: value}, as from
    `inputs.bind_inputs`), in chunks of at most `chunk` runs.

    The same seed and chunk size give the same result.  `progress(k)` is called after each
    chunk with its size.
    """
    rng = np.random.default_rng(seed)
    n = int(n)
    if n <= 0:
        raise UserError(f"the number of runs must be positive, not {n}", hint="use e.g. -n 100000")
    if chunk <= 0:
        raise UserError(f"the chunk size must be positive, not {chunk}")
    sampler = Sampler(program, inputs, eps, max_iterations=max_iterations)
    parts = []
    for start in range(0, n, chunk):
        parts.append(sampler.run(min(chunk, n - start), rng))
        if progress is not None:
            progress(parts[-1].n)
    return parts[0] if len(parts) == 1 else SampleResult.concat(parts)
