"""Flow checks on the unrolled program: definite assignment and bounded assignment.

* Every variable is assigned on every path before it is read (inputs start
  assigned); `exit` ends a path.
* Every output is assigned on every path that reaches an `exit` or the end.
* No real or integer variable is assigned inside a `while` loop (the paper's
  bounded-assignment rule, which keeps the Markov chain semantics finite).

They run on the flat surface statements, so messages point at the very name
that is read too early.
"""
from __future__ import annotations

from dataclasses import dataclass

from dipc_plus.semantics import ir
from dipc_plus.frontend import surface as S
from dipc_plus.errors import UserError
from dipc_plus.frontend.scope import Scope


@dataclass
class _Flow:
    definitely: set  # assigned on every path to here
    possibly: set    # assigned on some path to here

    def copy(self) -> "_Flow":
        return _Flow(set(self.definitely), set(self.possibly))


def check_flow(statements: tuple, scope: Scope) -> None:
    assigned = set(_assigned_names(statements))
    for name, _ in scope.outputs:
        if name not in assigned:
            base = name.split("[")[0]
            raise UserError.at(scope.output_pos[name], f"output '{name}' is never assigned",
                               hint=f"assign it (or remove the output '{base}')")
    inputs = {n for n, _ in scope.inputs}
    end = _Checker(scope).block(statements, _Flow(set(inputs), set(inputs)), in_while=None)
    if end is not None:
        for name, _ in scope.outputs:
            if name not in end.definitely:
                raise UserError.at(scope.output_pos[name],
                                   f"output '{name}' may be unassigned when the program ends",
                                   hint="assign it on every path, e.g. give it a default value at the start")


def _assigned_names(statements):
    for s in statements:
        if isinstance(s, S.Assign):
            yield s.target.name
        elif isinstance(s, S.If):
            for _, body in s.branches:
                yield from _assigned_names(body)
            if s.other:
                yield from _assigned_names(s.other)
        elif isinstance(s, S.While):
            yield from _assigned_names(s.body)


class _Checker:
    def __init__(self, scope: Scope):
        self.scope = scope

    def block(self, statements, flow: _Flow | None, in_while: S.While | None) -> _Flow | None:
        for s in statements:
            if flow is None:  # after exit: unreachable, nothing to check
                return None
            flow = self.stmt(s, flow, in_while)
        return flow

    def stmt(self, s, flow: _Flow, in_while) -> _Flow | None:
        if isinstance(s, S.Assign):
            self.reads(s.value, flow)
            name = s.target.name
            typ = self.scope.variables.get(name)
            if in_while is not None and isinstance(typ, (ir.RealT, ir.IntT)):
                kind = "real" if isinstance(typ, ir.RealT) else "integer"
                raise UserError.at(s.pos, f"the {kind} variable '{name}' is assigned inside the while loop of "
                                   f"line {in_while.pos.line}",
                                   hint="real and integer variables may only be assigned a bounded number of times: "
                                        "sample before the loop, or use a for loop (it is unrolled)")
            flow.definitely.add(name)
            flow.possibly.add(name)
            return flow
        if isinstance(s, S.If):
            results = []
            for cond, body in s.branches:
                self.reads(cond, flow)
                results.append(self.block(body, flow.copy(), in_while))
            results.append(self.block(s.other or (), flow.copy(), in_while))
            return _join(results)
        if isinstance(s, S.While):
            self.reads(s.cond, flow)
            after_body = self.block(s.body, flow.copy(), in_while or s)
            if after_body is not None:
                self.reads(s.cond, _join([flow.copy(), after_body]))
                flow.possibly |= after_body.possibly
            return flow
        if isinstance(s, S.Exit):
            for name, _ in self.scope.outputs:
                if name not in flow.definitely:
                    raise UserError.at(s.pos, f"output '{name}' may be unassigned when the program exits here",
                                       hint=f"assign '{name}' on every path before this exit, e.g. a default "
                                            "value at the start")
            return None
        raise TypeError(s)

    def reads(self, e, flow: _Flow) -> None:
        for node in _names(e, self.scope):
            name = node.name
            if name not in self.scope.variables or name in flow.definitely:
                continue
            if name in flow.possibly:
                raise UserError.at(node.pos, f"'{name}' may be unassigned here: it is not assigned on every "
                                   "path that leads here",
                                   hint=f"assign '{name}' before the 'if' (or in every branch), or before the loop")
            raise UserError.at(node.pos, f"'{name}' is read before it is assigned",
                               hint=f"assign '{name}' first")


def _join(results) -> _Flow | None:
    live = [r for r in results if r is not None]
    if not live:
        return None
    definitely = set.intersection(*(r.definitely for r in live))
    possibly = set.union(*(r.possibly for r in live))
    return _Flow(definitely, possibly)


def _names(e, scope: Scope):
    """The variable reads of an expression (an array argument of a built-in reads every element)."""
    if isinstance(e, S.Name):
        if e.name in scope.arrays and e.name not in scope.variables:
            for flat in scope.arrays[e.name]:
                yield S.Name(flat, e.pos)
        else:
            yield e
    elif isinstance(e, S.UnOp):
        yield from _names(e.arg, scope)
    elif isinstance(e, (S.BinOp, S.CmpOp)):
        yield from _names(e.left, scope)
        yield from _names(e.right, scope)
    elif isinstance(e, S.CondExpr):
        yield from _names(e.cond, scope)
        yield from _names(e.then, scope)
        yield from _names(e.other, scope)
    elif isinstance(e, (S.CallExpr, S.SampleExpr)):
        for a in e.args:
            yield from _names(a, scope)
    elif isinstance(e, S.ExpCall):
        yield from _names(e.arg, scope)
