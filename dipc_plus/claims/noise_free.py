"""The deterministic function det(P) of an accuracy claim: P with its noise removed.

Accuracy (Barthe et al., POPL 2021, section 2) compares a private program with
the "ideal" computation it approximates.  For every program of the paper's
section 3 that ideal is the program run without noise: a Laplace or discrete
Laplace sample becomes its mean (so comparisons of samples become comparisons
of the exact values), the exponential mechanism returns a best-scoring
candidate (the first one in the domain's order on ties).  A user distribution
(`choose`) has no canonical noise-free value; a claim then gives det as a table.

Two views of the same execution:

* `run(program, env)` — concretely at one input, exactly (Fractions);
* `paths(program, fixed, symbols)` — symbolically: the real inputs named in
  `symbols` are unknowns, every comparison that depends on them splits the
  execution, and each feasible path carries its condition (a conjunction of
  linear constraints on those inputs, strict or not, as `lp.Constraint`s) and
  its output (DOM values; real outputs as affine forms in the inputs).  Paths
  whose condition is empty are pruned exactly (`lp.feasible`).

Because `while` bodies never assign reals (the paper's bounded-assignment rule),
a loop whose Bool/DOM state repeats at its head never ends: that is reported as
a UserError rather than looping forever.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from dipc_plus.semantics import ir
from dipc_plus.semantics.values import freeze_env
from dipc_plus.exact import lp
from dipc_plus.errors import ResourceLimit, UserError
from dipc_plus.semantics.evaluate import domain_values, eval_assign, eval_expr, expmech_scores, fit, lin_value_parts

DEFAULT_MAX_PATHS = 20_000


# --------------------------------------------------------------------------- affine forms


def _frac(x) -> Fraction:
    """x as a Fraction, without a new one when it is one already (det runs make many)."""
    return x if type(x) is Fraction else Fraction(x)


@dataclass(frozen=True)
class Affine:
    """sum coeffs[name] * name + const over real inputs (names are flat input names)."""
    coeffs: tuple  # of (name, Fraction), sorted by name, no zero
    const: Fraction = Fraction(0)

    @staticmethod
    def make(coeffs: Mapping, const=0) -> "Affine":
        return Affine(tuple(sorted((n, _frac(c)) for n, c in coeffs.items() if c != 0)), _frac(const))

    @staticmethod
    def constant(value) -> "Affine":
        return Affine((), _frac(value))

    @staticmethod
    def symbol(name: str) -> "Affine":
        return Affine(((name, Fraction(1)),), Fraction(0))

    def is_constant(self) -> bool:
        return not self.coeffs

    def as_dict(self) -> dict:
        return dict(self.coeffs)

    def plus(self, other: "Affine", scale=1) -> "Affine":
        s = _frac(scale)
        if not other.coeffs:   # a constant: the coefficients stay as they are
            return Affine(self.coeffs, self.const + (other.const if s == 1 else s * other.const))
        d = self.as_dict()
        for n, c in other.coeffs:
            d[n] = d.get(n, Fraction(0)) + s * c
        return Affine.make(d, self.const + s * other.const)

    def scaled(self, s) -> "Affine":
        s = Fraction(s)
        return Affine.make({n: c * s for n, c in self.coeffs}, self.const * s)

    def value(self, point: Mapping) -> Fraction:
        return self.const + sum((c * Fraction(point[n]) for n, c in self.coeffs), Fraction(0))

    def __str__(self) -> str:
        parts = [f"{c}*{n}" if c != 1 else n for n, c in self.coeffs]
        if self.const != 0 or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)


# --------------------------------------------------------------------------- paths


@dataclass(frozen=True)
class Path:
    """One execution of the noise-free program over symbolic real inputs."""
    condition: tuple          # of lp.Constraint over the symbolic input names
    outputs: dict             # output name -> DOM/Bool value, int (integer output) or Affine (real output)
    fixed: dict               # the concrete (non-symbolic) inputs this path was run with

    def output_at(self, point: Mapping) -> dict:
        """The concrete output at a point of the path's region (reals as Fractions)."""
        return {n: (v.value(point) if isinstance(v, Affine) else v) for n, v in self.outputs.items()}

    def contains(self, point: Mapping) -> bool:
        return all(c.holds(point) for c in self.condition)


@dataclass
class _State:
    denv: dict        # Bool/DOM variables (and concrete inputs of those types) -> value
    reals: dict       # Real/Int variables -> Affine over the symbolic inputs
    cond: tuple       # path condition so far


