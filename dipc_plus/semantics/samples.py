"""The outputs of many sampled runs, column by column, and what to read from them.

`semantics.sampler` executes a program N times in lockstep and hands back a
`SampleResult`: the raw output columns plus the empirical distribution, Wilson
intervals for the probability of an event, and summaries of real outputs.  Kept
apart from the executor so that reading results never depends on how they were drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Mapping

from dipc_plus.execution.lazy import lazy_import

np = lazy_import("numpy")

from dipc_plus.errors import UserError
from dipc_plus.semantics import ir
from dipc_plus.semantics.stats import Interval, wilson
from dipc_plus.semantics.evaluate import domain_values
from dipc_plus.semantics.values import plain_number, values_equal

UNSET_INT = -(2 ** 63)  # np.iinfo(np.int64).min: marks an integer variable not yet assigned
_LOOKUP_LIMIT = 1 << 20  # packed row keys below this are found through a lookup table instead of a sort


def finite_domains(typed) -> dict:
    """{name: the values of its Bool or DOM type, in the order its codes count them} of (name, type) pairs."""
    return {name: domain_values(t) for name, t in typed if isinstance(t, (ir.BoolT, ir.DomT))}


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Frequency:
    """How many of `trials` runs had an event; `interval()` is its Wilson interval."""
    successes: int
    trials: int

    @property
    def estimate(self) -> float:
        return self.successes / self.trials if self.trials else float("nan")

    def interval(self, confidence: float = 0.99) -> Interval:
        return wilson(self.successes, self.trials, confidence)


@dataclass(frozen=True)
class RealSummary:
    """Mean, standard deviation and quantiles of one real (or integer) output."""
    name: str
    count: int        # runs in which the output was assigned
    mean: float
    std: float
    quantiles: dict   # level (0.01, 0.25, 0.5, ...) -> value


QUANTILE_LEVELS = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)


class SampleResult:
    """Outputs of N runs, column by column.

    `columns[name]` is the raw column: DOM/Bool outputs as codes into
    `domains[name]` (-1 = unassigned), real outputs as float64 (NaN =
    unassigned), integer outputs as int64 (`UNSET_INT` = unassigned).
    """

    def __init__(self, program: ir.Program, eps: Fraction, inputs: dict, columns: dict, n: int):
        self.program = program
        self.eps = eps
        self.inputs = dict(inputs)
        self.outputs = tuple(program.outputs)
        self.columns = columns
        self.domains = finite_domains(self.outputs)
        self.n = n

    # ----------------------------------------------------------------- columns

    def names(self) -> list[str]:
        return [name for name, _ in self.outputs]

    def type_of(self, name: str):
        return dict(self.outputs)[name]

    def discrete_names(self) -> list[str]:
        """Outputs with finitely or countably many values: DOM, Bool, integer."""
        return [n for n, t in self.outputs if not isinstance(t, ir.RealT)]

    def real_names(self) -> list[str]:
        return [n for n, t in self.outputs if isinstance(t, ir.RealT)]

    def column(self, name: str) -> np.ndarray:
        """One output in the user's values: bool / int64 / object (symbols) / float64 arrays.

        Unassigned DOM, Bool or integer values become None (in an object array);
        unassigned reals are NaN.
        """
        raw = self._raw(name)
        typ = self.type_of(name)
        if isinstance(typ, ir.RealT):
            return raw
        if isinstance(typ, ir.IntT):
            if (raw == UNSET_INT).any():
                out = raw.astype(object)
                out[raw == UNSET_INT] = None
                return out
            return raw
        values = self.domains[name]
        unset = raw < 0
        if isinstance(typ, ir.BoolT) and not unset.any():
            return raw == 1
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values) and not unset.any():
            return np.asarray(values, dtype=np.int64)[raw]
        table = np.empty(len(values) + 1, dtype=object)
        table[: len(values)] = values
        table[len(values)] = None
        return table[np.where(unset, len(values), raw)]

    def _raw(self, name: str) -> np.ndarray:
        """The raw column of an output; a name that is not one is a UserError listing the outputs."""
        if name not in self.columns:
            raise UserError(f"'{name}' is not an output of {self.program.name}",
                            hint=f"its outputs are: {', '.join(self.names())}")
        return self.columns[name]

    def view(self) -> dict:
        """{output name: column(name)} for event predicates."""
        return {name: self.column(name) for name in self.names()}

    def run(self, i: int) -> tuple:
        """The tuple of output values of run i (reals as float, unassigned as None)."""
        return tuple(self._value(name, self.columns[name][i]) for name, _ in self.outputs)

    def _value(self, name: str, raw):
        """One entry of a raw column as the user's value (None when unassigned)."""
        typ = self.type_of(name)
        if isinstance(typ, ir.RealT):
            return None if math.isnan(raw) else float(raw)
        if isinstance(typ, ir.IntT):
            return None if raw == UNSET_INT else int(raw)
        return None if raw < 0 else self.domains[name][raw]

    # ----------------------------------------------------------------- summaries

    def distribution(self, names: Iterable[str] | None = None) -> dict:
        """{tuple of values of the discrete outputs: count}, most frequent first.

        Real outputs are left out (see `summary` and `within`); pass `names` to
        choose the columns (all must be discrete).
        """
        names = list(self.discrete_names() if names is None else names)
        for name in names:
            if name in self.real_names():
                raise UserError(f"'{name}' is a real output: it has no finite distribution",
                                hint="use summary() or probability(within(...)) for real outputs")
        if not names:
            return {(): self.n}
        keys = [self._raw(name) for name in names]
        result = {}
        for row, count in sorted(_count_rows(keys), key=lambda rc: -rc[1]):
            result[tuple(self._value(name, raw) for name, raw in zip(names, row))] = count
        return result

    def summary(self, name: str) -> RealSummary:
        """Mean, std and quantiles of a real or integer output over the runs that assigned it."""
        raw = self._raw(name)
        typ = self.type_of(name)
        if isinstance(typ, ir.RealT):
            values = raw[~np.isnan(raw)]
        elif isinstance(typ, ir.IntT):
            values = raw[raw != UNSET_INT].astype(np.float64)
        else:
            raise UserError(f"'{name}' is not a numeric output", hint="use distribution() for DOM outputs")
        if not len(values):
            return RealSummary(name, 0, float("nan"), float("nan"), {q: float("nan") for q in QUANTILE_LEVELS})
        qs = np.quantile(values, QUANTILE_LEVELS)
        return RealSummary(name, int(len(values)), float(values.mean()), float(values.std()),
                           dict(zip(QUANTILE_LEVELS, map(float, qs))))

    def probability(self, event: Callable[[dict], np.ndarray]) -> Frequency:
        """How often `event(columns)` holds; `columns` maps output names to `column(name)` arrays."""
        hits = np.asarray(event(self.view()))
        if hits.shape != (self.n,) or hits.dtype != np.bool_:
            raise TypeError(f"an event must return a bool array of length {self.n}, got {hits.dtype} {hits.shape}")
        return Frequency(int(hits.sum()), self.n)

    def within(self, gamma, around: Mapping[str, object], names: Iterable[str] | None = None) -> Callable:
        """The event 'every real output named is within gamma of around[name]' (closed ball).

        `names` defaults to all real outputs; each needs a centre in `around`.
        DOM/Bool/integer entries of `around` must be equal.  An unassigned real
        output is never within.
        """
        gamma = float(Fraction(gamma)) if not isinstance(gamma, float) else gamma
        if gamma < 0:
            raise UserError(f"gamma must be non-negative, not {gamma}", hint="write e.g. --within 1/2")
        reals = list(self.real_names() if names is None else names)
        missing = [n for n in reals if n not in around]
        if missing:
            raise UserError(f"no centre for real output(s) {', '.join(missing)}",
                            hint="give each with --around NAME=VALUE")
        for name in around:
            self._raw(name)   # a name that is not an output is refused as every reader refuses it
        checks = {name: plain_number(value) for name, value in around.items()}

        def event(columns: dict) -> np.ndarray:
            ok = np.ones(self.n, dtype=bool)
            for name, centre in checks.items():
                col = columns[name]
                if isinstance(self.type_of(name), ir.RealT):
                    with np.errstate(invalid="ignore"):
                        ok &= np.abs(col - float(centre)) <= gamma
                elif col.dtype == object:
                    ok &= np.fromiter((values_equal(v, centre) for v in col), dtype=bool, count=self.n)
                else:
                    ok &= col == centre
            return ok
        return event

    # ----------------------------------------------------------------- combining

    @staticmethod
    def concat(parts: list["SampleResult"]) -> "SampleResult":
        """One result from chunks of the same program, eps and inputs."""
        if not parts:
            raise ValueError("nothing to concatenate")
        first = parts[0]
        columns = {name: np.concatenate([p.columns[name] for p in parts]) for name in first.columns}
        return SampleResult(first.program, first.eps, first.inputs, columns, sum(p.n for p in parts))


