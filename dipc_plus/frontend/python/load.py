"""A Python function -> a parsed .dip module whose every position is in the .py file.

Why a module of its own: it is the seam between the translator and the one .dip parser and
checker.  The generated text is parsed with a position map, so any error the .dip checks raise
later (types, unassigned outputs, ranges) points at the .py line that produced the statement.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.frontend import surface as S
from dipc_plus.frontend.python.source import parse_function, read_python_text
from dipc_plus.frontend.python.translate import translate_function
from dipc_plus.frontend.syntax import parse_module


def is_python_path(path) -> bool:
    return str(path).endswith(".py")


def python_to_dip(text: str, path: str, function: str | None, params: dict[str, Fraction] | None):
    """(DiPWhile+ text, line map) of `function` in the Python source `text`."""
    fn = parse_function(text, path, function)
    return translate_function(fn, dict(params or {}))


def parse_python(text: str, path: str, function: str | None, params: dict[str, Fraction] | None) -> S.Module:
    """Translate and parse; a parse error of the generated text is reported at its .py line."""
    dip, where = python_to_dip(text, path, function, params)

    def locate(line: int, column: int) -> tuple[int, int]:
        return where[min(max(line, 1), len(where)) - 1]

    try:
        module = parse_module(dip, path, locate)
    except UserError as err:
        if err.file == path and err.line is not None:
            err.line, err.column = locate(err.line, err.column or 1)
        err.message = f"{err.message} (in the DiPWhile+ program translated from {function})"
        raise
    return S.Module(path, dip, module.items)


def read_python_module(path, function: str | None, params: dict[str, Fraction] | None) -> S.Module:
    """Read a .py file and translate its function `function` with parameter values `params`."""
    path = str(path)
    return parse_python(read_python_text(path), path, function, params)
