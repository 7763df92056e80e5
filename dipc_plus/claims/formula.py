"""Formulas a user writes in a claim file (beta = "2*m*c*exp(-alpha*eps/(8*c))"),
read into exact closed forms in eps.

Why a separate step: an accuracy verdict compares a probability, an exact
`ExpPoly`/`ExpFrac` in eps, with 1 - beta.  So beta must become one too: once
alpha, gamma and the program's parameters are fixed rationals, every exponent
must be a rational multiple of eps (``exp(-eps/8)``), every coefficient a
rational.  Anything else (``log(2)``, ``exp(1)``, ``sqrt(eps)``, ``2^eps``) has
no exact representation here and is rejected with a message that says which
part of the formula is at fault.

The text is read once into the claims layer's expression tree (`claims.expression`:
checked against the size limits, located, never evaluated); our own code then folds
over that tree with exact values (`exact.alpha_series`): at fixed names for the closed
form, with alpha kept as a variable for the limit alpha -> infinity and the sign of
d beta/d alpha, and as a polynomial for Pufferfish prior weights.  No computer-algebra
system is involved.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.claims.expression import (ARITHMETIC, RING_OPS, Expr, NodeCheck, TreeFold, Where, bounded_constant,
                                         check_rational_power, read, syntax_tree)
from dipc_plus.exact.alpha_series import XFrac
from dipc_plus.exact.param_poly import poly_add, poly_mul, poly_scale
from dipc_plus.execution import limits
from dipc_plus.execution.limits import clip
from dipc_plus.frontend.scope import did_you_mean


_NOT_EXPRESSIBLE = {
    "log": "a logarithm is not a rational number, so it has no exact form here",
    "ln": "a logarithm is not a rational number, so it has no exact form here",
    "sqrt": "a square root has no exact form in exponential polynomials",
    "pi": "pi is not rational",
}
_EULER = ("e", "E")   # Euler's number: only as the base of a power (e^x is exp(x))


_EXACT_HINT = ("after alpha, gamma and the parameters are fixed, beta must be a sum of rational multiples of "
               "eps^k * exp(q*eps) with rational q (and quotients of such sums)")


@dataclass(frozen=True)
class Formula:
    """A checked formula: its text, its expression tree, and the names it may use besides eps."""
    text: str
    tree: Expr
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

    def in_variable(self, name: str, values: dict):
        """The exact closed form with `name` kept as the variable x (an `alpha_series.XFrac`),
        every other name fixed: read term by term, e.g. to prove beta a function of alpha*eps."""
        return _Evaluator(self, values, name).value(self.tree)

    def slope(self, name: str, values: dict) -> tuple[str, str]:
        """('nonpositive' | 'nonnegative' | 'unknown', d/d name as text), proven for every
        name >= 0 and eps > 0 with the other names fixed (`XFrac.slope`)."""
        return _Evaluator(self, values, name).value(self.tree).slope()

    def __str__(self) -> str:
        return self.text


def _usage_hint(names) -> str:
    return "use + - * / ** (or ^), parentheses, numbers, exp(...), eps and the names " + ", ".join(sorted(names))


def parse(text: str, names: list[str], where: Where, tree: Expr | None = None, *, what: str = "formula",
          hint: str | None = None) -> Formula:
    """Check `text` and keep its expression tree; `names` are the names it may use besides eps.
    `tree` is the text's tree when the caller has read it already (a delta, which `what` names
    and `hint` explains in messages)."""
    if tree is None:
        if not isinstance(text, str) or not text.strip():
            raise where.error("the formula is empty", hint='write it as a string, e.g. "2*m*exp(-alpha*eps/8)"')
        if len(text) > 40 * limits.get("nodes"):
            raise where.error(f"the formula has {len(text)} characters", hint=limits.hint("nodes"))
        tree = read(text, where, hint=_usage_hint(names), max_text=len(text))
    formula = Formula(text, tree, tuple(names), where)
    _FormulaCheck(formula, what, hint).run(tree)
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
        if node.kind == "unary":
            return size(node.args[0])
        if node.kind == "name" and node.value not in _EULER:
            return 1, 1, 1, 0, frozenset([node.value])
        if node.kind == "call" or (node.kind == "binary" and node.op == "**" and
                                   node.args[0].kind == "name" and node.args[0].value in _EULER):
            return 1, 1, 1, 0, frozenset([node.shape()])           # exp(...) and e^x: one variable
        if node.kind != "binary" or bounded_constant(node) is not None:
            return 1, 1, 0, 0, frozenset()                          # a number
        if node.op == "**":
            exponent = bounded_constant(node.args[1])
            n = limits.get("power") if exponent is None or exponent.denominator != 1 else abs(int(exponent))
            tn, td, dn, dd, names = size(node.args[0])
            if exponent is not None and exponent < 0:
                tn, td, dn, dd = td, tn, dd, dn
            tn, td, dn, dd = multinomial(tn, n), multinomial(td, n), min(dn * n, cap), min(dd * n, cap)
        else:
            (an, ad, adn, add, a_names), (bn, bd, bdn, bdd, b_names) = size(node.args[0]), size(node.args[1])
            names = a_names | b_names
            if node.op == "*":
                tn, td, dn, dd = an * bn, ad * bd, adn + bdn, add + bdd
            elif node.op == "/":
                tn, td, dn, dd = an * bd, ad * bn, adn + bdd, add + bdn
            else:
                tn, td, dn, dd = an * bd + bn * ad, ad * bd, max(adn + bdd, bdn + add), add + bdd
        k = len(names) + 1
        return (min(tn, multinomial(k, min(dn, cap)), cap), min(td, multinomial(k, min(dd, cap)), cap),
                min(dn, cap), min(dd, cap), names)

    num, den = size(root)[:2]
    return min(num + den - 1, cap)


class _FormulaCheck(NodeCheck):
    """The load-time check of a formula: the shared node checks over + - * / ** and calls, and
    the formula's own rules: unknown names (with a suggestion), no function but exp (a
    logarithm or root is refused with the reason), and a power of numbers within the `power`
    and `digits` limits."""

    def __init__(self, formula: Formula, what: str, hint: str | None):
        super().__init__(formula.where, ARITHMETIC | {"call"}, calls=("exp",), ops=RING_OPS, what=what,
                         hint=hint or _usage_hint(formula.names))
        self.names = formula.names
        self.known = set(formula.names) | {"eps"}
        self.inexpressible_hint = hint or "fix gamma (or alpha) to a number and solve the bound for beta; " \
                                          "see docs/claims.md"

    def name(self, node) -> None:
        if node.value in self.known or node.value in _EULER:
            return
        if node.value in _NOT_EXPRESSIBLE:
            self.fail(node, f"'{node.value}': {_NOT_EXPRESSIBLE[node.value]}")
        hint = did_you_mean(node.value, self.known) or \
            f"the {self.what} may use eps, " + ", ".join(sorted(self.names)) + " and exp(...)"
        self.fail(node, f"unknown name '{node.value}'", hint)

    def call(self, node) -> None:
        if node.op is None:
            self.fail(node, f"'{clip(node.value.part())}' is not a function")
        if node.op in _NOT_EXPRESSIBLE:
            self.fail(node, f"'{node.op}(...)': {_NOT_EXPRESSIBLE[node.op]}", self.inexpressible_hint)
        if node.op not in self.calls:
            self.fail(node, f"unknown function '{node.op}'", "only exp(...) is available")
        if node.keywords or len(node.args) != 1:
            self.fail(node, "exp takes exactly one argument")

    def power(self, node) -> None:
        base, exponent = bounded_constant(node.args[0]), bounded_constant(node.args[1])
        if exponent is not None and exponent.denominator == 1:
            check_rational_power(base, int(exponent), lambda m, h: self.fail(node, m, h))


class _Evaluator(TreeFold):
    """The fold of a checked formula's tree to its exact value: every name bound to a
    rational except `variable` (None, or the name kept as the variable x of `XFrac`)."""

    def __init__(self, formula: Formula, values: dict, variable: str | None):
        self.formula = formula
        self.variable = variable
        self.values = {n: Fraction(v) for n, v in values.items() if v is not None and n != variable}

    def error(self, node, message: str, hint: str | None):
        raise self.formula.where.error(message, node.col, hint)

    def fail(self, node, why: str, hint: str | None = _EXACT_HINT):
        """An error quoting the node's own text inside the formula's."""
        self.error(node, f"'{clip(node.part())}' in '{clip(self.formula.text)}' {why}", hint)

    def refuse(self, node):
        self.fail(node, "is not allowed in a formula")

    constant = staticmethod(XFrac.const)

    def fold_call(self, node) -> XFrac:  # exp(...), the only function _FormulaCheck lets through
        return self.exp(node, self.value(node.args[0]))

    def divide(self, node, left: XFrac, right: XFrac) -> XFrac:
        try:
            return left / right
        except ZeroDivisionError:
            self.fail(node, "divides by zero", hint="check the parameters' values")

    def fold_name(self, node) -> XFrac:
        n = node.value
        if n == self.variable:
            return XFrac.x()
        if n in self.values:
            return XFrac.const(self.values[n])
        if n == "eps":
            return XFrac.eps()
        if n in _EULER and n not in self.formula.names:
            self.fail(node, "has no exact form (only rationals, eps, + - * /, integer powers and exp(q*eps)); "
                               "write e^x as exp(x)")
        self.error(node, f"no value for {n} in '{clip(self.formula.text)}'",
                   hint="give every parameter the formula uses a value (in [program] params or the program's own defaults)")

    def exp(self, node, argument: XFrac) -> XFrac:
        try:
            result = argument.exp()
        except ValueError as exc:
            self.fail(node, str(exc))
        bound = limits.get("exp_rate")
        for q in result.rates():
            if max(abs(q.numerator), q.denominator) > bound:
                self.error(node, f"the rate {clip(q)} in exp({clip(q)}*eps) of '{clip(self.formula.text)}' is "
                                 f"beyond the exact kernel's range (numerator and denominator at most {bound})",
                           limits.hint("exp_rate"))
        return result

    def power(self, node) -> XFrac:
        left, right = node.args
        if left.kind == "name" and left.value in _EULER and left.value not in self.formula.names \
                and left.value != self.variable:
            return self.exp(node, self.value(right))
        base, exponent = self.value(left), self.value(right)
        n = exponent.constant()
        if n is None or n.denominator != 1:
            self.fail(node, "is a power with a non-integer exponent")
        n = int(n)
        if abs(n) > limits.get("power"):
            self.error(node, f"the exponent {clip(n)} in '{clip(self.formula.text)}' is larger than "
                             f"{limits.get('power')}", limits.hint("power"))
        check_rational_power(base.constant(), n, lambda message, hint: self.error(node, message, hint))
        try:
            return base.power(n)
        except ZeroDivisionError:
            self.fail(node, "divides by zero", hint="check the parameters' values")


MAX_DEGREE = 64          # of a polynomial weight in any parameter


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
    return _PolynomialFold(names, where, what, text, hint).value(tree)


def _degree(a: dict) -> int:
    """The largest degree in any one variable."""
    return max((max(m, default=0) for m in a), default=0)


class _PolynomialFold(TreeFold):
    """The fold of an arithmetic tree to a polynomial dict (see `parse_polynomial`), with the
    degree and the size of powers bounded before they are built."""

    def __init__(self, names: list[str], where: Where, what: str, text: str, hint: str):
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}
        self.one = (0,) * len(names)
        self.where, self.what, self.text, self.hint = where, what, text, hint

    def fail(self, node, message):
        """An error at the node's column, naming the whole string."""
        raise self.where.error(f"{message} in the {self.what} {self.text!r}", node.col, self.hint)

    def refuse(self, node):
        self.fail(node, "this is not a polynomial")

    def constant(self, c: Fraction) -> dict:
        """A constant polynomial (the zero polynomial has no terms)."""
        return {self.one: c} if c else {}

    def fold_name(self, node) -> dict:
        """A parameter as a monomial; an unknown name with the closest known one as a hint."""
        if node.value not in self.index:
            close = did_you_mean(node.value, self.names)
            self.fail(node, f"unknown name '{node.value}' ({close or 'declare it in parameters = { ... }'})")
        m = [0] * len(self.names)
        m[self.index[node.value]] = 1
        return {tuple(m): Fraction(1)}

    def signed(self, op: str, a: dict) -> dict:
        return {m: -c for m, c in a.items()} if op == "-" else a

    def logical_not(self, node):
        self.fail(node, "'not' is not arithmetic")

    def ring(self, node, a: dict, b: dict) -> dict:
        """+ - and * (of degree at most MAX_DEGREE)."""
        if node.op == "+":
            return poly_add(a, b)
        if node.op == "-":
            return poly_add(a, poly_scale(b, Fraction(-1)))
        out = poly_mul(a, b)
        if _degree(out) > MAX_DEGREE:
            self.fail(node, f"the degree is more than {MAX_DEGREE}")
        return out

    def divide(self, node, a: dict, b: dict) -> dict:
        """Division by a nonzero number only."""
        one = self.one
        if set(b) - {one} or not b:
            self.fail(node, "divide only by a nonzero number" if not set(b) - {one} else
                      "a division by a parameter is not a polynomial")
        return {m: c / b[one] for m, c in a.items()}

    def power(self, node) -> dict:
        """A nonnegative integer power: of a number at most a bounded size, of a polynomial at
        most degree MAX_DEGREE."""
        one = self.one
        base = self.value(node.args[0])
        e = self.value(node.args[1])
        if set(e) - {one} or (e and e[one].denominator != 1) or (e and e[one] < 0):
            self.fail(node, "a power needs a nonnegative integer exponent")
        k = int(e.get(one, 0))
        if set(base) - {one}:
            if _degree(base) * k > MAX_DEGREE:
                self.fail(node, f"the degree is more than {MAX_DEGREE}")
        elif base:
            c = base[one]
            if k > 1024 or k * (c.numerator.bit_length() + c.denominator.bit_length()) > 100_000:
                self.fail(node, "this power of a number is too large")
            return self.constant(c ** k)
        out = self.constant(Fraction(1))
        for _ in range(k):
            out = poly_mul(out, base)
        return out
