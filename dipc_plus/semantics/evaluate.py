"""Run-time evaluation of deterministic IR expressions, shared by every back end.

The sampler and the DTMC construction both need the value of a Bool/DOM
expression, of the coefficients of a linear form, and of a distribution weight
at a concrete assignment of the finite (Bool/DOM) variables.  Doing it in one
place keeps their semantics identical.

Values: ``bool``; DOM values ``int`` or ``str`` (a symbol); rationals ``int`` or
``Fraction`` (an integral result is returned as ``int``).  Mistakes that only
show at run time (a value outside a domain, a division by zero) raise
`UserError` at the position of the statement being executed (``pos``).
"""
from __future__ import annotations

import operator
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Mapping

from dipc_plus.semantics import ir
from dipc_plus.semantics.values import is_number, plain_number, show_value, values_equal
from dipc_plus.errors import UserError

BUILTINS = ("EQ", "min", "max", "abs", "argmax", "argmin", "count")

# The one operator table of every evaluator (exact values here and in the walks, numpy arrays
# in the sampler): the operator module's functions apply to both.
ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
COMPARISON = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
              "==": operator.eq, "!=": operator.ne}


# --------------------------------------------------------------------------- values




def domain_values(typ: ir.Type) -> tuple:
    """The finite set of values of a Bool or DOM type, in declared order."""
    if isinstance(typ, ir.BoolT):
        return (False, True)
    if isinstance(typ, ir.DomT):
        return typ.values
    raise TypeError(f"{typ} is not a finite type")


def domain_rank(value, typ: ir.Type) -> int:
    """Where a Bool/DOM value sorts in its type: its place among a DOM type's values (past them
    when it is not one, e.g. unassigned), a Boolean as 0 or 1: the order reports list outcomes in."""
    if isinstance(typ, ir.DomT):
        return typ.values.index(value) if value in typ.values else len(typ.values)
    return int(bool(value))


def fit(value, typ: ir.Type, pos: ir.Pos | None, what: str):
    """Check `value` against `typ` and return it in the run-time representation.

    `what` names the value in the message ("the value assigned to out").
    """
    if isinstance(typ, ir.DomT):
        candidate = plain_number(value)
        if not isinstance(candidate, bool) and isinstance(candidate, (int, str)):
            if any(values_equal(candidate, v) for v in typ.values):
                return candidate
        raise UserError.at(pos or ir.NOWHERE, f"{what} is {show_value(value)}, outside the domain {typ}",
                           hint=f"its values are {listing(typ.values)}; guard the assignment with an 'if' "
                                "or widen the declared domain")
    if type(typ) not in _FITS:
        raise TypeError(f"unknown type {typ!r}")
    accepts, convert, expected = _FITS[type(typ)]
    if not accepts(value):
        raise UserError.at(pos or ir.NOWHERE, f"{what} should be {expected}, not {show_value(value)}")
    return convert(value)


# the types other than DOM: which values they take, as what, and the words for what they expect
_FITS = {ir.BoolT: (lambda v: isinstance(v, bool), lambda v: v, "true or false"),
         ir.RatT: (is_number, Fraction, "a number"),
         ir.IntT: (lambda v: is_number(v) and Fraction(v).denominator == 1, int, "an integer"),
         ir.RealT: (lambda v: not isinstance(v, (bool, str)), lambda v: v, "a number")}


def listing(values, limit: int = 12) -> str:
    """At most `limit` values as a message lists them: '1, 2, 3, ...'."""
    shown = [show_value(v) for v in values[:limit]]
    if len(values) > limit:
        shown.append("...")
    return ", ".join(shown)


def read_before_assigned(pos: ir.Pos | None, name: str) -> UserError:
    """The one error of every evaluator for a variable read on a path where it has no value yet."""
    return UserError.at(pos, f"'{name}' is read before it is assigned",
                        hint="assign it on every path that reaches this statement")


# --------------------------------------------------------------------------- expressions


def eval_expr(expr: ir.Expr, env: Mapping[str, object], program: ir.Program, pos: ir.Pos | None = None):
    """The value of a deterministic expression under `env` (variable -> value).

    A `Lin` is evaluated with the values `env` gives its variables (numbers of
    any kind that mixes with Fraction, e.g. floats in the sampler).
    """
    return _Eval(env, program, pos or ir.NOWHERE).run(expr)