class _Runner:
    def __init__(self, program: ir.Program, symbols: list[str], max_paths: int):
        self.program = program
        self.symbols = set(symbols)
        self.max_paths = max_paths
        self.live = 1

    # -- helpers -------------------------------------------------------------------------
    def lin(self, lin: ir.Lin, st: _State, pos) -> Affine:
        coefs, const = lin_value_parts(lin, st.denv, self.program, pos)
        total = Affine.constant(const)
        for name, c in coefs.items():
            if name not in st.reals:
                raise UserError.at(pos, f"'{name}' is read before it is assigned",
                                   hint="assign it on every path that reaches this statement")
            total = total.plus(st.reals[name], c)
        return total

    def branch(self, st: _State, constraint: lp.Constraint) -> _State | None:
        cond = st.cond + (constraint,)
        if not lp.feasible(list(cond)):
            return None
        return _State(dict(st.denv), dict(st.reals), cond)

    def split(self, st: _State, form: Affine, op: str) -> list[tuple[bool, _State]]:
        """(truth of 'form op 0', state) for every feasible outcome of the comparison."""
        if form.is_constant():
            k = form.const
            truth = {"<": k < 0, "<=": k <= 0, ">": k > 0, ">=": k >= 0, "==": k == 0, "!=": k != 0}[op]
            return [(truth, st)]
        coeffs, rhs = form.as_dict(), -form.const

        def c(o):
            return lp.Constraint.make(coeffs, o, rhs)
        options = {
            "<": [(True, c("<")), (False, c(">="))],
            "<=": [(True, c("<=")), (False, c(">"))],
            ">": [(True, c(">")), (False, c("<="))],
            ">=": [(True, c(">=")), (False, c("<"))],
            "==": [(True, c("==")), (False, c("<")), (False, c(">"))],
            "!=": [(True, c("<")), (True, c(">")), (False, c("=="))],
        }[op]
        out = []
        for truth, constraint in options:
            new = self.branch(st, constraint)
            if new is not None:
                out.append((truth, new))
        self.live += len(out) - 1
        if self.live > self.max_paths:
            raise ResourceLimit(f"the noise-free program has more than {self.max_paths} paths over the "
                                "symbolic inputs", hint="use fewer or smaller inputs, or dd_over = \"grid\"")
        return out

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts, states: list[_State]) -> tuple[list[_State], list[_State]]:
        """Run `stmts` from each state: (states that fall through, states that exited)."""
        running, exited = states, []
        for stmt in stmts:
            nxt = []
            for st in running:
                normal, ex = self.stmt(stmt, st)
                nxt.extend(normal)
                exited.extend(ex)
            running = nxt
            if not running:
                break
        return running, exited

    def stmt(self, s, st: _State) -> tuple[list[_State], list[_State]]:
        program = self.program
        kind = type(s)
        if kind is ir.Assign:
            typ = program.variables[s.target]
            if isinstance(typ, (ir.RealT, ir.IntT)):
                if not isinstance(s.expr, ir.Lin):
                    value = eval_expr(s.expr, st.denv, program, s.pos)
                    st.reals[s.target] = Affine.constant(fit(value, typ, s.pos, f"the value assigned to '{s.target}'"))
                else:
                    st.reals[s.target] = self.lin(s.expr, st, s.pos)
            else:
                st.denv[s.target] = eval_assign(s, st.denv, program)
            return [st], []
        if kind is ir.Sample:
            self.sample(s, st)
            return [st], []
        if kind is ir.Compare:
            form = self.lin(s.lhs, st, s.pos).plus(self.lin(s.rhs, st, s.pos), -1)
            out = []
            for truth, new in self.split(st, form, s.op):
                new.denv[s.target] = truth
                out.append(new)
            return out, []
        if kind is ir.If:
            test = eval_expr(s.cond, st.denv, program, s.pos)
            if not isinstance(test, bool):
                raise UserError.at(s.pos, f"the condition of 'if' is {test}, not true or false")
            return self.block(s.then if test else s.other, [st])
        if kind is ir.While:
            return self.loop(s, st)
        if kind is ir.Exit:
            return [], [st]
        raise TypeError(f"unknown statement {s!r}")

    def sample(self, s: ir.Sample, st: _State) -> None:
        d = s.dist
        if isinstance(d, ir.NoiseSample):
            st.reals[s.target] = self.lin(d.mean, st, s.pos)
            return
        if isinstance(d, ir.ExpMech):
            typ = self.program.variables[s.target]
            scores = expmech_scores(d, domain_values(typ), st.denv, self.program, s.pos)
            best = scores[0]
            for cand in scores[1:]:
                if cand[1] > best[1]:
                    best = cand
            st.denv[s.target] = best[0]
            return
        if isinstance(d, ir.Choose):
            raise UserError.at(s.pos, f"the noise-free program is not defined: '{s.target}' is drawn from the "
                                      f"user distribution '{d.dist}', which has no canonical noise-free value",
                               hint="give the deterministic function as a table in the claim "
                                    "(det = \"table\" with [[accuracy.table]] rows)")
        raise TypeError(f"unknown distribution {d!r}")

    def loop(self, s: ir.While, st: _State) -> tuple[list[_State], list[_State]]:
        done, exited = [], []
        frontier = [(st, frozenset())]
        while frontier:
            nxt = []
            for cur, seen in frontier:
                test = eval_expr(s.cond, cur.denv, self.program, s.pos)
                if not isinstance(test, bool):
                    raise UserError.at(s.pos, f"the condition of 'while' is {test}, not true or false")
                if not test:
                    done.append(cur)
                    continue
                key = freeze_env(cur.denv)
                if key in seen:
                    raise UserError.at(s.pos, "without noise this loop never ends (its state repeats)",
                                       hint="the noise-free program must terminate: give the deterministic "
                                            "function as a table in the claim instead")
                normal, ex = self.block(s.body, [cur])
                exited.extend(ex)
                nxt.extend((n, seen | {key}) for n in normal)
            frontier = nxt
        return done, exited

    def outputs(self, st: _State) -> dict:
        out = {}
        for name, typ in self.program.outputs:
            if isinstance(typ, (ir.RealT, ir.IntT)):
                if name not in st.reals:
                    raise UserError(f"output '{name}' is not assigned on some path of the noise-free program")
                v = st.reals[name]
                out[name] = v if isinstance(typ, ir.RealT) else _int_value(v, name)
            else:
                if name not in st.denv:
                    raise UserError(f"output '{name}' is not assigned on some path of the noise-free program")
                out[name] = st.denv[name]
        return out


