"""The surface syntax tree of a .dip file, as written, with a position on every node.

The parser (dipc_plus.frontend.syntax) builds it; checks and lowering (dipc_plus.frontend.lower)
turn it into the core IR.  Nothing here is resolved yet: names may be
variables, parameters, loop indices or domain symbols; `for` loops and arrays
are still there; sugar is still sugar.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from fractions import Fraction
from typing import Union, get_args

from dipc_plus.semantics.ir import Pos

# --------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Num:
    value: int | Fraction  # literal: integer or decimal (exact)
    pos: Pos


@dataclass(frozen=True)
class BoolLit:
    value: bool
    pos: Pos


@dataclass(frozen=True)
class Name:
    """A bare name: variable, parameter, loop index, domain symbol (resolved later)."""
    name: str
    pos: Pos


@dataclass(frozen=True)
class Index:
    """``q[i]``: an array element; the index must be a compile-time constant."""
    name: str
    index: "Expr"
    pos: Pos


@dataclass(frozen=True)
class EpsLit:
    pos: Pos


@dataclass(frozen=True)
class RateLit:
    pos: Pos


@dataclass(frozen=True)
class UnOp:
    op: str  # '-' | 'not'
    arg: "Expr"
    pos: Pos


@dataclass(frozen=True)
class BinOp:
    op: str  # 'and' 'or' '+' '-' '*' '/'
    left: "Expr"
    right: "Expr"
    pos: Pos


@dataclass(frozen=True)
class CmpOp:
    op: str  # '<' '<=' '>' '>=' '==' '!=' (``=`` is read as ``==``)
    left: "Expr"
    right: "Expr"
    pos: Pos  # of the operator


@dataclass(frozen=True)
class CondExpr:
    cond: "Expr"
    then: "Expr"
    other: "Expr"
    pos: Pos


@dataclass(frozen=True)
class CallExpr:
    """``f(args)``: a built-in or user function, or (as a `choose` argument) a distribution."""
    fn: str
    args: tuple
    pos: Pos


@dataclass(frozen=True)
class ExpCall:
    """``exp(e)``: only inside distribution weights."""
    arg: "Expr"
    pos: Pos


@dataclass(frozen=True)
class SampleExpr:
    """``Lap(...)``, ``DLap(...)``, ``Exp(...)``, ``choose(...)``: only as a whole right-hand side."""
    kind: str  # a registered noise's name (exact/noises/: 'Lap', 'ExpNoise', 'DLap', ...), 'Exp' or 'choose'
    args: tuple
    pos: Pos


Expr = Union[Num, BoolLit, Name, Index, EpsLit, RateLit, UnOp, BinOp, CmpOp, CondExpr, CallExpr, ExpCall,
             SampleExpr]
EXPRESSIONS = get_args(Expr)


def parts(node):
    """The nodes directly inside `node` (through tuples such as an if's branches; a `pos` is not
    a node).  Also serves the core IR's dataclasses, for the walks that only need their shape."""
    stack = [getattr(node, f.name) for f in reversed(fields(node)) if f.name != "pos"]
    while stack:            # in source order
        value = stack.pop()
        if isinstance(value, tuple):
            stack.extend(reversed(value))
        elif is_dataclass(value) and not isinstance(value, type):
            yield value


def nodes(root):
    """Every node of a tree (itself included, through tuples) in source order, each before the
    nodes inside it, without recursion."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(reversed(node))
        elif is_dataclass(node) and not isinstance(node, type):
            yield node
            stack.extend(reversed(list(parts(node))))


def names(root) -> set[str]:
    """The names a tree reads (variables, parameters, loop indices and symbols alike)."""
    return {node.name for node in nodes(root) if isinstance(node, Name)}

# --------------------------------------------------------------------------- types


@dataclass(frozen=True)
class TypeName:
    """``real``, ``bool``, ``int``, ``rational`` or a user type name."""
    name: str
    pos: Pos


@dataclass(frozen=True)
class RangeType:
    lo: Expr
    hi: Expr
    pos: Pos


@dataclass(frozen=True)
class SetType:
    elems: tuple  # of (int | str, Pos)
    pos: Pos


@dataclass(frozen=True)
class ArrayType:
    elem: "TypeExpr"
    size: Expr
    pos: Pos


TypeExpr = Union[TypeName, RangeType, SetType, ArrayType]

# --------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Assign:
    target: Union[Name, Index]
    value: Expr
    pos: Pos


@dataclass(frozen=True)
class If:
    branches: tuple  # of (cond Expr, body tuple); 'elif' adds branches
    other: tuple | None  # the 'else' body, or None
    pos: Pos


@dataclass(frozen=True)
class While:
    cond: Expr
    body: tuple
    pos: Pos


@dataclass(frozen=True)
class For:
    var: str
    lo: Expr
    hi: Expr
    body: tuple
    pos: Pos


@dataclass(frozen=True)
class Exit:
    pos: Pos


def assignments(statements):
    """Every assignment of `statements`, inside `if` and `while` bodies too (as the checks
    after desugaring see them)."""
    for s in statements:
        if isinstance(s, Assign):
            yield s
        elif isinstance(s, (If, While)):
            yield from assignments(x for x in parts(s) if not isinstance(x, EXPRESSIONS))


# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class ParamDecl:
    name: str
    value: Expr
    pos: Pos


@dataclass(frozen=True)
class TypeDecl:
    name: str
    type: TypeExpr
    pos: Pos


@dataclass(frozen=True)
class IODecl:
    """``input q: real[m]`` / ``output out: Ans``; one per declared name."""
    kind: str  # 'input' | 'output'
    name: str
    type: TypeExpr
    pos: Pos


@dataclass(frozen=True)
class VarDecl:
    """``var x: T [= e]`` or ``x: T`` (a local, possibly an array)."""
    name: str
    type: TypeExpr
    init: Expr | None
    pos: Pos


@dataclass(frozen=True)
class Param:
    name: str
    type: TypeExpr
    pos: Pos


@dataclass(frozen=True)
class FunctionDecl:
    name: str
    params: tuple  # of Param
    result: TypeExpr
    body: Expr
    pos: Pos


@dataclass(frozen=True)
class DistDecl:
    name: str
    params: tuple  # of Param
    over: TypeExpr
    outcomes: tuple  # of (value Expr, weight Expr)
    pos: Pos


Decl = Union[ParamDecl, TypeDecl, IODecl, VarDecl, FunctionDecl, DistDecl]

DECLARATIONS = get_args(Decl)


@dataclass(frozen=True)
class Module:
    """A whole .dip file: its items (declarations and statements) in order."""
    file: str
    text: str
    items: tuple
