"""Formulas a user writes in a claim file (beta = "2*m*c*exp(-alpha*eps/(8*c))"),
read into exact closed forms in eps.

Why a separate step: an accuracy verdict compares a probability, an exact
`ExpPoly`/`ExpFrac` in eps, with 1 - beta.  So beta must become one too: once
alpha, gamma and the program's parameters are fixed rationals, every exponent
must be a rational multiple of eps (``exp(-eps/8)``), every coefficient a
rational.  Anything else (``log(2)``, ``exp(1)``, ``sqrt(eps)``, ``2^eps``) has
no exact representation here and is rejected with a message that says which
part of the formula is at fault.

The text is checked with Python's `ast` parser, which only builds a syntax tree
(so errors carry a column, and only arithmetic, numbers, the allowed names and
``exp`` get through); our own code then walks the tree and computes with exact
values (`exact.alpha_series`): at fixed names for the closed form, with alpha
kept as a variable for the limit alpha -> infinity and the sign of d beta/d alpha.
Nothing is evaluated by Python, and no computer-algebra system is involved.
"""
from __future__ import annotations

import ast
import difflib
import operator
import re
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.claims.written_numbers import exact_constants
from dipc_plus.exact.alpha_series import XFrac
from dipc_plus.execution import limits
from dipc_plus.execution.limits import clip


_FUNCTIONS = {"exp"}
_NOT_EXPRESSIBLE = {
    "log": "a logarithm is not a rational number, so it has no exact form here",
    "ln": "a logarithm is not a rational number, so it has no exact form here",
    "sqrt": "a square root has no exact form in exponential polynomials",
    "pi": "pi is not rational",
}
RING_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}   # + - * of a tree
_EULER = ("e", "E")   # Euler's number: only as the base of a power (e^x is exp(x))


@dataclass(frozen=True)
class Where:
    """Where a formula sits in a claim file, for error messages."""
    file: str | None = None
    line: int | None = None
    column: int | None = None  # column of the formula's first character
    key: str = "formula"

    def error(self, message: str, offset: int | None = None, hint: str | None = None) -> UserError:
        column = None
        if self.column is not None:
            column = self.column + (offset or 0)
        return UserError(f"{self.key}: {message}", file=self.file, line=self.line, column=column, hint=hint)


_EXACT_HINT = ("after alpha, gamma and the parameters are fixed, beta must be a sum of rational multiples of "
               "eps^k * exp(q*eps) with rational q (and quotients of such sums)")


@dataclass(frozen=True)
class Formula:
    """A checked formula: its text, its syntax tree, and the names it may use besides eps."""
    text: str
    tree: ast.expr
    names: tuple
    where: Where

    def exact(self, values: dict):
        """The exact closed form in eps once every other name it uses has a rational value.

        Returns an ExpPoly when the result has no denominator, else an ExpFrac.
        """
        return _Evaluator(self, values, None).value(self.tree).exact()

    def limit(self, name: str, values: dict):
        """The exact closed form of lim_{name -> +infinity} at every eps > 0, other names fixed.

        Used for alpha = infinity (an input whose distance to disagreement is
        infinite): the paper's limit extension of beta."""
        value = _Evaluator(self, values, name).value(self.tree)
        try:
            return value.limit()
        except ValueError as exc:
            raise self.where.error(f"'{clip(self.text)}' {exc} as {name} -> infinity",
                                   hint="beta should decrease in alpha (e.g. contain exp(-alpha*eps/8))") from None

    def slope(self, name: str, values: dict) -> tuple[str, str]:
        """('nonpositive' | 'nonnegative' | 'unknown', d/d name as text), proven for every
        name >= 0 and eps > 0 with the other names fixed (`XFrac.slope`)."""
        return _Evaluator(self, values, name).value(self.tree).slope()

    def __str__(self) -> str:
        return self.text


