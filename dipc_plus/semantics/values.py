"""Program values (Booleans, numbers, symbols, arrays): equality, a hashable form, text.

Booleans are not numbers here (`True` is never `1`), and equal numbers are equal
whatever their Python type (`1 == Fraction(1)`).  Every stage that compares,
memoises or prints program values uses these, so the rule is written once.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping


def values_equal(a, b) -> bool:
    """Equality that never confuses ``True`` with ``1`` or a symbol with a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return a == b


def freeze_value(v):
    """A hashable form of one value: equal numbers give equal forms, Booleans stay apart."""
    t = type(v)          # exact types first: this runs for every input of every pair
    if t is Fraction:
        return ("num", v)
    if t is list or t is tuple:
        return ("array", tuple(freeze_value(x) for x in v))
    if isinstance(v, (bool, str)):
        return (type(v).__name__, v)
    if isinstance(v, (int, Fraction)):
        return ("num", Fraction(v))
    if isinstance(v, (list, tuple)):
        return ("array", tuple(freeze_value(x) for x in v))
    return (type(v).__name__, v)


def freeze_env(env: Mapping) -> tuple:
    """A hashable form of a variable environment (sorted by name)."""
    return tuple(sorted((k, freeze_value(v)) for k, v in env.items()))


def show_value(v) -> str:
    """'true', '3', '1/2', 'a', '[1,0,true]'.

    >>> from fractions import Fraction
    >>> show_value([1, Fraction(1, 2), True])
    '[1,1/2,true]'
    """
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ",".join(show_value(x) for x in v) + "]"
    return str(v)


def show_env(env: Mapping) -> str:
    """'{x=1, b=true}'."""
    return "{" + ", ".join(f"{k}={show_value(v)}" for k, v in env.items()) + "}"
