"""Formulas a user writes in a claim file (beta = "2*m*c*exp(-alpha*eps/(8*c))"),
read with sympy and turned into exact closed forms in eps.

Why a separate step: an accuracy verdict compares a probability, an exact
`ExpPoly`/`ExpFrac` in eps, with 1 - beta.  So beta must become one too: once
alpha, gamma and the program's parameters are fixed rationals, every exponent
must be a rational multiple of eps (``exp(-eps/8)``), every coefficient a
rational.  Anything else (``log(2)``, ``exp(1)``, ``sqrt(eps)``, ``2^eps``) has
no exact representation here and is rejected with a message that says which
part of the formula is at fault.

The text is first checked with Python's `ast` (so errors carry a column and
only arithmetic, numbers, the allowed names and ``exp`` get through), then
built as a sympy expression (used for printing, substitution and the limit
alpha -> infinity), then converted.  sympy never decides anything numerically.
"""
from __future__ import annotations

import ast
import functools
import difflib
import re
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.execution.lazy import lazy_import

sympy = lazy_import("sympy")

from dipc_plus.errors import UserError
from dipc_plus.exact.convert import to_fraction
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.execution import limits
from dipc_plus.execution.limits import clip



@functools.lru_cache(maxsize=1)
def eps_symbol():
    """The sympy symbol eps > 0 (made on first use: sympy is imported lazily)."""
    return sympy.Symbol("eps", positive=True)

_FUNCTIONS = {"exp"}
_NOT_EXPRESSIBLE = {
    "log": "a logarithm is not a rational number, so it has no exact form here",
    "ln": "a logarithm is not a rational number, so it has no exact form here",
    "sqrt": "a square root has no exact form in exponential polynomials",
    "pi": "pi is not rational",
}


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


@dataclass(frozen=True)
class Formula:
    """A parsed formula: its text, its sympy form, and the names it may use."""
    text: str
    expr: object  # sympy.Expr
    symbols: dict  # name -> sympy.Symbol (eps included)
    where: Where

    def substitute(self, values: dict) -> object:
        """sympy expression with names replaced by rationals (names not given stay symbolic)."""
        subs = {}
        for name, value in values.items():
            if name in self.symbols and value is not None:
                v = Fraction(value)
                subs[self.symbols[name]] = sympy.Rational(v.numerator, v.denominator)
        return self.expr.subs(subs)

    def exact(self, values: dict):
        """The exact closed form in eps once every other name has a rational value.

        Returns an ExpPoly when the result has no denominator, else an ExpFrac.
        """
        expr = self.substitute(values)
        missing = sorted(str(s) for s in expr.free_symbols if s != eps_symbol() and str(s) != "eps")
        if missing:
            raise self.where.error(f"no value for {', '.join(missing)} in '{clip(self.text)}'",
                                   hint="give every parameter the formula uses a value (in [program] params "
                                        "or the program's own defaults)")
        return to_exact(expr, self)

    def limit(self, name: str, values: dict):
        """The exact closed form of lim_{name -> +infinity}, other names fixed.

        Used for alpha = infinity (an input whose distance to disagreement is
        infinite): the paper's limit extension of beta.  The limit is taken by
        sympy with eps > 0, and the result is converted exactly like any formula.
        """
        expr = self.substitute({k: v for k, v in values.items() if k != name})
        sym = self.symbols[name]
        try:
            lim = sympy.limit(expr, sym, sympy.oo)
        except Exception as exc:  # sympy gives up: say so rather than guess
            raise self.where.error(f"cannot take the limit of '{clip(self.text)}' as {name} -> infinity ({exc})",
                                   hint=f"use a numeric {name}, or a beta that tends to a closed form") from None
        if lim.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan) or lim.has(sympy.AccumBounds):
            raise self.where.error(f"'{clip(self.text)}' has no finite limit as {name} -> infinity (got {clip(lim)})",
                                   hint="beta should decrease in alpha (e.g. contain exp(-alpha*eps/8))")
        return to_exact(lim, self)

    def __str__(self) -> str:
        return self.text


