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

from dipc_plus.semantics import ir
from dipc_plus.frontend import surface as S
from dipc_plus.errors import UserError
from dipc_plus.frontend.scope import Scope


class _Flow:
    """What is assigned at one point of the program, kept as the names added on top of the point
    that encloses it (`parent`).  Why: a branch then records only its own assignments, so checking
    an `if` costs the size of its branches, not of every name assigned before it (copying the sets
    made the check quadratic: 2.7 s for sparse at m = 1000).  Statement nesting is bounded by the
    `depth` limit, so a lookup walks at most that many parents."""

    def __init__(self, parent: "_Flow | None", outputs: frozenset, assigned=()):
        self.parent = parent
        self.outputs = outputs
        self.definitely: set = set()    # added here: assigned on every path to this point
        self.possibly: set = set()      # added here: assigned on some path to this point
        self.missing = parent.missing if parent is not None else len(outputs)   # outputs not yet definite
        for name in assigned:
            self.assign(name)

    def child(self) -> "_Flow":
        return _Flow(self, self.outputs)

    def is_definite(self, name: str) -> bool:
        return any(name in flow.definitely for flow in self.chain())

    def is_possible(self, name: str) -> bool:
        return any(name in flow.possibly for flow in self.chain())

    def chain(self):
        """This flow and its parents, innermost first."""
        flow = self
        while flow is not None:
            yield flow
            flow = flow.parent

    def assign(self, name: str) -> None:
        if not self.is_definite(name):
            self.definitely.add(name)
            if name in self.outputs:
                self.missing -= 1
        self.possibly.add(name)


def check_flow(statements: tuple, scope: Scope) -> None:
    assigned = set(a.target.name for a in S.assignments(statements))
    for name, _ in scope.outputs:
        if name not in assigned:
            base = name.split("[")[0]
            raise UserError.at(scope.output_pos[name], f"output '{name}' is never assigned",
                               hint=f"assign it (or remove the output '{base}')")
    start = _Flow(None, frozenset(n for n, _ in scope.outputs), (n for n, _ in scope.inputs))
    end = _Checker(scope).block(statements, start, in_while=None)
    if end is not None and end.missing:
        for name, _ in scope.outputs:
            if not end.is_definite(name):
                raise UserError.at(scope.output_pos[name],
                                   f"output '{name}' may be unassigned when the program ends",
                                   hint="assign it on every path, e.g. give it a default value at the start")


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
            flow.assign(name)
            return flow
        if isinstance(s, S.If):
            results = []
            for cond, body in s.branches:
                self.reads(cond, flow)
                results.append(self.block(body, flow.child(), in_while))
            results.append(self.block(s.other or (), flow.child(), in_while))
            return _join(flow, results)
        if isinstance(s, S.While):
            self.reads(s.cond, flow)
            after_body = self.block(s.body, flow.child(), in_while or s)
            if after_body is not None:
                again = flow.child()              # before the condition is read again: either path
                again.possibly = after_body.possibly
                self.reads(s.cond, again)
                flow.possibly |= after_body.possibly
            return flow
        if isinstance(s, S.Exit):
            for name, _ in (self.scope.outputs if flow.missing else ()):
                if not flow.is_definite(name):
                    raise UserError.at(s.pos, f"output '{name}' may be unassigned when the program exits here",
                                       hint=f"assign '{name}' on every path before this exit, e.g. a default "
                                            "value at the start")
            return None
        raise TypeError(s)

    def reads(self, e, flow: _Flow) -> None:
        for node in _names(e, self.scope):
            name = node.name
            if name not in self.scope.variables or flow.is_definite(name):
                continue
            if flow.is_possible(name):
                raise UserError.at(node.pos, f"'{name}' may be unassigned here: it is not assigned on every "
                                   "path that leads here",
                                   hint=f"assign '{name}' before the 'if' (or in every branch), or before the loop")
            raise UserError.at(node.pos, f"'{name}' is read before it is assigned",
                               hint=f"assign '{name}' first")


def _join(flow: _Flow, results) -> _Flow | None:
    """`flow` after an `if` whose branches (children of `flow`) ended in `results` (None: exited)."""
    live = [r for r in results if r is not None]
    if not live:
        return None
    live.sort(key=lambda r: len(r.definitely))
    for name in live[0].definitely:
        if all(name in r.definitely for r in live[1:]):
            flow.assign(name)
    for r in live:
        flow.possibly |= r.possibly
    return flow


def _names(e, scope: Scope):
    """The variable reads of an expression (an array argument of a built-in reads every element)."""
    return (read for node in S.nodes(e) if isinstance(node, S.Name) for read in scope.elements(node))
