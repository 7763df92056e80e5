"""The pointwise density-ratio bound: a prover of box privacy for programs whose inputs reach the
outputs only through the means of shift-bounded noises (docs/claims.md, "The density-ratio bound").

Why: the coupling bound covers the online class only; a Laplace histogram, partial sums or smart
sum are outside it, yet their loss follows from one line of calculus.  A run is a vector of draws
x; its density at input u is the product of the draws' densities f_i(x_i - mean_i), each mean an
affine form a_i.u + b_i.x + c_i.  Outputs are functions of the draws (and of choices whose
distribution the inputs do not touch), so for every set S of outputs P_u[S] <= e^(L) P_u'[S] with
L = eps * max over paths of sum_i r_i |a_i.(u - u')| when each noise pays e^(r eps |s|) for a
shift s (Laplace and discrete Laplace at rate r; a noise whose support moves, such as the
one-sided exponential, pays no finite price and is refused when its mean reads an input).
Comparisons that read inputs and no draw split the box into cells: the bound is proved for pairs
inside one cell only.  The preconditions are checked statement by statement on `ir.Program` (a
whitelist naming the refused line); all arithmetic is exact.  It proves, it never refutes.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.exact.convert import fmt_q
from dipc_plus.exact.noises.registry import by_kind
from dipc_plus.privacy.display import eps_multiple
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import eval_expr

MAX_PATHS = 4096          # paths of the program walked (each If with an undecided condition forks)
MAX_SIGN_VECTORS = 1 << 16   # linf: sign vectors enumerated; past it the row-sum upper bound
BOUNDED = ("linf", "l1", "one-position")


class Refused(Exception):
    """A precondition that does not hold, with the statement's position."""

    def __init__(self, message: str, pos: ir.Pos | None = None):
        super().__init__(message)
        self.message, self.pos = message, pos

    def text(self) -> str:
        return self.message + (f" (line {self.pos.line})" if self.pos is not None and self.pos.line else "")


def shift_cost(kind: str, rate: Fraction) -> Fraction | None:
    """The r with f(x - s) <= e^(r eps |s|) f(x) for the noise `kind` at rate `rate`*eps, read from
    the registry's engine reading: a two-sided (discrete) Laplace noise pays its rate; a noise read
    on one side only (its support moves with the mean) pays no finite price (None)."""
    reading = by_kind(kind).reading(rate)
    if reading.positive_only or reading.noise.kind not in ("lap", "dlap"):
        return None
    return reading.noise.rate


@dataclass(frozen=True)
class Form:
    """An affine form in the inputs u and the draws x: u and x map names to coefficients (None: a
    coefficient not known statically, for draws only); const is None when not a known rational."""
    u: tuple = ()       # sorted (input, Fraction) pairs, no zeros
    x: tuple = ()       # sorted (draw id, Fraction | None) pairs, no zeros
    const: Fraction | None = Fraction(0)

    def reads_draws(self) -> bool:
        return bool(self.x)

    def scaled(self, k: Fraction | None) -> "Form":
        if k is None:
            return Form((), tuple((d, None) for d, _ in self.x), None)
        if k == 0:
            return Form()
        return Form(tuple((n, k * c) for n, c in self.u), tuple((d, None if c is None else k * c) for d, c in self.x),
                    None if self.const is None else k * self.const)

    def plus(self, other: "Form") -> "Form":
        return Form(_add(self.u, other.u), _add(self.x, other.x),
                    None if self.const is None or other.const is None else self.const + other.const)


def _add(a: tuple, b: tuple) -> tuple:
    out = dict(a)
    for k, c in b:
        old = out.get(k, Fraction(0))
        out[k] = None if old is None or c is None else old + c
    return tuple(sorted((k, c) for k, c in out.items() if c is None or c != 0))


@dataclass
class _Path:
    forms: dict                    # real/int variable -> (Form, position of its last assignment)
    known: dict                    # discrete variable -> its value, where it is a constant
    draws: list = field(default_factory=list)    # (cost r, a: dict input -> coefficient)
    serial: int = 0
    one_sided: list = field(default_factory=list)   # (rate r, a) of one-sided noises (walks that allow them)

    def fork(self) -> "_Path":
        return _Path(dict(self.forms), dict(self.known), list(self.draws), self.serial, list(self.one_sided))