def parse(text: str, names: list[str], where: Where) -> Formula:
    """Check `text` and keep its syntax tree; `names` are the names it may use besides eps."""
    if not isinstance(text, str) or not text.strip():
        raise where.error("the formula is empty", hint='write it as a string, e.g. "2*m*exp(-alpha*eps/8)"')
    # '^' means power (as in the paper); Python's '^' binds looser than '+', so
    # rewrite it to '**' and keep a map from rewritten columns back to the user's.
    source, back = _caret_to_power(text)
    if len(text) > 40 * limits.get("nodes"):
        raise where.error(f"the formula has {len(text)} characters", hint=limits.hint("nodes"))
    check_digits(text, lambda message, col, hint: where.error(message, col, hint))
    try:
        tree = ast.parse(source, mode="eval")
    except (RecursionError, MemoryError):
        raise where.error(f"'{clip(text)}' is nested too deeply to read", hint=limits.hint("depth")) from None
    except ValueError as exc:  # e.g. an integer literal past Python's own digit limit
        raise where.error(f"cannot read '{clip(text)}': {clip(exc, 60)}", hint=limits.hint("digits")) from None
    except SyntaxError as exc:
        offset = back((exc.offset or 1) - 1)
        raise where.error(f"cannot read '{clip(text)}': {exc.msg}", offset,
                          hint="use + - * / ** (or ^), parentheses, numbers, exp(...), eps and the "
                               "names " + ", ".join(sorted(names))) from None
    check_tree(tree.body, lambda message, col, hint: where.error(message, back(col), hint))
    exact_constants(tree.body, source, lambda message, col, hint: where.error(message, back(col), hint))
    formula = Formula(text, tree.body, tuple(names), where)
    _check_shape(formula, back)
    terms = expanded_terms(formula.tree)
    if terms > limits.get("terms"):
        raise where.error(f"'{clip(text)}' may expand to more than {limits.get('terms')} terms (nested powers "
                          "multiply)", hint=limits.hint("terms"))
    return formula


def expanded_terms(root) -> int:
    """An upper bound, from the shape of a checked formula tree alone, on the number of terms of its
    numerator plus its denominator once expanded.  Why: `((eps+1)**200)**200` passes the `power`
    limit one level at a time, but would expand to 40,001 terms inside one exact computation;
    this bound refuses it while reading.

    Two bounds are kept for each part and the smaller is used (both are upper bounds): counting
    terms (a sum of fractions adds cross products, a product multiplies, (t terms)**n has at most
    C(n+t-1, t-1)), and counting monomials (total degree d in the k names and exp(...) calls the
    part uses, at most C(d+k, k), so nested powers of one variable multiply only their degrees).
    Past the limit every count is capped, so the bound stays a small number.  An exponent that is
    not a number (a parameter) counts as the `power` limit, the most the evaluator accepts."""
    cap = limits.get("terms") + 1

    def multinomial(t: int, n: int) -> int:
        count = 1                      # C(n+t-1, t-1) built factor by factor, stopped at the cap
        for k in range(1, min(t - 1, n) + 1):
            count = count * (max(t - 1, n) + k) // k
            if count >= cap:
                return cap
        return count

    def size(node):
        """(terms of numerator, of denominator, degree of numerator, of denominator, variables)."""
        if isinstance(node, ast.UnaryOp):
            return size(node.operand)
        if isinstance(node, ast.Name) and node.id not in _EULER:
            return 1, 1, 1, 0, frozenset([node.id])
        if isinstance(node, ast.Call) or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and
                                          isinstance(node.left, ast.Name) and node.left.id in _EULER):
            return 1, 1, 1, 0, frozenset([ast.dump(node)])         # exp(...) and e^x: one variable
        if not isinstance(node, ast.BinOp) or _bounded_constant(node) is not None:
            return 1, 1, 0, 0, frozenset()                          # a number
        if isinstance(node.op, ast.Pow):
            exponent = _bounded_constant(node.right)
            n = limits.get("power") if exponent is None or exponent.denominator != 1 else abs(int(exponent))
            tn, td, dn, dd, names = size(node.left)
            if exponent is not None and exponent < 0:
                tn, td, dn, dd = td, tn, dd, dn
            tn, td, dn, dd = multinomial(tn, n), multinomial(td, n), min(dn * n, cap), min(dd * n, cap)
        else:
            (an, ad, adn, add, a_names), (bn, bd, bdn, bdd, b_names) = size(node.left), size(node.right)
            names = a_names | b_names
            if isinstance(node.op, ast.Mult):
                tn, td, dn, dd = an * bn, ad * bd, adn + bdn, add + bdd
            elif isinstance(node.op, ast.Div):
                tn, td, dn, dd = an * bd, ad * bn, adn + bdd, add + bdn
            else:
                tn, td, dn, dd = an * bd + bn * ad, ad * bd, max(adn + bdd, bdn + add), add + bdd
        k = len(names) + 1
        return (min(tn, multinomial(k, min(dn, cap)), cap), min(td, multinomial(k, min(dd, cap)), cap),
                min(dn, cap), min(dd, cap), names)

    num, den = size(root)[:2]
    return min(num + den - 1, cap)


