"""Infer the types of undeclared scalar locals from their assignments.

A local that is not declared gets its type from what is assigned to it
anywhere: a Lap sample or real expression makes it real, a DLap sample or
integer expression int, a Boolean or comparison bool.  Plain numbers fit both
real and int, so a variable only ever assigned constants needs a declaration,
and so does every DOM variable (its domain must be written down).
"""
from __future__ import annotations

from dipc_plus.exact import noises
from dipc_plus.semantics import ir
from dipc_plus.frontend import surface as S
from dipc_plus.errors import UserError
from dipc_plus.semantics.evaluate import BUILTINS
from dipc_plus.frontend.exprs import not_a_value
from dipc_plus.frontend.scope import Scope

_TYPES = {"real": ir.RealT(), "int": ir.IntT(), "bool": ir.BoolT()}


def infer_locals(statements: tuple, scope: Scope) -> None:
    """Add the inferred types of undeclared assignment targets to `scope.variables`."""
    assignments: dict[str, list[S.Assign]] = {}
    for stmt in S.assignments(statements):
        name = stmt.target.name
        if name not in scope.variables:
            assignments.setdefault(name, []).append(stmt)
    for name, stmts in assignments.items():
        if name in scope.functions or name in scope.distributions:
            what = "function" if name in scope.functions else "distribution"
            raise UserError.at(stmts[0].pos, f"'{name}' is a {what}, not a variable", hint="choose another variable name")
    for stmts in assignments.values():
        for stmt in stmts:
            _check_names(stmt.value, scope, assignments)
    known: dict[str, str] = {}     # a name's kind: that of its first assignment whose kind is known
    changed = True
    while changed:
        changed = False
        for name, stmts in assignments.items():
            kind = None if name in known else next(
                (k for k in (_kind(stmt.value, scope, known) for stmt in stmts) if k in _TYPES), None)
            if kind is not None:
                known[name] = kind
                changed = True
    for name, stmts in assignments.items():
        if name not in known:
            _cannot_tell(name, stmts, scope, known)
        scope.variables[name] = _TYPES[known[name]]
    for name, stmts in assignments.items():
        for stmt in stmts:
            kind = _kind(stmt.value, scope, known)
            if kind in _TYPES and kind != known[name]:
                first = next(s for s in stmts if _kind(s.value, scope, known) == known[name])
                raise UserError.at(stmt.pos, f"'{name}' is {known[name]} (from its assignment at line "
                                   f"{first.pos.line}), but here it gets a {kind} value",
                                   hint="use a separate variable for each type, or declare it with 'var'")


def _cannot_tell(name: str, stmts: list, scope: Scope, known: dict):
    stmt = stmts[0]
    kinds = {_kind(s.value, scope, known) for s in stmts}
    if "dom" in kinds:
        raise UserError.at(stmt.pos, f"'{name}' holds DOM values, so its domain must be declared",
                           hint=f"declare it, e.g. 'var {name}: 0..3' or 'var {name}: {{bot, top}}'")
    raise UserError.at(stmt.pos, f"cannot tell the type of '{name}' from its assignments",
                       hint=f"declare it: 'var {name}: 0..N' for a finite domain, or 'var {name}: real' "
                            f"(or int, bool)")


def _check_names(e, scope: Scope, targets) -> None:
    """Unknown names are reported as such, before any "cannot tell the type" message."""
    known = (scope.variables, targets, scope.arrays, scope.params, scope.symbols)
    for node in S.nodes(e):
        if isinstance(node, S.Name) and not any(node.name in table for table in known):
            raise not_a_value(node, scope, targets)


def _kind(e, scope: Scope, known: dict) -> str | None:
    """'real' | 'int' | 'bool' | 'dom' | 'num' (a plain number) | None (not known yet)."""
    if isinstance(e, S.Num):
        return "num"
    if isinstance(e, (S.BoolLit, S.CmpOp)):
        return "bool"
    if isinstance(e, S.Name):
        return _name_kind(e.name, scope, known)
    if isinstance(e, S.UnOp):
        return "bool" if e.op == "not" else _kind(e.arg, scope, known)
    if isinstance(e, S.BinOp):
        if e.op in ("and", "or"):
            return "bool"
        return _combine(_kind(e.left, scope, known), _kind(e.right, scope, known))
    if isinstance(e, S.CondExpr):
        return _combine(_kind(e.then, scope, known), _kind(e.other, scope, known))
    if isinstance(e, S.SampleExpr):
        return _sample_kind(e, scope)
    if isinstance(e, S.CallExpr):
        return _call_kind(e, scope, known)
    return None


def _name_kind(name: str, scope: Scope, known: dict) -> str | None:
    """A name's kind: a declared variable's type wins over an inferred local, a parameter, a symbol."""
    if name in scope.variables:
        typ = scope.variables[name]
        return {ir.RealT: "real", ir.IntT: "int", ir.BoolT: "bool"}.get(type(typ), "dom")
    if name in known:
        return known[name]
    if name in scope.params:
        return "num"
    if name in scope.symbols:
        return "dom"
    return None


def _sample_kind(e, scope: Scope) -> str:
    """A sample's kind comes from its distribution: the noises, or the support of a `choose`."""
    noise = noises.by_surface(e.kind)
    if noise is not None:
        return noise.value_type
    if e.kind == "choose" and e.args and isinstance(e.args[-1], S.CallExpr):
        dist = scope.distributions.get(e.args[-1].fn)
        if dist is not None:
            return "bool" if isinstance(dist.over, ir.BoolT) else "dom"
    return "dom"


def _call_kind(e, scope: Scope, known: dict) -> str | None:
    """A call's kind: a declared function's result, a built-in predicate or index, or arithmetic
    on plain numbers."""
    if e.fn in scope.functions:
        result = scope.functions[e.fn].result
        return "bool" if isinstance(result, ir.BoolT) else "dom" if isinstance(result, ir.DomT) else "num"
    if e.fn in ("EQ",):
        return "bool"
    if e.fn in ("argmax", "argmin", "count"):
        return "dom"
    if e.fn in BUILTINS:
        kinds = [_kind(a, scope, known) for a in e.args]
        return "num" if all(k in ("num", "dom") for k in kinds) else None
    return None


def _combine(a, b):
    for k in ("real", "int"):
        if k in (a, b):
            return k
    if a is None or b is None:
        return None
    if "bool" in (a, b):
        return "bool"
    return "num" if a == b == "num" else "dom"
