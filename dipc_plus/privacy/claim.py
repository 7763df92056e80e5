"""Privacy claims: the `[privacy]` table of a claim file (docs/claims.md, "Privacy claims").

Two kinds, in the same TOML family as accuracy claims (`[program]` + one table):

* ``kind = "dp"`` (the default): (budget, delta)-differential privacy of the
  program for every adjacent pair of the claimed inputs, every output and every
  eps of an interval (or at one point eps = ln r):

      P[P(u) = v] <= e^budget * P[P(u') = v] + delta(eps).

  The budget is ``k*eps`` (kε-DP), a constant ``ln(r)`` (for mechanisms whose
  probabilities do not depend on eps), or a sum of both; delta is a formula.
* ``kind = "pufferfish"``: secrets (predicates on the input), discriminative
  pairs of secrets and data-evolution scenarios (priors over inputs whose
  weights may be polynomials in symbolic parameters such as p in (0, 1)).

This module only reads and checks; `privacy` and `pufferfish` decide.  Every
mistake is a `UserError` with the file, the line of the key and a hint; the
`[program]` table is read by `claims.load_claim`.
"""
from __future__ import annotations

import ast
import difflib
import itertools
import math
import re
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from dipc_plus.semantics import ir
from dipc_plus.claims.claim_file import MAX_POINTS, ClaimReader, grid_values, parse_number, show_env, to_user_value, load_claim
from dipc_plus.decision.decide import Interval
from dipc_plus.errors import UserError
from dipc_plus.semantics.evaluate import domain_values
from dipc_plus.exact.expoly import ExpFrac, ExpPoly

PRIVACY_KEYS = ("kind", "adjacency", "bound", "pairs", "budget", "delta", "eps", "inputs", "events",
                "structure", "note",
                "length")  # length = "every": read by privacy/every_length.py (issue 11)
PUFFERFISH_KEYS = ("kind", "budget", "eps", "parameters", "secrets", "pairs", "scenarios", "events", "note")
SCENARIO_KEYS = ("name", "prior", "independent", "note")
INPUT_KEYS = ("grid", "list", "step")
ADJACENCIES = ("hamming", "one-position", "linf", "l1", "pairs")


# --------------------------------------------------------------------------- exact pieces