def _check_shape(formula: Formula, back) -> None:
    """Refuse, at load time, every part a formula may not contain: unknown names (with a
    suggestion), functions other than exp, operators other than + - * / **, and a power of
    numbers past the `power` or `digits` limits."""
    known = set(formula.names) | {"eps"}

    def fail(node, message, hint=None):
        raise formula.where.error(message, back(getattr(node, "col_offset", 0)), hint)

    stack = [formula.tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                fail(node, f"'{clip(ast.unparse(node))}' is not a number")
        elif isinstance(node, ast.Name):
            if node.id in known or node.id in _EULER:
                continue
            if node.id in _NOT_EXPRESSIBLE:
                fail(node, f"'{node.id}': {_NOT_EXPRESSIBLE[node.id]}")
            close = difflib.get_close_matches(node.id, sorted(known), n=1)
            hint = f"did you mean '{close[0]}'?" if close else \
                "the formula may use eps, " + ", ".join(sorted(formula.names)) + " and exp(...)"
            fail(node, f"unknown name '{node.id}'", hint)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                fail(node, f"the operator in '{clip(ast.unparse(node))}' is not allowed")
            stack.append(node.operand)
        elif isinstance(node, ast.BinOp):
            if not isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
                fail(node, f"the operator in '{clip(ast.unparse(node))}' is not allowed",
                     hint="use + - * / and ** (or ^)")
            if isinstance(node.op, ast.Pow):
                base, exponent = _bounded_constant(node.left), _bounded_constant(node.right)
                if exponent is not None and exponent.denominator == 1:
                    if base is not None:
                        check_rational_power(base, int(exponent), lambda m, h: fail(node, m, h))
                    elif abs(exponent) > limits.get("power"):
                        fail(node, f"the exponent {clip(exponent)} is larger than {limits.get('power')}",
                             limits.hint("power"))
            stack += [node.left, node.right]
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                fail(node, f"'{clip(ast.unparse(node.func))}' is not a function")
            name = node.func.id
            if name in _NOT_EXPRESSIBLE:
                fail(node, f"'{name}(...)': {_NOT_EXPRESSIBLE[name]}",
                     hint="fix gamma (or alpha) to a number and solve the bound for beta; see docs/claims.md")
            if name not in _FUNCTIONS:
                fail(node, f"unknown function '{name}'", hint="only exp(...) is available")
            if node.keywords or len(node.args) != 1:
                fail(node, "exp takes exactly one argument")
            stack.append(node.args[0])
        else:
            fail(node, f"'{clip(ast.unparse(node))}' is not allowed in a formula",
                 hint="use numbers, names, + - * / ** and exp(...)")


class _Evaluator:
    """Walks a checked formula's tree and computes its exact value: every name bound to a
    rational except `variable` (None, or the name kept as the variable x of `XFrac`)."""

    def __init__(self, formula: Formula, values: dict, variable: str | None):
        self.formula = formula
        self.variable = variable
        self.values = {n: Fraction(v) for n, v in values.items() if v is not None and n != variable}

    def back(self, col: int) -> int:
        """The column of the user's text (with '^') for a column of the parsed text; only an
        error needs it, so it is not worked out for every evaluation."""
        return _caret_to_power(self.formula.text)[1](col)

    def fail(self, node, part: str, why: str, hint: str | None = _EXACT_HINT):
        text = self.formula.text
        raise self.formula.where.error(f"'{clip(part)}' in '{clip(text)}' {why}",
                                       self.back(getattr(node, "col_offset", 0)), hint)

    def part(self, node) -> str:
        """The user's own text of a node (with '^' where they wrote it)."""
        text, back = self.formula.text, self.back
        try:
            return text[back(node.col_offset):back(node.end_col_offset)] or ast.unparse(node)
        except (AttributeError, TypeError):
            return ast.unparse(node)

    def value(self, node) -> XFrac:
        if isinstance(node, ast.Constant):
            return XFrac.const(number_value(node))
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.UnaryOp):
            v = self.value(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.Call):  # exp(...), the only function _check_shape lets through
            return self.exp(node, self.value(node.args[0]))
        if isinstance(node.op, ast.Pow):
            return self.power(node)
        left, right = self.value(node.left), self.value(node.right)
        if type(node.op) in RING_OPERATORS:
            return RING_OPERATORS[type(node.op)](left, right)
        try:
            return left / right
        except ZeroDivisionError:
            self.fail(node, self.part(node), "divides by zero", hint="check the parameters' values")

    def name(self, node) -> XFrac:
        n = node.id
        if n == self.variable:
            return XFrac.x()
        if n in self.values:
            return XFrac.const(self.values[n])
        if n == "eps":
            return XFrac.eps()
        if n in _EULER and n not in self.formula.names:
            self.fail(node, n, "has no exact form (only rationals, eps, + - * /, integer powers and exp(q*eps)); "
                               "write e^x as exp(x)")
        raise self.formula.where.error(
            f"no value for {n} in '{clip(self.formula.text)}'", self.back(node.col_offset),
            hint="give every parameter the formula uses a value (in [program] params or the program's own defaults)")

    def exp(self, node, argument: XFrac) -> XFrac:
        try:
            result = argument.exp()
        except ValueError as exc:
            self.fail(node, self.part(node), str(exc))
        bound = limits.get("exp_rate")
        for q in result.rates():
            if max(abs(q.numerator), q.denominator) > bound:
                raise self.formula.where.error(
                    f"the rate {clip(q)} in exp({clip(q)}*eps) of '{clip(self.formula.text)}' is beyond the exact "
                    f"kernel's range (numerator and denominator at most {bound})",
                    self.back(node.col_offset), hint=limits.hint("exp_rate"))
        return result

    def power(self, node) -> XFrac:
        if isinstance(node.left, ast.Name) and node.left.id in _EULER and node.left.id not in self.formula.names \
                and node.left.id != self.variable:
            return self.exp(node, self.value(node.right))
        base, exponent = self.value(node.left), self.value(node.right)
        n = exponent.constant()
        if n is None or n.denominator != 1:
            self.fail(node, self.part(node), "is a power with a non-integer exponent")
        n = int(n)
        if abs(n) > limits.get("power"):
            raise self.formula.where.error(f"the exponent {clip(n)} in '{clip(self.formula.text)}' is larger than "
                                           f"{limits.get('power')}", self.back(node.col_offset),
                                           hint=limits.hint("power"))
        number = base.constant()
        if number is not None:
            def too_large(message, hint):
                raise self.formula.where.error(message, self.back(node.col_offset), hint)
            check_rational_power(number, n, too_large)
        try:
            return base.power(n)
        except ZeroDivisionError:
            self.fail(node, self.part(node), "divides by zero", hint="check the parameters' values")


