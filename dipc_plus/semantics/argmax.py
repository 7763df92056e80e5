"""Recognise programs whose only output is argmax/argmin of independent noise samples.

Such programs (Report Noisy Max and Min) have an exact distribution given by m
one-dimensional integrals (exact/argmax_integral.py), while their comparison
chain grows about threefold per sample.  `recognise` returns an `ArgmaxShape`
only when the lowered program is *exactly* one of two forms, and None otherwise,
so that the ordinary chain runs: a false match would be a wrong distribution,
so nothing is inferred from what a program probably means.

* builtin form: samples ``x_k <- Lap(b_k eps, mean_k)`` (or ExpNoise), each to its
  own real local, then precisely the scan `frontend.lower` writes for
  ``out <- argmax([x_..])`` / argmin, statement for statement (rebuilt here and
  compared with positions ignored);
* loop form (programs/noisy_max_loop.dip): ``best <- Lap(..); out <- 1`` then for
  j = 2..m ``r <- Lap(..); b <- r > best; if b then best <- r; out <- j end``
  (``<`` for argmin).

In both, every mean is a constant-coefficient linear form over real inputs (so
the centres are fixed rationals once the inputs are), no sample is read anywhere
else, and `out` is the program's only output.  Discrete noise (DLap) is not
handled: ties then have positive probability.

Relabelled: either form may compute the index into a local `k` instead and end with one
``out <- e`` where `e` reads `k` alone (the Python front end's ``result <- _a2 - 1`` for
numpy's 0-based argmax).  `e` is evaluated at k = 1..m; when those values are pairwise
distinct (an injective relabelling) `ArgmaxShape.labels` holds them, and P[out = labels[j-1]]
is P[index = j]; `ArgmaxShape.relabelled` says when the output is not the index itself.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.exact import noises
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import eval_expr
from dipc_plus.semantics.instructions import reads
from dipc_plus.semantics.values import plain_number

__all__ = ["ArgmaxShape", "recognise", "samples_at", "scan"]


@dataclass(frozen=True)
class ArgmaxShape:
    """out = argmax (argmin if `minimum`) of independent samples, in index order 1..m;
    `samples` holds (kind 'lap'|'exp', rate b of b*eps, mean as an ir.Lin over inputs);
    `labels[j-1]` is the output's value when index j wins (1..m unless relabelled)."""
    output: str
    samples: tuple
    minimum: bool
    form: str  # 'builtin' | 'loop', for messages and tests
    labels: tuple = ()

    def label(self, j: int):
        """The output's value when index j (1-based) wins."""
        return self.labels[j - 1] if self.labels else j

    @property
    def relabelled(self) -> bool:
        return bool(self.labels) and self.labels != tuple(range(1, len(self.samples) + 1))


def recognise(program: ir.Program) -> ArgmaxShape | None:
    """The argmax shape of `program`, or None if it is not exactly one of the two forms (or one of
    them followed by an injective relabelling of the index)."""
    if len(program.outputs) != 1:
        return None
    out, out_type = program.outputs[0]
    if not isinstance(out_type, ir.DomT):
        return None
    body = program.body
    shape = _builtin(program, out, body) or _loop(program, out, body) or _relabelled(program, out)
    if shape is None:
        return None
    labels = shape.labels or tuple(range(1, len(shape.samples) + 1))
    if any(v not in out_type.values for v in labels):
        return None
    return replace(shape, labels=labels)


def samples_at(shape: ArgmaxShape, inputs: dict) -> list | None:
    """[(kind, rate, centre)] at these flat inputs (None if a centre is not a rational)."""
    out = []
    for kind, rate, mean in shape.samples:
        total = Fraction(0)
        for coef, var in mean.terms:
            value = inputs.get(var)
            if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
                return None
            total += Fraction(coef.value) * value
        total += Fraction(mean.const.value)
        out.append((kind, rate, total))
    return out


# --------------------------------------------------------------------------- pieces


def plain_variable(lin) -> str | None:
    """v if `lin` is exactly the real variable v (coefficient 1, constant 0): a plain read."""
    if (isinstance(lin, ir.Lin) and lin.kind == "real" and len(lin.terms) == 1
            and ir.number_of(lin.const) == 0 and ir.number_of(lin.terms[0][0]) == 1):
        return lin.terms[0][1]
    return None


def _var_lin(v: str) -> ir.Lin:
    return ir.Lin("real", ((ir.Const(1), v),), ir.Const(0))


def _sample(program: ir.Program, s) -> tuple | None:
    """(kind, rate, mean) of a Lap/ExpNoise sample whose mean reads real inputs only."""
    if not isinstance(s, ir.Sample) or not isinstance(s.dist, ir.NoiseSample):
        return None
    d = s.dist
    if not isinstance(d.rate, Fraction) or d.rate <= 0:
        return None
    reading = noises.by_kind(d.kind).reading(d.rate)
    if reading.noise.kind != "lap":   # the shortcut integrates Laplace-engine noises only
        return None
    mean = d.mean
    if not isinstance(mean, ir.Lin) or mean.kind != "real" or ir.number_of(mean.const) is None:
        return None
    inputs = dict(program.inputs)
    for coef, var in mean.terms:
        if ir.number_of(coef) is None or not isinstance(inputs.get(var), ir.RealT):
            return None
    return ("exp" if reading.positive_only else "lap", reading.noise.rate, mean)


def _is_local(program: ir.Program, v: str, typ) -> bool:
    names = set(program.input_names()) | set(program.output_names())
    return v not in names and isinstance(program.variables.get(v), typ)


