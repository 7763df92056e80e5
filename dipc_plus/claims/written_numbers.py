"""Numbers of a claim file read exactly as written, and refused by their length before any conversion.

Why: tomllib turns `T = 0.30000000000000000000000000000001` into the float 0.3, so a claim
would silently run at T = 3/10; a 5,000-digit decimal became 1.0; and a 5,000-digit integer
reached Python's own int-string limit with no line or column.  Here every number token of the
TOML text is measured first (outside strings and comments) and refused past the `digits`
limit with its line and column; a float value is then kept as a `WrittenFloat`, a float that
remembers its text, so `Fraction(repr(value))` and `str(value)` give the value the user wrote.
Formula constants (`0.1*exp(-eps)`) are kept the same way by `claims.expression`.
"""
from __future__ import annotations

import re
import tomllib

from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.execution.limits import too_many_digits


class WrittenFloat(float):
    """A float that keeps the decimal text it was read from (underscores removed): its repr and
    str are that text, so every exact reader (`Fraction(repr(x))`) sees the written value."""

    text: str

    def __new__(cls, text: str):
        text = text.replace("_", "")
        value = super().__new__(cls, text)
        value.text = text
        return value

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def __getnewargs__(self):          # pickled for worker processes: rebuilt from the text
        return (self.text,)


# a string or comment (skipped), or a number-like token (measured); everything else is skipped
_TOKEN = re.compile(r'''
    (?P<skip> \#[^\n]* | """(?:[^\\]|\\.)*?""" | "(?:[^"\\\n]|\\.)*" | \'\'\'.*?\'\'\' | '[^'\n]*' )
  | (?P<radix> 0[xob][0-9A-Fa-f_]+ )
  | (?P<number> [0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9_]+)? )
''', re.X | re.S)


def check_number_tokens(text: str, path: str) -> None:
    """Refuse, with its line and column, a number written in the TOML text (not in a string)
    whose digits, or the digits of whose exact value, exceed the `digits` limit."""
    most = limits.get("digits")
    for m in _TOKEN.finditer(text):
        if m.group("skip"):
            continue
        token = m.group()
        if m.group("number"):
            too_many = too_many_digits(token)
        else:
            too_many = f"{len(token) - 2} hexadecimal, octal or binary digits" if len(token) - 2 > most else None
        if too_many:
            raise UserError.at_offset(text, m.start(), f"the number {limits.clip(token)} has {too_many}",
                                      file=path, hint=limits.hint("digits"))


def load_toml(text: str, path: str) -> dict:
    """The TOML data of a claim file's text, numbers exact (floats as `WrittenFloat`), every
    refusal a located `UserError`."""
    check_number_tokens(text, path)
    try:
        return tomllib.loads(text, parse_float=WrittenFloat)
    except (RecursionError, MemoryError):
        raise UserError("not valid TOML: nested too deeply", file=path, hint=limits.hint("depth")) from None
    except ValueError as exc:
        if not isinstance(exc, tomllib.TOMLDecodeError):  # past our own scan: still a user error
            raise UserError(f"not valid TOML: {limits.clip(exc, 60)}", file=path, hint=limits.hint("digits")) from None
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise UserError(f"not valid TOML: {msg}", file=path, line=int(m.group(1)) if m else None,
                        column=int(m.group(2)) if m else None,
                        hint="strings need quotes (beta = \"2*exp(-alpha*eps/8)\"), tables are [name]") from None