def check_digits(text: str, error) -> None:
    """Refuse a number written with more than `digits` digits before Python converts it."""
    m = re.search(r"\d{%d,}" % (limits.get("digits") + 1), text)
    if m:
        raise error(f"the number {clip(m.group())} has more than {limits.get('digits')} digits", m.start(),
                    limits.hint("digits"))


def check_tree(root, error) -> None:
    """Refuse, before anything is computed, a formula (an `ast` tree) past the nesting, size or number
    limits; `error(message, column, hint)` builds the UserError to raise."""
    max_depth, max_nodes, max_digits = limits.get("depth"), limits.get("nodes"), limits.get("digits")
    stack, count = [(root, 1)], 0
    while stack:
        node, depth = stack.pop()
        count += 1
        col = getattr(node, "col_offset", 0)
        if count > max_nodes:
            raise error(f"the formula has more than {max_nodes} parts", col, hint=limits.hint("nodes"))
        if depth > max_depth:
            raise error(f"the formula is nested more than {max_depth} deep", col, hint=limits.hint("depth"))
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            if node.value.bit_length() > 3.33 * max_digits:
                raise error(f"the number {clip(node.value)} has more than {max_digits} digits", col,
                            limits.hint("digits"))
        if isinstance(node, ast.Constant) and isinstance(node.value, float) and len(repr(node.value)) > max_digits:
            raise error(f"the number {clip(node.value)} has more than {max_digits} digits", col,
                        limits.hint("digits"))
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def check_rational_power(base: Fraction, n: int, fail) -> None:
    """Call fail(message, hint) unless base**n is within the `power` and `digits` limits (before computing it)."""
    if abs(n) > limits.get("power"):
        fail(f"the exponent {clip(n)} is larger than {limits.get('power')}", limits.hint("power"))
    bits = max(base.numerator.bit_length(), base.denominator.bit_length()) * abs(n)
    if bits > 3.33 * limits.get("digits"):
        fail(f"{clip(base)}**{clip(n)} has more than {limits.get('digits')} digits", limits.hint("digits"))


