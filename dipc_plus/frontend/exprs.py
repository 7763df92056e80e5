"""Typing and lowering of expressions: surface expressions -> IR expressions and linear forms.

An expression is either *deterministic* (`Det`: Bool, DOM or rational valued,
an `ir.Expr`) or *random* (`ir.Lin`: a linear combination of Real or Int
variables with deterministic coefficients, the paper's R and Z).  Everything
the type rules of the language forbid (symbols in arithmetic, integers mixed
with reals, a product of two random values, ...) is reported here at the
offending sub-expression.  A comparison involving a random value inside a
larger expression is hoisted into a fresh Boolean `Compare` statement (see
`Lowerer.pre`), the paper's ``b' <- R ~ R`` followed by a use of ``b'``.

Why one module of a little over 600 lines: one recursive lowering with one case per
operator; splitting the cases across files would hide which type rule applies where.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Union

from dipc_plus.exact import noises
from dipc_plus.semantics import ir
from dipc_plus.frontend import surface as S
from dipc_plus.errors import UserError
from dipc_plus.semantics.evaluate import BUILTINS, listing
from dipc_plus.frontend.fold import arith, const, folded, merge_terms, neg, num_const
from dipc_plus.frontend.scope import Scope, did_you_mean, type_words

BOOL = ir.BoolT()
RAT = ir.RatT()

# Noise people reach for that the exact fragment cannot express, and why (the decision
# procedure works with probabilities of the form sum c*eps^k*e^(q*eps), closed under
# integrating Laplace densities; Gaussian tails give erf terms outside that class).
_GAUSS = ("its probabilities involve the error function erf, outside the exp-polynomials "
          "sum c*eps^k*e^(q*eps) that the decision procedure decides exactly")
OUTSIDE_THE_FRAGMENT = {
    "gauss": _GAUSS, "gaussian": _GAUSS, "normal": _GAUSS, "norm": _GAUSS,
    "dgauss": "the discrete Gaussian's normalising constant is a theta series, outside the "
              "exp-polynomials the decision procedure decides exactly",
}


def distributions_in_words() -> str:
    """The language's distributions, for hints: every registered noise, then Exp and choose."""
    return (", ".join(n.described() for n in noises.all_noises()) + ", Exp(a*eps, F(args)) (exponential "
            "mechanism) and choose(...) over a finite distribution (docs/language.md)")


@dataclass(frozen=True)
class Det:
    """A deterministic value: `typ` is BoolT, DomT (its possible values) or RatT (a number)."""
    expr: ir.Expr
    typ: ir.Type


Value = Union[Det, ir.Lin]  # a random value is the IR's own linear form, built here as it is lowered

# --------------------------------------------------------------------------- type helpers


def is_numeric(typ: ir.Type) -> bool:
    if isinstance(typ, (ir.RatT, ir.IntT)):
        return True
    return isinstance(typ, ir.DomT) and any(_is_int(v) for v in typ.values)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def symbols_of(typ: ir.Type) -> list[str]:
    return [v for v in typ.values if isinstance(v, str)] if isinstance(typ, ir.DomT) else []


def describe(node: S.Expr) -> str:
    if isinstance(node, S.Name):
        return f"'{node.name}'"
    if isinstance(node, S.Num):
        return f"the number {node.value}"
    if isinstance(node, S.BoolLit):
        return "true" if node.value else "false"
    if isinstance(node, S.CallExpr):
        return f"{node.fn}(...)"
    return "this expression"


def value_words(v: Value) -> str:
    if isinstance(v, ir.Lin):
        return "a real value" if v.kind == "real" else "an integer value"
    if isinstance(v.typ, ir.BoolT):
        return "a Boolean"
    if isinstance(v.typ, ir.DomT):
        if isinstance(v.expr, ir.Const) and isinstance(v.expr.value, str):
            return f"the symbol '{v.expr.value}'"
        return f"a value of domain {v.typ}"
    return "a number"


_NEVER_MIX = "integers (DLap samples) and reals (Lap samples, real inputs) never mix"


def common_kind(values, pos: ir.Pos, what: str, hint: str = _NEVER_MIX) -> str:
    """The kind ('real' or 'int') of the random ones of `values`, operands of `what`; refused at
    `pos` when they mix an integer (DLap) and a real (Lap) value."""
    kinds = {v.kind for v in values if isinstance(v, ir.Lin)}
    if len(kinds) > 1:
        raise UserError.at(pos, f"{what} mixes an integer and a real value", hint=hint)
    return kinds.pop()


