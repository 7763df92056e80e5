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
Its answer's shape (`ProvedBound`) and its refusal of claim shapes are the worst neighbour's too.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.exact.convert import fmt_q
from dipc_plus.exact.linear import LinForm, holds
from dipc_plus.exact.noises.registry import by_kind
from dipc_plus.privacy.display import eps_multiple
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import eval_expr
from dipc_plus.semantics.instructions import reads
from dipc_plus.semantics.walk import Domain, PathState, Walk
from dipc_plus.semantics.weight_check import check_choose_arguments

MAX_PATHS = 4096          # paths of the program walked (each If with an undecided condition forks)
MAX_SIGN_VECTORS = 1 << 16   # linf: sign vectors enumerated; past it the row-sum upper bound

# the adjacencies whose pairs all have |q[i] - q'[i]| <= bound at every position (each ball lies
# inside the linf ball of its bound): what the bounds on a loss per unit moved need
BOUNDED = ("linf", "l1", "one-position")


@dataclass
class ProvedBound:
    """A method's answer: applies (k <= the budget), why not, and k (a multiple of eps)."""
    applies: bool
    reason: str = ""
    k: Fraction | None = None

    title = ""      # the method in words, as the verdict names it
    name = ""       # the bound, as an undecided verdict's reasons name it

    @property
    def method(self) -> str:
        return self.title + ("" if self.k is None else f": loss <= {eps_multiple(self.k)}")

    def json_head(self) -> dict:
        return {"applies": self.applies, "reason": self.reason, "k": None if self.k is None else fmt_q(self.k)}


def shape_refusal(claim) -> str | None:
    """Why a bound on the loss per unit moved cannot prove the claim (a budget other than k*eps
    with delta = 0, an adjacency that does not bound each input's change), or None."""
    budget, adj = claim.budget, claim.adjacency
    if budget.factor != 1 or not claim.delta_is_zero:
        return f"the budget {budget} is not k*eps with delta = 0"
    if adj.kind not in BOUNDED:
        return f"the adjacency \"{adj.kind}\" does not bound the change of each input"
    return None


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
    """An affine form in the inputs u and the draws x: one `LinForm` over the keys ("u", input) and
    ("x", draw id), beside what the walk does not know: the draws whose coefficient is not a
    constant (they never cancel) and whether the constant is a known rational.

    u + 2 x_1 minus 2 x_1 reads no draw; a draw scaled by an unknown coefficient never cancels:

    >>> u, x = Form(LinForm.symbol(("u", "q"))), Form(LinForm.symbol(("x", 1)))
    >>> f = u.plus(x.scaled(Fraction(2))).plus(x.scaled(Fraction(-2)))
    >>> f.u, f.const, f.reads_draws(), x.scaled(None).plus(x.scaled(Fraction(-1))).reads_draws()
    ((('q', Fraction(1, 1)),), Fraction(0, 1), False, True)
    """
    known: LinForm = LinForm.constant(0)
    unknown: frozenset = frozenset()    # draw ids whose coefficient is not known statically
    const_known: bool = True

    @property
    def u(self) -> tuple:
        """Sorted (input, Fraction) pairs, no zeros."""
        return tuple((n, c) for (side, n), c in self.known.coeffs if side == "u")

    @property
    def const(self) -> Fraction | None:
        return self.known.const if self.const_known else None

    def reads_draws(self) -> bool:
        return bool(self.unknown) or any(side == "x" for (side, _), _ in self.known.coeffs)

    def scaled(self, k: Fraction | None) -> "Form":
        if k is None:
            return Form(unknown=self.unknown | {d for (side, d), _ in self.known.coeffs if side == "x"},
                        const_known=False)
        return Form() if k == 0 else Form(self.known.scale(k), self.unknown, self.const_known)

    def plus(self, other: "Form") -> "Form":
        return Form(self.known + other.known, self.unknown | other.unknown, self.const_known and other.const_known)


@dataclass(frozen=True)
class _Draws:
    """A path's draws: (cost r, a: input -> coefficient) of those whose mean reads an input, how
    many there were, and (rate r, a) of one-sided noises (walks that allow them)."""
    moved: tuple = ()
    serial: int = 0
    one_sided: tuple = ()


@dataclass
class DensityRatio(ProvedBound):
    """What the bound says for one claim: applies (k <= budget on every in-cell pair), k, the cells."""
    paths: int = 0
    cells: list = field(default_factory=list)   # positions of the input-only comparisons splitting the box
    how: str = ""                        # how the max over the adjacency set was taken

    title = name = "density-ratio bound"

    def to_json(self) -> dict:
        return {**self.json_head(), "paths": self.paths, "cells_split_by_lines": [p.line for p in self.cells],
                "how": self.how}


