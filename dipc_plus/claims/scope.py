"""What a verdict covers: the scope every verdict line and JSON report names.

Why it exists: a decided claim is exact *on what was checked*, and no more.  An
accuracy or privacy verdict covers the claim's inputs (a grid, a list, a box, or a
finite input domain in full), for the program's parameter values (loops are
unrolled at a fixed m), and -- for real outputs of a privacy claim -- only the
named output events.  "VERIFIED for every neighbouring pair" on an integer grid
says nothing about q = 1/2 (issue 8, item 5).  `Scope` describes this once, for the
accuracy and the privacy layers, in text (`summary`, `coverage`) and in JSON.

Kinds: ``grid`` (a product of value lists; ``complete`` when it is every input of
a finite input space), ``list`` (explicit inputs), ``box`` (every real input of a
box, for future deciders that cover boxes), ``events`` (real outputs checked on
named events; the input part is then described as well).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from dipc_plus.exact.convert import fmt_q, json_q
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import domain_values
from dipc_plus.semantics.values import is_number, show_env, show_value

MAX_SHOWN = 6


def values_text(values: list) -> str:
    """'{0, 1}', '{-1, -1/2, ..., 1} (step 1/2)', '{bot, top}'."""
    vals = list(values)
    nums = all(is_number(v) for v in vals)
    if nums and len(vals) >= 4:
        xs = sorted(Fraction(v) for v in vals)
        step = xs[1] - xs[0]
        if step > 0 and all(b - a == step for a, b in zip(xs, xs[1:])):
            return f"{{{show_value(xs[0])}, {show_value(xs[1])}, ..., {show_value(xs[-1])}}} (step {show_value(step)})"
    if len(vals) > 2 * MAX_SHOWN:
        return "{" + ", ".join(show_value(v) for v in vals[:MAX_SHOWN]) + f", ... ({len(vals)} values)}}"
    return "{" + ", ".join(show_value(v) for v in vals) + "}"


def _same_values(a: list, b: list) -> bool:
    return len(a) == len(b) and all(type(x) is type(y) and x == y for x, y in zip(a, b))


def grid_text(program: ir.Program, grid: Mapping) -> str:
    """'q[1..3] each in {0, 1}; h in {bot, top}' (array elements with equal ranges grouped)."""
    return grouped_text(program, grid, values_text, _same_values)


def box_text(program: ir.Program, bounds: dict) -> str:
    """'q[1..3] each in [-1, 1]' (array elements with equal bounds grouped)."""
    return grouped_text(program, bounds, lambda b: f"[{fmt_q(b[0])}, {fmt_q(b[1])}]")


def claimed_inputs_text(program: ir.Program, kind: str, points) -> str:
    """How a claim's description counts its inputs: '27 input(s)', or for a box (`points` a
    `claims.box.BoxInputs`) 'every real input of the box q[1..3] each in [-1, 1]'."""
    if kind == "box":
        return f"every real input of the box {box_text(program, points.bounds)}"
    return f"{len(points)} input(s)"


def grouped_text(program: ir.Program, table: Mapping, show, same=lambda a, b: a == b) -> str:
    """'q[1..3] each in X; h in Y': each input's entry of `table` shown by `show`, the elements of an
    array whose entries are all the `same` grouped."""
    parts, done = [], set()
    for name, elems in program.arrays.items():
        elems = [e for e in elems if e in table]
        if elems and all(same(table[e], table[elems[0]]) for e in elems):
            label = f"{name}[1..{len(elems)}] each" if len(elems) > 1 else elems[0]
            parts.append(f"{label} in {show(table[elems[0]])}")
            done |= set(elems)
    for name in table:
        if name not in done:
            parts.append(f"{name} in {show(table[name])}")
    return "; ".join(parts) or "(no inputs)"


def grid_of_points(points: list) -> dict | None:
    """The grid {name: values} whose product is exactly `points`, or None when they are no grid.

    Values are told apart by type too (True is not 1), and looked up by hash: a grid of
    thousands of points is recognised in one pass."""
    if not points:
        return None
    known = getattr(points, "grid", None)   # claims.grid_points.GridPoints of a whole grid: no pass needed
    if known is not None:
        values = {n: {_value_key(v): v for v in vals} for n, vals in known.items()}
    else:
        first = points[0]
        values: dict = {n: {} for n in first}
        rows = set()
        for u in points:
            if u.keys() != first.keys():
                return None
            row = tuple(_value_key(u[n]) for n in first)
            rows.add(row)
            for n, key in zip(first, row):
                values[n].setdefault(key, u[n])
        if math.prod(len(v) for v in values.values()) != len(rows):
            return None
    return {n: sorted(v.values(), key=_order) for n, v in values.items()}


def _value_key(v) -> tuple:
    """v told apart by type, hashed cheaply (a Fraction by its two integers, not its own hash)."""
    kind = type(v)
    return (kind, v.numerator, v.denominator) if kind is Fraction else (kind, v)


def _order(v):
    if isinstance(v, bool):
        return (0, int(v), "")
    if isinstance(v, (int, Fraction)):
        return (1, Fraction(v), "")
    return (2, 0, str(v))


def is_whole_domain(program: ir.Program, grid: Mapping) -> bool:
    """Every input finite and every value of its domain on the grid (values told apart by type)."""
    return all(isinstance(typ, (ir.DomT, ir.BoolT))
               and {_value_key(v) for v in domain_values(typ)} <= {_value_key(w) for w in grid.get(name, ())}
               for name, typ in program.inputs)


# inputs kind -> (how a verdict names them, what it leaves out unless complete); a Pufferfish
# claim's priors are "complete" (every scenario) and still leave other priors out
_INPUT_WORDS = {
    "grid": ("the grid {}", "inputs off the grid"),
    "box": ("the box {}", "inputs outside the box"),
    "list": ("the listed inputs ({})", "inputs not listed"),
    "priors": ("the claim's scenario priors ({})", "other priors than the claim's scenarios"),
}


@dataclass
class Scope:
    """What one verdict covers (see the module doc)."""
    inputs: str                 # 'grid' | 'list' | 'box' | 'domain' | 'priors' (Pufferfish scenarios)
    inputs_detail: str
    params: dict
    eps: str
    complete: bool = False      # every input of a finite input space
    events: dict = field(default_factory=dict)   # real output -> [event labels] when outputs are events

    @property
    def kind(self) -> str:
        """'events' when real outputs were checked on named events, else the inputs' kind."""
        if self.events:
            return "events"
        return {"domain": "grid", "priors": "list"}.get(self.inputs, self.inputs)

    @property
    def event_limited(self) -> bool:
        return bool(self.events)

    def _words(self) -> tuple:
        return _INPUT_WORDS.get(self.inputs, _INPUT_WORDS["list"])

    def inputs_phrase(self) -> str:
        if self.inputs != "priors" and (self.inputs == "domain" or self.complete):
            return f"every input ({self.inputs_detail})"
        return self._words()[0].format(self.inputs_detail)

    def params_phrase(self) -> str:
        return ", ".join(f"{k} = {show_value(v)}" for k, v in self.params.items())

    def events_phrase(self) -> str:
        groups: dict = {}
        for name, labels in self.events.items():
            groups.setdefault(tuple(labels), []).append(name)
        parts = []
        for labels, names in groups.items():
            who = names[0] if len(names) == 1 else f"{names[0].split('[')[0]}[..] ({len(names)} outputs)"
            parts.append(f"{who} in {', '.join(labels)}")
        return "; ".join(parts)

    def summary(self) -> str:
        """'on the grid q[1..3] each in {0, 1}, for m = 3, c = 1' (+ the events)."""
        text = f"on {self.inputs_phrase()}"
        if self.params:
            text += f", for {self.params_phrase()}"
        if self.events:
            text += f"; real outputs only on the named events ({self.events_phrase()})"
        return text

    def not_covered(self) -> list[str]:
        out = []
        if self.inputs == "priors" or not self.complete:
            out.append(self._words()[1])
        if self.params:
            names = list(self.params)
            out.append("other values of " + (names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"))
        if self.events:
            out.append("other sets of real outputs than unions of the named events")
        return out

    def coverage(self) -> str:
        """One line: what was and was not covered."""
        miss = self.not_covered()
        kind = self.kind + (" (every input)" if self.complete and self.inputs != "priors" else "")
        return (f"scope: {kind}; covered: {self.summary()[3:]}"
                + (f"; not covered: {', '.join(miss)}" if miss else "; nothing else to cover"))

    def verified(self, statement: str) -> str:
        """The line of a verified verdict: on what it holds, then what holds there."""
        return f"VERIFIED {self.summary()}: {statement}"

    def vacuously(self, why: str) -> str:
        """The line of a vacuous verdict: why nothing was compared, then on what."""
        return f"VERIFIED (vacuously: {why}) {self.summary()}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "inputs": self.inputs, "inputs_detail": self.inputs_detail,
                "complete": self.complete, "params": {k: json_q(v) for k, v in self.params.items()},
                "eps": self.eps, "outputs": "events" if self.events else "all",
                "events": {k: list(v) for k, v in self.events.items()},
                "summary": self.summary(), "not_covered": self.not_covered()}


def inputs_scope(program: ir.Program, *, grid: Mapping | None = None, points: list | None = None,
                 kind: str = "grid", eps: str = "", events: Mapping | None = None) -> Scope:
    """The scope of a verdict over a grid (or the whole finite domain) or a list of inputs."""
    named = {k: [str(e) for e in v] for k, v in (events or {}).items()}
    if grid is None and points is not None and kind != "list" and len(points) > 1:
        grid = grid_of_points(points)   # None when the points are no grid
    if grid is not None:
        complete = is_whole_domain(program, grid)
        return Scope("domain" if complete else "grid", grid_text(program, grid), dict(program.params), eps,
                     complete, named)
    pts = points or []
    shown = "; ".join(show_env(u) for u in pts[:3])
    detail = f"{len(pts)} input(s): {shown}" + (", ..." if len(pts) > 3 else "")
    return Scope("list", detail, dict(program.params), eps, False, named)


def box_scope(program: ir.Program, bounds: Mapping, eps: str = "") -> Scope:
    """The scope of a verdict over every real input of a box (`claims.box`)."""
    return Scope("box", box_text(program, bounds), dict(program.params), eps, False)
