"""Translate one Python function of the documented subset into DiPWhile+ text and a line map.

Why a module of its own: it is the one place that knows what each Python construct of the
subset means in DiPWhile+ (docs/python.md).  Everything else is refused here, at the .py line
and column, with what the subset offers instead.  The text it writes goes through the one
.dip parser and checker (`frontend.python.load`), so the checks are the language's own.

The translation runs in passes until two agree: a pass learns the final length of each list
and the values each integer variable takes, which the declarations at the top of the
program need (a .dip DOM variable has a finite declared domain).
"""
from __future__ import annotations

import ast
import math
from fractions import Fraction

from dipc_plus.frontend.python.expressions import ExpressionTranslator
from dipc_plus.frontend.python.source import PythonFunction, error_at
from dipc_plus.frontend.python.values import CONST, INT, REAL, Value, widened

_PASSES = 8


def translate_function(fn: PythonFunction, params: dict[str, Fraction]) -> tuple[str, list[tuple[int, int]]]:
    """(DiPWhile+ text, for each of its lines the (.py line, column) it came from)."""
    known: dict = {}
    for _ in range(_PASSES):
        t = StatementTranslator(fn, params, known)
        text, where = t.run()
        learned = t.learned()
        if learned == known:
            return text, where
        known = learned
    raise error_at(fn.path, fn.node, "the integer variables' ranges did not settle",
                   "simplify how integer variables are set (constants, loop indices, += constants)")


