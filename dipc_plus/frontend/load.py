"""The front end in two calls: a .dip file (or its text) -> a checked, desugared `ir.Program`.

    load_program(path, params=None)            read, parse, check, lower
    load_program(path, params, function=NAME)  the same from a Python function (frontend.python)
    parse_program(text, filename, params=None) the same from text in memory

and, for a reader that must know the parameters before choosing their values (a claim
file), the two halves: `read_module(path)` (read and parse once), `declared_params`
(their names) and `lower_program(module, params)`.

`params` overrides parameter defaults (`--set m=4` gives {"m": Fraction(4)});
naming a parameter the program does not have is an error.  Every mistake in
the program is a `UserError` with file, line, column and a hint.
"""
from __future__ import annotations

import dataclasses
import sys
from fractions import Fraction

from dipc_plus.semantics import ir
from dipc_plus.errors import UserError
from dipc_plus.execution.files import read_user_file, utf8_text
from dipc_plus.frontend import surface as S
from dipc_plus.frontend.lower import lower_module
from dipc_plus.frontend.syntax import parse_module

_RECURSION_LIMIT = 20_000


def _deep(work, filename: str):
    """work() with room for deep trees (long sums); too deep is a located user error."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        return work()
    except RecursionError:
        raise UserError("an expression or block is nested too deeply to process",
                        file=filename, hint="split long expressions with intermediate variables") from None
    finally:
        sys.setrecursionlimit(limit)


def parse_program(text: str, filename: str = "<program>", params: dict[str, Fraction] | None = None) -> ir.Program:
    return lower_program(_deep(lambda: parse_module(text, filename), filename), params)


def read_module(path) -> S.Module:
    """Read and parse a .dip file (no checks that depend on parameter values yet)."""
    path = str(path)
    data = read_user_file(path, "program", hint="check the path; example programs are in programs/*.dip")
    text = utf8_text(data, "program", path)
    return _deep(lambda: parse_module(text, path), path)


def declared_params(module: S.Module) -> list[str]:
    """The names of the module's parameters, in declaration order."""
    return [item.name for item in module.items if isinstance(item, S.ParamDecl)]


def lower_program(module: S.Module, params: dict[str, Fraction] | None = None,
                  function: str | None = None) -> ir.Program:
    """Check and lower a parsed module with the given parameter values; a module translated from
    the Python function `function` gives a program named after the function."""
    program = _deep(lambda: lower_module(module, params), module.file)
    return program if function is None else dataclasses.replace(program, name=function)


def read_program_module(path, function: str | None = None,
                        params: dict[str, Fraction] | None = None) -> S.Module:
    """`read_module` for a .dip file; for a .py file, its function `function` translated with
    `params` (a Python function's parameters have no defaults in the text, so they are needed now)."""
    from dipc_plus.frontend.python.load import is_python_path, read_python_module
    if is_python_path(path):
        return read_python_module(path, function, params)
    if function is not None:
        raise UserError(f"--function {function}: {path} is not a Python file", hint="--function is for .py files")
    return read_module(path)


def load_program(path, params: dict[str, Fraction] | None = None, function: str | None = None) -> ir.Program:
    return lower_program(read_program_module(path, function, params), params, function)