@dataclass
class DensityRatio:
    """What the bound says for one claim: applies (k <= budget on every in-cell pair), k, the cells."""
    applies: bool
    reason: str = ""
    k: Fraction | None = None            # the loss bound, a multiple of eps
    paths: int = 0
    draws: int = 0                       # draws whose mean reads an input (on the widest path)
    cells: list = field(default_factory=list)   # positions of the input-only comparisons splitting the box
    how: str = ""                        # how the max over the adjacency set was taken

    @property
    def method(self) -> str:
        return f"density-ratio bound: loss <= {eps_multiple(self.k)}" if self.k is not None else "density-ratio bound"

    def to_json(self) -> dict:
        return {"applies": self.applies, "reason": self.reason, "k": None if self.k is None else fmt_q(self.k),
                "paths": self.paths, "cells_split_by_lines": [p.line for p in self.cells], "how": self.how}


# --------------------------------------------------------------------------- the whitelist walk


class _Walk:
    def __init__(self, program: ir.Program, box: dict, one_sided: bool = False, lenient: bool = False):
        self.program, self.box, self.one_sided, self.lenient = program, box, one_sided, lenient
        self.paths = 0
        self.cells: dict = {}          # position -> None: input-only comparisons not constant on the box
        self.splits: list = []         # the forms f of those comparisons (f op 0), for the cell search

    def run(self) -> list[_Path]:
        forms = {n: (Form(u=((n, Fraction(1)),)), None) for n, t in self.program.inputs
                 if isinstance(t, (ir.RealT, ir.IntT))}
        ends: list[_Path] = []
        for p in self.block(self.program.body, [_Path(forms, {})], ends):
            ends.append(p)
        return ends

    def block(self, stmts: tuple, paths: list, ends: list) -> list:
        for s in stmts:
            nxt = []
            for p in paths:
                nxt += self.stmt(s, p, ends)
            if len(nxt) + len(ends) > MAX_PATHS:
                raise Refused(f"more than {MAX_PATHS} paths through the program", s.pos)
            paths = nxt
        return paths

    def stmt(self, s, p: _Path, ends: list) -> list:
        if isinstance(s, ir.Assign):
            self.assign(s, p)
        elif isinstance(s, ir.Sample):
            self.sample(s, p)
        elif isinstance(s, ir.Compare):
            self.compare(s, p)
        elif isinstance(s, ir.If):
            return self.branch(s, p, ends)
        elif isinstance(s, ir.Exit):
            ends.append(p)
            return []
        elif isinstance(s, ir.While):
            raise Refused("a while loop: the bound takes straight-line programs and for loops (unrolled)", s.pos)
        else:
            raise Refused(f"a statement the bound does not know ({type(s).__name__})", getattr(s, "pos", None))
        return [p]

    def is_number_var(self, name: str) -> bool:
        return isinstance(self.program.variables.get(name), (ir.RealT, ir.IntT))

    def value(self, expr, p: _Path, pos):
        """The constant value of a discrete expression on this path, or None."""
        self.no_numbers(expr, pos)
        try:
            return eval_expr(expr, p.known, self.program, pos)
        except (UserError, KeyError, TypeError, ValueError, ZeroDivisionError):
            return None

    def no_numbers(self, expr, pos) -> None:
        """A discrete expression must not read a real or integer variable (only comparisons may)."""
        if isinstance(expr, ir.Lin) and expr.terms:
            raise Refused("a real or integer variable read outside a linear form, a noise mean or a comparison", pos)
        if isinstance(expr, ir.Var) and self.is_number_var(expr.name):
            raise Refused(f"'{expr.name}' read outside a linear form, a noise mean or a comparison", pos)
        for child in _children(expr):
            self.no_numbers(child, pos)

    def form(self, lin: ir.Lin, p: _Path, pos) -> Form:
        out = Form(const=_number(self.value(lin.const, p, pos)))
        for coef, var in lin.terms:
            k = _number(self.value(coef, p, pos))
            f = p.forms.get(var, (Form(const=None), None))[0]
            if k is None and f.u:
                raise Refused(f"the coefficient of '{var}' is not a constant and '{var}' reads an input", pos)
            out = out.plus(f.scaled(k))
        return out

    def assign(self, s: ir.Assign, p: _Path) -> None:
        if self.is_number_var(s.target):
            lin = s.expr if isinstance(s.expr, ir.Lin) else ir.Lin("real", (), s.expr)
            p.forms[s.target] = (self.form(lin, p, s.pos), s.pos)
            return
        v = self.value(s.expr, p, s.pos)
        if v is None:
            p.known.pop(s.target, None)
        else:
            p.known[s.target] = v

    def sample(self, s: ir.Sample, p: _Path) -> None:
        d = s.dist
        if isinstance(d, ir.NoiseSample):
            mean = self.form(d.mean, p, s.pos)
            if mean.u:
                cost = shift_cost(d.kind, d.rate)
                reading = by_kind(d.kind).reading(d.rate)
                if cost is None and self.one_sided and reading.positive_only and reading.noise.kind == "lap":
                    p.one_sided.append((reading.noise.rate, dict(mean.u)))
                elif cost is None and self.lenient:
                    pass
                elif cost is None:
                    raise Refused(f"the mean of a {by_kind(d.kind).title} noise reads the input(s) "
                                  f"{_names(mean.u)}: its support moves with the mean, so its density ratio "
                                  "under a shift is not bounded", s.pos)
                elif d.kind != "lap" and any(c.denominator != 1 for _, c in mean.u):
                    raise Refused("an integer noise's mean moves by a non-integer multiple of an input", s.pos)
                else:
                    p.draws.append((cost, dict(mean.u)))
            p.serial += 1
            p.forms[s.target] = (Form(x=((p.serial, Fraction(1)),)), s.pos)
            return
        for a in d.args:          # ExpMech / Choose: a distribution the inputs must not touch
            self.no_numbers(a, s.pos)
        p.known.pop(s.target, None)

    def compare(self, s: ir.Compare, p: _Path) -> None:
        diff = self.form(s.lhs, p, s.pos).plus(self.form(s.rhs, p, s.pos).scaled(Fraction(-1)))
        p.known.pop(s.target, None)
        if diff.u and diff.reads_draws() and self.lenient:
            return
        if diff.u and diff.reads_draws():
            raise Refused(f"a comparison reads the input(s) {_names(diff.u)} beside draws: inputs may reach "
                          "the outputs only through noise means", s.pos)
        if diff.u and not _constant_on_box(diff, s.op, self.box):
            self.cells[s.pos] = None
            self.splits.append(diff)

    def branch(self, s: ir.If, p: _Path, ends: list) -> list:
        c = self.value(s.cond, p, s.pos)
        if isinstance(c, bool):
            return self.block(s.then if c else s.other, [p], ends)
        return self.block(s.then, [p.fork()], ends) + self.block(s.other, [p], ends)

    def check_outputs(self, p: _Path) -> None:
        for name, typ in self.program.outputs:
            if isinstance(typ, (ir.RealT, ir.IntT)):
                f, pos = p.forms.get(name, (Form(), None))
                if f.u:
                    raise Refused(f"the output '{name}' reads the input(s) {_names(f.u)} directly, not through "
                                  "a noise mean", pos)