def _caret_to_power(text: str):
    """(text with '^' -> '**', a function mapping a column of the new text to the old)."""
    out, starts = [], []
    for k, ch in enumerate(text):
        if ch == "^":
            out.append("**")
            starts.extend([k, k])
        else:
            out.append(ch)
            starts.append(k)
    source = "".join(out)

    def back(col: int) -> int:
        if col < 0:
            return 0
        return starts[col] if col < len(starts) else len(text)
    return source, back


# --------------------------------------------------------------------------- every other claim string
#
# Budgets, Pufferfish secrets and prior weights are not exp-polynomial formulas, but they
# are read the same safe way: Python's parser builds a syntax tree (it never runs
# anything), every node is checked against an explicit list of allowed kinds before any
# reader looks at the tree, and the readers walk the tree themselves.  Nothing a user
# writes reaches eval, exec, sympify or parse_expr.

MAX_TEXT = 4000          # characters of one claim string
MAX_DEGREE = 64          # of a polynomial weight in any parameter

_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.USub, ast.UAdd, ast.Not, ast.And, ast.Or,
              ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Load)
ARITHMETIC = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name) + _OPERATORS
CONDITIONS = ARITHMETIC + (ast.BoolOp, ast.Compare, ast.Subscript, ast.Call)
_NODE_WORDS = {ast.Call: "a function call", ast.Attribute: "an attribute ('.')", ast.Subscript: "an index",
               ast.Lambda: "a lambda", ast.List: "a list", ast.Tuple: "a tuple", ast.Dict: "a dict",
               ast.Set: "a set", ast.JoinedStr: "an f-string", ast.FormattedValue: "an f-string",
               ast.IfExp: "an if-expression", ast.ListComp: "a comprehension",
               ast.GeneratorExp: "a comprehension", ast.SetComp: "a comprehension",
               ast.DictComp: "a comprehension", ast.NamedExpr: "an assignment (':=')",
               ast.Starred: "a '*'", ast.Await: "'await'", ast.Yield: "'yield'", ast.Slice: "a slice",
               ast.Compare: "a comparison", ast.BoolOp: "and/or"}