class _Eval:
    __slots__ = ("env", "program", "pos")

    def __init__(self, env, program, pos):
        self.env = env
        self.program = program
        self.pos = pos

    def fail(self, message: str, hint: str | None = None):
        raise UserError.at(self.pos, message, hint)

    def run(self, expr):
        kind = type(expr)
        if kind is ir.Const:
            return expr.value
        if kind is ir.Var:
            try:
                return self.env[expr.name]
            except KeyError:
                raise read_before_assigned(self.pos, expr.name) from None
        if kind is ir.Binary:
            return self.binary(expr)
        if kind is ir.Unary:
            return self.unary(expr)
        if kind is ir.Call:
            return self.call(expr)
        if kind is ir.Cond:
            test = self.run(expr.cond)
            if not isinstance(test, bool):
                self.fail(f"the condition of an 'if' expression is {show_value(test)}, not true or false")
            return self.run(expr.then if test else expr.other)
        if kind is ir.Lin:
            coefs, const = lin_value_parts(expr, self.env, self.program, self.pos)
            total = const
            for name, coef in coefs.items():
                if name not in self.env:
                    raise read_before_assigned(self.pos, name)
                total = total + coef * self.env[name]
            return plain_number(total)
        if kind in (ir.Rate, ir.Eps, ir.ExpOf):
            self.fail("'rate', 'eps' and 'exp' can only be used in distribution weights")
        raise TypeError(f"not an expression: {expr!r}")

    def number(self, value, op: str):
        if not is_number(value):
            self.fail(f"'{op}' needs numbers, not {show_value(value)}")
        return value

    def unary(self, expr: ir.Unary):
        value = self.run(expr.arg)
        if expr.op == "not":
            if not isinstance(value, bool):
                self.fail(f"'not' needs true or false, not {show_value(value)}")
            return not value
        if expr.op == "-":
            return -self.number(value, "-")
        if expr.op == "abs":
            return abs(self.number(value, "abs"))
        raise TypeError(f"unknown unary operator {expr.op!r}")

    def binary(self, expr: ir.Binary):
        op = expr.op
        if op in ("and", "or"):
            left = self.run(expr.left)
            if not isinstance(left, bool):
                self.fail(f"'{op}' needs true or false, not {show_value(left)}")
            if (op == "and" and not left) or (op == "or" and left):
                return left
            right = self.run(expr.right)
            if not isinstance(right, bool):
                self.fail(f"'{op}' needs true or false, not {show_value(right)}")
            return right
        left = self.run(expr.left)
        right = self.run(expr.right)
        if op == "==":
            return values_equal(left, right)
        if op == "!=":
            return not values_equal(left, right)
        a = self.number(left, op)
        b = self.number(right, op)
        if op in COMPARISON:
            return COMPARISON[op](a, b)
        if op == "/":
            if b == 0:
                self.fail("division by zero", hint="guard the division with an 'if', or change the function")
            a = Fraction(a)
        if op in ARITHMETIC:
            return plain_number(ARITHMETIC[op](a, b))
        raise TypeError(f"unknown binary operator {op!r}")

    def call(self, expr: ir.Call):
        args = [self.run(a) for a in expr.args]
        fn = expr.fn
        if fn in self.program.functions:
            return call_function(self.program.functions[fn], args, self.program, self.pos)
        if fn == "EQ":
            if len(args) != 2:
                self.fail(f"EQ takes 2 arguments, not {len(args)}")
            return values_equal(args[0], args[1])
        if fn == "count":
            for a in args:
                if not isinstance(a, bool):
                    self.fail(f"count needs true or false arguments, not {show_value(a)}")
            return sum(1 for a in args if a)
        if not args:
            self.fail(f"{fn} needs at least one argument")
        if fn not in _NUMERIC_CALLS:
            self.fail(f"unknown function '{fn}'")
        nums = [self.number(a, fn) for a in args]
        if fn == "abs" and len(nums) != 1:
            self.fail(f"abs takes 1 argument, not {len(nums)}")
        return _NUMERIC_CALLS[fn](nums)


