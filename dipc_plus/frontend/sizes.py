"""Sizes of a .dip program bounded before the work they would cost, each refusal located.

Why a module of its own: the parser, the recursive passes after it and the loop unroller each
cost time in proportion to a size the file chooses.  A program of 100,000 chained `not`s or a
100,000-term sum took the parser 10-25 s before a recursion error without a line; 20,000
nested `if`s the same.  So, before parsing, the tokens are counted (`tokens`: the parser's
work); after parsing, and before any recursive pass, the statement nesting (`depth`) and the
parts of each expression (`nodes`) are measured by an explicit stack.  The unroller's own
bound (`unrolled`: loops x body) is checked in `frontend.unroll`.
"""
from __future__ import annotations

import re

from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.frontend import surface as S

_TOKEN = re.compile(r"#[^\n]*|[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d*)?|\.\d+|<-|<=|>=|==|!=|\.\.|->|\S")
BLOCKS = (S.If, S.While, S.For)


def check_tokens(text: str, filename: str) -> None:
    """Refuse a program of more than `tokens` tokens (comments not counted) at the first one past
    the limit, before the parser spends time on it."""
    most, count = limits.get("tokens"), 0
    for m in _TOKEN.finditer(text):
        if m.group()[0] == "#":
            continue
        count += 1
        if count > most:
            raise UserError.at_offset(text, m.start(), f"the program has more than {most} tokens (words, numbers "
                                      "and symbols)", file=filename, hint=limits.hint("tokens"))


def check_shape(module: S.Module) -> None:
    """Refuse statements nested more than `depth` deep and an expression of more than `nodes`
    parts, at the offending statement or expression, without recursion."""
    most_depth, most_nodes = limits.get("depth"), limits.get("nodes")
    stack = [(item, 0) for item in module.items]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, S.EXPRESSIONS):
            _check_expression(node, most_nodes)
            continue
        if isinstance(node, BLOCKS):
            depth += 1
            if depth > most_depth:
                raise UserError.at(node.pos, f"statements nested more than {most_depth} deep",
                                   hint=limits.hint("depth"))
        stack.extend((part, depth) for part in S.parts(node))


def _check_expression(root, most: int) -> None:
    for count, _ in enumerate(S.nodes(root), start=1):
        if count > most:
            raise UserError.at(root.pos, f"an expression with more than {most} parts (operators, names and "
                                         "numbers)", hint="split it with intermediate variables; " + limits.hint("nodes"))
