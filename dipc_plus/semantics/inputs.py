"""Concrete values from the command line and the API: `--input q=[-1,0,1]`, `--set m=4`.

Values are exact: integers and rationals become `Fraction` (or `int` for DOM
values), names become symbols, `true`/`false` Booleans.  `bind_inputs` checks
them against a program's declared inputs and flattens arrays to ``q[1]``, ...
A Python value of the API (`python_value`) goes through the same reading and the
same `digits` limit as a command-line word, so both refuse the same values with
the same words.
"""
from __future__ import annotations

import math
import numbers
import re
from fractions import Fraction

from dipc_plus.semantics import ir
from dipc_plus.semantics.values import plain_number
from dipc_plus.errors import UserError
from dipc_plus.execution import limits

_NUMBER = re.compile(r"^[+-]?\d+(/\d+)?$|^[+-]?\d*\.\d+$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")


def parse_scalar(text: str, where: str) -> object:
    """'3' -> Fraction(3), '1/2' -> Fraction(1,2), '0.25' -> Fraction(1,4), 'top' -> 'top'."""
    text = text.strip()
    if _NUMBER.match(text):
        digits = sum(ch.isdigit() for ch in text)
        if digits > limits.get("digits"):   # before Fraction(text): Python refuses 4,300 digits itself
            raise UserError(f"{where}: the number {limits.clip(text)} has {digits} digits, more than "
                            f"{limits.get('digits')}", hint=limits.hint("digits"))
        try:
            value = Fraction(text)
        except ZeroDivisionError:
            raise UserError(f"{where}: division by zero in '{text}'",
                            hint="write a rational as p/q with q > 0") from None
        return value
    if text in ("true", "false"):
        return text == "true"
    if _NAME.match(text):
        return text
    raise UserError(f"{where}: cannot read the value '{text}'",
                    hint="write an integer (3), a rational (1/2), a decimal (0.25), a symbol (top) or true/false")


def parse_value(text: str, where: str) -> object:
    """A scalar or a bracketed, comma-separated list of scalars."""
    text = text.strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise UserError(f"{where}: an array value must end with ']'", hint="write q=[-1,0,1]")
        inner = text[1:-1].strip()
        if not inner:
            return []
        return [parse_scalar(part, where) for part in inner.split(",")]
    return parse_scalar(text, where)


def parse_assignments(items: list[str] | None, what: str) -> dict[str, object]:
    """['q=[-1,0,1]', 'x=2'] -> {'q': [...], 'x': Fraction(2)}; `what` names the option."""
    result: dict[str, object] = {}
    for item in items or []:
        if "=" not in item:
            raise UserError(f"{what} '{item}' has no '='", hint=f"write {what} NAME=VALUE, e.g. {what} q=[-1,0,1]")
        name, _, value = item.partition("=")
        name = name.strip()
        if not _NAME.match(name):
            raise UserError(f"{what} '{item}': '{name}' is not a name", hint="names start with a letter or '_'")
        if name in result:
            raise UserError(f"{what} gives '{name}' twice", hint="give each name once")
        result[name] = parse_value(value, f"{what} {name}")
    return result


def parse_params(items: list[str] | None) -> dict[str, Fraction]:
    """`--set m=4 --set c=2` -> {'m': Fraction(4), 'c': Fraction(2)}."""
    return parameter_numbers(parse_assignments(items, "--set"))


def parameter_numbers(values: dict[str, object]) -> dict[str, Fraction]:
    """The values of `--set` (or the API's params) checked to be numbers."""
    for name, value in values.items():
        if not isinstance(value, Fraction):
            raise UserError(f"--set {name}: a parameter is a number, not '{limits.clip(value)}'",
                            hint=f"write e.g. --set {name}=4 or --set {name}=1/2")
    return values  # type: ignore[return-value]


def python_value(value: object, where: str = "--input") -> object:
    """A Python value of the API (int, Fraction, float, str, bool, list or tuple of them, numpy or
    flint numbers) read as `parse_value` reads a command-line word: exact, within the `digits`
    limit; a string is read as the command reads it; None, nan, inf and other objects are refused.

    >>> python_value([1, 0.1, "1/3", "top", True], "--input q")
    [Fraction(1, 1), Fraction(1, 10), Fraction(1, 3), 'top', True]
    >>> python_value(float("nan"), "--input q")
    Traceback (most recent call last):
    ...
    dipc_plus.errors.UserError: error: --input q: nan is not a finite number
      hint: write an integer (3), a rational (Fraction(1, 2) or '1/2') or a decimal (0.25)
    """
    if isinstance(value, (bool, str)):
        return value if isinstance(value, bool) else parse_scalar(value, where)
    if isinstance(value, (list, tuple)):
        if any(isinstance(v, (list, tuple)) for v in value):   # an array holds scalars (and a deep list
            raise UserError(f"{where}: a list inside a list is not a value",   # would exhaust the stack)
                            hint=_NUMBER_HINT + ", or a list of such values")
        return [python_value(v, where) for v in value]
    if isinstance(value, numbers.Integral) or hasattr(value, "__index__"):
        return _within_digits(Fraction(int(value)), where)      # type: ignore[call-overload]
    if isinstance(value, numbers.Rational) or (hasattr(value, "numerator") and hasattr(value, "denominator")):
        try:
            number = Fraction(int(value.numerator), int(value.denominator))   # type: ignore[attr-defined]
        except (TypeError, ValueError, ZeroDivisionError):
            number = None
        if number is not None:
            return _within_digits(number, where)
    if isinstance(value, numbers.Real):
        real = float(value)
        if not math.isfinite(real):
            raise UserError(f"{where}: {real!r} is not a finite number", hint=_NUMBER_HINT)
        return _within_digits(Fraction(repr(real)), where)      # the decimal written, not the binary double
    shown = "None" if value is None else f"a {type(value).__name__}"
    raise UserError(f"{where}: {shown} is not a value", hint=_NUMBER_HINT + ", a symbol ('top') or True/False")