def _children(expr) -> list:
    if isinstance(expr, ir.Unary):
        return [expr.arg]
    if isinstance(expr, ir.Binary):
        return [expr.left, expr.right]
    if isinstance(expr, ir.Cond):
        return [expr.cond, expr.then, expr.other]
    if isinstance(expr, ir.Call):
        return list(expr.args)
    if isinstance(expr, ir.ExpOf):
        return [expr.arg]
    if isinstance(expr, ir.Lin):
        return [expr.const] + [c for c, _ in expr.terms]
    return []


def _number(v) -> Fraction | None:
    if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
        return None
    return Fraction(v)


def _names(u: tuple) -> str:
    return ", ".join(n for n, _ in u)


def _constant_on_box(f: Form, op: str, box: dict) -> bool:
    """Whether `f op 0` has one truth value on the whole box (then it splits nothing)."""
    if f.const is None:
        return False
    lo = f.const + sum(c * (box[n][0] if c > 0 else box[n][1]) for n, c in f.u)
    hi = f.const + sum(c * (box[n][1] if c > 0 else box[n][0]) for n, c in f.u)
    truth = {"<": (hi < 0, lo >= 0), "<=": (hi <= 0, lo > 0), ">": (lo > 0, hi <= 0), ">=": (lo >= 0, hi < 0),
             "==": (lo == hi == 0, lo > 0 or hi < 0), "!=": (lo > 0 or hi < 0, lo == hi == 0)}[op]
    return any(truth)


# --------------------------------------------------------------------------- the bound