# --------------------------------------------------------------------------- the whitelist walk


class _Whitelist(Domain):
    """The domain of the one walk (semantics/walk.py) for the bound: a path's `env` holds the
    discrete values known on it, its `reals` (Form, position of the last assignment) per real or
    integer variable, its facts the `_Draws`; an `if` it cannot decide runs both branches."""

    def __init__(self, program: ir.Program, box: dict, one_sided: bool = False, lenient: bool = False):
        self.program, self.box, self.one_sided, self.lenient = program, box, one_sided, lenient
        self.cells: dict = {}          # position -> None: input-only comparisons not constant on the box
        self.splits: list = []         # the forms f of those comparisons (f op 0), for the cell search
        self.checked_draws: set = set()   # choose calls whose weights are checked (weight_check)

    def run(self) -> list[PathState]:
        forms = {n: (Form(LinForm.symbol(("u", n))), None) for n, t in self.program.inputs
                 if isinstance(t, (ir.RealT, ir.IntT))}
        normal, exited = Walk(self.program, self, MAX_PATHS).block(self.program.body, [PathState({}, forms, _Draws())])
        return exited + normal

    def enter_loop(self, s: ir.While) -> None:
        raise Refused("a while loop: the bound takes straight-line programs and for loops (unrolled)", s.pos)

    def too_many(self, limit: int, pos=None) -> Exception:
        return Refused(f"more than {limit} paths through the program", pos)

    def is_number_var(self, name: str) -> bool:
        return isinstance(self.program.variables.get(name), (ir.RealT, ir.IntT))

    def value(self, expr, p: PathState, pos):
        """The constant value of a discrete expression on this path, or None."""
        self.no_numbers(expr, pos)
        try:
            return eval_expr(expr, p.env, self.program, pos)
        except (UserError, KeyError, TypeError, ValueError, ZeroDivisionError):
            return None

    def no_numbers(self, expr, pos) -> None:
        """A discrete expression must not read a real or integer variable (only comparisons may)."""
        if any(self.is_number_var(n) for n in reads(expr)):
            plain = sorted(n for n in reads(expr, terms=False) if self.is_number_var(n))
            raise Refused(f"'{plain[0]}' read outside a linear form, a noise mean or a comparison" if plain else
                          "a real or integer variable read outside a linear form, a noise mean or a comparison", pos)

    def form(self, lin: ir.Lin, p: PathState, pos) -> Form:
        k = _number(self.value(lin.const, p, pos))
        out = Form(const_known=False) if k is None else Form(LinForm.constant(k))
        for coef, var in lin.terms:
            k = _number(self.value(coef, p, pos))
            f = p.reals.get(var, (Form(const_known=False), None))[0]
            if k is None and f.u:
                raise Refused(f"the coefficient of '{var}' is not a constant and '{var}' reads an input", pos)
            out = out.plus(f.scaled(k))
        return out

    def assign(self, walk: Walk, s: ir.Assign, p: PathState) -> None:
        if self.is_number_var(s.target):
            lin = s.expr if isinstance(s.expr, ir.Lin) else ir.Lin("real", (), s.expr)
            p.reals[s.target] = (self.form(lin, p, s.pos), s.pos)
            return
        v = self.value(s.expr, p, s.pos)
        if v is None:
            p.env.pop(s.target, None)
        else:
            p.env[s.target] = v

    def sample(self, walk: Walk, s: ir.Sample, p: PathState) -> None:
        d = s.dist
        if isinstance(d, ir.NoiseSample):
            mean = self.form(d.mean, p, s.pos)
            if mean.u:
                self.moved(s, d, mean, p)
            p.facts = replace(p.facts, serial=p.facts.serial + 1)
            p.reals[s.target] = (Form(LinForm.symbol(("x", p.facts.serial))), s.pos)
            return
        for a in d.args:          # ExpMech / Choose: a distribution the inputs must not touch
            self.no_numbers(a, s.pos)
        if isinstance(d, ir.Choose):   # the bound never evaluates the draw, so its weights are checked here
            check_choose_arguments(d, p.env, self.program, s.pos, self.checked_draws)
        p.env.pop(s.target, None)

    def moved(self, s: ir.Sample, d: ir.NoiseSample, mean: Form, p: PathState) -> None:
        """Record (or refuse) a noise whose mean reads an input."""
        cost = shift_cost(d.kind, d.rate)
        reading = by_kind(d.kind).reading(d.rate)
        if cost is None and self.one_sided and reading.positive_only and reading.noise.kind == "lap":
            p.facts = replace(p.facts, one_sided=p.facts.one_sided + ((reading.noise.rate, dict(mean.u)),))
        elif cost is None and self.lenient:
            pass
        elif cost is None:
            raise Refused(f"the mean of a {by_kind(d.kind).title} noise reads the input(s) "
                          f"{_names(mean.u)}: its support moves with the mean, so its density ratio "
                          "under a shift is not bounded", s.pos)
        elif d.kind != "lap" and any(c.denominator != 1 for _, c in mean.u):
            raise Refused("an integer noise's mean moves by a non-integer multiple of an input", s.pos)
        else:
            p.facts = replace(p.facts, moved=p.facts.moved + ((cost, dict(mean.u)),))

    def compare(self, walk: Walk, s: ir.Compare, p: PathState) -> list:
        diff = self.form(s.lhs, p, s.pos).plus(self.form(s.rhs, p, s.pos).scaled(Fraction(-1)))
        p.env.pop(s.target, None)
        if diff.u and diff.reads_draws() and self.lenient:
            return [p]
        if diff.u and diff.reads_draws():
            raise Refused(f"a comparison reads the input(s) {_names(diff.u)} beside draws: inputs may reach "
                          "the outputs only through noise means", s.pos)
        if diff.u and not _constant_on_box(diff, s.op, self.box):
            self.cells[s.pos] = None
            self.splits.append(diff)
        return [p]

    def condition(self, walk: Walk, s: ir.If, p: PathState) -> bool | None:
        c = self.value(s.cond, p, s.pos)
        return c if isinstance(c, bool) else None

    def check_outputs(self, p: PathState) -> None:
        for name, typ in self.program.outputs:
            if isinstance(typ, (ir.RealT, ir.IntT)):
                f, pos = p.reals.get(name, (Form(), None))
                if f.u:
                    raise Refused(f"the output '{name}' reads the input(s) {_names(f.u)} directly, not through "
                                  "a noise mean", pos)


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
    if op in ("==", "!="):
        return lo == hi or lo > 0 or hi < 0
    return holds(lo, op) == holds(hi, op)     # f spans [lo, hi] and `op` is monotone in it