def distinct_rows(codes: list, radices: list):
    """(rows, inverse, counts) for equally long integer columns, column i holding codes 0..radices[i]-1:
    the distinct rows as tuples of codes in lexicographic order, each run's row and each row's count.

    The codes are packed into one int64 per run (through a lookup table for a small key space), so
    a 1-D pass finds the rows; a row-wise np.unique(axis=0) sorts whole rows and is several times
    slower at 10^6 runs (it is the fallback when the packed key would overflow).
    """
    space = math.prod(radices)
    if space >= 2**62:
        rows, inverse, counts = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True, return_counts=True)
        return [tuple(r) for r in rows.tolist()], np.asarray(inverse).reshape(-1), counts
    key = np.zeros(len(codes[0]), dtype=np.int64)
    for col, radix in zip(codes, radices):
        key = key * radix + col
    if space <= _LOOKUP_LIMIT:
        counts = np.bincount(key, minlength=space)
        present = np.flatnonzero(counts)
        counts = counts[present]
        if len(present) == 1:
            inverse = np.zeros(len(key), dtype=np.intp)
        else:
            table = np.empty(space, dtype=np.intp)
            table[present] = np.arange(len(present))
            inverse = table[key]
    else:
        present, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    rows = list(zip(*(column.tolist() for column in np.unravel_index(present, radices))))   # the packing undone
    return rows, np.asarray(inverse).reshape(-1), counts


def _count_rows(columns: list) -> list:
    """[(row values, count)] for the distinct rows of equally long 1-D columns (each column
    factorised on its own, then `distinct_rows` on the codes)."""
    levels, codes = zip(*(np.unique(col, return_inverse=True) for col in columns))
    rows, _, counts = distinct_rows([np.asarray(c, dtype=np.int64).reshape(-1) for c in codes],
                                    [max(len(lv), 1) for lv in levels])
    return [([lv[c].item() for lv, c in zip(levels, row)], count) for row, count in zip(rows, counts.tolist())]