def _const_assign(s, target: str, value: int) -> bool:
    return (isinstance(s, ir.Assign) and s.target == target and isinstance(s.expr, ir.Const)
            and type(s.expr.value) is int and s.expr.value == value)


# --------------------------------------------------------------------------- builtin form


def scan(target: str, lins: list, op: str, b: str | None, pos: ir.Pos = ir.NOWHERE) -> list:
    """The statements of target <- argmax(lins) (op '>') or argmin ('<'), comparing into the Boolean
    `b` (unused for one element): `frontend.lower` lowers the call with it and `recognise` rebuilds
    it to compare, so the two cannot drift apart."""
    out: list = [ir.Assign(target, ir.Const(1), pos)]
    for j in range(2, len(lins) + 1):
        chain: list = [ir.Compare(b, lins[j - 1], op, lins[j - 2], pos)]
        for k in range(j - 2, 0, -1):
            chain = [ir.If(ir.Binary("==", ir.Var(target), ir.Const(k)),
                           (ir.Compare(b, lins[j - 1], op, lins[k - 1], pos),), tuple(chain), pos)]
        out.extend(chain)
        out.append(ir.If(ir.Var(b), (ir.Assign(target, ir.Const(j), pos),), (), pos))
    return out


def _builtin(program: ir.Program, out: str, body: tuple) -> ArgmaxShape | None:
    k = next((i for i, s in enumerate(body) if not isinstance(s, ir.Sample)), len(body))   # the samples first
    if k == 0 or k >= len(body) or not _const_assign(body[k], out, 1):
        return None
    rest = body[k + 1:]
    samples: dict = {}
    for s in body[:k]:
        info = _sample(program, s)
        if info is None or s.target in samples or not _is_local(program, s.target, ir.RealT):
            return None
        samples[s.target] = info
    if not rest:  # m = 1: out <- 1, the sample is never read
        order, op, b = list(samples), ">", None
        if len(order) != 1:
            return None
    else:
        first = rest[0]
        if not isinstance(first, ir.Compare) or first.op not in (">", "<"):
            return None
        op, b = first.op, first.target
        if not _is_local(program, b, ir.BoolT):
            return None
        # element j's form is the lhs of the first Compare of its step (innermost else-branch order
        # does not matter: the rebuilt scan must equal the whole body anyway)
        lins = [first.rhs]
        for s in rest:
            c = s
            while isinstance(c, ir.If) and not isinstance(c.cond, ir.Var):
                c = c.then[0] if c.then else None
            if isinstance(c, ir.Compare):
                lins.append(c.lhs)
        order = [plain_variable(x) for x in lins]
        if any(v is None for v in order) or len(set(order)) != len(order):
            return None
        if set(order) != set(samples) or b in samples or out in samples:
            return None
        if ir.renamed(tuple(rest)) != tuple(scan(out, [_var_lin(v) for v in order], op, b)[1:]):
            return None
    return ArgmaxShape(out, tuple(samples[v] for v in order), op == "<", "builtin")


# --------------------------------------------------------------------------- loop form


def _loop(program: ir.Program, out: str, body: tuple) -> ArgmaxShape | None:
    if len(body) < 2 or (len(body) - 2) % 3 != 0:
        return None
    first = _sample(program, body[0])
    best = getattr(body[0], "target", None)
    if first is None or not _is_local(program, best, ir.RealT) or not _const_assign(body[1], out, 1):
        return None
    samples = [first]
    op = b = None
    for j, t in enumerate(range(2, len(body), 3), start=2):
        s, cmp, branch = body[t:t + 3]
        info = _sample(program, s)
        r = getattr(s, "target", None)
        if info is None or r in (best, out) or not _is_local(program, r, ir.RealT):
            return None
        if not isinstance(cmp, ir.Compare) or cmp.op not in (">", "<"):
            return None
        if op is None:
            op, b = cmp.op, cmp.target
            if b in (best, out, r) or not _is_local(program, b, ir.BoolT):
                return None
        expected = (ir.Compare(b, _var_lin(r), op, _var_lin(best), ir.NOWHERE),
                    ir.If(ir.Var(b), (ir.Assign(best, _var_lin(r), ir.NOWHERE),
                                      ir.Assign(out, ir.Const(j), ir.NOWHERE)), (), ir.NOWHERE))
        if ir.renamed((cmp, branch)) != expected:
            return None
        samples.append(info)
    return ArgmaxShape(out, tuple(samples), op == "<", "loop")


# --------------------------------------------------------------------------- relabelled index


def _relabelled(program: ir.Program, out: str) -> ArgmaxShape | None:
    """Either form into a local index k, then ``out <- e(k)`` last, e injective on 1..m."""
    body = program.body
    if len(body) < 2:
        return None
    last = body[-1]
    if not isinstance(last, ir.Assign) or last.target != out:
        return None
    names = reads(last.expr)
    if len(names) != 1:
        return None
    index, = names
    if not _is_local(program, index, ir.DomT):
        return None
    rest = body[:-1]
    shape = _builtin(program, index, rest) or _loop(program, index, rest)
    if shape is None:
        return None
    m = len(shape.samples)
    if any(j not in program.variables[index].values for j in range(1, m + 1)):
        return None
    try:
        labels = tuple(eval_expr(last.expr, {index: j}, program, last.pos) for j in range(1, m + 1))
    except (UserError, ArithmeticError):
        return None
    labels = tuple(map(plain_number, labels))
    if any(isinstance(v, bool) for v in labels) or len(set(labels)) != m:
        return None     # not injective: two indices would share an output value
    return replace(shape, output=out, labels=labels)