# the built-ins of numbers; argmax/argmin give the 1-based place of the first best value
_NUMERIC_CALLS = {"min": min, "max": max, "abs": lambda nums: abs(nums[0]),
                  "argmax": lambda nums: 1 + max(range(len(nums)), key=nums.__getitem__),
                  "argmin": lambda nums: 1 + min(range(len(nums)), key=nums.__getitem__)}


def eval_condition(expr: ir.Expr, env: Mapping[str, object], program: ir.Program, pos: ir.Pos,
                   what: str = "the condition") -> bool:
    """The truth of the condition of an `if` or `while`: a value that is not a Boolean is a UserError."""
    value = eval_expr(expr, env, program, pos)
    if not isinstance(value, bool):
        raise UserError.at(pos, f"{what} is {show_value(value)}, not true or false")
    return value


def call_function(function: ir.Function, args: list, program: ir.Program, pos: ir.Pos):
    """Apply a user function to values: arguments and result are checked against its types."""
    local = bind_params(function.params, args, pos, function.name)
    result = _Eval(local, program, pos).run(function.body)
    return fit(result, function.result, pos, f"the result of {function.name}")


def eval_assign(stmt: ir.Assign, env: Mapping[str, object], program: ir.Program):
    """The value a deterministic Bool/DOM/Real/Int assignment stores, checked against the target's type."""
    typ = program.variables[stmt.target]
    value = eval_expr(stmt.expr, env, program, stmt.pos)
    return fit(value, typ, stmt.pos, f"the value assigned to '{stmt.target}'")


# --------------------------------------------------------------------------- linear forms


def lin_value_parts(lin: ir.Lin, env: Mapping[str, object], program: ir.Program,
                    pos: ir.Pos | None = None) -> tuple[dict[str, Fraction], Fraction]:
    """Coefficient of each variable (zeros dropped, repeats summed) and the constant, at `env`.

    Only the coefficient and constant expressions are evaluated (they are
    deterministic); the Real/Int variables themselves are not read.  For an
    integer form every coefficient and the constant must be integers.
    """
    where = pos or ir.NOWHERE
    coefs: dict[str, Fraction] = {}
    ev = _Eval(env, program, where)
    for coef_expr, var in lin.terms:
        value = ev.run(coef_expr)
        if not is_number(value):
            raise UserError.at(where, f"the coefficient of '{var}' is {show_value(value)}, not a number")
        coefs[var] = coefs.get(var, Fraction(0)) + Fraction(value)
    const = ev.run(lin.const)
    if not is_number(const):
        raise UserError.at(where, f"the constant of a linear expression is {show_value(const)}, not a number")
    const = Fraction(const)
    if lin.kind == "int":
        for var, c in coefs.items():
            if c.denominator != 1:
                raise UserError.at(where, f"integer expression: the coefficient of '{var}' is {c}, not an integer")
        if const.denominator != 1:
            raise UserError.at(where, f"integer expression: its constant is {const}, not an integer",
                               hint="integer samples and expressions only take integer constants")
    return {v: c for v, c in coefs.items() if c != 0}, const


# --------------------------------------------------------------------------- distribution weights


@lru_cache(maxsize=4096)
def uses_eps(expr: ir.Expr) -> bool:
    """Whether a weight expression mentions rate, eps or exp (otherwise it is a plain rational)."""
    return isinstance(expr, (ir.Rate, ir.Eps, ir.ExpOf)) or any(uses_eps(c) for c in ir.children(expr))


