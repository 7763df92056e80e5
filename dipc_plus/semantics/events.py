"""Exact probabilities of events on a program's outputs, e.g. P[x <= 0] or P[0 < x <= 2].

Why it exists: real and integer outputs are symbolic (an input plus named
noises, under constraints), so their distribution is not a list of values.  A
user asks about them through events: conjunctions of comparisons between an
output and a rational.  Each outcome contributes its weight times the exact
probability that its constraints and the event's comparisons hold together
(`exact.constraints.probability`), so the answer is a closed form in eps like
every other probability.  Finite outputs compare by value.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.exact.constraints import probability as constraints_probability
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.linear import LinForm, atom, holds
from dipc_plus.semantics import ir

_OPS = ("<", "<=", ">", ">=", "==", "!=")
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_TOKEN = re.compile(r"\s*(<=|>=|==|!=|<|>|=|[A-Za-z_][A-Za-z_0-9]*(?:\[\d+\])?|-?\d+(?:/\d+|\.\d+)?)\s*")


@dataclass(frozen=True)
class Comparison:
    output: str        # a flat output name, e.g. 'x' or 'out[2]'
    op: str
    value: Fraction


@dataclass(frozen=True)
class Event:
    text: str
    comparisons: tuple


def _number(tok: str) -> Fraction | None:
    try:
        return Fraction(tok)
    except ValueError:
        return None


def parse_event(text: str, outputs: list[str]) -> Event:
    """'x<=0', 'x > 2', '0 < x <= 2', 'x>=0 & y<1' (no eval: a small tokenizer)."""
    hint = "write e.g. \"x<=0\", \"0<x<=2\" or \"x>=0 & y<1\" with output names of the program"
    comps = []
    for part in str(text).split("&"):
        pos, toks = 0, []
        part = part.strip()
        while pos < len(part):
            m = _TOKEN.match(part, pos)
            if not m or m.end() == pos:
                raise UserError(f"cannot read the event '{text}' at '{part[pos:]}'", hint=hint)
            toks.append(m.group(1))
            pos = m.end()
        if len(toks) not in (3, 5) or any(t not in _OPS and t != "=" for t in toks[1::2]):
            raise UserError(f"cannot read the event '{text}'", hint=hint)
        toks = ["==" if t == "=" else t for t in toks]
        for lhs, op, rhs in zip(toks[0::2], toks[1::2], toks[2::2]):
            if _number(lhs) is None and _number(rhs) is not None:
                name, value = lhs, _number(rhs)
            elif _number(rhs) is None and _number(lhs) is not None:
                name, value, op = rhs, _number(lhs), _FLIPPED[op]
            else:
                raise UserError(f"the event '{text}' must compare an output with a number", hint=hint)
            if name not in outputs:
                raise UserError(f"the event '{text}' names '{name}', not an output of the program",
                                hint=f"the outputs are {', '.join(outputs)}")
            comps.append(Comparison(name, op, value))
    return Event(str(text).strip(), tuple(comps))


def value_events(name: str, lo: int, hi: int) -> list[Event]:
    """One event 'name == k' per integer k in [lo, hi]: an integer output's distribution by value."""
    return [Event(f"{name} = {k}", (Comparison(name, "==", Fraction(k)),)) for k in range(lo, hi + 1)]


def event_probability(dist, event: Event) -> ExpFrac:
    """P[the outputs satisfy every comparison of `event`] as an exact closed form in eps."""
    idx = {n: i for i, n in enumerate(dist.names)}

    def atoms(outcome):
        extra = []
        for c in event.comparisons:
            v = outcome.values[idx[c.output]]
            if isinstance(v, LinForm) and not v.is_constant():
                extra.append(atom(v, c.op, LinForm.constant(c.value)))
                continue
            const = v.const if isinstance(v, LinForm) else v
            if isinstance(const, bool) or not isinstance(const, (int, Fraction)):
                if not isinstance(dist.types.get(c.output), (ir.RealT, ir.IntT)):
                    raise UserError(f"the event '{event.text}' compares {c.output}, which is not a number",
                                    hint="events compare real or integer outputs with numbers")
                return None  # never assigned on this path: not in the event
            if not holds(Fraction(const) - c.value, c.op):
                return None
        return extra
    return restricted_total(dist, atoms)


def restricted_total(dist, atoms_of) -> ExpFrac:
    """The sum over the outcomes of `dist` of P[the outcome and the atoms `atoms_of(outcome)` on its
    real outputs], the outcomes for which it gives None left out (one place for events and `within`)."""
    total = ExpFrac.of(ExpPoly.ZERO)
    for outcome, entry in dist.entries.items():
        extra = atoms_of(outcome)
        if extra:
            p = ExpFrac.of(constraints_probability(list(outcome.constraints) + extra, dist.noises))
            total = total + (p if p.is_zero() else entry.weight * p)
        elif extra is not None:
            total = total + entry.probability
    return total