# --------------------------------------------------------------------------- the bound


def path_draws(program: ir.Program, box: dict, one_sided: bool = False) -> tuple[list, list]:
    """(per path, the draws (r, a) whose mean reads an input; the positions of the input-only
    comparisons that split `box`).  Raises Refused naming the line of a failed precondition.
    `one_sided`: the walk also admits one-sided noises (support [mean, inf), density
    r eps e^(-r eps (x - mean))) and gives per path (two-sided draws, one-sided draws (r, a)), for
    provers that only move such a mean down (then the density drops by at most e^(r eps |shift|))."""
    walk = _Whitelist(program, box, one_sided=one_sided)
    ends = walk.run()
    for p in ends:
        walk.check_outputs(p)
    draws = [(list(p.facts.moved), list(p.facts.one_sided)) if one_sided else list(p.facts.moved) for p in ends]
    return draws, list(walk.cells)


def input_only_comparisons(program: ir.Program, box: dict) -> list[Form]:
    """The forms f of the comparisons `f op 0` that read inputs and no draw and are not constant on
    `box`, on every path (for the refutation's points inside cells).  A lenient walk: comparisons
    beside draws and noises of unbounded shift are passed over, not refused; a program the walk
    cannot read at all gives []."""
    walk = _Whitelist(program, box, one_sided=True, lenient=True)
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
    why_not = shape_refusal(claim)
    if why_not is not None:
        return DensityRatio(False, why_not)
    try:
        paths, cells = path_draws(claim.program, claim.box_bounds)
    except Refused as why:
        return DensityRatio(False, f"a precondition fails: {why.text()}")
    inputs = [n for n, _ in claim.program.inputs]
    k, how = loss_bound(paths, inputs, adj.kind, adj.bound)
    res = DensityRatio(False, "", k, len(paths), cells, how)
    if k > budget.k:
        res.reason = f"the bound {eps_multiple(k)} is above the claimed {budget} (it is only an upper bound)"
    elif cells:
        res.reason = (f"it proves loss <= {eps_multiple(k)} only for pairs inside one cell of the input-only "
                      f"comparison(s) at line(s) {', '.join(str(p.line) for p in cells)}; pairs across cells "
                      "are not covered")
    else:
        res.applies = True
    return res