def _int_value(v: Affine, name: str):
    if not v.is_constant():
        return v
    if v.const.denominator != 1:
        raise UserError(f"integer output '{name}' has the non-integer value {v.const}")
    return int(v.const)




def _initial(program: ir.Program, fixed: Mapping, symbols: list[str]) -> _State:
    types = dict(program.inputs)
    denv, reals = {}, {}
    for name in symbols:
        if name not in types or not isinstance(types[name], ir.RealT):
            raise ValueError(f"'{name}' is not a real input of {program.name}")
        reals[name] = Affine.symbol(name)
    for name, value in fixed.items():
        if name in symbols:
            continue
        typ = types.get(name)
        if typ is None:
            raise ValueError(f"'{name}' is not an input of {program.name}")
        if isinstance(typ, (ir.RealT, ir.IntT)):
            reals[name] = Affine.constant(value)
        else:
            denv[name] = value
    missing = [n for n in program.input_names() if n not in denv and n not in reals]
    if missing:
        raise UserError(f"missing input(s) for the noise-free run: {', '.join(missing)}")
    return _State(denv, reals, ())


def paths(program: ir.Program, fixed: Mapping, symbols: list[str] | tuple = (),
          max_paths: int = DEFAULT_MAX_PATHS) -> list[Path]:
    """Every feasible path of the noise-free program; `symbols` are the real inputs left unknown.

    `fixed` gives the value of every other input (flat names, run-time values).
    """
    symbols = list(symbols)
    runner = _Runner(program, symbols, max_paths)
    start = _initial(program, fixed, symbols)
    normal, exited = runner.block(program.body, [start])
    concrete = {n: v for n, v in fixed.items() if n not in symbols}
    return [Path(st.cond, runner.outputs(st), concrete) for st in normal + exited]


def real_inputs(program: ir.Program) -> list[str]:
    return [n for n, t in program.inputs if isinstance(t, ir.RealT)]


def run(program: ir.Program, env: Mapping) -> dict:
    """det(P)(env): the noise-free output at a concrete input (reals as exact Fractions)."""
    found = paths(program, {n: (_frac(v) if isinstance(program.variables.get(n), ir.RealT) else v)
                            for n, v in env.items()}, ())
    if len(found) != 1:  # cannot happen: with no symbols every comparison is decided
        raise AssertionError(f"concrete noise-free run gave {len(found)} paths")
    path = found[0]
    return {n: (v.const if isinstance(v, Affine) else v) for n, v in path.outputs.items()}