def not_a_value(node: S.Name, scope: Scope, more_names=()) -> UserError:
    """The error for a name that holds no value: a function's, or an unknown one (with the closest
    known value name, `more_names` included)."""
    name = node.name
    if name in scope.functions or name in scope.distributions or name in BUILTINS:
        return UserError.at(node.pos, f"'{name}' is a function, not a value", hint=f"call it: {name}(...)")
    return UserError.at(node.pos, f"unknown name '{name}'", hint=did_you_mean(name, [*more_names, *scope.value_names()])
                        or "declare variables with input/output/var, parameters with param, symbols in a type")


# --------------------------------------------------------------------------- the lowerer


class Lowerer:
    """Lowers the expressions of one context.

    Program context: names are program variables (flat names) and `pre`
    collects hoisted comparisons.  Function context (`local_types` given):
    names are the function's parameters, no program variable is visible and
    only the functions declared above it (those in the scope so far) may be called.
    """

    def __init__(self, scope: Scope, *, local_types: dict | None = None, owner: str | None = None,
                 pre: list | None = None, fresh: Callable | None = None):
        self.scope = scope
        self.local_types = local_types
        self.owner = owner
        self.pre = pre
        self.fresh = fresh

    # ------------------------------------------------------------------ entry points

    def det(self, e: S.Expr, what: str = "this expression") -> Det:
        """A deterministic expression, or an error saying why `e` is random."""
        v = self.value(e)
        if isinstance(v, ir.Lin):
            raise UserError.at(e.pos, f"{what} must be a Boolean, DOM or rational value, but it is {value_words(v)}",
                               hint="real and integer values only appear in linear expressions, comparisons "
                                    "and as means of Lap/DLap")
        return v

    def boolean(self, e: S.Expr, what: str = "a condition") -> ir.Expr:
        v = self.det(e, what)
        if not isinstance(v.typ, ir.BoolT):
            raise UserError.at(e.pos, f"{what} must be true or false, but {describe(e)} is {value_words(v)}",
                               hint="compare it, e.g. 'x == 1' or 'r >= t'")
        return v.expr

    def linear(self, e: S.Expr, kind: str, what: str) -> ir.Lin:
        """A real (or int) linear expression; deterministic numbers become constant forms."""
        return self.as_lin(self.value(e), kind, e, what)

    def comparison(self, e: S.CmpOp) -> Det | tuple[ir.Lin, str, ir.Lin]:
        """A comparison: a Boolean `Det`, or ``(lhs, op, rhs)`` when it involves a Real/Int value
        (its caller hoists it, or assigns it as the paper's ``b <- R ~ R``)."""
        a, b = self.value(e.left), self.value(e.right)
        if isinstance(a, Det) and isinstance(b, Det):
            return Det(self.det_compare(e, a, b), BOOL)
        kind = common_kind((a, b), e.pos, "this comparison",
                           _NEVER_MIX + "; compare reals with reals and integers with integers")
        lhs = self.as_lin(a, kind, e.left, "the left side of the comparison")
        rhs = self.as_lin(b, kind, e.right, "the right side of the comparison")
        return lhs, e.op, rhs

    # ------------------------------------------------------------------ dispatch

    def value(self, e: S.Expr) -> Value:
        method = getattr(self, "_" + type(e).__name__)
        return method(e)

    def _Num(self, e: S.Num) -> Value:
        return Det(const(e.value), RAT)

    def _BoolLit(self, e: S.BoolLit) -> Value:
        return Det(ir.Const(e.value), BOOL)

    def _EpsLit(self, e) -> Value:
        raise UserError.at(e.pos, "'eps' can only be used in a rate or a distribution weight",
                           hint=f"the first argument of {', '.join(noises.surface_names())}, Exp and choose is the rate, "
                                "e.g. Lap(eps/2, q)")

    def _RateLit(self, e) -> Value:
        raise UserError.at(e.pos, "'rate' can only be used in the weights of a distribution",
                           hint="inside 'distribution D(...) over T { outcome: weight; ... }'")

    def _ExpCall(self, e) -> Value:
        raise UserError.at(e.pos, "exp(...) can only be used in the weights of a distribution",
                           hint="the exponential mechanism is written x <- Exp(a*eps, F(args))")

    def _SampleExpr(self, e: S.SampleExpr) -> Value:
        raise UserError.at(e.pos, f"{e.kind}(...) can only be the whole right-hand side of an assignment",
                           hint=f"sample into a variable first: 'x <- {e.kind}(...)', then use x")

    def _Index(self, e: S.Index) -> Value:
        """Only a function or distribution meets an index here: the program's are flattened by unrolling."""
        raise UserError.at(e.pos, f"'{e.name}[...]': {self._context()} has no arrays",
                           hint="pass the element as an argument")

    def _context(self) -> str:
        """The body as messages name it: the body of function 'f' (the owner gives its kind and quoted name)."""
        return f"the body of {self.owner or 'this function'}"

    def _Name(self, e: S.Name) -> Value:
        name = e.name
        scope = self.scope
        if self.local_types is not None:
            if name in self.local_types:
                typ = self.local_types[name]
                return Det(ir.Var(name), RAT if isinstance(typ, (ir.RatT, ir.IntT)) else typ)
        elif name in scope.variables:
            typ = scope.variables[name]
            if isinstance(typ, (ir.RealT, ir.IntT)):
                return ir.Lin("real" if isinstance(typ, ir.RealT) else "int", ((const(1), name),), const(0))
            return Det(ir.Var(name), typ)
        if name in scope.params:
            return Det(const(scope.params[name]), RAT)
        if name in scope.symbols:
            return Det(ir.Const(name), ir.DomT((name,)))
        if self.local_types is not None and (name in scope.variables or name in scope.arrays):
            raise UserError.at(e.pos, f"'{name}' is a program variable; {self._context()} only sees its own "
                               "parameters", hint=f"add a parameter for it and pass {name} as an argument")
        if name in scope.arrays:
            size = len(scope.arrays[name])
            raise UserError.at(e.pos, f"'{name}' is an array; use one element, {name}[1] .. {name}[{size}]",
                               hint="only min, max, argmax, argmin and count take a whole array")
        raise not_a_value(e, scope, self.local_types or ())

    # ------------------------------------------------------------------ operators

    def _UnOp(self, e: S.UnOp) -> Value:
        if e.op == "not":
            return Det(folded(ir.Unary("not", self.truth(e.arg, "'not'", e.pos))), BOOL)
        v = self.value(e.arg)
        if isinstance(v, ir.Lin):
            return _mapped(v, neg)
        self.need_number(v, e.arg, "'-'")
        return Det(neg(v.expr), RAT)

    def truth(self, e: S.Expr, op: str, pos: ir.Pos, hint: str | None = None) -> ir.Expr:
        """An operand of a Boolean operator `op`, which must be true or false (refused at `pos`)."""
        v = self.value(e)
        if not (isinstance(v, Det) and isinstance(v.typ, ir.BoolT)):
            raise UserError.at(pos, f"{op} needs true or false, but {describe(e)} is {value_words(v)}", hint=hint)
        return v.expr

    def need_number(self, v: Det, node: S.Expr, op: str):
        if isinstance(v.typ, ir.BoolT):
            raise UserError.at(node.pos, f"{op} needs numbers, but {describe(node)} is a Boolean",
                               hint="use 'and', 'or', 'not' for Booleans, or count(...) to count true ones")
        if isinstance(v.typ, ir.DomT):
            syms = symbols_of(v.typ)
            if syms:
                if len(v.typ.values) == 1:
                    raise UserError.at(node.pos, f"{op} needs numbers, but '{syms[0]}' is a symbol",
                                       hint="symbols can only be compared with == and !=")
                raise UserError.at(node.pos, f"{op} needs numbers, but {describe(node)} may hold the symbol "
                                   f"'{syms[0]}' (domain {v.typ})",
                                   hint="symbols can only be compared with == and !=; test for them first "
                                        "or use a numeric domain")

    def _BinOp(self, e: S.BinOp) -> Value:
        if e.op in ("and", "or"):
            parts = [self.truth(side, f"'{e.op}'", side.pos, hint="compare it first, e.g. 'x == 1'")
                     for side in (e.left, e.right)]
            return Det(folded(ir.Binary(e.op, *parts)), BOOL)
        a, b = self.value(e.left), self.value(e.right)
        for v, side in ((a, e.left), (b, e.right)):
            if isinstance(v, Det):
                self.need_number(v, side, f"'{e.op}'")
        if isinstance(a, Det) and isinstance(b, Det):
            return Det(arith(e.op, a.expr, b.expr, e.pos), RAT)
        return self.linear_op(e, a, b)

    def linear_op(self, e: S.BinOp, a: Value, b: Value) -> ir.Lin:
        kind = common_kind((a, b), e.pos, f"'{e.op}'")
        if e.op in ("+", "-"):
            la, lb = self.as_lin(a, kind, e.left, "this sum"), self.as_lin(b, kind, e.right, "this sum")
            right = lb.terms if e.op == "+" else tuple((neg(c), x) for c, x in lb.terms)
            return ir.Lin(kind, merge_terms(la.terms + right, e.pos), arith(e.op, la.const, lb.const, e.pos))
        if e.op == "*":
            if isinstance(a, ir.Lin) and isinstance(b, ir.Lin):
                raise UserError.at(e.pos, "the product of two random values is not linear",
                                   hint="real and integer expressions are linear: multiply a variable only by "
                                        "a number, a parameter or a DOM value")
            lin, factor = (a, b.expr) if isinstance(a, ir.Lin) else (b, a.expr)
            if lin.kind == "int":
                self.check_integral(factor, e, "an integer expression's coefficients")
            return _mapped(lin, lambda c: arith("*", factor, c, e.pos))
        # '/'
        if isinstance(b, ir.Lin):
            raise UserError.at(e.right.pos, "cannot divide by a random value",
                               hint="real and integer expressions are linear: divide only by a number or a parameter")
        if a.kind == "int":
            raise UserError.at(e.pos, "an integer expression cannot be divided",
                               hint="integer expressions have integer coefficients; use a real (Lap) value instead")
        return _mapped(a, lambda c: arith("/", c, b.expr, e.pos))

    def check_integral(self, expr: ir.Expr, node: S.Expr, what: str):
        value = num_const(expr)
        if value is not None and Fraction(value).denominator != 1:
            raise UserError.at(node.pos, f"{what} must be integers, not {value}",
                               hint="integers (DLap samples) take integer coefficients and constants")

    def as_lin(self, v: Value, kind: str, node: S.Expr, what: str) -> ir.Lin:
        if isinstance(v, ir.Lin):
            if v.kind != kind:
                raise UserError.at(node.pos, f"{what} mixes an integer and a real value", hint=_NEVER_MIX)
            return v
        self.need_number(v, node, what)
        if kind == "int":
            self.check_integral(v.expr, node, "integer expressions and their constants")
        return ir.Lin(kind, (), v.expr)

    # ------------------------------------------------------------------ comparisons

    def _CmpOp(self, e: S.CmpOp) -> Value:
        compared = self.comparison(e)
        if isinstance(compared, Det):
            return compared
        if self.pre is None:
            raise UserError.at(e.pos, "a comparison of random values cannot appear here",
                               hint="compare in the program body: 'b <- r >= t'")
        name = self.fresh()
        self.pre.append(ir.Compare(name, *compared, e.pos))
        return Det(ir.Var(name), BOOL)

    def det_compare(self, e: S.CmpOp, a: Det, b: Det) -> ir.Expr:
        op = e.op
        if op in ("==", "!="):
            self.check_comparable(e, a, b)
        else:
            for v, side in ((a, e.left), (b, e.right)):
                if isinstance(v.typ, ir.BoolT):
                    raise UserError.at(side.pos, f"'{op}' orders numbers, but {describe(side)} is a Boolean",
                                       hint="compare Booleans with == or !=")
                self.need_number(v, side, f"'{op}'")
        return folded(ir.Binary(op, a.expr, b.expr))

    def check_comparable(self, e: S.CmpOp, a: Det, b: Det):
        if isinstance(a.typ, ir.BoolT) != isinstance(b.typ, ir.BoolT):
            raise UserError.at(e.pos, f"'{e.op}' compares {value_words(a)} with {value_words(b)}",
                               hint="a Boolean can only be compared with a Boolean")
        for v, w, side, other in ((a, b, e.left, e.right), (b, a, e.right, e.left)):
            if isinstance(v.expr, ir.Const) and isinstance(v.expr.value, str) and isinstance(w.typ, ir.DomT) \
                    and len(w.typ.values) > 1 and v.expr.value not in w.typ.values:
                raise UserError.at(side.pos, f"{describe(other)} can never be '{v.expr.value}': its domain is {w.typ}",
                                   hint=did_you_mean(v.expr.value, [str(x) for x in w.typ.values])
                                   or f"its values are {', '.join(map(str, w.typ.values))}")
            if symbols_of(v.typ) and not is_numeric(v.typ) and isinstance(w.typ, ir.RatT):
                raise UserError.at(e.pos, f"'{e.op}' compares a symbol with a number",
                                   hint=f"{describe(side)} has domain {v.typ}, which holds no numbers")

    # ------------------------------------------------------------------ other forms

    def _CondExpr(self, e: S.CondExpr) -> Value:
        cond = self.boolean(e.cond, "the condition of 'if ... then ... else'")
        a, b = self.value(e.then), self.value(e.other)
        if isinstance(a, ir.Lin) or isinstance(b, ir.Lin):
            raise UserError.at(e.pos, "an 'if ... then ... else' expression cannot choose between random values",
                               hint="use an if statement that assigns the variable in each branch")
        if isinstance(a.typ, ir.BoolT) != isinstance(b.typ, ir.BoolT):
            raise UserError.at(e.pos, f"the branches give {value_words(a)} and {value_words(b)}",
                               hint="both branches must be Booleans, or both values")
        if isinstance(cond, ir.Const):
            return a if cond.value else b
        return Det(ir.Cond(cond, a.expr, b.expr), _join(a, b))

    def _CallExpr(self, e: S.CallExpr) -> Value:
        fn = e.fn
        scope = self.scope
        if fn in scope.distributions:
            raise UserError.at(e.pos, f"'{fn}' is a distribution; sample from it",
                               hint=f"write x <- choose({fn}(...)) (or choose(a*eps, {fn}(...)) when it uses rate)")
        if fn in scope.functions or fn in scope.declared_functions:
            if self.owner == f"function '{fn}'":
                raise UserError.at(e.pos, f"function '{fn}' calls itself; functions cannot be recursive",
                                   hint="write the function without recursion (domains are finite: use if/else)")
            if fn not in scope.functions:
                raise UserError.at(e.pos, f"'{fn}' is declared after {self.owner or 'this function'}; "
                                   "a function can only call functions declared above it",
                                   hint="move the declaration up (functions cannot be recursive)")
            f = scope.functions[fn]
            typ = RAT if isinstance(f.result, (ir.RatT, ir.IntT)) else f.result
            return Det(ir.Call(fn, self.call_args(e, f.params, fn)), typ)
        if fn in BUILTINS:
            return self.builtin_call(e)
        if fn.lower() in OUTSIDE_THE_FRAGMENT:
            raise UserError.at(e.pos, f"'{fn}' noise is not part of DiPWhile+: {OUTSIDE_THE_FRAGMENT[fn.lower()]}",
                               hint=f"the distributions are {distributions_in_words()}")
        candidates = list(scope.functions) + list(BUILTINS) + list(noises.surface_names())
        raise UserError.at(e.pos, f"unknown function '{fn}'",
                           hint=did_you_mean(fn, candidates) or
                           f"the built-in functions are {', '.join(BUILTINS)}; declare others with 'function'; "
                           f"the noises are {', '.join(noises.surface_names())}, sampled as x <- Lap(a*eps, mean)")

    def call_args(self, call: S.CallExpr, params: tuple, owner: str) -> tuple:
        """The arguments of a call of a function, score function or distribution `owner`, each
        deterministic and fitting its parameter's type."""
        if len(call.args) != len(params):
            raise UserError.at(call.pos, f"{owner} takes {len(params)} argument(s), {len(call.args)} given",
                               hint=f"{owner}({', '.join(n + ': ' + str(t) for n, t in params)})")
        args = []
        for k, (arg, (pname, ptype)) in enumerate(zip(call.args, params), 1):
            v = self.det(arg, f"argument {k} of {owner}")
            self.check_fits(v, ptype, arg, f"argument {k} of {owner} ('{pname}')")
            args.append(v.expr)
        return tuple(args)

    def expand_args(self, e: S.CallExpr) -> list[tuple[S.Expr, Value]]:
        """Arguments of a built-in; an array name stands for all its elements."""
        in_program = self.local_types is None
        nodes = [node for arg in e.args for node in (self.scope.elements(arg) if in_program else [arg])]
        return [(node, self.value(node)) for node in nodes]

    def builtin_call(self, e: S.CallExpr, args: list | None = None) -> Det:
        """A built-in call; `args` are the lowered arguments if the caller has them already."""
        fn = e.fn
        args = self.expand_args(e) if args is None else args
        if not args:
            raise UserError.at(e.pos, f"{fn}() needs at least one argument")
        for node, v in args:
            if isinstance(v, ir.Lin):
                if fn in ("argmax", "argmin"):
                    raise UserError.at(e.pos, f"{fn} of random values can only be assigned directly",
                                       hint=f"write 'out <- {fn}(noisy)' as a statement of its own")
                raise UserError.at(node.pos, f"{fn} needs deterministic values, but {describe(node)} is "
                                   f"{value_words(v)}",
                                   hint="compare random values with <, >=, ... instead")
        exprs = tuple(v.expr for _, v in args)
        if fn == "EQ":
            if len(args) != 2:
                raise UserError.at(e.pos, f"EQ takes 2 arguments, {len(args)} given")
            (n1, a), (n2, b) = args
            self.check_comparable(S.CmpOp("==", n1, n2, e.pos), a, b)
            return Det(ir.Call("EQ", exprs), BOOL)
        if fn == "count":
            for node, v in args:
                if not isinstance(v.typ, ir.BoolT):
                    raise UserError.at(node.pos, f"count counts true arguments, but {describe(node)} is "
                                       f"{value_words(v)}")
            return Det(ir.Call("count", exprs), ir.DomT(tuple(range(len(args) + 1))))
        for node, v in args:
            self.need_number(v, node, fn)
        if fn == "abs":
            if len(args) != 1:
                raise UserError.at(e.pos, f"abs takes 1 argument, {len(args)} given")
            return Det(ir.Unary("abs", exprs[0]), RAT)
        if fn in ("argmax", "argmin"):
            return Det(ir.Call(fn, exprs), ir.DomT(tuple(range(1, len(args) + 1))))
        return Det(ir.Call(fn, exprs), RAT)

    # ------------------------------------------------------------------ assignments

    def check_fits(self, v: Det, target: ir.Type, node: S.Expr, what: str):
        """Static part of storing `v` into a `target`-typed place (run time checks the rest)."""
        if isinstance(target, ir.BoolT):
            if not isinstance(v.typ, ir.BoolT):
                raise UserError.at(node.pos, f"{what} must be true or false, but {describe(node)} is {value_words(v)}")
            return
        if isinstance(v.typ, ir.BoolT):
            raise UserError.at(node.pos, f"{what} is {type_words(target)}, but {describe(node)} is a Boolean",
                               hint="Booleans and DOM values are different types")
        if isinstance(target, ir.DomT):
            c = v.expr.value if isinstance(v.expr, ir.Const) else None
            if c is not None:
                ok = (isinstance(c, str) and c in target.values) or \
                     (not isinstance(c, str) and Fraction(c).denominator == 1 and int(c) in target.values)
                if not ok:
                    raise UserError.at(node.pos, f"{c} is outside the domain {target} of {what}",
                                       hint=f"its values are {listing(target.values)}")
            elif isinstance(v.typ, ir.DomT) and not set(v.typ.values) & set(target.values):
                raise UserError.at(node.pos, f"{describe(node)} (domain {v.typ}) can never be a value of "
                                   f"{what} (domain {target})", hint="the two domains share no value")
            elif isinstance(v.typ, ir.RatT) and not any(_is_int(x) for x in target.values):
                raise UserError.at(node.pos, f"{what} has domain {target}, which holds no numbers, but "
                                   f"{describe(node)} is a number")
            return
        if isinstance(target, (ir.RatT, ir.IntT, ir.RealT)):
            self.need_number(v, node, what)
            if isinstance(target, ir.IntT):
                self.check_integral(v.expr, node, what)
            return
        raise TypeError(target)

    # ------------------------------------------------------------------ distribution weights

    def weight(self, e: S.Expr) -> ir.Expr:
        """A distribution weight: numbers, rate, eps, exp(linear in rate/eps), + - * /."""
        expr = self.weight_part(e)
        value = num_const(expr)
        if value is not None and value < 0:
            raise UserError.at(e.pos, f"a weight must not be negative, but this one is {value}")
        return expr

    def weight_part(self, e: S.Expr) -> ir.Expr:
        if not _mentions_eps(e):
            v = self.det(e, "a weight")
            if isinstance(v.typ, ir.BoolT):
                raise UserError.at(e.pos, "a weight must be a number, not a Boolean")
            self.need_number(v, e, "a weight")
            return v.expr
        if isinstance(e, S.RateLit):
            return ir.Rate()
        if isinstance(e, S.EpsLit):
            return ir.Eps()
        if isinstance(e, S.ExpCall):
            _check_exponent(e.arg, self)
            return ir.ExpOf(self.weight_part(e.arg))
        if isinstance(e, S.UnOp) and e.op == "-":
            return ir.Unary("-", self.weight_part(e.arg))
        if isinstance(e, S.BinOp) and e.op in ("+", "-", "*", "/"):
            return ir.Binary(e.op, self.weight_part(e.left), self.weight_part(e.right))
        if isinstance(e, S.CondExpr):
            cond = self.boolean(e.cond, "the condition of 'if ... then ... else'")
            return ir.Cond(cond, self.weight_part(e.then), self.weight_part(e.other))
        raise UserError.at(e.pos, "a weight may only combine numbers, parameters, rate, eps and exp(...) "
                           "with + - * / and 'if ... then ... else'")


