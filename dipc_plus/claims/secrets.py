"""Pufferfish secrets: Boolean conditions on the input (`x[1] == 1 and sum(x) >= 2`).

Why it exists: a secret is user text that must be read without running anything.
It goes through the claims layer's one safe reader (`formula.syntax_tree`: Python's
parser plus an explicit list of allowed node kinds), and this module walks the
checked tree itself: comparisons, and/or/not, + - *, sum(x) / count(x) over an
array input, inputs written as x or x[1], symbols by name.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from dipc_plus.claims.formula import CONDITIONS, Where, number_value, syntax_tree
from dipc_plus.errors import UserError
from dipc_plus.semantics.values import values_equal
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import domain_values

HINT = "use comparisons (== != < <= > >=), and/or/not, + - *, sum(x), inputs as x[1]"


@dataclass
class Predicate:
    """A secret: a Boolean formula over the inputs (`x[1] == 1 and x[2] == 0`)."""
    name: str
    text: str
    tree: object

    def holds(self, env: Mapping) -> bool:
        value = evaluate_condition(self.tree, env, self.text)
        if not isinstance(value, bool):
            raise UserError(f"the secret '{self.name}' = {self.text!r} is not a true/false condition",
                            hint="write a comparison such as \"x[1] == 1\"")
        return value


def read_predicate(where: Where, name: str, text, program: ir.Program) -> Predicate:
    """Read one secret and check its names against a sample input of the program."""
    if not isinstance(text, str):
        raise where.error("a secret is a condition in a string", hint='"x[1] == 1"')
    tree = syntax_tree(text, where, CONDITIONS, calls=("sum", "count"), strings=True, what="condition",
                       hint=HINT)
    pred = Predicate(name, text, tree)
    sample = {}
    for n, t in program.inputs:
        sample[n] = domain_values(t)[0] if isinstance(t, (ir.DomT, ir.BoolT)) else Fraction(0)
    try:
        value = evaluate_condition(tree, sample, text)
    except UserError as exc:
        raise where.error(exc.message, hint=exc.hint) from None
    if not isinstance(value, bool):
        raise where.error(f"the secret '{name}' = {text!r} is not a true/false condition",
                          hint="write a comparison such as \"x[1] == 1\"")
    return pred


def evaluate_condition(node, env: Mapping, text: str):
    """The value of a checked condition tree at one input (flat names: 'x[1]').  Types are
    checked as it goes: arithmetic and order on numbers, and/or/not on truth values,
    == and != on anything; every mismatch is a `UserError`."""
    def fail(msg):
        raise UserError(f"in the condition {text!r}: {msg}", hint=HINT)

    def number(v, what):
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, (int, Fraction)):
            return v
        fail(f"{what} needs numbers, not '{v}'")

    def truth(v, what):
        if not isinstance(v, bool):
            fail(f"{what} needs true/false conditions, not '{v}'")
        return v

    def flat(n):
        if isinstance(n, ast.Name):
            return n.id
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
            idx = n.slice
            if isinstance(idx, ast.Constant) and isinstance(idx.value, int) and not isinstance(idx.value, bool):
                return f"{n.value.id}[{idx.value}]"
        return None

    def ev(n):
        name = flat(n)
        if name is not None:
            if name in env:
                return env[name]
            if name in ("true", "false", "True", "False"):
                return name.lower() == "true"
            if isinstance(n, ast.Name):
                return n.id  # a symbol
            fail(f"'{name}' is not an input")
        if isinstance(n, ast.Constant):
            if isinstance(n.value, bool):
                return n.value
            if isinstance(n.value, (int, float)):
                return number_value(n)
            if isinstance(n.value, str):
                return n.value
        if isinstance(n, ast.BoolOp):
            vals = [truth(ev(v), "and/or") for v in n.values]
            return all(vals) if isinstance(n.op, ast.And) else any(vals)
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand)
            if isinstance(n.op, ast.Not):
                return not truth(v, "not")
            if isinstance(n.op, ast.USub):
                return -number(v, "'-'")
            return number(v, "'+'")
        if isinstance(n, ast.BinOp):
            if not isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)):
                fail("only + - * are allowed")
            a, b = number(ev(n.left), "arithmetic"), number(ev(n.right), "arithmetic")
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            return a * b
        if isinstance(n, ast.Compare):
            left = ev(n.left)
            result = True
            for op, right_node in zip(n.ops, n.comparators):
                right = ev(right_node)
                if isinstance(op, ast.Eq):
                    ok = values_equal(left, right)
                elif isinstance(op, ast.NotEq):
                    ok = not values_equal(left, right)
                elif isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                    a, b = number(left, "an order comparison"), number(right, "an order comparison")
                    ok = {ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b}[type(op)]
                else:
                    fail("unknown comparison")
                result = result and ok
                left = right
            return result
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("sum", "count"):
            if len(n.args) != 1 or not isinstance(n.args[0], ast.Name) or n.keywords:
                fail(f"{n.func.id}(x) takes one array input")
            arr = n.args[0].id
            elems = sorted((k for k in env if k.startswith(arr + "[") and k[len(arr) + 1:-1].isdigit()),
                           key=lambda k: int(k[len(arr) + 1:-1]))
            if not elems:
                fail(f"'{arr}' is not an array input")
            return sum(number(env[k], f"{n.func.id}({arr})") for k in elems)
        fail("unsupported expression")

    return ev(node)
