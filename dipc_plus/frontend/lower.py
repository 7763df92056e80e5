"""Lower a checked module to the core IR (`ir.Program`), removing all sugar.

The pipeline: declarations -> `Scope` (declare), `for` unrolling and array
flattening (unroll), inference of undeclared locals (infer), statements -> IR
(here), flow checks (checks).  Sugar handled here:

* a comparison of random values inside a condition or a larger Boolean
  expression becomes ``_bK <- lhs ~ rhs`` (a fresh Boolean `Compare`) before
  the statement; for `while` it is evaluated again at the end of the body;
* ``elif`` becomes a nested `If`;
* ``x <- argmax(a)`` / ``argmin(a)`` over real or integer values becomes a
  scan with comparisons against the current best (strict, so ties go to the
  smallest index).

Fresh Booleans are reused once the statement that needed them is done, so a
program needs only as many as are alive at once.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from dipc_plus.exact import noises
from dipc_plus.semantics import ir
from dipc_plus.semantics.argmax import scan as argmax_scan
from dipc_plus.frontend import surface as S
from dipc_plus.frontend.checks import check_flow
from dipc_plus.frontend.consteval import rate_multiple
from dipc_plus.frontend.declare import declare
from dipc_plus.errors import UserError
from dipc_plus.frontend.exprs import Det, Lowerer, is_numeric, common_kind, symbols_of
from dipc_plus.frontend.infer import infer_locals
from dipc_plus.frontend.scope import Scope, did_you_mean, type_words
from dipc_plus.frontend.unroll import flatten


def lower_module(module: S.Module, params: dict | None = None) -> ir.Program:
    """The whole front end after parsing: a checked, desugared `ir.Program`."""
    scope = declare(module, params)
    statements = flatten(module, scope)
    infer_locals(statements, scope)
    body = _Statements(scope).block(statements)
    check_flow(statements, scope)
    _check_depth(body, scope)
    return ir.Program(
        name=Path(module.file).stem,
        source=module.file,
        params=dict(scope.params),
        inputs=tuple(scope.inputs),
        outputs=tuple(scope.outputs),
        arrays=dict(scope.arrays),
        variables=dict(scope.variables),
        functions=dict(scope.functions),
        distributions=dict(scope.distributions),
        body=tuple(body),
        types=dict(scope.types),
    )


class _Statements:
    def __init__(self, scope: Scope):
        self.scope = scope
        self.in_use: set[str] = set()
        self.taken = set().union(scope.variables, scope.arrays, scope.params, scope.symbols, scope.functions,
                                 scope.distributions)

    # ------------------------------------------------------------------ fresh Booleans

    def fresh(self) -> str:
        """The first ``_bK`` that is neither a user's name nor alive right now."""
        k = 1
        while f"_b{k}" in self.in_use or f"_b{k}" in self.taken:
            k += 1
        name = f"_b{k}"
        self.in_use.add(name)
        self.scope.variables[name] = ir.BoolT()
        return name

    def lowerer(self, pre: list) -> Lowerer:
        return Lowerer(self.scope, pre=pre, fresh=self.fresh)

    def release(self, pre: list):
        for stmt in pre:
            self.in_use.discard(stmt.target)

    # ------------------------------------------------------------------ statements

    def block(self, statements) -> list:
        out = []
        for stmt in statements:
            out.extend(self.stmt(stmt))
        return out

    def stmt(self, s) -> list:
        if isinstance(s, S.Assign):
            return self.assign(s)
        if isinstance(s, S.If):
            return self.if_chain(list(s.branches), s.other, s.pos)
        if isinstance(s, S.While):
            pre: list = []
            cond = self.lowerer(pre).boolean(s.cond, "the condition of 'while'")
            body = self.block(s.body) + list(pre)
            self.release(pre)
            return pre + [ir.While(cond, tuple(body), s.pos)]
        if isinstance(s, S.Exit):
            return [ir.Exit(s.pos)]
        raise TypeError(s)

    def if_chain(self, branches: list, other, pos: ir.Pos) -> list:
        cond_node, body = branches[0]
        pre: list = []
        cond = self.lowerer(pre).boolean(cond_node, "the condition of 'if'")
        self.release(pre)  # the If reads them once, on entry
        then = self.block(body)
        if len(branches) > 1:
            other_stmts = self.if_chain(branches[1:], other, branches[1][0].pos)
        else:
            other_stmts = self.block(other) if other else []
        return pre + [ir.If(cond, tuple(then), tuple(other_stmts), pos)]

    # ------------------------------------------------------------------ assignments

    def assign(self, s: S.Assign) -> list:
        """The statements of an assignment, after the comparisons its right-hand side hoists."""
        pre: list = []
        stmts = self.assignment(s.target.name, self.scope.variables[s.target.name], s.value, s.pos,
                                self.lowerer(pre))
        self.release(pre)
        return pre + stmts

    def assignment(self, target: str, typ: ir.Type, value, pos: ir.Pos, lw: Lowerer) -> list:
        if isinstance(value, S.SampleExpr):
            return [ir.Sample(target, self.sample(target, typ, value, pos, lw), pos)]
        if isinstance(value, S.CallExpr) and value.fn in ("argmax", "argmin"):   # built-ins: no function has their names
            args = lw.expand_args(value)
            if any(isinstance(v, ir.Lin) for _, v in args):
                return self.argmax(target, typ, value, args, lw, pos)
            v = lw.builtin_call(value, args)
        elif isinstance(typ, (ir.RealT, ir.IntT)):
            kind = "real" if isinstance(typ, ir.RealT) else "int"
            return [ir.Assign(target, lw.linear(value, kind, f"the {kind} variable '{target}'"), pos)]
        elif isinstance(typ, ir.BoolT) and isinstance(value, S.CmpOp):
            compared = lw.comparison(value)   # random: b <- R ~ R, the paper's probabilistic assignment
            return [ir.Assign(target, compared.expr, pos) if isinstance(compared, Det)
                    else ir.Compare(target, *compared, pos)]
        else:
            v = lw.det(value, f"the value assigned to '{target}'")
        lw.check_fits(v, typ, value, f"'{target}'")
        return [ir.Assign(target, v.expr, pos)]

    def sample(self, target: str, typ: ir.Type, e: S.SampleExpr, pos: ir.Pos, lw: Lowerer):
        """What `target <- e` draws: a noise, the exponential mechanism or a finite distribution."""
        kind = e.kind
        args = e.args
        noise = noises.by_surface(kind)
        if noise is None:
            return self.exp_mech(target, typ, e, lw) if kind == "Exp" else self.choose(target, typ, e, lw)
        if len(args) != 2:
            raise UserError.at(e.pos, f"{kind} takes 2 arguments (rate, mean), {len(args)} given",
                               hint=f"e.g. {kind}(eps/2, q[i])")
        lin_kind = noise.value_type
        want = ir.IntT if lin_kind == "int" else ir.RealT
        if not isinstance(typ, want):
            raise UserError.at(pos, f"'{target}' is {type_words(typ)}, but {kind} gives "
                               f"{'an integer' if lin_kind == 'int' else 'a real'} sample",
                               hint=f"sample into a {lin_kind} variable (an undeclared one becomes {lin_kind})")
        rate = self.rate(args[0])
        return ir.NoiseSample(noise.kind, rate, lw.linear(args[1], lin_kind, f"the mean of {kind}"))

    def rate(self, node) -> Fraction:
        """The rate `node` (a multiple of eps) as its rational multiple."""
        return rate_multiple(node, self.scope.params, lambda name: self.scope.not_constant(name, "rate"))

    @staticmethod
    def callee(e: S.SampleExpr, counts: tuple, takes: str, declared: dict, what: str, hint: str):
        """The call that ends `e` (Exp or choose, taking `counts` arguments) and the declared function
        or distribution it names: the two samplers that draw from a declaration read it alike."""
        if len(e.args) not in counts or not isinstance(e.args[-1], S.CallExpr):
            raise UserError.at(e.pos, f"{e.kind} takes {takes}", hint=hint)
        call = e.args[-1]
        if call.fn not in declared:
            raise UserError.at(call.pos, f"unknown {what} '{call.fn}'", hint=did_you_mean(call.fn, declared) or hint)
        return call, declared[call.fn]

    def exp_mech(self, target, typ, e: S.SampleExpr, lw: Lowerer) -> ir.ExpMech:
        hint = "write x <- Exp(a*eps, F(args)) with F a function whose last parameter is the candidate"
        call, f = self.callee(e, (2,), "a rate and a call of a score function", self.scope.functions,
                              "score function", hint)
        if not isinstance(typ, ir.DomT):
            raise UserError.at(e.pos, f"Exp draws a value of a finite domain, but '{target}' is {type_words(typ)}",
                               hint=f"declare it, e.g. 'var {target}: 1..3'")
        if not is_numeric(f.result) or symbols_of(f.result):     # a number, or a domain of numbers only
            raise UserError.at(call.pos, f"the score function '{f.name}' must return a number, not {f.result}",
                               hint="declare it '-> rational'")
        if len(call.args) != len(f.params) - 1:
            raise UserError.at(call.pos, f"{f.name} has {len(f.params)} parameters: give {len(f.params) - 1} "
                               "argument(s); the last parameter is the candidate", hint=hint)
        cand_name, cand_type = f.params[-1]
        for v in typ.values:
            ok = (isinstance(cand_type, ir.DomT) and v in cand_type.values) or \
                 (isinstance(cand_type, (ir.RatT, ir.IntT)) and isinstance(v, int))
            if not ok:
                raise UserError.at(call.pos, f"candidate {v} of '{target}' (domain {typ}) does not fit the last "
                                   f"parameter '{cand_name}' of {f.name} ({cand_type})",
                                   hint="the candidates are all values of the target's domain")
        args = lw.call_args(call, f.params[:-1], f.name)
        return ir.ExpMech(self.rate(e.args[0]), f.name, args)

    def choose(self, target, typ, e: S.SampleExpr, lw: Lowerer) -> ir.Choose:
        hint = "write x <- choose(D(args)) or choose(a*eps, D(args)) with D a declared distribution"
        call, d = self.callee(e, (1, 2), "an optional rate and a call of a distribution", self.scope.distributions,
                              "distribution", hint)
        rate = self.rate(e.args[0]) if len(e.args) == 2 else None
        if rate is None and any(isinstance(node, ir.Rate) for _, w in d.outcomes for node in S.nodes(w)):
            raise UserError.at(e.pos, f"the weights of '{d.name}' use 'rate', but this call gives none",
                               hint=f"give the rate: choose(a*eps, {d.name}(...))")
        if isinstance(d.over, ir.BoolT):
            if not isinstance(typ, ir.BoolT):
                raise UserError.at(e.pos, f"'{d.name}' draws a Boolean, but '{target}' is {type_words(typ)}")
        else:
            if not isinstance(typ, ir.DomT):
                raise UserError.at(e.pos, f"'{d.name}' draws a value of {d.over}, but '{target}' is "
                                   f"{type_words(typ)}")
            missing = [v for v in d.over.values if v not in typ.values]
            if missing:
                raise UserError.at(e.pos, f"'{d.name}' may draw {missing[0]}, outside the domain {typ} of '{target}'",
                                   hint=f"declare '{target}' with a domain that holds {d.over}")
        args = lw.call_args(call, d.params, d.name)
        return ir.Choose(rate, d.name, args)

    # ------------------------------------------------------------------ argmax / argmin sugar

    def argmax(self, target: str, typ: ir.Type, call: S.CallExpr, args: list, lw: Lowerer, pos: ir.Pos) -> list:
        n = len(args)
        if not isinstance(typ, ir.DomT):
            raise UserError.at(pos, f"'{target}' receives an index 1..{n}, so it must have a finite domain, "
                               f"but it is {type_words(typ)}", hint=f"declare it: 'var {target}: 1..{n}'")
        missing = [i for i in range(1, n + 1) if i not in typ.values]
        if missing:
            raise UserError.at(pos, f"{call.fn} gives an index 1..{n}, but {missing[0]} is outside the domain "
                               f"{typ} of '{target}'", hint=f"declare it with domain 1..{n}")
        kind = common_kind([v for _, v in args], call.pos, call.fn)
        lins = [lw.as_lin(v, kind, node, f"argument of {call.fn}") for node, v in args]
        b = self.fresh() if n > 1 else None    # the comparisons' Boolean, from two elements on
        out = argmax_scan(target, lins, ">" if call.fn == "argmax" else "<", b, pos)
        self.in_use.discard(b)
        return out