def _join(a: Det, b: Det) -> ir.Type:
    """The type of 'if c then a else b': a domain holding both sides' values when known."""
    if isinstance(a.typ, ir.BoolT):
        return BOOL

    def values(v: Det):
        if isinstance(v.typ, ir.DomT):
            return v.typ.values
        c = num_const(v.expr)
        if c is not None and Fraction(c).denominator == 1:
            return (int(c),)
        return None

    va, vb = values(a), values(b)
    if va is None or vb is None:
        return RAT
    return ir.DomT(tuple(dict.fromkeys(va + vb)))


def _mapped(lin: ir.Lin, f) -> ir.Lin:
    """`lin` with `f` applied to each coefficient and to the constant (a scaling or a negation)."""
    return ir.Lin(lin.kind, merge_terms(tuple((f(c), x) for c, x in lin.terms)), f(lin.const))


def _mentions_eps(e: S.Expr) -> bool:
    """Whether `e` uses eps, rate or exp (an index is not looked into: it is refused as an index)."""
    return isinstance(e, (S.EpsLit, S.RateLit, S.ExpCall)) or \
        (not isinstance(e, S.Index) and any(_mentions_eps(c) for c in S.parts(e)))


def _check_exponent(e: S.Expr, lowerer: Lowerer) -> None:
    """exp(...) must hold c1*rate + c2*eps with deterministic c1, c2 and no constant term."""
    hint = "write exp(c*rate) or exp(c*eps) with c a number, parameter or argument, e.g. exp(-2*rate)"

    def walk(x) -> str:  # 'const' | 'lin'
        if not _mentions_eps(x):
            return "const"
        if isinstance(x, (S.RateLit, S.EpsLit)):
            return "lin"
        if isinstance(x, S.UnOp) and x.op == "-":
            return walk(x.arg)
        if isinstance(x, S.BinOp):
            a, b = walk(x.left), walk(x.right)
            if x.op in ("+", "-"):
                if a != b:
                    raise UserError.at(x.pos, "the argument of exp has a constant term", hint=hint +
                                       "; a constant factor e^c is not allowed (move rational factors outside exp)")
                return a
            if x.op == "*":
                if a == "lin" and b == "lin":
                    raise UserError.at(x.pos, "the argument of exp must be linear in rate and eps", hint=hint)
                return "lin"
            if x.op == "/":
                if b == "lin":
                    raise UserError.at(x.pos, "the argument of exp cannot divide by rate or eps", hint=hint)
                return a
        if isinstance(x, S.ExpCall):
            raise UserError.at(x.pos, "exp(...) cannot be nested", hint=hint)
        raise UserError.at(x.pos, "the argument of exp must be linear in rate and eps", hint=hint)

    if walk(e) != "lin":
        raise UserError.at(e.pos, "exp(...) of a constant is not allowed: its argument must use rate or eps",
                           hint=hint)