def eval_weight(expr: ir.Expr, env: Mapping[str, object], program: ir.Program, rate, eps,
                exp: Callable, num: Callable | None = None, pos: ir.Pos | None = None):
    """A distribution weight with `rate`, `eps` and `exp` supplied by the caller.

    The same walker serves exact and floating evaluation: pass `eps` (and
    `rate`, the call's a*eps, or None when the call gives no rate) as objects
    supporting + - * / with each other and with the results of `num`, and
    `exp` as their exponential.  `num` converts the rational constants
    (default: keep them as Fraction).  `env` binds the distribution's parameters.
    """
    convert = num or (lambda q: q)
    where = pos or ir.NOWHERE

    def walk(e):
        if not uses_eps(e):
            value = eval_expr(e, env, program, where)
            if not is_number(value):
                raise UserError.at(where, f"a weight is {show_value(value)}, not a number")
            return convert(Fraction(value))
        kind = type(e)
        if kind is ir.Rate:
            if rate is None:
                raise UserError.at(where, "this distribution's weights use 'rate', but the call gives no rate",
                                   hint="call it as choose(a*eps, D(...))")
            return rate
        if kind is ir.Eps:
            return eps
        if kind is ir.ExpOf:
            return exp(walk(e.arg))
        if kind is ir.Unary and e.op == "-":
            return -walk(e.arg)
        if kind is ir.Binary and e.op in ARITHMETIC:
            return ARITHMETIC[e.op](walk(e.left), walk(e.right))
        if kind is ir.Cond:
            test = eval_expr(e.cond, env, program, where)
            if not isinstance(test, bool):
                raise UserError.at(where, f"the condition of an 'if' in a weight is {show_value(test)}, not true or false")
            return walk(e.then if test else e.other)
        raise UserError.at(where, "a weight may only combine numbers, rate, eps and exp(...) with + - * /")

    return walk(expr)


def bind_params(params: tuple, args: list, program_pos: ir.Pos, owner: str) -> dict:
    """Bind a user function's or distribution's parameters to argument values, checking types."""
    if len(args) != len(params):
        raise UserError.at(program_pos, f"{owner} takes {len(params)} argument(s), not {len(args)}")
    return {name: fit(value, typ, program_pos, f"argument '{name}' of {owner}")
            for (name, typ), value in zip(params, args)}


def choose_weights(dist: ir.Choose, env: Mapping[str, object], program: ir.Program, eps, exp: Callable,
                   num: Callable | None = None, pos: ir.Pos | None = None) -> list[tuple[object, object]]:
    """(outcome, unnormalised weight) of a `choose` call at `env`, equal outcomes added up (in the
    order of first appearance): the probabilities' numerators, from `choose_rows`."""
    return add_equal_outcomes(choose_rows(dist, env, program, eps, exp, num, pos))


def choose_rows(dist: ir.Choose, env: Mapping[str, object], program: ir.Program, eps, exp: Callable,
                num: Callable | None = None, pos: ir.Pos | None = None) -> list[tuple[object, object]]:
    """(outcome, weight) of each outcome row of the distribution, in its order, before equal
    outcomes are added up: every written weight must be >= 0 on its own (`weight_check`).

    The rate passed to the weights is ``num(dist.rate) * eps`` (None without a rate).
    Outcomes are checked against the distribution's declared range.
    """
    where = pos or ir.NOWHERE
    definition = program.distributions[dist.dist]
    convert = num or (lambda q: q)
    args = [eval_expr(a, env, program, where) for a in dist.args]
    local = bind_params(definition.params, args, where, f"distribution '{definition.name}'")
    rate = None if dist.rate is None else convert(Fraction(dist.rate)) * eps
    rows = []
    for value_expr, weight_expr in definition.outcomes:
        value = fit(eval_expr(value_expr, local, program, where), definition.over, where,
                    f"an outcome of distribution '{definition.name}'")
        rows.append((value, eval_weight(weight_expr, local, program, rate, eps, exp, num, where)))
    return rows


def add_equal_outcomes(rows) -> list[tuple[object, object]]:
    """(outcome, weight) rows with equal outcomes added up, in the order of first appearance."""
    totals: list[list] = []
    for value, weight in rows:
        for entry in totals:
            if values_equal(entry[0], value):
                entry[1] = entry[1] + weight
                break
        else:
            totals.append([value, weight])
    return [(v, w) for v, w in totals]


def expmech_scores(dist: ir.ExpMech, candidates, env: Mapping[str, object], program: ir.Program,
                   pos: ir.Pos | None = None) -> list[tuple[object, Fraction]]:
    """(candidate, score) for the exponential mechanism: score = F(args..., candidate)."""
    where = pos or ir.NOWHERE
    function = program.functions[dist.fn]
    args = [eval_expr(a, env, program, where) for a in dist.args]
    result = []
    for v in candidates:
        score = call_function(function, args + [v], program, where)
        if not is_number(score):
            raise UserError.at(where, f"the score function '{dist.fn}' returned {show_value(score)}, not a number")
        result.append((v, Fraction(score)))
    return result
