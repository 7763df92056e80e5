"""The API's keyword arguments read once: ``params={...}`` and ``input={...}``, with old-style keywords.

Why it exists: every entry point (the checks, a Program's methods, a symbolic result's `at`)
takes parameters and inputs the same way, so each reads them here and refuses a bad value with
the same words.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.semantics.inputs import parameter_numbers, python_value

Number = int | Fraction | float | str


def parameter_values(params: Mapping[str, Any] | None, legacy: Mapping[str, Any] | None = None) -> dict[str, Fraction]:
    """``params={'m': 3}`` (and old-style keywords ``m=3``) as exact values; anything else is a UserError.

    >>> parameter_values({"c": Fraction(1, 2)}, {"m": 3})
    {'c': Fraction(1, 2), 'm': Fraction(3, 1)}
    >>> parameter_values({"c": "0.1", "d": "1/3", "e": 0.1})
    {'c': Fraction(1, 10), 'd': Fraction(1, 3), 'e': Fraction(1, 10)}
    """
    given = mapping(params, "params", "params={'m': 3}", legacy)
    return parameter_numbers({str(name): python_value(value, f"--set {name}") for name, value in given.items()})


INPUT_EXAMPLE = "input={'q': [-1, 0, 1]}"


def mapping(value: Any, keyword: str, example: str, legacy: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`value` if it is a mapping of names (None: an empty one), else a UserError naming the keyword;
    the old-style keywords `legacy` (``m=3``, ``q=[...]``) are added to it, each name given once.

    >>> mapping(None, "params", "params={'m': 3}"), mapping({"m": 3}, "params", "params={'m': 3}")
    ({}, {'m': 3})
    >>> mapping({"q": [1, 2]}, "input", INPUT_EXAMPLE, {"x": 1})
    {'q': [1, 2], 'x': 1}
    >>> mapping([3], "params", "params={'m': 3}")
    Traceback (most recent call last):
    ...
    dipc_plus.errors.UserError: error: params is a mapping from names to values, not [3]
      hint: e.g. params={'m': 3}
    """
    if value is not None and (not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value)):
        raise UserError(f"{keyword} is a mapping from names to values, not {limits.clip(value)}",
                        hint=f"e.g. {example}")
    given = dict(value or {})
    for name, legacy_value in (legacy or {}).items():
        if name in given:
            raise UserError(f"{'parameter' if keyword == 'params' else keyword} '{name}' is given twice "
                            f"(in {keyword} and as a keyword)", hint=f"give it once, in {keyword}={{'{name}': ...}}")
        given[name] = legacy_value
    return given