def parse(text: str, names: list[str], where: Where) -> Formula:
    """Check and parse `text`; `names` are the symbols it may use besides eps."""
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
    symbols = {"eps": eps_symbol()}
    for n in names:
        symbols[n] = sympy.Symbol(n, nonnegative=True)
    _check_size(tree.body, where, back)
    builder = _Builder(text, symbols, where, back)
    expr = builder.build(tree.body)
    return Formula(text, expr, symbols, where)


def _check_size(root, where: Where, back) -> None:
    check_tree(root, lambda message, col, hint: where.error(message, back(col), hint))


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


def _check_power(base, exponent, fail) -> None:
    """A power the kernel can afford: an integer exponent within `power`, a numeric result within `digits`."""
    if not exponent.is_Number:
        return  # symbolic (eps**m): checked once the parameters are known, in to_exact
    if not exponent.is_Integer:
        return  # to_exact explains why a non-integer power has no exact form
    if base.is_Rational:
        check_rational_power(Fraction(int(base.p), int(base.q)), int(exponent), fail)
    elif abs(int(exponent)) > limits.get("power"):
        fail(f"the exponent {clip(exponent)} is larger than {limits.get('power')}", limits.hint("power"))


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


class _Builder:
    def __init__(self, text, symbols, where, back=lambda c: c):
        self.text = text
        self.symbols = symbols
        self.where = where
        self.back = back

    def fail(self, node, message, hint=None):
        raise self.where.error(message, self.back(getattr(node, "col_offset", 0)), hint)

    def build(self, node):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                self.fail(node, f"'{clip(ast.unparse(node))}' is not a number")
            if isinstance(node.value, int):
                return sympy.Integer(node.value)
            q = Fraction(repr(node.value))
            return sympy.Rational(q.numerator, q.denominator)
        if isinstance(node, ast.Name):
            if node.id in self.symbols:
                return self.symbols[node.id]
            if node.id == "e" or node.id == "E":
                return sympy.E
            if node.id in _NOT_EXPRESSIBLE:
                self.fail(node, f"'{node.id}': {_NOT_EXPRESSIBLE[node.id]}")
            import difflib
            close = difflib.get_close_matches(node.id, list(self.symbols), n=1)
            hint = f"did you mean '{close[0]}'?" if close else \
                "the formula may use eps, " + ", ".join(sorted(set(self.symbols) - {"eps"})) + " and exp(...)"
            self.fail(node, f"unknown name '{node.id}'", hint)
        if isinstance(node, ast.UnaryOp):
            arg = self.build(node.operand)
            if isinstance(node.op, ast.USub):
                return -arg
            if isinstance(node.op, ast.UAdd):
                return arg
            self.fail(node, f"the operator in '{clip(ast.unparse(node))}' is not allowed")
        if isinstance(node, ast.BinOp):
            left, right = self.build(node.left), self.build(node.right)
            op = node.op
            if isinstance(op, ast.Add):
                return left + right
            if isinstance(op, ast.Sub):
                return left - right
            if isinstance(op, ast.Mult):
                return left * right
            if isinstance(op, ast.Div):
                if right == 0:
                    self.fail(node, "division by zero")
                return left / right
            if isinstance(op, ast.Pow):
                _check_power(left, right, lambda msg, hint: self.fail(node, msg, hint))
                return left ** right
            self.fail(node, f"the operator in '{clip(ast.unparse(node))}' is not allowed",
                      hint="use + - * / and ** (or ^)")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                self.fail(node, f"'{clip(ast.unparse(node.func))}' is not a function")
            name = node.func.id
            if name in _NOT_EXPRESSIBLE:
                self.fail(node, f"'{name}(...)': {_NOT_EXPRESSIBLE[name]}",
                          hint="fix gamma (or alpha) to a number and solve the bound for beta; "
                               "see docs/claims.md")
            if name not in _FUNCTIONS:
                self.fail(node, f"unknown function '{name}'", hint="only exp(...) is available")
            if node.keywords or len(node.args) != 1:
                self.fail(node, "exp takes exactly one argument")
            return sympy.exp(self.build(node.args[0]))
        self.fail(node, f"'{clip(ast.unparse(node))}' is not allowed in a formula",
                  hint="use numbers, names, + - * / ** and exp(...)")