def syntax_tree(text, where: Where, allowed: tuple = ARITHMETIC, *, calls: tuple = (),
                strings: bool = False, what: str = "formula", hint: str | None = None):
    """The checked syntax tree (`ast` expression body) of one claim string.

    Only node kinds in `allowed` pass; a call must be a plain name in `calls`; a constant
    must be a number (or a string when `strings`).  Every refusal is a `UserError` at the
    string's location (column of the offending part when the string's column is known)."""
    hint = hint or "use numbers, names, + - * / and ** (or ^)"
    if not isinstance(text, str) or not text.strip():
        raise where.error(f"the {what} is empty", hint=hint)
    if len(text) > MAX_TEXT:
        raise where.error(f"the {what} has {len(text)} characters, more than {MAX_TEXT}", hint=hint)
    source, back = _caret_to_power(text)
    check_digits(text, lambda message, col, hint_: where.error(message, col, hint_))
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise where.error(f"cannot read {clip(text)!r}: {exc.msg}", back((exc.offset or 1) - 1), hint=hint) from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise where.error(f"cannot read {clip(text)!r}: {type(exc).__name__}", hint=limits.hint("depth")) from None
    check_tree(tree.body, lambda message, col, hint_: where.error(message, back(col), hint_))
    exact_constants(tree.body, source, lambda message, col, hint_: where.error(message, back(col), hint_))
    # breadth first with depths: no recursion, so a deep tree cannot exhaust the stack here
    level = [(tree, 0)]
    while level:
        node, depth = level.pop()
        if depth > limits.get("depth"):
            raise where.error(f"the {what} {clip(text)!r} is nested more than {limits.get('depth')} levels deep",
                              hint=limits.hint("depth"))
        col = back(getattr(node, "col_offset", 0))
        if not isinstance(node, allowed):
            word = next((w for k, w in _NODE_WORDS.items() if isinstance(node, k)), type(node).__name__)
            raise where.error(f"{word} is not allowed in the {what} {text!r}", col, hint=hint)
        if isinstance(node, ast.Constant):
            ok = (isinstance(node.value, (int, float)) and not isinstance(node.value, bool)) or \
                 (strings and isinstance(node.value, str))
            if not ok:
                raise where.error(f"{node.value!r} is not a number, in the {what} {text!r}", col, hint=hint)
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in calls) or node.keywords:
                name = node.func.id if isinstance(node.func, ast.Name) else "this call"
                known = ", ".join(calls) if calls else "none"
                raise where.error(f"'{name}(...)' is not allowed in the {what} {text!r} (functions: {known})",
                                  col, hint=hint)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            exponent = _bounded_constant(node.right)
            if exponent is not None and abs(exponent) > limits.get("power"):
                raise where.error(f"the power in the {what} {clip(text)!r} has an exponent above "
                                  f"{limits.get('power')}", col, hint=limits.hint("power"))
        level.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return tree.body




def _bounded_constant(node) -> Fraction | None:
    """The value of a subtree made of number constants and + - * / ** only (None when it uses a
    name or a call), computed with every power's exponent at most the `power` limit in absolute value
    and every number below 2^100000 -- so checking a formula never builds a huge number."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            return None
        return number_value(node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _bounded_constant(node.operand)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BinOp):
        a, b = _bounded_constant(node.left), _bounded_constant(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Pow):
            if b.denominator != 1 or abs(b) > limits.get("power") or (a == 0 and b < 0):
                return Fraction(limits.get("power") + 1)        # reported by the caller as too large
            if abs(b) * (a.numerator.bit_length() + a.denominator.bit_length()) > 100_000:
                return Fraction(limits.get("power") + 1)
            return a ** int(b)
        if type(node.op) in RING_OPERATORS:
            return RING_OPERATORS[type(node.op)](a, b)
        if isinstance(node.op, ast.Div):
            return a / b if b else None
    return None


def node_column(where: Where, text: str, node) -> int | None:
    """The offset of a node of `syntax_tree(text, ...)` in the user's text (for messages)."""
    _, back = _caret_to_power(text)
    return back(getattr(node, "col_offset", 0))


def number_value(node) -> Fraction:
    """The exact value of a numeric constant node (a decimal literal is read as written)."""
    if isinstance(node.value, int):
        return Fraction(node.value)
    return Fraction(repr(node.value))


