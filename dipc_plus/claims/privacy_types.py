"""The privacy claims as data: budgets, eps ranges, output events, and the two claim kinds.

Why it exists: `DPClaim` and `PufferfishClaim` are what the reader produces and what
the deciders consume; keeping the data classes apart from both keeps each side small.

* ``DPClaim``: (budget, delta)-differential privacy for every adjacent pair of the
  claimed inputs (a grid or a list), every output (or set of outputs, when delta is
  not 0) and every eps of an interval, or at the single point eps = ln r.
* ``PufferfishClaim``: secrets, discriminative pairs and data-evolution scenarios
  whose prior weights are polynomials in symbolic parameters.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.decision.certified import infinity_sign, interval_parts, interval_text
from dipc_plus.decision.decide import Interval
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.claims.adjacency import Adjacency
from dipc_plus.claims.grid_points import GridPoints
from dipc_plus.claims.scope import claimed_inputs_text
from dipc_plus.exact.convert import fmt_q
from dipc_plus.exact.log_point import ln_text, rational_power
from dipc_plus.semantics import ir


@dataclass(frozen=True)
class Budget:
    """The privacy budget: e^budget = factor * e^(k*eps)."""
    k: Fraction
    factor: Fraction
    text: str

    def exp_value(self) -> ExpPoly:
        return ExpPoly.exp(self.k, self.factor)

    def exp_at_log(self, r: Fraction) -> Fraction | None:
        p = rational_power(r, self.k)
        return None if p is None else self.factor * p

    def __str__(self) -> str:
        parts = []
        if self.k:
            parts.append("eps" if self.k == 1 else f"{fmt_q(self.k)}*eps")
        if self.factor != 1:
            parts.append(ln_text(self.factor))
        return " + ".join(parts) or "0"


@dataclass(frozen=True)
class EpsRange:
    """Where eps ranges: an interval with rational ends, or the single point eps = ln(log_of)."""
    interval: Interval | None = None
    log_of: Fraction | None = None

    @property
    def is_log_point(self) -> bool:
        return self.log_of is not None

    def __str__(self) -> str:
        if self.log_of is not None:
            return f"eps = {ln_text(self.log_of)}"
        return str(self.interval)


@dataclass(frozen=True)
class EventInterval:
    """An interval of a real (or integer) output, e.g. '(-inf, 0]'."""
    lo: Fraction | None
    hi: Fraction | None
    lo_closed: bool
    hi_closed: bool
    label: str

    def contains(self, x: Fraction) -> bool:
        if self.lo is not None and (x < self.lo or (x == self.lo and not self.lo_closed)):
            return False
        if self.hi is not None and (x > self.hi or (x == self.hi and not self.hi_closed)):
            return False
        return True

    def overlaps(self, other: "EventInterval") -> bool:
        """Whether the two intervals share a point (two events of one output must not: a verdict on
        events covers their unions, which only disjoint events' inequalities add up to).

        >>> a, b, c = parse_event("(0, 1/2]"), parse_event("(1/4, 1]"), parse_event("(1/2, inf)")
        >>> a.overlaps(b), a.overlaps(c), b.overlaps(c), parse_event("[1, 1]").overlaps(parse_event("[1, 2)"))
        (True, False, True, True)
        """
        lows = [(e.lo, not e.lo_closed) for e in (self, other) if e.lo is not None]
        highs = [(e.hi, e.hi_closed) for e in (self, other) if e.hi is not None]
        if not lows or not highs:
            return True                       # both unbounded on one side: they meet far out there
        (lo, lo_open), (hi, hi_closed) = max(lows), min(highs)
        return lo < hi or (lo == hi and not lo_open and hi_closed)

    def __str__(self) -> str:
        return self.label


_RATIONAL = re.compile(r"[+-]?(\d{1,200}(/\d{1,200})?|\d{0,200}\.\d{1,200})")


def read_rational(text) -> Fraction | None:
    """An exact rational written '3', '-1/2' or '0.25' (no exponents, at most 200 digits a part:
    a user string never makes us build a huge number), else None."""
    s = str(text).strip()
    if not _RATIONAL.fullmatch(s):
        return None
    try:
        return Fraction(s)
    except ZeroDivisionError:
        return None


def parse_event(text: str) -> EventInterval:
    hint = "write an interval such as \"(-inf, 0]\", \"[0, 1)\" or \"[2, 2]\""
    parts = interval_parts(str(text))
    if parts is None:
        raise UserError(f"cannot read the output event {text!r}", hint=hint)
    left, right, lo_closed, hi_closed = parts

    def end(word, sign):
        if infinity_sign(word):
            if infinity_sign(word) != sign:
                raise UserError(f"the event {text!r} has an infinite end on the wrong side", hint=hint)
            return None
        value = read_rational(word)
        if value is None:
            raise UserError(f"{word!r} in the event {text!r} is not a number or inf", hint=hint)
        return value

    lo, hi = end(left, -1), end(right, 1)
    if lo is None and lo_closed or hi is None and hi_closed:
        raise UserError(f"the event {text!r} is closed at an infinite end", hint=hint)
    if lo is not None and hi is not None and (hi < lo or (hi == lo and not (lo_closed and hi_closed))):
        raise UserError(f"the event {text!r} is empty", hint=hint)
    return EventInterval(lo, hi, lo_closed, hi_closed, interval_text(lo, hi, lo_closed, hi_closed))



# --------------------------------------------------------------------------- the claims


@dataclass
class DPClaim:
    """The `[privacy]` table with kind = "dp", resolved against its program."""
    file: str
    program: ir.Program
    adjacency: Adjacency
    budget: Budget
    delta_text: str
    delta: object            # ExpPoly / ExpFrac in eps
    eps: EpsRange
    explicit_points: list | None   # flat input environments (a list; a claims.box.BoxInputs for a box), or None for a grid
    grid: dict | None        # flat input name -> list of values (for a grid), else None
    events: dict             # flat real/int output name -> [EventInterval]
    structure: bool = True
    note: str = ""
    kind: str = "dp"
    inputs_kind: str = "grid"   # 'grid' | 'list' | 'domain' (no inputs given: every finite input) | 'pairs' | 'box'
    every_length: bool = False  # length = "every": decide the claim for every number of queries
    given_params: frozenset = frozenset()   # the parameters the claim's params or --set give a number
    every_output_value: bool = False   # no events on a real output: decided on densities for every value

    @property
    def points(self):
        """Every claimed input: the explicit ones, or the grid's, each made when read (`GridPoints`;
        prefer `grid` for a big one)."""
        return self.explicit_points if self.explicit_points is not None else GridPoints(self.grid)

    @property
    def npoints(self) -> int:
        return len(self.points)

    @property
    def delta_is_zero(self) -> bool:
        return ExpFrac.of(self.delta).is_zero()

    @property
    def box_bounds(self) -> dict | None:
        """{flat real input: (lo, hi)} of a box claim (every real input of the box), else None."""
        return self.explicit_points.bounds if self.inputs_kind == "box" else None

    def describe(self) -> str:
        d = "" if self.delta_is_zero else f", delta = {self.delta_text}"
        inputs = claimed_inputs_text(self.program, self.inputs_kind, self.points)
        return (f"({self.budget}{d})-differential privacy of {self.program.name} for {self.eps}, "
                f"neighbours: {self.adjacency.describe()}, {inputs}")


@dataclass
class Scenario:
    """A data-evolution scenario: a prior over inputs, weights polynomial in the parameters."""
    name: str
    support: list   # of (flat env, weight: {exponent tuple: Fraction}, a polynomial in the parameters)
    note: str = ""


@dataclass
class PufferfishClaim:
    file: str
    program: ir.Program
    budget: Budget
    eps: EpsRange
    parameters: dict          # name -> its range as text, e.g. '(0, 1)'
    parameter_ranges: dict    # name -> (lo, hi, lo_closed, hi_closed)
    secrets: dict             # name -> secrets.Predicate
    pairs: list               # of (secret, secret)
    scenarios: list           # of Scenario
    events: dict
    note: str = ""
    kind: str = "pufferfish"
    every_length: bool = False  # a Pufferfish claim has no `length` key (--every-length refuses it)

    def describe(self) -> str:
        params = ", ".join(f"{n} in {iv}" for n, iv in self.parameters.items()) or "no parameters"
        return (f"{self.budget}-Pufferfish privacy of {self.program.name} for {self.eps}: "
                f"{len(self.secrets)} secrets, {len(self.pairs)} discriminative pair(s), "
                f"{len(self.scenarios)} scenario(s), {params}")


