"""What a Python expression of the subset is once translated: its .dip text and its kind.

Why a module of its own: the statement translator and the expression translator share these
small records (a value, a list, an index that grows with the loops) and nothing else.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.exact.convert import fmt_q

REAL, BOOL, INT, CONST = "real", "bool", "int", "const"


def number_text(value: Fraction) -> str:
    """A rational as .dip text: `3`, and in brackets `(-1)`, `(1/10)`."""
    value = Fraction(value)
    return fmt_q(value) if value.denominator == 1 and value >= 0 else f"({fmt_q(value)})"


@dataclass(frozen=True)
class Value:
    """A translated expression: `text` in .dip, of kind REAL, BOOL, INT (a DOM integer whose values lie
    in lo..hi) or CONST (a number known now: `value`).  `mean` says that .dip accepts it as the
    location of a noise (a constant, an input element or a real variable)."""
    text: str
    kind: str
    value: Fraction | None = None
    lo: int | None = None
    hi: int | None = None
    mean: bool = False

    def bounds(self) -> tuple:
        """(lo, hi) of an integer value: a constant's own value twice."""
        return (int(self.value),) * 2 if self.kind == CONST else (self.lo, self.hi)


def widened(old: tuple, new: tuple) -> tuple:
    """The integer range (lo, hi) holding both ranges; an end of `old` that is None is not known yet."""
    return (new[0] if old[0] is None else min(old[0], new[0]), new[1] if old[1] is None else max(old[1], new[1]))


def const(value: Fraction, text: str | None = None) -> Value:
    value = Fraction(value)
    return Value(text if text is not None else number_text(value), CONST, value=value, mean=True)


@dataclass
class ListVar:
    """A list of the function: an input (`queries`, length m) or a local built by a comprehension
    or by appends.  `elem` is the element kind; `length` its final length (known from the
    previous translation pass); `appended` is the index the next append writes, as an affine
    form (constant, {loop variable: coefficient})."""
    name: str
    elem: str | None
    is_input: bool = False
    length: int = 0
    lo: int | None = None
    hi: int | None = None
    base: int = 0
    terms: dict = field(default_factory=dict)

    def index_text(self, offset: int = 0) -> str:
        """The .dip (1-based) index of the next append, plus `offset`."""
        parts = [str(self.base + offset + 1)]
        parts += [f"{c}*{v}" if c != 1 else v for v, c in self.terms.items() if c]
        return " + ".join(parts)