class StatementTranslator(ExpressionTranslator):
    """One pass over the function body, writing .dip statements (the expressions: the base class)."""

    def run(self) -> tuple[str, list[tuple[int, int]]]:
        body = [s for s in self.fn.node.body]
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        self.read_signature()
        self.plan_outputs(body)
        self.final_return = body[-1]
        self.block(body, tail_ok=True, top=True)
        return self.assemble()

    # ------------------------------------------------------------------ outputs

    def plan_outputs(self, body: list) -> None:
        """The outputs are what the function returns: each returned name (the same in every
        return) is an output variable; any other returned expression becomes `result`."""
        if not body or not isinstance(body[-1], ast.Return):
            raise self.refuse(body[-1] if body else self.fn.node, "a function that does not end with `return`",
                              "end the function with `return VALUE` (a number, a bool, an index or a list)")
        returns = [n for s in body for n in ast.walk(s) if isinstance(n, ast.Return)]
        shapes = []
        for r in returns:
            if r.value is None:
                raise self.refuse(r, "`return` without a value", "return the output: return out")
            parts = r.value.elts if isinstance(r.value, ast.Tuple) else [r.value]
            shapes.append(parts)
        width = len(shapes[-1])
        for r, parts in zip(returns, shapes):
            if len(parts) != width:
                raise self.refuse(r, "returns of different shapes", "return the same number of values everywhere")
        many = width > 1 or isinstance(body[-1].value, ast.Tuple)
        self.outputs = []
        for p in range(width):
            names = {parts[p].id if isinstance(parts[p], ast.Name) else None for parts in shapes}
            if len(returns) == 1 and isinstance(shapes[0][p], ast.ListComp):
                self.outputs.append(("name", f"result{p + 1}" if many else "result"))
            elif len(names) == 1 and None not in names:
                name = names.pop()
                if name in self.bindings:
                    raise self.refuse(shapes[-1][p], f"returning the parameter '{name}'",
                                      "return a value the function computes")
                self.outputs.append(("name", name))
            else:
                self.outputs.append(("result", f"result{p + 1}" if many else "result"))

    def return_stmt(self, node: ast.Return, final: bool) -> None:
        parts = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        for (how, name), part in zip(self.outputs, parts):
            if isinstance(part, ast.ListComp):
                self.comprehension(name, part, node, generated=True)
            elif how == "result":
                value = self.scalar(part)
                self.note_result(name, value, part)
                self.emit(f"{name} <- {value.text}", node)
        if not final:
            self.emit("exit", node)
            self.exits = True
        self.terminated = True

    # ------------------------------------------------------------------ blocks

    def block(self, stmts: list, tail_ok: bool, top: bool = False) -> None:
        for j, stmt in enumerate(stmts):
            if self.terminated:
                return          # after break/return: never reached
            last = j == len(stmts) - 1 or (top and j == len(stmts) - 2)
            self.stmt(stmt, tail_ok and last, final=top and j == len(stmts) - 1)

    def stmt(self, node, tail_ok: bool, final: bool = False) -> None:
        handler = {ast.Assign: self.assign_stmt, ast.AugAssign: self.aug_assign_stmt, ast.Expr: self.expr_stmt,
                   ast.If: self.if_stmt, ast.For: self.for_stmt, ast.Break: self.break_stmt}.get(type(node))
        if isinstance(node, ast.Return):
            self.return_stmt(node, final)
        elif isinstance(node, ast.Pass):
            return
        elif handler is not None:
            handler(node, tail_ok) if isinstance(node, (ast.If, ast.For)) else handler(node)
        else:
            raise self.refuse(node, self.construct_name(node), "the subset offers assignments, `if/elif/else`, "
                              "`for` over the queries or a range, `break`, `out.append(...)` and `return`")

    @staticmethod
    def construct_name(node) -> str:
        words = {ast.While: "a `while` loop (a loop on a random condition has no bounded unrolling)",
                 ast.Import: "an import inside the function", ast.ImportFrom: "an import inside the function",
                 ast.FunctionDef: "a nested function", ast.ClassDef: "a class", ast.Continue: "`continue`",
                 ast.Try: "try/except", ast.With: "`with`", ast.Raise: "`raise`", ast.Assert: "`assert`",
                 ast.Global: "`global`", ast.Nonlocal: "`nonlocal`", ast.Delete: "`del`",
                 ast.AnnAssign: "an annotated assignment"}
        return words.get(type(node), f"the statement `{type(node).__name__}`")

    def expr_stmt(self, node: ast.Expr) -> None:
        call = node.value
        if isinstance(call, ast.Constant) and isinstance(call.value, str):
            return      # a string statement (a comment)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append":
            lst = self.lists.get(appended_name(node))
            if lst is None or lst.is_input:
                raise self.refuse(call, "append to something that is not a list the function built",
                                  "start the list with out = [] and append to it")
            if len(call.args) != 1 or call.keywords:
                raise self.refuse(call, "append with other than one argument", "write out.append(VALUE)")
            self.append(lst, call.args[0], call)
            return
        raise self.refuse(node, "an expression statement that is not out.append(...)",
                          "compute values in assignments; only out.append(VALUE) stands alone")

    # ------------------------------------------------------------------ control flow

    def if_stmt(self, node: ast.If, tail_ok: bool) -> None:
        cond = self.condition(node.test)
        self.emit(f"if {cond.text} then", node)
        before = self.list_state()
        self.nested(node.body, tail_ok)
        after_body, body_ended = self.list_state(), self.terminated
        self.terminated = False
        self.restore_lists(before)
        if node.orelse:
            self.emit("else", node.orelse[0])
            self.nested(node.orelse, tail_ok)
        after_else, else_ended = self.list_state(), self.terminated
        self.terminated = body_ended and else_ended
        if body_ended:
            self.restore_lists(after_else)
        elif not else_ended and after_body != after_else:
            raise self.uneven_appends(node)
        else:
            self.restore_lists(after_body)
        self.emit("end", node)

    def uneven_appends(self, node):
        return self.refuse(node, "branches that append a different number of items to a list",
                           "the subset needs each list's length known at every point: append in both "
                           "branches (e.g. out.append(True) / out.append(False))")

    def nested(self, stmts: list, tail_ok: bool) -> None:
        self.depth += 1
        self.block(stmts, tail_ok)
        self.depth -= 1

    def break_stmt(self, node: ast.Break) -> None:
        """`break` out of the loop just before the final `return` is `exit`; a return that computes
        its value (`return out.count(False)`) is computed first, as it would be after the loop."""
        if not self.loops or not self.loops[-1]:
            raise self.refuse(node, "`break` where something other than `return` follows the loop",
                              "the subset lowers `break` to `exit`, which needs the loop to be the last "
                              "statement before the final `return`, not inside another loop")
        if self.final_returns_computed():
            self.return_stmt(self.final_return, final=False)
            return
        self.emit("exit", node)
        self.exits = True
        self.terminated = True

    def for_stmt(self, node: ast.For, tail_ok: bool) -> None:
        if node.orelse:
            raise self.refuse(node.orelse[0], "`for ... else`", "write the else part after the loop")
        loop = self.iteration(node.target, node.iter)
        index_name, _, _, start, trips, _ = loop
        per_iteration = {name: self.appends(node.body, name) for name in self.lists}
        before = self.list_state()
        for name, k in per_iteration.items():
            if k:
                lst = self.lists[name]
                lst.base -= k * start
                lst.terms[index_name] = k
        with self.unrolled(loop, node):
            self.loops.append(tail_ok and not self.final_return_builds_a_list())
            self.block(node.body, False)
            self.loops.pop()
        for name, lst in self.lists.items():
            base, terms = before.get(name, (lst.base, {}))
            k = per_iteration.get(name, 0) or 0
            lst.base, lst.terms = base + k * trips, terms
        self.terminated = False     # after the loop: reached when it runs no iteration or does not break
        self.emit("end", node)

    def final_returns_computed(self) -> bool:
        return any(how == "result" for how, _ in self.outputs)

    def final_return_builds_a_list(self) -> bool:
        """A comprehension in the final return declares its list once, so `break` cannot repeat it."""
        return any(isinstance(n, ast.ListComp) for n in ast.walk(self.final_return))

    def appends(self, stmts: list, name: str) -> int | None:
        """Items appended to list `name` on every path through `stmts` (None: every path leaves
        by break or return); different counts on two paths are refused."""
        total = 0
        for stmt in stmts:
            if isinstance(stmt, (ast.Break, ast.Return)):
                return None
            if isinstance(stmt, ast.Expr) and appended_name(stmt) == name:
                total += 1
            elif isinstance(stmt, ast.If):
                a, b = self.appends(stmt.body, name), self.appends(stmt.orelse, name)
                if a is None and b is None:
                    return None
                if a is not None and b is not None and a != b:
                    raise self.uneven_appends(stmt)
                total += a if a is not None else b
            elif isinstance(stmt, ast.For):
                trips = self.iteration(stmt.target, stmt.iter)[4]
                inner = self.appends(stmt.body, name)
                if inner is None:
                    return None if trips > 0 else total
                total += inner * trips
        return total

    # ------------------------------------------------------------------ assignments

    def assign_stmt(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            raise self.refuse(node, "a chained assignment a = b = ...", "assign one name at a time")
        target = node.targets[0]
        if isinstance(target, ast.Name):
            self.assign_name(target.id, node.value, node)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and target.value.id in self.lists and not self.lists[target.value.id].is_input:
            lst = self.lists[target.value.id]
            index = self.index(target.slice, lst, target)
            self.store(lst, index, node.value, node)
        else:
            raise self.refuse(target, "assignment to something other than a name or an element of a local list",
                              "assign to a name: x = ...")

    def aug_assign_stmt(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.refuse(node.target, "augmented assignment to something other than a name", "write x += 1")
        value = ast.BinOp(left=ast.Name(id=node.target.id, ctx=ast.Load()), op=node.op, right=node.value)
        ast.copy_location(value, node)
        ast.copy_location(value.left, node.target)
        self.assign_name(node.target.id, value, node)

    def assign_name(self, name: str, rhs, node) -> None:
        if name in self.bindings:
            raise self.refuse(node, f"assignment to '{name}', a parameter or loop variable",
                              "use a new name for the new value")
        if isinstance(rhs, ast.List) and not rhs.elts:
            if name in self.vars or (name in self.lists and self.lists[name].elem is not None):
                raise self.refuse(node, f"'{name}' is made a new list a second time", "build each list once")
            self.lists[name] = self.new_list(name)
            self.init_list(self.lists[name], node)
            return
        if isinstance(rhs, ast.ListComp):
            if name in self.vars or name in self.lists:
                raise self.refuse(node, f"'{name}' is built a second time", "build each list once")
            self.comprehension(name, rhs, node)
            return
        if name in self.lists:
            raise self.refuse(node, f"'{name}' is a list; it cannot be given another value",
                              "use a new name for the new value")
        dip = self.dip_name(name)
        sample = self.folded_sample(rhs)
        if sample is not None:
            self.declare_var(name, REAL, node)
            self.emit(f"{dip} <- {sample}", node)
            return
        step = self.increment(name, rhs)
        value = self.scalar(rhs)
        if self.declare_var(name, self.kind_of(value, rhs), node) == INT:
            self.note_int(name, value, step)
        self.emit(f"{dip} <- {value.text}", node)

    def increment(self, name: str, rhs) -> Fraction | None:
        """c when `rhs` is `name + c` or `name - c` for a constant c (x += 1)."""
        if isinstance(rhs, ast.BinOp) and isinstance(rhs.op, (ast.Add, ast.Sub)) \
                and isinstance(rhs.left, ast.Name) and rhs.left.id == name and self.vars.get(name) == INT:
            step = self.scalar(rhs.right)
            if step.kind == CONST and step.value.denominator == 1:
                return step.value if isinstance(rhs.op, ast.Add) else -step.value
        return None

    def kind_of(self, value: Value, rhs) -> str:
        if value.kind != CONST:
            return value.kind
        written_decimal = any(isinstance(n, ast.Constant) and isinstance(n.value, float) for n in ast.walk(rhs))
        return REAL if written_decimal or value.value.denominator != 1 else INT

    def note_int(self, name: str, value: Value, step: Fraction | None) -> None:
        if step is not None:
            self.int_steps.setdefault(name, [0, 0])[0 if step < 0 else 1] += int(step) * math.prod(self.mult)
            return
        self.int_ranges[name] = list(widened(self.int_ranges.get(name, (None, None)), value.bounds()))

    def note_result(self, name: str, value: Value, node) -> None:
        kind = self.kind_of(value, node)
        old = self.results.get(name)
        if old is not None and old[0] != kind:
            raise self.refuse(node, "returns of different kinds of value", "return the same kind everywhere")
        lo, hi = value.bounds()
        if old is not None and kind == INT:
            lo, hi = min(lo, old[1]), max(hi, old[2])
        self.results[name] = (kind, lo, hi)


def appended_name(stmt: ast.Expr) -> str | None:
    """X of a statement `X.append(...)`, else None."""
    call = stmt.value
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
            and isinstance(call.func.value, ast.Name):
        return call.func.value.id
    return None
