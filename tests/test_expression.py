"""The one expression tree of claim strings (`claims.expression`): located nodes, limits checked
while reading, and the folds (exact value, polynomial, budget, condition) over the same tree."""
from __future__ import annotations

import random
import re
from fractions import Fraction as F

import pytest

from conftest import ROOT
from dipc_plus.claims.expression import ARITHMETIC, CONDITIONS, Expr, NodeCheck, Where, read, syntax_tree
from dipc_plus.claims.formula import parse, parse_polynomial
from dipc_plus.claims.secrets import evaluate_condition
from dipc_plus.errors import UserError
from dipc_plus.execution import limits

W = Where("claim.toml", 3, 10, "privacy.x")


def nodes(tree: Expr):
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.args)


def test_nodes_are_located_in_the_users_text_with_caret():
    text = "2^p + q*exp(-eps)"
    tree = read(text, W)
    names = {n.value: n for n in nodes(tree) if n.kind == "name"}
    assert text[names["q"].col] == "q" and text[names["p"].col] == "p"     # '^' -> '**' shifted nothing
    power = next(n for n in nodes(tree) if n.kind == "binary" and n.op == "**")
    assert power.part() == "2^p"
    call = next(n for n in nodes(tree) if n.kind == "call")
    assert call.op == "exp" and call.part() == "exp(-eps)"


def test_error_columns_point_into_the_string():
    with pytest.raises(UserError) as info:
        syntax_tree("2^3 + x.y", W, ARITHMETIC, what="budget")
    assert info.value.line == 3 and info.value.column == 10 + "2^3 + x.y".index("x.y")
    assert "attribute" in info.value.message
    with pytest.raises(UserError) as info:
        parse("eps + 2^2 + zz", ["m"], W)
    assert info.value.column == 10 + "eps + 2^2 + zz".index("zz")


def balanced_sum(leaves: int) -> str:
    """p + p + ... as a balanced tree: many parts, shallow nesting."""
    return "p" if leaves == 1 else f"({balanced_sum(leaves // 2)}+{balanced_sum(leaves - leaves // 2)})"


@pytest.mark.parametrize("text,limit", [("-" * 300 + "p", "depth"), (balanced_sum(2048), "nodes"),
                                        ("1" * 2000, "digits"), ("p**" + "9" * 5, "power")],
                         ids=["depth", "nodes", "digits", "power"])
def test_limits_are_checked_while_reading(text, limit):
    with pytest.raises(UserError) as info:
        NodeCheck(W, ARITHMETIC).run(read(text, W, max_text=10 ** 6))
    assert info.value.hint == limits.hint(limit)


def test_decimals_are_kept_as_written():
    tree = read("0.30000000000000000000000000000001", W)
    assert tree.kind == "number" and tree.value == F(30000000000000000000000000000001, 10 ** 32)


def test_equal_subexpressions_have_equal_shapes():
    tree = read("exp(-eps) + exp(-eps) * exp(-eps/2)", W)
    calls = [n.shape() for n in nodes(tree) if n.kind == "call"]
    assert len(calls) == 3 and len(set(calls)) == 2


def test_polynomial_fold_agrees_with_direct_arithmetic():
    poly = parse_polynomial("2*p*(1 - p)^2 - q/3 + 1/2", ["p", "q"], W)
    rng = random.Random(1)
    for _ in range(20):
        p, q = F(rng.randint(-50, 50), rng.randint(1, 9)), F(rng.randint(-50, 50), rng.randint(1, 9))
        direct = 2 * p * (1 - p) ** 2 - q / 3 + F(1, 2)
        assert sum(c * p ** a * q ** b for (a, b), c in poly.items()) == direct


def test_exact_fold_agrees_with_direct_arithmetic():
    formula = parse("m*(1 - m)^2 + 3/m - exp(-eps)", ["m"], W)
    m = F(2, 7)
    value = formula.exact({"m": m}) + parse("exp(-eps)", [], W).exact({})
    assert value.is_constant() and value.constant_value() == m * (1 - m) ** 2 + 3 / m


def test_condition_fold_on_located_tree():
    tree = syntax_tree("x[1] == 1 and sum(x) >= 2 and not x[2] < 0", W, CONDITIONS, calls=("sum", "count"),
                       strings=True, what="condition")
    env = {"x[1]": F(1), "x[2]": F(1), "x[3]": F(0)}
    assert evaluate_condition(tree, env, "t") is True
    env["x[2]"] = F(-1)
    assert evaluate_condition(tree, env, "t") is False        # sum 0 < 2 and x[2] < 0
    with pytest.raises(UserError):
        evaluate_condition(syntax_tree("x[1.0] == 1", W, CONDITIONS, what="condition"), env, "t")


def test_only_the_expression_module_parses_python_syntax():
    """Issue 29: one tree for formulas.  The front end parses .dip text with its own grammar; the
    one other user of `ast` is the Python front end (issue 42), which reads a mechanism's source as
    a program, never a claim's formula."""
    package = ROOT / "dipc_plus"
    users = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                   if re.search(r"^\s*(import ast\b|from ast import)", p.read_text(encoding="utf-8"), re.M))
    assert [u for u in users if not u.startswith("frontend/python/")] == ["claims/expression.py"]