def parse_polynomial(text, names: list[str], where: Where, *, what: str = "weight") -> dict:
    """A polynomial in `names` with rational coefficients, read without evaluating anything:
    {exponent tuple (one entry per name): Fraction}, zero terms dropped.  Numbers, the names,
    + - *, division by a nonzero number and nonnegative integer powers (degree at most
    MAX_DEGREE) are allowed; anything else is a `UserError` at the string's location."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = str(text)
    hint = "a weight is a polynomial in " + (", ".join(names) if names else "no parameters") + \
           " with rational coefficients, e.g. \"2*p*(1 - p)\""
    if not isinstance(text, str):
        raise where.error(f"a {what} is a formula in a string", hint=hint)
    tree = syntax_tree(text, where, ARITHMETIC, what=what, hint=hint)
    n = len(names)
    index = {name: i for i, name in enumerate(names)}
    one = (0,) * n

    def fail(node, message):
        raise where.error(f"{message} in the {what} {text!r}", node_column(where, text, node), hint)

    def const(c: Fraction) -> dict:
        return {one: c} if c else {}

    def add(a: dict, b: dict, sign: int = 1) -> dict:
        out = dict(a)
        for m, c in b.items():
            out[m] = out.get(m, Fraction(0)) + sign * c
        return {m: c for m, c in out.items() if c}

    def mul(a: dict, b: dict) -> dict:
        out: dict = {}
        for ma, ca in a.items():
            for mb, cb in b.items():
                m = tuple(x + y for x, y in zip(ma, mb))
                out[m] = out.get(m, Fraction(0)) + ca * cb
        return {m: c for m, c in out.items() if c}

    def degree(a: dict) -> int:
        return max((max(m, default=0) for m in a), default=0)

    def build(node) -> dict:
        if isinstance(node, ast.Constant):
            return const(number_value(node))
        if isinstance(node, ast.Name):
            if node.id not in index:
                close = difflib.get_close_matches(node.id, names, n=1)
                fail(node, f"unknown name '{node.id}'" + (f" (did you mean '{close[0]}'?)" if close else
                                                          " (declare it in parameters = { ... })"))
            m = [0] * n
            m[index[node.id]] = 1
            return {tuple(m): Fraction(1)}
        if isinstance(node, ast.UnaryOp):
            a = build(node.operand)
            if isinstance(node.op, ast.USub):
                return {m: -c for m, c in a.items()}
            if isinstance(node.op, ast.UAdd):
                return a
            fail(node, "'not' is not arithmetic")
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                base = build(node.left)
                e = build(node.right)
                if set(e) - {one} or (e and e[one].denominator != 1) or (e and e[one] < 0):
                    fail(node, "a power needs a nonnegative integer exponent")
                k = int(e.get(one, 0))
                if set(base) - {one}:
                    if degree(base) * k > MAX_DEGREE:
                        fail(node, f"the degree is more than {MAX_DEGREE}")
                elif base:
                    c = base[one]
                    if k > 1024 or k * (c.numerator.bit_length() + c.denominator.bit_length()) > 100_000:
                        fail(node, "this power of a number is too large")
                    return const(c ** k)
                out = const(Fraction(1))
                for _ in range(k):
                    out = mul(out, base)
                return out
            a, b = build(node.left), build(node.right)
            if isinstance(node.op, ast.Add):
                return add(a, b)
            if isinstance(node.op, ast.Sub):
                return add(a, b, -1)
            if isinstance(node.op, ast.Mult):
                out = mul(a, b)
                if degree(out) > MAX_DEGREE:
                    fail(node, f"the degree is more than {MAX_DEGREE}")
                return out
            if isinstance(node.op, ast.Div):
                if set(b) - {one} or not b:
                    fail(node, "divide only by a nonzero number" if not set(b) - {one} else
                         "a division by a parameter is not a polynomial")
                return {m: c / b[one] for m, c in a.items()}
        fail(node, "this is not a polynomial")

    return build(tree)
