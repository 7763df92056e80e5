"""Read a .py file as data and find one function in it, every refusal located in the file.

Why a module of its own: the Python text is untrusted input like a .dip file.  It is bounded
by the same size limits before Python's parser sees it (tokens, bracket nesting; statement
nesting and expression size after parsing, by an explicit stack), parsed with `ast.parse`
only (never compiled to run, imported or executed), and a mistake in it is a `UserError`
at the .py file's line and column.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.execution.files import read_user_file, utf8_text
from dipc_plus.frontend.sizes import check_tokens
from dipc_plus.frontend.syntax import check_nesting

_BLOCKS = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef,
           ast.ClassDef, ast.AsyncFor, ast.AsyncWith)


@dataclass(frozen=True)
class PythonFunction:
    """The parsed function `node` of the file `path`, whose text is `text`."""
    path: str
    text: str
    node: ast.FunctionDef


def error_at(path: str, node, message: str, hint: str | None = None) -> UserError:
    """A UserError at an ast node of the file (columns 1-based, as everywhere in dipc)."""
    return UserError(message, file=path, line=getattr(node, "lineno", None),
                     column=getattr(node, "col_offset", -1) + 1 if hasattr(node, "col_offset") else None, hint=hint)


def read_python_text(path: str) -> str:
    """The text of a .py file (UTF-8), within the file-size limit."""
    data = read_user_file(path, "program", hint="check the path; example functions are in programs/python/*.py")
    return utf8_text(data, "Python file", path)


def parse_function(text: str, path: str, function: str | None) -> PythonFunction:
    """Parse `text` within the size limits and return the top-level function named `function`."""
    if not function:
        raise UserError("a Python program needs the name of its function", file=path,
                        hint="give --function NAME (or function = \"NAME\" in the claim's [program] table)")
    check_nesting(text, path)
    check_tokens(text, path)
    try:
        tree = ast.parse(text, filename=path, type_comments=False)
    except SyntaxError as err:
        raise UserError(f"Python syntax error: {err.msg}", file=path, line=err.lineno,
                        column=err.offset, hint="the file must be valid Python 3") from None
    except (ValueError, RecursionError, MemoryError) as err:
        raise UserError(f"the Python file cannot be parsed: {type(err).__name__}", file=path,
                        hint="check the file (null bytes, extreme nesting)") from None
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == function]
    if not found:
        names = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
        raise UserError(f"no top-level function '{limits.clip(function)}' in the file", file=path,
                        hint=f"its functions are: {', '.join(names) or '(none)'}")
    node = found[-1]
    check_function_shape(node, path)
    return PythonFunction(path, text, node)


def check_function_shape(root: ast.FunctionDef, path: str) -> None:
    """Statement nesting and expression sizes of the function within the .dip limits, without recursion."""
    most_depth, most_nodes = limits.get("depth"), limits.get("nodes")
    stack = [(stmt, 1) for stmt in root.body]
    while stack:
        stmt, depth = stack.pop()
        if depth > most_depth:
            raise error_at(path, stmt, f"statements nested more than {most_depth} deep", limits.hint("depth"))
        count = 0
        for field, value in ast.iter_fields(stmt):
            values = value if isinstance(value, list) else [value]
            for child in values:
                if isinstance(child, ast.stmt):
                    stack.append((child, depth + 1 if isinstance(stmt, _BLOCKS) else depth))
                elif isinstance(child, ast.AST):
                    count += sum(1 for _ in ast.walk(child))
        if count > most_nodes:
            raise error_at(path, stmt, f"a statement with more than {most_nodes} parts",
                           "split it with intermediate variables; " + limits.hint("nodes"))