def _rational_root(x: Fraction, n: int) -> Fraction | None:
    """x^(1/n) when it is rational, else None (x > 0)."""
    def iroot(m: int) -> int | None:
        r = round(m ** (1.0 / n)) if m < 2 ** 1000 else int(math.isqrt(m)) if n == 2 else None
        if r is None:
            lo, hi = 0, 1 << (m.bit_length() // n + 1)
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if mid ** n <= m:
                    lo = mid
                else:
                    hi = mid - 1
            r = lo
        for c in (r - 1, r, r + 1):
            if c >= 0 and c ** n == m:
                return c
        return None
    a, b = iroot(x.numerator), iroot(x.denominator)
    if a is None or b is None:
        return None
    return Fraction(a, b)


def rational_power(r: Fraction, q: Fraction) -> Fraction | None:
    """r^q for rational r > 0 and rational q when the result is rational, else None."""
    base = r ** abs(q.numerator)
    root = _rational_root(base, q.denominator) if q.denominator != 1 else base
    if root is None:
        return None
    return root if q.numerator >= 0 else 1 / root


def exppoly_at_log(f: ExpPoly, r: Fraction) -> Fraction | None:
    """f(ln r) exactly when it is rational: every coefficient polynomial constant and every
    r^q rational; None otherwise."""
    total = Fraction(0)
    for q, poly in f.terms.items():
        if poly.degree() > 0:
            return None
        c = poly[0]
        power = rational_power(r, q)
        if power is None:
            return None
        total += Fraction(int(c.p), int(c.q)) * power
    return total


def value_at_log(f, r: Fraction) -> Fraction | None:
    """An ExpPoly/ExpFrac at eps = ln r as an exact rational, or None when that is not rational."""
    f = ExpFrac.of(f)
    num = exppoly_at_log(f.num, r)
    den = exppoly_at_log(f.den, r)
    if num is None or den is None or den == 0:
        return None
    return num / den


def constant_value(f) -> Fraction | None:
    """The value of an eps-independent ExpPoly/ExpFrac, else None."""
    f = ExpFrac.of(f)
    if f.num.is_constant() and f.den.is_constant():
        return f.num.constant_value() / f.den.constant_value()
    return None


def fmt_q(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def ln_text(x: Fraction) -> str:
    """'ln(3)', 'ln(4/3)', '0', 'inf'."""
    if x == 1:
        return "0"
    return f"ln({fmt_q(x)})"


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

    def describe(self) -> str:
        parts = []
        if self.k:
            parts.append("eps" if self.k == 1 else f"{fmt_q(self.k)}*eps")
        if self.factor != 1:
            parts.append(ln_text(self.factor))
        return " + ".join(parts) or "0"

    def __str__(self) -> str:
        return self.describe()


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

    def __str__(self) -> str:
        return self.label


def parse_event(text: str) -> EventInterval:
    s = str(text).strip()
    hint = "write an interval such as \"(-inf, 0]\", \"[0, 1)\" or \"[2, 2]\""
    if len(s) < 5 or s[0] not in "([" or s[-1] not in ")]" or s.count(",") != 1:
        raise UserError(f"cannot read the output event {text!r}", hint=hint)
    left, right = (p.strip() for p in s[1:-1].split(","))

    def end(word, sign):
        w = word.lower().lstrip("+")
        if w in ("inf", "infinity", "oo") or (word.startswith("-") and word[1:].lower() in ("inf", "infinity", "oo")):
            if (word.startswith("-")) != (sign < 0):
                raise UserError(f"the event {text!r} has an infinite end on the wrong side", hint=hint)
            return None
        try:
            return Fraction(word)
        except (ValueError, ZeroDivisionError):
            raise UserError(f"{word!r} in the event {text!r} is not a number or inf", hint=hint) from None

    lo, hi = end(left, -1), end(right, 1)
    if lo is None and s[0] == "[" or hi is None and s[-1] == "]":
        raise UserError(f"the event {text!r} is closed at an infinite end", hint=hint)
    if lo is not None and hi is not None and (hi < lo or (hi == lo and not (s[0] == "[" and s[-1] == "]"))):
        raise UserError(f"the event {text!r} is empty", hint=hint)
    label = f"{s[0]}{'-inf' if lo is None else fmt_q(lo)}, {'inf' if hi is None else fmt_q(hi)}{s[-1]}"
    return EventInterval(lo, hi, s[0] == "[", s[-1] == "]", label)


# --------------------------------------------------------------------------- adjacency


def _coord_distance(a, b):
    """|a - b| for numbers; 0 / inf for symbols and Booleans."""
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return Fraction(0) if (type(a) is type(b) and a == b) else None  # None = infinitely far
    return abs(Fraction(a) - Fraction(b))


@dataclass
class Adjacency:
    """Which inputs are neighbours (never an input with itself)."""
    kind: str                     # one of ADJACENCIES
    bound: Fraction = Fraction(1)
    pairs: list = field(default_factory=list)   # explicit (u, u') for kind 'pairs'
    _pair_set: set = field(default_factory=set, repr=False)

    @property
    def single_coordinate(self) -> bool:
        """Neighbours differ in exactly one input position."""
        return self.kind in ("hamming", "one-position")

    def coordinate_ok(self, a, b) -> bool:
        """May one position change from a to b (for the per-position relations)?"""
        if _same(a, b):
            return True
        if self.kind == "hamming":
            return True
        d = _coord_distance(a, b)
        return d is not None and d <= self.bound

    def adjacent(self, u: Mapping, w: Mapping) -> bool:
        if self.kind == "pairs":
            return (_freeze(u), _freeze(w)) in self._pair_set
        diff = [k for k in u if not _same(u[k], w[k])]
        if not diff:
            return False
        if self.kind == "hamming":
            return len(diff) == 1
        if self.kind == "one-position":
            return len(diff) == 1 and self.coordinate_ok(u[diff[0]], w[diff[0]])
        ds = [_coord_distance(u[k], w[k]) for k in diff]
        if any(d is None for d in ds):
            return False
        if self.kind == "linf":
            return max(ds) <= self.bound
        return sum(ds) <= self.bound  # l1

    def describe(self) -> str:
        if self.kind == "hamming":
            return "Hamming distance 1 (one input position changes)"
        if self.kind == "one-position":
            return f"one input position changes by at most {fmt_q(self.bound)}"
        if self.kind == "linf":
            return f"L-inf distance at most {fmt_q(self.bound)}"
        if self.kind == "l1":
            return f"L1 distance at most {fmt_q(self.bound)}"
        return f"{len(self.pairs)} explicit pair(s)"


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return a == b


def _freeze(env: Mapping):
    def norm(v):
        if isinstance(v, bool) or isinstance(v, str):
            return (type(v).__name__, v)
        return ("num", Fraction(v))
    return tuple(sorted((k, norm(v)) for k, v in env.items()))


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
    explicit_points: list | None   # flat input environments (a list), or None for a grid
    grid: dict | None        # flat input name -> list of values (for a grid), else None
    events: dict             # flat real/int output name -> [EventInterval]
    structure: bool = True
    note: str = ""
    kind: str = "dp"
    _points: list | None = field(default=None, repr=False)

    @property
    def points(self) -> list:
        """Every claimed input (a grid is expanded on first use: prefer `grid` for big ones)."""
        if self._points is None:
            if self.explicit_points is not None:
                self._points = self.explicit_points
            else:
                names = list(self.grid)
                self._points = [dict(zip(names, c)) for c in itertools.product(*(self.grid[n] for n in names))]
        return self._points

    @property
    def npoints(self) -> int:
        if self.explicit_points is not None:
            return len(self.explicit_points)
        return math.prod(len(v) for v in self.grid.values())

    def first_point(self) -> dict:
        if self.explicit_points is not None:
            return self.explicit_points[0]
        return {n: vals[0] for n, vals in self.grid.items()}

    @property
    def delta_is_zero(self) -> bool:
        return ExpFrac.of(self.delta).is_zero()

    def describe(self) -> str:
        d = "" if self.delta_is_zero else f", delta = {self.delta_text}"
        return (f"({self.budget}{d})-differential privacy of {self.program.name} for {self.eps}, "
                f"neighbours: {self.adjacency.describe()}, {self.npoints} input(s)")


@dataclass
class Predicate:
    """A secret: a Boolean formula over the inputs (`x[1] == 1 and x[2] == 0`)."""
    name: str
    text: str
    tree: object

    def holds(self, env: Mapping) -> bool:
        value = _eval_predicate(self.tree, env, self.text)
        if not isinstance(value, bool):
            raise UserError(f"the secret '{self.name}' = {self.text!r} is not a true/false condition",
                            hint="write a comparison such as \"x[1] == 1\"")
        return value


@dataclass
class Scenario:
    """A data-evolution scenario: a prior over inputs, weights polynomial in the parameters."""
    name: str
    support: list   # of (flat env, sympy Poly weight over the parameters)
    note: str = ""


@dataclass
class PufferfishClaim:
    file: str
    program: ir.Program
    budget: Budget
    eps: EpsRange
    parameters: dict          # name -> Interval (open or closed inside (0, inf)... see below)
    parameter_ranges: dict    # name -> (lo, hi, lo_closed, hi_closed)
    secrets: dict             # name -> Predicate
    pairs: list               # of (secret, secret)
    scenarios: list           # of Scenario
    events: dict
    note: str = ""
    kind: str = "pufferfish"

    def describe(self) -> str:
        params = ", ".join(f"{n} in {iv}" for n, iv in self.parameters.items()) or "no parameters"
        return (f"{self.budget}-Pufferfish privacy of {self.program.name} for {self.eps}: "
                f"{len(self.secrets)} secrets, {len(self.pairs)} discriminative pair(s), "
                f"{len(self.scenarios)} scenario(s), {params}")


# --------------------------------------------------------------------------- reading


def load_privacy_claim(path: str, overrides: Mapping | None = None):
    """Read the `[privacy]` table of a claim file: a `DPClaim` or a `PufferfishClaim`."""
    claim = load_claim(path, overrides)
    raw = claim.privacy
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8", errors="replace")
    r = ClaimReader(path, text)
    if raw is None:
        raise UserError("the claim file has no [privacy] table", file=path,
                        hint='add\n  [privacy]\n  adjacency = "hamming"\n  budget = "eps"')
    if not isinstance(raw, dict):
        raise r.error("privacy", "privacy must be a table", hint="write [privacy] on its own line")
    kind = r.choice("privacy.kind", raw.get("kind", "dp"), ("dp", "pufferfish"))
    program = claim.program
    if kind == "pufferfish":
        return _read_pufferfish(r, raw, program, path)
    return _read_dp(r, raw, program, path)


def _read_dp(r: ClaimReader, raw: dict, program: ir.Program, path: str) -> DPClaim:
    r.check_keys(raw, PRIVACY_KEYS, "privacy")
    if "adjacency" not in raw:
        raise r.error("privacy", "[privacy] has no 'adjacency'",
                      hint='write adjacency = "hamming" (or "one-position", "linf", "l1", "pairs")')
    kind = r.choice("privacy.adjacency", raw["adjacency"], ADJACENCIES)
    bound = Fraction(1)
    if "bound" in raw:
        if kind in ("hamming", "pairs"):
            raise r.error("privacy.bound", f"bound is not used with adjacency = \"{kind}\"", hint="remove it")
        bound = r.number("privacy.bound", raw["bound"], nonnegative=True)
        if bound <= 0:
            raise r.error("privacy.bound", "bound must be positive", hint="bound = 1")
    adjacency = Adjacency(kind, bound)
    budget = _read_budget(r, raw.get("budget"), program, "privacy.budget")
    eps = _read_eps(r, raw.get("eps", "(0, inf)"), "privacy.eps")
    delta_text, delta = _read_delta(r, raw.get("delta", "0"), program, path, eps)
    events = _read_events(r, raw.get("events"), program, "privacy.events")
    structure = raw.get("structure", True)
    if not isinstance(structure, bool):
        raise r.error("privacy.structure", "structure must be true or false", hint="structure = true")
    note = raw.get("note", "")
    if kind == "pairs":
        if "inputs" in raw:
            raise r.error("privacy.inputs", "with adjacency = \"pairs\" the inputs are the pairs' inputs",
                          hint="remove [privacy.inputs]")
        pairs = _read_pairs(r, raw.get("pairs"), program)
        adjacency.pairs = pairs
        adjacency._pair_set = {(_freeze(u), _freeze(w)) for u, w in pairs} | \
                              {(_freeze(w), _freeze(u)) for u, w in pairs}
        seen, points = set(), []
        for u, w in pairs:
            for x in (u, w):
                if _freeze(x) not in seen:
                    seen.add(_freeze(x))
                    points.append(x)
        grid = None
        points_given = points
    else:
        if "pairs" in raw:
            raise r.error("privacy.pairs", "pairs are only read with adjacency = \"pairs\"",
                          hint='write adjacency = "pairs" or remove the list')
        points_given, grid = read_points(r, raw.get("inputs"), program, "privacy.inputs")
    return DPClaim(path, program, adjacency, budget, delta_text, delta, eps, points_given, grid, events,
                   structure, note if isinstance(note, str) else "")


# -- budget ---------------------------------------------------------------------------------------

_BUDGET_HINT = ('write the budget as a multiple of eps plus optional logarithms of rationals: '
                '"eps", "2*eps", "eps/2", "ln(3)", "eps + ln(2)"')


def _read_budget(r: ClaimReader, text, program: ir.Program, key: str) -> Budget:
    if text is None:
        raise r.error(key.rsplit(".", 1)[0], "no 'budget'", hint=_BUDGET_HINT)
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        raise r.error(key, f"a bare number {text} is ambiguous as a budget",
                      hint='write "eps" for eps-DP, or "ln(3)" for the constant ln 3')
    if not isinstance(text, str):
        raise r.error(key, "budget must be a string", hint=_BUDGET_HINT)
    try:
        tree = ast.parse(text.replace("^", "**"), mode="eval").body
    except SyntaxError as exc:
        raise r.error(key, f"cannot read '{text}': {exc.msg}", hint=_BUDGET_HINT) from None
    params = {k: Fraction(v) for k, v in program.params.items()}

    def fail(msg):
        raise r.error(key, f"'{text}': {msg}", hint=_BUDGET_HINT)

    def ev(node):
        """(eps coefficient, {log base: coefficient}, constant) of a linear term."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return (Fraction(0), {}, parse_number(node.value))
        if isinstance(node, ast.Name):
            if node.id in ("eps", "ε"):
                return (Fraction(1), {}, Fraction(0))
            if node.id in params:
                return (Fraction(0), {}, params[node.id])
            close = difflib.get_close_matches(node.id, ["eps"] + list(params), n=1)
            fail(f"unknown name '{node.id}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("ln", "log"):
            if len(node.args) != 1:
                fail("ln takes one argument")
            a = ev(node.args[0])
            if a[0] or a[1]:
                fail("ln(...) must be of a positive rational constant")
            if a[2] <= 0:
                fail(f"ln({a[2]}) is not defined")
            return (Fraction(0), {a[2]: Fraction(1)} if a[2] != 1 else {}, Fraction(0))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            a = ev(node.operand)
            s = -1 if isinstance(node.op, ast.USub) else 1
            return (s * a[0], {k: s * v for k, v in a[1].items()}, s * a[2])
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, (ast.Add, ast.Sub)):
                s = 1 if isinstance(node.op, ast.Add) else -1
                logs = dict(a[1])
                for k, v in b[1].items():
                    logs[k] = logs.get(k, 0) + s * v
                return (a[0] + s * b[0], logs, a[2] + s * b[2])
            if isinstance(node.op, ast.Mult):
                if not (a[0] or a[1]):
                    c, t = a[2], b
                elif not (b[0] or b[1]):
                    c, t = b[2], a
                else:
                    fail("a product of two terms that depend on eps or ln is not linear")
                return (c * t[0], {k: c * v for k, v in t[1].items()}, c * t[2])
            if isinstance(node.op, ast.Div):
                if b[0] or b[1] or b[2] == 0:
                    fail("divide only by a nonzero number")
                return (a[0] / b[2], {k: v / b[2] for k, v in a[1].items()}, a[2] / b[2])
            if isinstance(node.op, ast.Pow):
                if a[0] or a[1] or b[0] or b[1]:
                    fail("a power of eps or of a logarithm is not linear in eps")
                if b[2].denominator != 1:
                    fail("only integer powers of numbers are allowed")
                return (Fraction(0), {}, a[2] ** int(b[2]))
        fail("only numbers, eps, the program's parameters, ln(rational), + - * / are allowed")

    k, logs, const = ev(tree)
    if const != 0:
        fail(f"the constant {const} is not a logarithm of a rational; e^{const} is not rational "
             "(write ln(r) for a constant budget)")
    if k < 0:
        fail("the budget must not decrease with eps")
    factor = Fraction(1)
    for base, c in logs.items():
        p = rational_power(base, c)
        if p is None:
            fail(f"{c}*ln({base}) is not the logarithm of a rational")
        factor *= p
    if factor < 1:
        fail("the constant part of the budget is negative")
    return Budget(k, factor, text)


# -- eps -----------------------------------------------------------------------------------------

def _read_eps(r: ClaimReader, text, key: str) -> EpsRange:
    if not isinstance(text, str):
        raise r.error(key, "eps must be a string", hint='write eps = "(0, inf)", "[1/10, 5]" or "ln(2)"')
    s = text.strip()
    m = re.fullmatch(r"(?:ln|log)\(\s*([0-9/.]+)\s*\)", s)
    if m:
        try:
            base = Fraction(m.group(1))
        except (ValueError, ZeroDivisionError):
            raise r.error(key, f"cannot read {text!r}", hint='eps = "ln(2)"') from None
        if base <= 1:
            raise r.error(key, f"eps = ln({m.group(1)}) is not positive", hint="the logarithm's argument must exceed 1")
        return EpsRange(log_of=base)
    if s and s[0] not in "([":
        q = parse_number(s)
        if q is not None:
            if q <= 0:
                raise r.error(key, "eps must be positive", hint='eps = "1/2"')
            return EpsRange(Interval(q, q, True, True))
    try:
        return EpsRange(Interval.parse(s))
    except UserError as exc:
        raise r.error(key, exc.message, exc.hint) from None


def _read_delta(r: ClaimReader, text, program: ir.Program, path: str, eps: EpsRange):
    from dipc_plus.claims.formula import Where, parse as parse_formula
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = str(text)
    if not isinstance(text, str):
        raise r.error("privacy.delta", "delta must be a formula in a string", hint='delta = "0" or "exp(-eps)/100"')
    line, col = r.loc.find("privacy.delta")
    where = Where(path, line, None if col is None else col + 1, "privacy.delta")
    formula = parse_formula(text, [p for p in program.params if p != "eps"], where)
    value = formula.exact(dict(program.params))
    value = ExpFrac.of(value)
    if eps.is_log_point and value_at_log(value, eps.log_of) is None:
        raise r.error("privacy.delta", f"delta = {text} is not rational at {eps}",
                      hint="at eps = ln(r) delta must be a rational function of e^eps")
    return text, value


# -- events on real outputs -----------------------------------------------------------------------------

def _read_events(r: ClaimReader, spec, program: ir.Program, key: str) -> dict:
    types = dict(program.outputs)
    needing = [n for n, t in program.outputs if isinstance(t, (ir.RealT, ir.IntT))]
    events: dict = {}
    if spec is not None:
        if not isinstance(spec, dict):
            raise r.error(key, "events must be a table", hint='events = { out = ["(-inf, 0]", "(0, inf)"] }')
        for name, value in spec.items():
            elems = program.arrays.get(name) if name not in types else None
            targets = list(elems) if elems is not None and all(e in types for e in elems) else \
                ([name] if name in types else None)
            if targets is None:
                raise r.error(key, f"'{name}' is not an output of {program.name}",
                              hint=f"its outputs are: {', '.join(sorted({n.split('[')[0] for n in types}))}")
            if not isinstance(value, list) or not value:
                raise r.error(key, f"{name}: give a non-empty list of intervals",
                              hint=f'{name} = ["(-inf, 0]", "(0, inf)"]')
            try:
                ivs = [parse_event(v) for v in value]
            except UserError as exc:
                raise r.error(key, f"{name}: {exc.message}", exc.hint) from None
            for t in targets:
                if not isinstance(types[t], (ir.RealT, ir.IntT)):
                    raise r.error(key, f"'{t}' is a finite output: its values are checked one by one",
                                  hint="events are only for real or integer outputs")
                events[t] = ivs
    missing = [n for n in needing if n not in events]
    if missing:
        raise r.error(key if spec is not None else "privacy",
                      f"the real output(s) {', '.join(missing)} need output events",
                      hint=f'add events = {{ {missing[0].split("[")[0]} = ["(-inf, 0]", "(0, 1]", "(1, inf)"] }}: '
                           "the claim is checked for each named event (a real output has no finite set of values)")
    return events


# -- inputs -----------------------------------------------------------------------------------------

def read_points(r: ClaimReader, spec, program: ir.Program, key: str) -> tuple[list | None, dict | None]:
    """The claimed inputs: (flat environments, None) for a list, (None, {flat name: values}) for a grid."""
    from dipc_plus.semantics.inputs import bind_inputs
    if spec is None:
        ranges = {}
        for name, typ in program.inputs:
            if isinstance(typ, (ir.DomT, ir.BoolT)):
                ranges[name] = list(domain_values(typ))
            else:
                raise r.error(key.rsplit(".", 1)[0], f"no inputs are given and '{name}' is real",
                              hint=f"add\n  [{key}]\n  grid = {{ {name.split('[')[0]} = [0, 1] }}")
        return _grid_points(r, key, program, ranges)
    if not isinstance(spec, dict):
        raise r.error(key, "inputs must be a table", hint=f"write [{key}] with grid = {{...}} or list = [...]")
    r.check_keys(spec, INPUT_KEYS, key)
    if ("grid" in spec) == ("list" in spec):
        raise r.error(key, "give exactly one of 'grid' and 'list'",
                      hint="grid = { q = [-1, 1] } or list = [ { q = [0, 1, -1] } ]")
    if "list" in spec:
        if "step" in spec:
            raise r.error(f"{key}.step", "step only applies to a grid", hint="remove it")
        rows = spec["list"]
        if not isinstance(rows, list) or not rows or not all(isinstance(x, dict) for x in rows):
            raise r.error(f"{key}.list", "list must be a non-empty array of inline tables",
                          hint="list = [ { q = [-1, 0, 1] }, { q = [1, 1, 1] } ]")
        points, seen = [], set()
        for k, row in enumerate(rows):
            try:
                u = bind_inputs(program, {n: to_user_value(v) for n, v in row.items()})
            except UserError as exc:
                raise r.error(f"{key}.list", f"entry {k + 1}: {exc.message}", exc.hint) from None
            if _freeze(u) not in seen:
                seen.add(_freeze(u))
                points.append(u)
        return points, None
    grid = spec["grid"]
    if not isinstance(grid, dict):
        raise r.error(f"{key}.grid", "grid must be a table", hint="grid = { q = [-1, 1] }")
    step = r.number(f"{key}.step", spec.get("step", 1))
    if step <= 0:
        raise r.error(f"{key}.step", "step must be positive", hint='step = "1/2"')
    types = dict(program.inputs)
    ranges: dict = {}
    for name, value in grid.items():
        elems = program.arrays.get(name, [name] if name in types else None)
        if elems is None or not all(e in types for e in elems):
            close = difflib.get_close_matches(name, list(program.arrays) + list(types), n=1)
            raise r.error(f"{key}.grid", f"'{name}' is not an input of {program.name}",
                          hint=(f"did you mean '{close[0]}'? " if close else "") +
                          f"its inputs are: {', '.join(sorted({n.split('[')[0] for n in types}))}")
        for e in elems:
            ranges[e] = grid_values(r, f"{key}.grid", name, value, types[e], step)
    for name, typ in program.inputs:
        if name not in ranges:
            if isinstance(typ, (ir.DomT, ir.BoolT)):
                ranges[name] = list(domain_values(typ))
            else:
                raise r.error(f"{key}.grid", f"the grid gives no values for the real input '{name}'",
                              hint=f"add {name.split('[')[0]} = [-1, 1] to the grid")
    return _grid_points(r, f"{key}.grid", program, ranges)


def _grid_points(r: ClaimReader, key: str, program: ir.Program, ranges: dict) -> tuple[None, dict]:
    """A grid stays a grid (expanded lazily): symmetry and independence avoid expanding it."""
    names = [n for n, _ in program.inputs]
    return None, {n: ranges[n] for n in names}


def _read_pairs(r: ClaimReader, rows, program: ir.Program) -> list:
    from dipc_plus.semantics.inputs import bind_inputs
    key = "privacy.pairs"
    if not isinstance(rows, list) or not rows or not all(isinstance(x, dict) for x in rows):
        raise r.error(key if rows is not None else "privacy", "adjacency = \"pairs\" needs a list of pairs",
                      hint="pairs = [ { input = { q = [0, 1] }, neighbour = { q = [1, 1] } } ]")
    out = []
    for k, row in enumerate(rows):
        if set(row) != {"input", "neighbour"}:
            raise r.error(key, f"pair {k + 1} must have exactly 'input' and 'neighbour'",
                          hint="{ input = { q = [0, 1] }, neighbour = { q = [1, 1] } }")
        try:
            u = bind_inputs(program, {n: to_user_value(v) for n, v in row["input"].items()})
            w = bind_inputs(program, {n: to_user_value(v) for n, v in row["neighbour"].items()})
        except UserError as exc:
            raise r.error(key, f"pair {k + 1}: {exc.message}", exc.hint) from None
        if _freeze(u) == _freeze(w):
            raise r.error(key, f"pair {k + 1} is an input with itself", hint="neighbours must differ")
        out.append((u, w))
    return out


# --------------------------------------------------------------------------- Pufferfish


def _read_pufferfish(r: ClaimReader, raw: dict, program: ir.Program, path: str) -> PufferfishClaim:
    r.check_keys(raw, PUFFERFISH_KEYS, "privacy")
    budget = _read_budget(r, raw.get("budget"), program, "privacy.budget")
    eps = _read_eps(r, raw.get("eps", "(0, inf)"), "privacy.eps")
    events = _read_events(r, raw.get("events"), program, "privacy.events")
    params_raw = raw.get("parameters", {})
    if not isinstance(params_raw, dict):
        raise r.error("privacy.parameters", "parameters must be a table", hint='parameters = { p = "(0, 1)" }')
    parameters, ranges = {}, {}
    for name, text in params_raw.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", name) or name in ("eps",) or name in program.params:
            raise r.error(f"privacy.parameters.{name}", f"'{name}' cannot name a symbolic parameter",
                          hint="use a fresh name such as p, different from eps and the program's params")
        iv = _read_param_interval(r, f"privacy.parameters.{name}", text)
        parameters[name] = iv
        ranges[name] = iv
    sec_raw = raw.get("secrets")
    if not isinstance(sec_raw, dict) or not sec_raw:
        raise r.error("privacy.secrets" if sec_raw is not None else "privacy", "give the secrets as a table",
                      hint='secrets = { sick = "x[1] == 1", healthy = "x[1] == 0" }')
    secrets = {}
    for name, text in sec_raw.items():
        secrets[name] = _read_predicate(r, f"privacy.secrets.{name}", name, text, program)
    pairs_raw = raw.get("pairs")
    if not isinstance(pairs_raw, list) or not pairs_raw:
        raise r.error("privacy.pairs" if pairs_raw is not None else "privacy",
                      "give the discriminative pairs of secrets", hint='pairs = [["sick", "healthy"]]')
    pairs = []
    for k, pr in enumerate(pairs_raw):
        if not (isinstance(pr, list) and len(pr) == 2 and all(isinstance(x, str) for x in pr)):
            raise r.error("privacy.pairs", f"pair {k + 1} must be two secret names", hint='["sick", "healthy"]')
        for x in pr:
            if x not in secrets:
                close = difflib.get_close_matches(x, list(secrets), n=1)
                raise r.error("privacy.pairs", f"'{x}' is not a secret",
                              hint=(f"did you mean '{close[0]}'? " if close else "") +
                              f"the secrets are: {', '.join(secrets)}")
        pairs.append((pr[0], pr[1]))
    sc_raw = raw.get("scenarios")
    if not isinstance(sc_raw, list) or not sc_raw or not all(isinstance(x, dict) for x in sc_raw):
        raise r.error("privacy.scenarios" if sc_raw is not None else "privacy",
                      "give at least one scenario as [[privacy.scenarios]]",
                      hint='[[privacy.scenarios]]\n  name = "independent"\n  independent = { x = { "0" = "1 - p", "1" = "p" } }')
    scenarios = [_read_scenario(r, k, sc, program, list(parameters)) for k, sc in enumerate(sc_raw)]
    note = raw.get("note", "")
    return PufferfishClaim(path, program, budget, eps, {n: _interval_text(iv) for n, iv in parameters.items()},
                           ranges, secrets, pairs, scenarios, events, note if isinstance(note, str) else "")


def _interval_text(iv) -> str:
    lo, hi, lc, hc = iv
    return f"{'[' if lc else '('}{fmt_q(lo)}, {fmt_q(hi)}{']' if hc else ')'}"


def _read_param_interval(r: ClaimReader, key: str, text):
    hint = 'write an interval with rational ends, e.g. "(0, 1)" or "[1/4, 3/4]"'
    if not isinstance(text, str):
        raise r.error(key, "the range must be a string", hint=hint)
    s = text.strip()
    if len(s) < 5 or s[0] not in "([" or s[-1] not in ")]" or s.count(",") != 1:
        raise r.error(key, f"cannot read the range {text!r}", hint=hint)
    parts = [p.strip() for p in s[1:-1].split(",")]
    try:
        lo, hi = Fraction(parts[0]), Fraction(parts[1])
    except (ValueError, ZeroDivisionError):
        raise r.error(key, f"cannot read the range {text!r}", hint=hint) from None
    if hi <= lo:
        raise r.error(key, f"the range {text!r} is empty or a point", hint=hint)
    return (lo, hi, s[0] == "[", s[-1] == "]")


def _read_predicate(r: ClaimReader, key: str, name: str, text, program: ir.Program) -> Predicate:
    if not isinstance(text, str):
        raise r.error(key, "a secret is a condition in a string", hint='"x[1] == 1"')
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise r.error(key, f"cannot read {text!r}: {exc.msg}",
                      hint="use comparisons (== != < <= > >=), and/or/not, + - *, sum(x), inputs as x[1]") from None
    pred = Predicate(name, text, tree)
    # check names now against a sample input
    sample = {}
    for n, t in program.inputs:
        sample[n] = domain_values(t)[0] if isinstance(t, (ir.DomT, ir.BoolT)) else Fraction(0)
    try:
        _eval_predicate(tree, sample, text, program)
    except UserError as exc:
        raise r.error(key, exc.message, exc.hint) from None
    return pred


def _eval_predicate(node, env: Mapping, text: str, program: ir.Program | None = None):
    def fail(msg):
        raise UserError(f"in the condition {text!r}: {msg}",
                        hint="use comparisons (== != < <= > >=), and/or/not, + - *, sum(x), inputs as x[1]")

    def flat(n):
        if isinstance(n, ast.Name):
            return n.id
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
            idx = n.slice
            if isinstance(idx, ast.Constant) and isinstance(idx.value, int):
                return f"{n.value.id}[{idx.value}]"
        return None

    def ev(n):
        name = flat(n)
        if name is not None:
            if name in env:
                return env[name]
            if name in ("true", "false", "True", "False"):
                return name.lower() == "true"
            if isinstance(n, ast.Name):
                return n.id  # a symbol
            fail(f"'{name}' is not an input")
        if isinstance(n, ast.Constant):
            if isinstance(n.value, bool):
                return n.value
            if isinstance(n.value, (int, float)):
                return parse_number(n.value)
            if isinstance(n.value, str):
                return n.value
        if isinstance(n, ast.BoolOp):
            vals = [ev(v) for v in n.values]
            return all(vals) if isinstance(n.op, ast.And) else any(vals)
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand)
            if isinstance(n.op, ast.Not):
                return not v
            if isinstance(n.op, ast.USub):
                return -v
            return v
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            if isinstance(a, bool):
                a = int(a)
            if isinstance(b, bool):
                b = int(b)
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            fail("only + - * are allowed")
        if isinstance(n, ast.Compare):
            left = ev(n.left)
            result = True
            for op, right_node in zip(n.ops, n.comparators):
                right = ev(right_node)
                if isinstance(op, ast.Eq):
                    ok = _same(left, right) if not isinstance(left, bool) else left == right
                elif isinstance(op, ast.NotEq):
                    ok = not _same(left, right)
                else:
                    if isinstance(left, str) or isinstance(right, str):
                        fail("symbols can only be compared with == and !=")
                    ok = {ast.Lt: left < right, ast.LtE: left <= right, ast.Gt: left > right,
                          ast.GtE: left >= right}.get(type(op))
                    if ok is None:
                        fail("unknown comparison")
                result = result and ok
                left = right
            return result
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("sum", "count"):
            if len(n.args) != 1 or not isinstance(n.args[0], ast.Name):
                fail(f"{n.func.id}(x) takes one array input")
            arr = n.args[0].id
            elems = sorted((k for k in env if k.startswith(arr + "[")), key=lambda k: int(k[len(arr) + 1:-1]))
            if not elems:
                fail(f"'{arr}' is not an array input")
            vals = [env[k] for k in elems]
            return sum((int(v) if isinstance(v, bool) else v) for v in vals)
        fail("unsupported expression")

    return ev(node)


def _read_scenario(r: ClaimReader, k: int, sc: dict, program: ir.Program, params: list) -> Scenario:
    import sympy
    from dipc_plus.semantics.inputs import bind_inputs, coerce
    key = "privacy.scenarios"
    r.check_keys(sc, SCENARIO_KEYS, key)
    name = sc.get("name", f"scenario {k + 1}")
    if ("prior" in sc) == ("independent" in sc):
        raise r.error(key, f"{name}: give exactly one of 'prior' (a list of inputs with weights) and "
                           "'independent' (a distribution per input position)",
                      hint='prior = [ { input = { x = [0, 0] }, weight = "1 - p" }, ... ]')
    symbols = {p: sympy.Symbol(p) for p in params}

    def weight(text, where):
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            text = str(text)
        if not isinstance(text, str):
            raise r.error(key, f"{name}: {where}: a weight is a formula in a string", hint='"1 - p"')
        try:
            tree = ast.parse(text.replace("^", "**"), mode="eval")
        except SyntaxError as exc:
            raise r.error(key, f"{name}: {where}: cannot read {text!r}: {exc.msg}", hint='"2*p*(1 - p)"') from None
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id not in symbols:
                raise r.error(key, f"{name}: {where}: unknown name '{node.id}' in {text!r}",
                              hint=f"declare it in parameters = {{ {node.id} = \"(0, 1)\" }}")
            if isinstance(node, (ast.Call, ast.Attribute, ast.Subscript, ast.Lambda)):
                raise r.error(key, f"{name}: {where}: {text!r} is not a polynomial",
                              hint="weights are polynomials in the parameters with rational coefficients")
        expr = sympy.sympify(text.replace("^", "**"), locals=symbols, rational=True)
        try:
            poly = sympy.Poly(expr, *[symbols[p] for p in params]) if params else sympy.Poly(expr, sympy.Symbol("_"))
        except sympy.PolynomialError:
            raise r.error(key, f"{name}: {where}: {text!r} is not a polynomial in {', '.join(params) or 'nothing'}",
                          hint="weights are polynomials in the parameters with rational coefficients") from None
        if not all(c.is_Rational for c in poly.coeffs()):
            raise r.error(key, f"{name}: {where}: {text!r} has a non-rational coefficient", hint="use rationals")
        return _poly_dict(poly, len(params))

    support = []
    if "prior" in sc:
        rows = sc["prior"]
        if not isinstance(rows, list) or not rows or not all(isinstance(x, dict) for x in rows):
            raise r.error(key, f"{name}: prior must be a list of {{ input = ..., weight = ... }}",
                          hint='prior = [ { input = { x = [0, 0] }, weight = "1 - p" } ]')
        seen = set()
        for j, row in enumerate(rows):
            if set(row) != {"input", "weight"}:
                raise r.error(key, f"{name}: prior entry {j + 1} must have exactly 'input' and 'weight'",
                              hint='{ input = { x = [0, 0] }, weight = "1 - p" }')
            try:
                u = bind_inputs(program, {n: to_user_value(v) for n, v in row["input"].items()})
            except UserError as exc:
                raise r.error(key, f"{name}: prior entry {j + 1}: {exc.message}", exc.hint) from None
            if _freeze(u) in seen:
                raise r.error(key, f"{name}: prior entry {j + 1} repeats the input {show_env(u)}",
                              hint="give each input once")
            seen.add(_freeze(u))
            support.append((u, weight(row["weight"], f"prior entry {j + 1}")))
    else:
        spec = sc["independent"]
        if not isinstance(spec, dict):
            raise r.error(key, f"{name}: independent must be a table",
                          hint='independent = { x = { "0" = "1 - p", "1" = "p" } }')
        types = dict(program.inputs)
        per: dict = {}
        for nm, dist in spec.items():
            elems = program.arrays.get(nm, [nm] if nm in types else None)
            if elems is None or not all(e in types for e in elems):
                raise r.error(key, f"{name}: '{nm}' is not an input of {program.name}",
                              hint=f"its inputs are: {', '.join(sorted({n.split('[')[0] for n in types}))}")
            if not isinstance(dist, dict) or not dist:
                raise r.error(key, f"{name}: {nm}: give {{ value = weight, ... }}",
                              hint=f'{nm} = {{ "0" = "1 - p", "1" = "p" }}')
            for e in elems:
                choices = []
                for val_text, w in dist.items():
                    try:
                        val = coerce(to_user_value(val_text), types[e], f"value of {e}")
                    except UserError as exc:
                        raise r.error(key, f"{name}: {exc.message}", exc.hint) from None
                    choices.append((val, weight(w, f"{nm} = {val_text}")))
                per[e] = choices
        missing = [n for n in program.input_names() if n not in per]
        if missing:
            raise r.error(key, f"{name}: no distribution for the input(s) {', '.join(missing)}",
                          hint="give every input position a distribution")
        names = program.input_names()
        total = 1
        for n in names:
            total *= len(per[n])
        if total > MAX_POINTS:
            raise r.error(key, f"{name}: the prior has {total} inputs, too many", hint="use fewer positions")
        for combo in itertools.product(*(per[n] for n in names)):
            u = {n: v for n, (v, _) in zip(names, combo)}
            w = {(0,) * len(params): Fraction(1)}
            for _, wi in combo:
                w = poly_mul(w, wi)
            support.append((u, w))
    support = [(u, w) for u, w in support if w]
    if not support:
        raise r.error(key, f"{name}: every prior weight is 0", hint="give some input a positive weight")
    note = sc.get("note", "")
    return Scenario(name, support, note if isinstance(note, str) else "")


# -- polynomials in the symbolic parameters: {exponent tuple: Fraction} ------------------------------------


def _poly_dict(poly, nvars: int) -> dict:
    out = {}
    for monom, c in poly.terms():
        m = tuple(monom) if nvars else (0,) * 0
        out[m] = out.get(m, Fraction(0)) + Fraction(int(c.p), int(c.q))
    return {m: c for m, c in out.items() if c != 0}


def poly_mul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(x + y for x, y in zip(ma, mb))
            out[m] = out.get(m, Fraction(0)) + ca * cb
    return {m: c for m, c in out.items() if c != 0}


def poly_add(a: dict, b: dict) -> dict:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, Fraction(0)) + c
    return {m: c for m, c in out.items() if c != 0}


def poly_eval(a: dict, point: tuple) -> Fraction:
    total = Fraction(0)
    for m, c in a.items():
        term = c
        for x, e in zip(point, m):
            term *= Fraction(x) ** e
        total += term
    return total


def poly_text(a: dict, names: list) -> str:
    if not a:
        return "0"
    import sympy
    syms = [sympy.Symbol(n) for n in names]
    expr = sum(sympy.Rational(c.numerator, c.denominator) * sympy.Mul(*[s ** e for s, e in zip(syms, m)])
               for m, c in a.items())
    return str(sympy.factor(expr))
