"""Parse .dip text into the surface tree (dipc_plus.frontend.surface), with plain-word errors.

The grammar (grammar.lark) is LALR(1) with lark's basic lexer, so every
keyword is always a keyword.  Newlines end statements; a small post-lexer
drops those that cannot (inside ( ) and [ ], or before a token that cannot
begin a statement), so long expressions may be wrapped.  Every syntax error
becomes a `UserError` at file:line:column saying what was found, what could
come there (in words, not token names) and how to fix it.
"""
from __future__ import annotations

from fractions import Fraction

from lark import Token, Transformer_NonRecursive, v_args
from lark.exceptions import UnexpectedInput, VisitError

from dipc_plus.frontend import surface as S
from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.semantics.ir import Pos
from dipc_plus.frontend.grammar import parser
from dipc_plus.frontend.sizes import check_shape, check_tokens
from dipc_plus.frontend.syntax_errors import syntax_error

def check_nesting(text: str, filename: str) -> None:
    """Refuse brackets nested past the `depth` limit before the parser builds a tree that deep."""
    limit, depth = limits.get("depth"), 0
    for offset, ch in enumerate(text):
        if ch in "([{":
            depth += 1
            if depth > limit:
                raise UserError.at_offset(text, offset, f"brackets nested more than {limit} deep", file=filename,
                                          hint=limits.hint("depth"))
        elif ch in ")]}":
            depth = max(0, depth - 1)


def _int(tok, file: str) -> int:
    """An integer literal within the `digits` limit (a 5,000-digit literal is refused, not computed with)."""
    text = str(tok)
    if len(text) > limits.get("digits"):
        raise UserError(f"the number {limits.clip(text)} has more than {limits.get('digits')} digits",
                        file=file, line=tok.line, column=tok.column, hint=limits.hint("digits"))
    return int(text)


def parse_module(text: str, filename: str, locate=None) -> S.Module:
    """Parse a whole .dip file; raise UserError on any syntax error.

    `locate(line, column) -> (line, column)`, when given, places every node at another text's
    position (the Python front end maps generated .dip lines back to the .py source)."""
    check_nesting(text, filename)
    check_tokens(text, filename)
    try:
        tree = parser().parse(text)
    except UnexpectedInput as err:
        raise syntax_error(err, text, filename) from None
    try:
        items = _Build(filename, locate).transform(tree)
    except VisitError as err:  # a UserError raised while building nodes
        if isinstance(err.orig_exc, (UserError, RecursionError)):
            raise err.orig_exc from None
        raise
    module = S.Module(filename, text, items)
    check_shape(module)
    return module


# --------------------------------------------------------------------------- tree -> surface


class _Many(tuple):
    """Several declarations from one line (``input a: real, b: real``)."""


class _Elif(tuple):
    pass


def _at_rule(cls, *first):
    """The builder of a node made of `first` and the rule's children, at the rule's position."""
    return lambda self, meta, c: cls(*first, *c, self.pos(meta))


def _at_name(cls):
    """The builder of a node named by the rule's first token (then its other children), at that token."""
    return lambda self, meta, c: cls(str(c[0]), *c[1:], self.tpos(c[0]))


def _io_decl(kind: str):
    """The builder of the `kind` ('input' | 'output') declarations of one line, each at its name."""
    return lambda self, meta, c: _Many(S.IODecl(kind, str(tok), typ, self.tpos(tok)) for tok, typ in c)


def _children(self, meta, c):
    return tuple(c)


def _first(self, meta, c):
    return c[0]


@v_args(meta=True)
class _Build(Transformer_NonRecursive):
    def __init__(self, filename: str, locate=None):
        super().__init__(visit_tokens=False)
        self.file = filename
        self.locate = locate

    def at(self, line: int, column: int) -> Pos:
        if self.locate is not None:
            line, column = self.locate(line, column)
        return Pos(self.file, line, column)

    def pos(self, meta) -> Pos:
        return self.at(getattr(meta, "line", 1), getattr(meta, "column", 1))

    def tpos(self, tok: Token) -> Pos:
        return self.at(tok.line, tok.column)

    # -- the nodes built from their children alone, by the shape of the rule
    param_decl, type_decl, fparam, func_decl, dist_decl, type_name, for_stmt, name, index, call, sample = (
        _at_name(cls) for cls in (S.ParamDecl, S.TypeDecl, S.Param, S.FunctionDecl, S.DistDecl, S.TypeName, S.For,
                                  S.Name, S.Index, S.CallExpr, S.SampleExpr))
    array_type, range_type, while_stmt, exit_stmt, cond_expr, exp_call, eps, rate = (
        _at_rule(cls) for cls in (S.ArrayType, S.RangeType, S.While, S.Exit, S.CondExpr, S.ExpCall, S.EpsLit,
                                  S.RateLit))
    or_op, and_op, add, sub, mul, div = (_at_rule(S.BinOp, op) for op in ("or", "and", "+", "-", "*", "/"))
    not_op, neg = _at_rule(S.UnOp, "not"), _at_rule(S.UnOp, "-")
    true, false = _at_rule(S.BoolLit, True), _at_rule(S.BoolLit, False)
    io_entry = fparams = outcomes = outcome = args = _children
    start = cmp_op = sampler = _first

    # -- structure
    def body(self, meta, children):
        return tuple(item for child in children for item in (child if isinstance(child, _Many) else (child,)))

    # -- declarations
    input_decl, output_decl = _io_decl("input"), _io_decl("output")

    def var_decl(self, meta, c):       # also `x: T`, a local without `var` and without a value
        return S.VarDecl(str(c[0]), c[1], c[2] if len(c) > 2 else None, self.tpos(c[0]))

    local_decl = var_decl

    # -- types
    def set_type(self, meta, c):
        return S.SetType(tuple(c), self.pos(meta))

    def dom_elem(self, meta, c):
        toks = [t for t in c if isinstance(t, Token)]
        if toks[0].type == "NAME":
            return (str(toks[0]), self.tpos(toks[0]))
        number = _int(toks[-1], self.file)    # NUMBER or '-' NUMBER
        return (-number if len(toks) == 2 else number, self.tpos(toks[0]))

    # -- statements
    def assign(self, meta, c):
        return S.Assign(c[0], c[1], c[0].pos)

    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])] + [(part[0], part[1]) for part in c[2:] if isinstance(part, _Elif)]
        other = next((part for part in c[2:] if not isinstance(part, _Elif)), None)   # the else body
        return S.If(tuple(branches), other, self.pos(meta))

    def elif_part(self, meta, c):
        return _Elif(c)

    else_part = _first

    # -- expressions
    def compare(self, meta, c):
        tok = c[1]
        op = {"=": "==", "≤": "<=", "≥": ">=", "≠": "!="}.get(str(tok), str(tok))
        return S.CmpOp(op, c[0], c[2], self.tpos(tok))

    def number(self, meta, c):
        return S.Num(_int(c[0], self.file), self.tpos(c[0]))

    def decimal(self, meta, c):
        _int(Token("DECIMAL", str(c[0]).replace(".", ""), line=c[0].line, column=c[0].column), self.file)
        return S.Num(Fraction(str(c[0])), self.tpos(c[0]))