def path_costs(program: ir.Program, box: dict) -> tuple[list, list]:
    """(per path, the draws (r, a) whose mean reads an input; positions of the input-only
    comparisons that split the box).  Raises Refused naming the line of a failed precondition."""
    walk = _Walk(program, box)
    ends = walk.run()
    for p in ends:
        walk.check_outputs(p)
    return [p.draws for p in ends], list(walk.cells)


def path_draws(program: ir.Program, box: dict) -> tuple[list, list]:
    """(per path, (two-sided draws (r, a), one-sided draws (r, a)) whose mean reads an input; the
    positions of the input-only comparisons that split `box`): the walk of `path_costs` that also
    admits one-sided noises (support [mean, inf), density r eps e^(-r eps (x - mean))), for provers
    that only move such a mean down (then the density drops by at most e^(r eps |shift|))."""
    walk = _Walk(program, box, one_sided=True)
    ends = walk.run()
    for p in ends:
        walk.check_outputs(p)
    return [(p.draws, p.one_sided) for p in ends], list(walk.cells)


def input_only_comparisons(program: ir.Program, box: dict) -> list[Form]:
    """The forms f of the comparisons `f op 0` that read inputs and no draw and are not constant on
    `box`, on every path (for the refutation's points inside cells).  A lenient walk: comparisons
    beside draws and noises of unbounded shift are passed over, not refused; a program the walk
    cannot read at all gives []."""
    walk = _Walk(program, box, one_sided=True, lenient=True)
    try:
        walk.run()
    except Refused:
        return []
    return walk.splits


def loss_bound(paths: list, inputs: list, kind: str, bound: Fraction) -> tuple[Fraction, str]:
    """(k, how): max over the adjacency set {d: l1 / one-position / linf norm <= bound} of the
    largest path sum of r |a.d|, over eps - attained at a vertex of the set (a convex function)."""
    if kind in ("l1", "one-position"):
        k = max((sum((r * abs(a.get(n, 0)) for r, a in draws), Fraction(0)) for draws in paths for n in inputs),
                default=Fraction(0))
        return bound * k, f"the vertices +-{fmt_q(bound)} e_j of the {kind} ball"
    moved = sorted({n for draws in paths for _, a in draws for n in a})
    if len(moved) <= 1 or 1 << (len(moved) - 1) <= MAX_SIGN_VECTORS:
        best = Fraction(0)
        for signs in itertools.product((1, -1), repeat=max(0, len(moved) - 1)):
            d = dict(zip(moved, (1,) + signs))
            for draws in paths:
                best = max(best, sum((r * abs(sum((c * d[n] for n, c in a.items()), Fraction(0)))
                                      for r, a in draws), Fraction(0)))
        return bound * best, f"the {1 << max(0, len(moved) - 1)} sign vectors of the linf cube (up to sign)"
    k = max((sum((r * sum(abs(c) for c in a.values()) for r, a in draws), Fraction(0)) for draws in paths),
            default=Fraction(0))
    return bound * k, f"the upper bound B * sum r ||a||_1 ({len(moved)} inputs: too many sign vectors)"


def density_ratio_for(claim) -> DensityRatio:
    """The bound for a box DP claim: applies when its preconditions hold, the budget is k*eps with
    delta = 0, the adjacency bounded, the box not split by input-only comparisons, and k <= budget."""
    budget, adj = claim.budget, claim.adjacency
    if budget.factor != 1 or not claim.delta_is_zero:
        return DensityRatio(False, f"the budget {budget} is not k*eps with delta = 0")
    if adj.kind not in BOUNDED:
        return DensityRatio(False, f"the adjacency \"{adj.kind}\" does not bound the change of each input")
    try:
        paths, cells = path_costs(claim.program, claim.box_bounds)
    except Refused as why:
        return DensityRatio(False, f"a precondition fails: {why.text()}")
    inputs = [n for n, _ in claim.program.inputs]
    k, how = loss_bound(paths, inputs, adj.kind, adj.bound)
    res = DensityRatio(False, "", k, len(paths), max((len(d) for d in paths), default=0), cells, how)
    if k > budget.k:
        res.reason = f"the bound {eps_multiple(k)} is above the claimed {budget} (it is only an upper bound)"
    elif cells:
        res.reason = (f"it proves loss <= {eps_multiple(k)} only for pairs inside one cell of the input-only "
                      f"comparison(s) at line(s) {', '.join(str(p.line) for p in cells)}; pairs across cells "
                      "are not covered")
    else:
        res.applies = True
    return res
