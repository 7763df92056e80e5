"""Unroll `for` loops and flatten arrays: the statements of a module become a flat
list over scalar variables (``q[i]`` becomes the variable ``q[2]``).

Loop indices are compile-time constants, replaced by numbers in the body;
every array index must evaluate to a constant within the array's bounds.
Declarations stay at the top level; a ``var x: T = e`` becomes the
assignment ``x <- e`` where it is written.

The work is bounded before it is done: every statement and expression node produced counts
towards the `unrolled` limit, and a loop whose first iteration, times its number of
iterations, would pass the limit is refused at once (loops x body, naming the parameters of
its bounds), so `--set m=99999` or a 999,000-iteration loop is refused in milliseconds.
"""
from __future__ import annotations

from dataclasses import fields, replace
from fractions import Fraction

from dipc_plus.frontend import surface as S
from dipc_plus.frontend.consteval import const_int
from dipc_plus.errors import ResourceLimit, UserError
from dipc_plus.execution import limits
from dipc_plus.frontend.scope import Scope, did_you_mean


def flatten(module: S.Module, scope: Scope) -> tuple:
    unroller = _Unroller(scope)
    unroller.check_size(module.items)
    return unroller.block(module.items, {}, top=True)


class _Unroller:
    def __init__(self, scope: Scope):
        self.scope = scope
        self.count = 0                                   # statement and expression nodes produced
        self.most = limits.get("unrolled")
        self.inputs = {n for n, _ in scope.inputs}       # a set: the target check is O(1), not O(inputs)
        self.not_constant = lambda node: scope.not_constant(node, "index")

    # ------------------------------------------------------------------ statements

    def block(self, items, env: dict, top: bool = False) -> tuple:
        out = []
        for item in items:
            out.extend(self.item(item, env, top))
        return tuple(out)

    def item(self, item, env: dict, top: bool) -> list:
        self.count += 1
        if self.count > self.most:
            raise self.past_limit(item)
        if isinstance(item, S.DECLARATIONS):
            if not top:
                raise UserError.at(item.pos, "declarations belong at the top level, not inside a block",
                                   hint="move the declaration before the if/while/for")
            if isinstance(item, S.VarDecl) and item.init is not None:
                if item.name in self.scope.arrays:
                    raise UserError.at(item.init.pos, f"the array '{item.name}' cannot have an initial value",
                                       hint=f"initialise its elements in a loop: for i = 1 to n do {item.name}[i] <- ... end")
                return [S.Assign(S.Name(item.name, item.pos), self.expr(item.init, env), item.pos)]
            return []
        if isinstance(item, S.Assign):
            return [S.Assign(self.target(item.target, env), self.expr(item.value, env), item.pos)]
        if isinstance(item, S.If):
            branches = tuple((self.expr(c, env), self.block(b, env)) for c, b in item.branches)
            other = None if item.other is None else self.block(item.other, env)
            return [S.If(branches, other, item.pos)]
        if isinstance(item, S.While):
            return [S.While(self.expr(item.cond, env), self.block(item.body, env), item.pos)]
        if isinstance(item, S.Exit):
            return [item]
        if isinstance(item, S.For):
            return self.for_loop(item, env)
        raise TypeError(item)

    def for_loop(self, loop: S.For, env: dict) -> list:
        name = loop.var
        scope = self.scope
        clash = ("a variable" if name in scope.variables or name in scope.arrays else
                 "a parameter" if name in scope.params else
                 "a domain symbol" if name in scope.symbols else
                 "the index of an enclosing loop" if name in env else None)
        if clash:
            raise UserError.at(loop.pos, f"the loop index '{name}' is already {clash}",
                               hint="choose another name for the loop index")
        lo, hi = self.bounds(loop, {**scope.params, **env})
        out = []
        for i in range(lo, hi + 1):
            before = self.count
            out.extend(self.block(loop.body, {**env, name: Fraction(i)}))
            if i == lo and self.count + (hi - lo) * (self.count - before) > self.most:
                self.too_large(loop, hi - lo + 1, self.count - before)
        return out

    def bounds(self, loop: S.For, consts: dict) -> tuple[int, int]:
        return tuple(const_int(b, consts, "a loop bound", explain=self.not_constant) for b in (loop.lo, loop.hi))

    def past_limit(self, item) -> ResourceLimit:
        return ResourceLimit.at(item.pos, f"unrolling the for loops gives more than {self.most} statement and "
                                          "expression parts", hint="use smaller parameters (--set); "
                                                                   + limits.hint("unrolled"))

    def check_size(self, items) -> None:
        """Refuse, before unrolling anything, a program whose unrolled size is surely past the limit:
        a lower bound from its shape (a loop whose bounds use only parameters counts iterations x
        its body; a loop whose bounds use an enclosing index counts 0), so nothing valid is refused."""
        total = 0
        for item in items:
            total += self.lower_bound(item)
            if total > self.most:
                if isinstance(item, S.For):
                    lo, hi = self.bounds(item, self.scope.params)
                    self.too_large(item, hi - lo + 1, sum(self.lower_bound(x) for x in item.body), "at least ")
                raise self.past_limit(item)

    def lower_bound(self, item) -> int:
        """At least the parts `item` contributes once unrolled (see `check_size`)."""
        if isinstance(item, S.EXPRESSIONS):
            return sum(1 for _ in S.nodes(item))     # each node becomes at least one part
        if isinstance(item, S.For):
            try:
                lo, hi = self.bounds(item, self.scope.params)
            except UserError:          # uses an enclosing loop's index (or is wrong: reported later)
                return 1
            body = sum(self.lower_bound(x) for x in item.body)
            return 1 + max(0, hi - lo + 1) * body
        if isinstance(item, S.DECLARATIONS):
            return 1
        inside = (item.value,) if isinstance(item, S.Assign) else S.parts(item)   # the value: a target adds no part
        return 1 + sum(self.lower_bound(x) for x in inside)

    def too_large(self, loop: S.For, iterations: int, body: int, at_least: str = ""):
        """Refuse a loop by its size (iterations x its first iteration) before unrolling the rest."""
        used = sorted(name for name in S.names((loop.lo, loop.hi)) if name in self.scope.params)
        given = ", ".join(f"{n} = {self.scope.params[n]}" for n in used)
        raise ResourceLimit.at(loop.pos, f"this for loop would unroll to {iterations} iterations x {at_least}{body} statement "
                                         f"and expression parts, more than {self.most}"
                                         + (f" (with {limits.clip(given, 60)})" if given else ""),
                               hint="use smaller parameters (--set); " + limits.hint("unrolled"))

    def target(self, t, env: dict):
        scope = self.scope
        if isinstance(t, S.Name):
            if t.name in scope.arrays:
                raise UserError.at(t.pos, f"'{t.name}' is an array; assign its elements, e.g. {t.name}[1] <- ...")
            for what, table in (("a loop index", env), ("a parameter", scope.params),
                                ("a domain symbol", scope.symbols)):
                if t.name in table:
                    raise UserError.at(t.pos, f"cannot assign to '{t.name}': it is {what}",
                                       hint="assign to a variable instead")
        flat = t if isinstance(t, S.Name) else self.element(t, env)
        if flat.name in self.inputs:
            raise UserError.at(t.pos, f"cannot assign to '{flat.name}': it is an input",
                               hint="copy it into a local variable first")
        return flat

    # ------------------------------------------------------------------ expressions

    def element(self, e: S.Index, env: dict) -> S.Name:
        scope = self.scope
        if e.name not in scope.arrays:
            if e.name in scope.variables:
                raise UserError.at(e.pos, f"'{e.name}' is not an array", hint="remove the index")
            raise UserError.at(e.pos, f"unknown array '{e.name}'",
                               hint=did_you_mean(e.name, scope.arrays) or
                               f"declare it, e.g. '{e.name}: real[m]' (or 'var {e.name}: 0..3[m]')")
        elements = scope.arrays[e.name]
        i = const_int(self.expr(e.index, env), {**scope.params, **env}, "an array index", explain=self.not_constant)
        if not 1 <= i <= len(elements):
            raise UserError.at(e.index.pos, f"index {i} is out of range: '{e.name}' has elements 1..{len(elements)}",
                               hint="arrays are numbered from 1")
        return S.Name(elements[i - 1], e.pos)

    def expr(self, e, env: dict):
        self.count += 1
        if isinstance(e, S.Name):
            if e.name in env:
                return S.Num(int(env[e.name]), e.pos)
            return e
        if isinstance(e, S.Index):
            return self.element(e, env)
        if isinstance(e, (S.Num, S.BoolLit, S.EpsLit, S.RateLit)):
            return e
        changes = {}
        for f in fields(e):
            value = getattr(e, f.name)
            if isinstance(value, tuple):
                changes[f.name] = tuple(self.expr(v, env) for v in value)
            elif f.name != "pos" and not isinstance(value, str):
                changes[f.name] = self.expr(value, env)
        return replace(e, **changes)