def to_exact(expr, formula: Formula | None = None):
    """sympy expression in eps alone -> ExpPoly (or ExpFrac when it has a denominator)."""
    where = formula.where if formula else Where()
    text = formula.text if formula else str(expr)

    def bad(part, why):
        raise where.error(f"'{clip(part)}' in '{clip(text)}' {why}",
                          hint="after alpha, gamma and the parameters are fixed, beta must be a sum of "
                               "rational multiples of eps^k * exp(q*eps) with rational q (and quotients "
                               "of such sums)")

    def exponent(arg):
        arg = sympy.expand(arg)
        if arg.free_symbols - {eps_symbol()}:
            bad(sympy.exp(arg), "depends on " + ", ".join(sorted(str(s) for s in arg.free_symbols - {eps_symbol()})))
        try:
            poly = sympy.Poly(arg, eps_symbol())
        except sympy.PolynomialError:
            bad(sympy.exp(arg), "has an exponent that is not linear in eps")
        if poly.degree() > 1:
            bad(sympy.exp(arg), "has an exponent that is not linear in eps")
        coeffs = poly.all_coeffs()
        slope, const = (coeffs if len(coeffs) == 2 else [sympy.Integer(0), coeffs[0]])
        for c in (slope, const):
            if not c.is_Rational:
                bad(sympy.exp(arg), "has an exponent with a non-rational coefficient")
        if const != 0:
            bad(sympy.exp(arg), f"contains the constant factor exp({clip(const)}), which is not rational")
        if max(abs(int(slope.p)), int(slope.q)) > limits.get("exp_rate"):
            raise where.error(f"the rate {clip(slope)} in exp({clip(slope)}*eps) of '{clip(text)}' is beyond the "
                              f"exact kernel's range (numerator and denominator at most {limits.get('exp_rate')})",
                              hint=limits.hint("exp_rate"))
        return ExpFrac.of(ExpPoly.exp(to_fraction(slope)))

    def conv(e):
        if e.is_Rational:
            return ExpFrac.of(ExpPoly.const(to_fraction(e)))
        if e == eps_symbol() or (e.is_Symbol and str(e) == "eps"):
            return ExpFrac.of(ExpPoly.eps())
        if e.is_Add:
            total = ExpFrac.of(ExpPoly.ZERO)
            for a in e.args:
                total = total + conv(a)
            return total
        if e.is_Mul:
            total = ExpFrac.of(ExpPoly.ONE)
            for a in e.args:
                total = total * conv(a)
            return total
        if isinstance(e, sympy.exp):
            return exponent(e.args[0])
        if e.is_Pow:
            base, ex = e.args
            if base == sympy.E:
                return exponent(ex)
            if ex.is_Integer:
                n = int(ex)
                if abs(n) > limits.get("power"):
                    raise where.error(f"the exponent {clip(n)} in '{clip(text)}' is larger than "
                                      f"{limits.get('power')}", hint=limits.hint("power"))
                b = conv(base)
                if n >= 0:
                    result = ExpFrac.of(ExpPoly.ONE)
                    for _ in range(n):
                        result = result * b
                    return result
                if b.is_zero():
                    bad(e, "divides by zero")
                result = ExpFrac.of(ExpPoly.ONE)
                for _ in range(-n):
                    result = result / b
                return result
            bad(e, "is a power with a non-integer exponent")
        if e.is_Symbol:
            bad(e, "has no value")
        bad(e, "has no exact form (only rationals, eps, + - * /, integer powers and exp(q*eps))")

    result = conv(expr)
    return result.num if result.is_poly() else result


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
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
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