_NUMBER_HINT = "write an integer (3), a rational (Fraction(1, 2) or '1/2') or a decimal (0.25)"


def _within_digits(number: Fraction, where: str) -> Fraction:
    """`number` if neither its numerator nor its denominator has more digits than the `digits` limit,
    counted without printing a number past Python's own 4,300-digit conversion limit."""
    most = limits.get("digits")
    digits = max(_digits(number.numerator), _digits(number.denominator))
    if digits > most:
        shown = limits.clip(number) if digits < 4000 else f"<a number of about {digits} digits>"
        raise UserError(f"{where}: the number {shown} has {digits} digits, more than {most}",
                        hint=limits.hint("digits"))
    return number


def _digits(n: int) -> int:
    """The decimal digits of |n| (for a number of thousands of digits, within one of it)."""
    n = abs(n)
    if n.bit_length() < 10_000:
        return len(str(n))
    return int(n.bit_length() * math.log10(2)) + 1


def coerce(value: object, typ: ir.Type, where: str) -> object:
    """Check one scalar against a declared type; return it in the run-time representation."""
    if isinstance(typ, ir.DomT):
        candidate = plain_number(value)
        if candidate in typ.values and not isinstance(candidate, bool):
            return candidate
        raise UserError(f"{where} has domain {typ}: '{value}' is not in it",
                        hint=f"choose one of {', '.join(map(str, typ.values))}")
    if type(typ) not in _INPUT_TYPES:
        raise UserError(f"{where}: inputs of type {typ} are not supported")
    accepts, convert, refusal, hint = _INPUT_TYPES[type(typ)]
    if not accepts(value):
        raise UserError(f"{where} {refusal.format(value=value)}", hint=hint)
    return convert(value)


# the input types other than DOM: which values they take, as what, and the refusal's words and hint
_INPUT_TYPES = {
    ir.RealT: (lambda v: isinstance(v, Fraction), lambda v: v, "is real: '{value}' is not a number", "write e.g. 1/2 or -3"),
    ir.BoolT: (lambda v: isinstance(v, bool), lambda v: v, "is bool: '{value}' is not true or false", "write true or false"),
    ir.IntT: (lambda v: isinstance(v, Fraction) and v.denominator == 1, int, "is an integer: '{value}' is not", "write e.g. 3")}


def flat_elements(program: ir.Program, name: str, flat: list) -> list | None:
    """The names of `flat` (the program's inputs or its outputs, (name, type) pairs) that `name` stands
    for: an array's elements, or itself; None if it names none."""
    types = dict(flat)
    elems = program.arrays.get(name, [name] if name in types else None)
    return None if elems is None or not all(e in types for e in elems) else list(elems)


def bind_inputs(program: ir.Program, given: dict[str, object]) -> dict[str, object]:
    """Check user inputs against `program.inputs`; return {flat name: value}."""
    declared = {name for name, _ in program.inputs}
    types = dict(program.inputs)
    env: dict[str, object] = {}
    source: dict[str, str] = {}     # flat input -> the name that gave it: given twice is refused, not overwritten

    def once(flat: str, name: str) -> None:
        if flat in source:
            raise UserError(f"input {flat} is given twice, by '{source[flat]}' and by '{name}'",
                            hint="give each input once: the whole array, or some of its elements")
        source[flat] = name

    for name, value in given.items():
        if name in program.arrays:
            elements = program.arrays[name]
            if not isinstance(value, list):
                raise UserError(f"input '{name}' is an array of {len(elements)}: give a list",
                                hint=f"write --input {name}=[{','.join(['0'] * len(elements))}]")
            if len(value) != len(elements):
                raise UserError(f"input '{name}' has {len(elements)} elements, {len(value)} given",
                                hint=f"give exactly {len(elements)} values (or change the size with --set)")
            for flat, item in zip(elements, value):
                if flat not in declared:
                    raise UserError(f"'{name}' is not an input of {program.name}")
                once(flat, name)
                env[flat] = coerce(item, types[flat], f"input {flat}")
        elif name in declared:
            if isinstance(value, list):
                raise UserError(f"input '{name}' is a scalar: give one value, not a list")
            once(name, name)
            env[name] = coerce(value, types[name], f"input {name}")
        else:
            known = sorted({n.split("[")[0] for n in declared})
            raise UserError(f"'{name}' is not an input of {program.name}",
                            hint=f"its inputs are: {', '.join(known) or '(none)'}")
    missing = [n for n in program.input_names() if n not in env]
    if missing:
        shown = sorted({n.split("[")[0] for n in missing})
        raise UserError(f"missing input(s): {', '.join(shown)}",
                        hint="give each with --input NAME=VALUE (arrays as NAME=[v1,v2,...])")
    return env
