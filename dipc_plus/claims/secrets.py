"""Pufferfish secrets: Boolean conditions on the input (`x[1] == 1 and sum(x) >= 2`).

Why it exists: a secret is user text that must be read without running anything.
It goes through the claims layer's one expression tree (`expression.syntax_tree`:
read once, size-checked, located, only the allowed node kinds), and this module folds
over that tree itself: comparisons, and/or/not, + - *, sum(x) / count(x) over an
array input, inputs written as x or x[1], symbols by name.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from dipc_plus.claims.expression import CONDITIONS, Expr, TreeFold, Where, ring, syntax_tree
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
    tree: Expr

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
    sample = {n: domain_values(t)[0] if isinstance(t, (ir.DomT, ir.BoolT)) else Fraction(0) for n, t in program.inputs}
    try:   # a mistake the sample shows (a wrong type, not a true/false condition) is located here
        pred.holds(sample)
    except UserError as exc:
        raise where.error(exc.message, hint=exc.hint) from None
    return pred


def evaluate_condition(node, env: Mapping, text: str):
    """The value of a checked condition tree at one input (flat names: 'x[1]').  Types are
    checked as it goes: arithmetic and order on numbers, and/or/not on truth values,
    == and != on anything; every mismatch is a `UserError`."""
    return _Condition(env, text).value(node)


_ORDER = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
          ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


class _Condition(TreeFold):
    """The fold of a condition tree at one input, each node checking the types of what it
    combines, so a mismatch fails where it occurs."""

    operators = frozenset({"+", "-", "*"})     # the only arithmetic a condition allows (HINT)

    def __init__(self, env: Mapping, text: str):
        self.env = env
        self.text = text

    def fail(self, msg):
        """Every error names the whole condition, as the user wrote it."""
        raise UserError(f"in the condition {self.text!r}: {msg}", hint=HINT)

    def refuse(self, node):
        self.fail("only + - * are allowed" if node.kind == "binary" else "unsupported expression")

    def number(self, v, what):
        """v as a number for `what` (true/false count as 1/0); anything else fails."""
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, (int, Fraction)):
            return v
        self.fail(f"{what} needs numbers, not '{v}'")

    def truth(self, v, what):
        """v as a truth value for `what`; anything else fails."""
        if not isinstance(v, bool):
            self.fail(f"{what} needs true/false conditions, not '{v}'")
        return v

    def fold_truth(self, n):
        """True/False and strings (compared with ==, !=) stand for themselves."""
        return n.value

    fold_string = fold_truth

    def fold_name(self, n):
        return self.named(n, n.value)

    def fold_index(self, n):
        """x[1] with an integer literal index names the flat input 'x[1]'; no other index is read."""
        idx = n.args[1]
        if n.args[0].kind == "name" and idx.kind == "number" and idx.op == "int":
            return self.named(n, f"{n.args[0].value}[{idx.value}]")
        return None

    def named(self, n, name: str):
        """An input's value, a truth literal, or a bare name read as a symbol."""
        if name in self.env:
            return self.env[name]
        if name in ("true", "false", "True", "False"):
            return name.lower() == "true"
        if n.kind == "name":
            return n.value  # a symbol
        self.fail(f"'{name}' is not an input")

    def fold_bool(self, n):
        """and / or: every operand is evaluated and checked to be a truth value."""
        vals = [self.truth(self.value(v), "and/or") for v in n.args]
        return all(vals) if n.op == "and" else any(vals)

    def logical_not(self, n):
        return not self.truth(self.value(n.args[0]), "not")

    def signed(self, op: str, v):
        """- and + of a number."""
        return super().signed(op, self.number(v, f"'{op}'"))

    def ring(self, n, a, b):
        """+ - * of numbers."""
        return ring(n.op, self.number(a, "arithmetic"), self.number(b, "arithmetic"))

    def fold_compare(self, n):
        """A chain a < b <= c: every link is evaluated, left to right, and all must hold."""
        left = self.value(n.args[0])
        result = True
        for op, right_node in zip(n.op, n.args[1:]):
            right = self.value(right_node)
            if op == "==":
                ok = values_equal(left, right)
            elif op == "!=":
                ok = not values_equal(left, right)
            elif op in _ORDER:
                ok = _ORDER[op](self.number(left, "an order comparison"), self.number(right, "an order comparison"))
            else:
                self.fail("unknown comparison")
            result = result and ok
            left = right
        return result

    def fold_call(self, n):
        """sum(x) / count(x) over the elements of an array input."""
        if n.op not in ("sum", "count"):
            self.fail("unsupported expression")
        if len(n.args) != 1 or n.args[0].kind != "name" or n.keywords:
            self.fail(f"{n.op}(x) takes one array input")
        arr = n.args[0].value
        env = self.env
        elems = sorted((k for k in env if k.startswith(arr + "[") and k[len(arr) + 1:-1].isdigit()),
                       key=lambda k: int(k[len(arr) + 1:-1]))
        if not elems:
            self.fail(f"'{arr}' is not an array input")
        return sum(self.number(env[k], f"{n.op}({arr})") for k in elems)