MAX_DEPTH = 200
# How a too-deep expression is named, by the statement it is in.
_DEPTH_WORDS = {ir.Assign: "this expression", ir.Compare: "this comparison", ir.Sample: "an argument",
                ir.If: "this condition", ir.While: "this condition"}


def _depth(e) -> int:
    return 1 + max((_depth(part) for part in S.parts(e)), default=0)


def _check_depth(body, scope: Scope) -> None:
    """Back ends evaluate expressions recursively: refuse absurdly deep ones here, with a position."""
    def check(e, pos, what):
        if _depth(e) > MAX_DEPTH:
            raise UserError.at(pos, f"{what} is nested more than {MAX_DEPTH} levels deep",
                               hint="split it with intermediate variables or helper functions")

    for s in ir.statements(body):   # a statement's expressions: its parts, a sample's arguments, a condition
        expressions = ((s.cond,) if isinstance(s, (ir.If, ir.While))
                       else S.parts(s.dist if isinstance(s, ir.Sample) else s))
        for e in expressions:
            check(e, s.pos, _DEPTH_WORDS[type(s)])
    for f in scope.functions.values():
        check(f.body, f.pos, f"the body of '{f.name}'")
    for d in scope.distributions.values():
        for value, weight in d.outcomes:
            check(value, d.pos, f"an outcome of '{d.name}'")
            check(weight, d.pos, f"a weight of '{d.name}'")
