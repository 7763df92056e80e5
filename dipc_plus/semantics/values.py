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


def is_number(value) -> bool:
    """An int or Fraction that is no Boolean: what a program's numbers are at run time."""
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool)


def plain_number(value):
    """An integral Fraction becomes an int, so DOM values compare and print alike.

    >>> plain_number(Fraction(4, 2)), plain_number(Fraction(1, 2)), plain_number("a")
    (2, Fraction(1, 2), 'a')
    """
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    return value


def value_key(v):
    """A total order on input values (Booleans, numbers, symbols)."""
    if isinstance(v, bool):
        return (0, int(v), "")
    if isinstance(v, (int, Fraction)):
        return (1, Fraction(v), "")
    return (2, 0, str(v))


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


def distinct(items, key=freeze_env) -> list:
    """The items in order, each once by `key` (default: an environment by value): repeated grid
    values, symmetric inputs and the two sides of listed pairs give repeats."""
    seen: dict = {}
    for x in items:
        seen.setdefault(key(x), x)
    return list(seen.values())


def show_value(v, list_sep: str = ",") -> str:
    """'true', '3', '1/2', 'a', '[1,0,true]' (`list_sep` between array elements).

    >>> from fractions import Fraction
    >>> show_value([1, Fraction(1, 2), True]), show_value([1, 2], ", ")
    ('[1,1/2,true]', '[1, 2]')
    """
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + list_sep.join(show_value(x, list_sep) for x in v) + "]"
    return str(v)


def show_env(env: Mapping, *, braces: bool = True, list_sep: str = ",", empty: str = "") -> str:
    """An environment as text, the one way every stage prints one: '{x=1, b=true}' in messages;
    reports pass it with its arrays grouped (accuracy.report.group_env, privacy.display.user_env)
    and braces=False, privacy reports with ', ' inside arrays, accuracy reports with
    empty='(no inputs)' (the text of an empty environment without braces).

    >>> from fractions import Fraction
    >>> show_env({"x": 1, "b": True})
    '{x=1, b=true}'
    >>> show_env({"q": [1, Fraction(-1, 2)], "b": False}, braces=False, list_sep=", ")
    'q=[1, -1/2], b=false'
    >>> show_env({}, braces=False, empty="(no inputs)")
    '(no inputs)'
    """
    text = ", ".join(f"{k}={show_value(v, list_sep)}" for k, v in env.items())
    return "{" + text + "}" if braces else text or empty


def group_arrays(program, flat: Mapping, convert=lambda v: v) -> dict:
    """{'q[1]': a, 'q[2]': b, 'c': d} -> {'q': [a, b], 'c': d}, each value through `convert`: arrays
    put back together as users wrote them (reports, JSON, the API).  `program` may be None.

    >>> from types import SimpleNamespace
    >>> group_arrays(SimpleNamespace(arrays={"q": ["q[1]", "q[2]"]}), {"q[1]": 0, "q[2]": 1, "c": 2}, str)
    {'q': ['0', '1'], 'c': '2'}
    """
    out: dict = {}
    done: set = set()
    for name, elems in (getattr(program, "arrays", None) or {}).items():
        if all(e in flat for e in elems):
            out[name] = [convert(flat[e]) for e in elems]
            done.update(elems)
    for k, v in flat.items():
        if k not in done:
            out[k] = convert(v)
    return out
