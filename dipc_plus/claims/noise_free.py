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
from typing import Mapping

from dipc_plus.errors import ResourceLimit, UserError
from dipc_plus.exact import lp
from dipc_plus.exact.convert import to_fraction
from dipc_plus.exact.linear import LinForm
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import domain_values, expmech_scores
from dipc_plus.semantics.walk import Domain, PathState, Walk

MAX_PATHS = 20_000


@dataclass(frozen=True)
class Path:
    """One execution of the noise-free program over symbolic real inputs."""
    condition: tuple          # of lp.Constraint over the symbolic input names
    outputs: dict             # output name -> DOM/Bool value, int (integer output) or LinForm (real output)
    fixed: dict               # the concrete (non-symbolic) inputs this path was run with


_SPLITS = {   # op -> (truth, op of the constraint 'form op rhs') per outcome
    "<": ((True, "<"), (False, ">=")),
    "<=": ((True, "<="), (False, ">")),
    ">": ((True, ">"), (False, "<=")),
    ">=": ((True, ">="), (False, "<")),
    "==": ((True, "=="), (False, "<"), (False, ">")),
    "!=": ((True, "<"), (True, ">"), (False, "==")),
}


class NoiseFree(Domain):
    """Samples are their means (the exponential mechanism its best candidate); a path's facts
    are its condition, and an outcome whose condition is empty is pruned."""

    def __init__(self, program: ir.Program):
        self.program = program

    def sample(self, walk: Walk, s: ir.Sample, st: PathState) -> None:
        d = s.dist
        if isinstance(d, ir.NoiseSample):
            st.reals[s.target] = walk.lin(d.mean, st, s.pos)
            return
        if isinstance(d, ir.ExpMech):
            scores = expmech_scores(d, domain_values(self.program.variables[s.target]), st.env, self.program, s.pos)
            st.env[s.target] = max(scores, key=lambda cand: cand[1])[0]   # the first best candidate
            return
        if isinstance(d, ir.Choose):
            raise UserError.at(s.pos, f"the noise-free program is not defined: '{s.target}' is drawn from the "
                                      f"user distribution '{d.dist}', which has no canonical noise-free value",
                               hint="give the deterministic function as a table in the claim "
                                    "(det = \"table\" with [[accuracy.table]] rows)")
        raise TypeError(f"unknown distribution {d!r}")

    def split(self, st: PathState, form: LinForm, op: str) -> list:
        out = []
        for truth, o in _SPLITS[op]:
            cond = st.facts + (lp.Constraint.of(form, o),)
            if lp.feasible(list(cond)):
                out.append((truth, cond))
        return out

    def loop_repeats(self, s: ir.While) -> Exception:
        return UserError.at(s.pos, "without noise this loop never ends (its state repeats)",
                            hint="the noise-free program must terminate: give the deterministic "
                                 "function as a table in the claim instead")

    def too_many(self, limit: int, pos=None) -> Exception:
        return ResourceLimit(f"the noise-free program has more than {limit} paths over the "
                             "symbolic inputs", hint="use fewer or smaller inputs, or dd_over = \"grid\"")

    def outputs(self, st: PathState) -> dict:
        out = {}
        for name, typ in self.program.outputs:
            store = st.reals if isinstance(typ, (ir.RealT, ir.IntT)) else st.env
            if name not in store:
                raise UserError(f"output '{name}' is not assigned on some path of the noise-free program")
            v = store[name]
            out[name] = _int_value(v, name) if isinstance(typ, ir.IntT) else v
        return out


def _int_value(v: LinForm, name: str):
    if not v.is_constant():
        return v
    if v.const.denominator != 1:
        raise UserError(f"integer output '{name}' has the non-integer value {v.const}")
    return int(v.const)


def _initial(program: ir.Program, fixed: Mapping, symbols: list[str]) -> PathState:
    """The start state: `symbols` (real inputs, as the callers pass them) unknown, every other input of
    `fixed` (bound to the program's inputs by the caller) at its value."""
    types = dict(program.inputs)
    denv, reals = {}, {name: LinForm.symbol(name) for name in symbols}
    for name, value in fixed.items():
        if name in symbols:
            continue
        if isinstance(types[name], (ir.RealT, ir.IntT)):
            reals[name] = LinForm.constant(value)
        else:
            denv[name] = value
    missing = [n for n in program.input_names() if n not in denv and n not in reals]
    if missing:
        raise UserError(f"missing input(s) for the noise-free run: {', '.join(missing)}")
    return PathState(denv, reals, ())


def paths(program: ir.Program, fixed: Mapping, symbols: list[str] | tuple = ()) -> list[Path]:
    """Every feasible path of the noise-free program; `symbols` are the real inputs left unknown.

    `fixed` gives the value of every other input (flat names, run-time values).
    """
    symbols = list(symbols)
    domain = NoiseFree(program)
    ends = Walk(program, domain, MAX_PATHS).run(_initial(program, fixed, symbols))
    concrete = {n: v for n, v in fixed.items() if n not in symbols}
    return [Path(st.facts, domain.outputs(st), concrete) for st in ends]


def real_inputs(program: ir.Program) -> list[str]:
    return [n for n, t in program.inputs if isinstance(t, ir.RealT)]


def run(program: ir.Program, env: Mapping) -> dict:
    """det(P)(env): the noise-free output at a concrete input (reals as exact Fractions)."""
    found = paths(program, {n: (to_fraction(v) if isinstance(program.variables.get(n), ir.RealT) else v)
                            for n, v in env.items()}, ())
    if len(found) != 1:  # cannot happen: with no symbols every comparison is decided
        raise AssertionError(f"concrete noise-free run gave {len(found)} paths")
    path = found[0]
    return {n: (v.const if isinstance(v, LinForm) else v) for n, v in path.outputs.items()}
