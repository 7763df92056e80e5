"""Which way each output's probability moves with each real input, proved from the program.

Why: the corner reduction (`accuracy.box`) needs P[P(q) = w] monotone in every q_j.  A
run of the program is a sequence of comparison outcomes; with every Laplace sample
written as its mean plus a noise U_k, each outcome is a half-space "g(U, q) > 0" (or >= 0)
whose g is affine in the noises and the inputs, and the event of one path is their
intersection.  If q_j's coefficient in g is >= 0 in every such half-space on every path
to w, each path's event grows with q_j, so their (disjoint) union does too: P[out = w]
is non-decreasing in q_j; all <= 0 gives non-increasing.  Mixed signs prove nothing.

The walk is a whitelist on `ir.Program`: deterministic assignments, Laplace samples,
comparisons of linear forms, `if` and `exit`.  Anything else (a `while` loop, another
distribution, an integer output) is refused with the statement's position, since the
argument above has not been made for it.  Paths are not pruned for feasibility: an
infeasible path only adds half-spaces, which can make a sign mixed (a refusal), never
prove a wrong one.

Each output also keeps the input part (coefficients of q and constant) of every
half-space on its paths: `accuracy.box` reads them to prove that the probability at a
corner q = a + s*d depends on eps*d alone.

Real outputs (NumericSparse's released values) are walked too: an output value w is then
the tuple of the finite outputs, and each path keeps its real outputs' affine forms
(`real_forms`).  When on every path to w each real output is det's value plus noises
that occur in no half-space of the path (`real_outputs_independent`), P[finite outputs
= w and every real output within gamma of det] is the sum over the paths of P[path's
half-spaces] times a factor that does not depend on q, so the signs above still prove
the direction.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dipc_plus.errors import UserError
from dipc_plus.exact.linear import LinForm
from dipc_plus.semantics import ir
from dipc_plus.semantics.values import freeze_env
from dipc_plus.semantics.walk import Domain, PathState, Walk

MAX_PATHS = 200_000
NOISE = "~noise"   # noise symbols are named NOISE + number; no program variable has this prefix


class NotReducible(UserError):
    """A precondition of the corner reduction that could not be proved: `check` names it."""

    reduction = "corner reduction"     # the message's first words (a subclass names its own reduction)

    def __init__(self, check: str, message: str, **kw):
        super().__init__(f"{self.reduction}, check '{check}': {message}", **kw)
        self.check = check


@dataclass
class OutputAtoms:
    """What the paths to one output value w say: per input the signs seen, and the input parts
    (q coefficients, constant) of every oriented half-space."""
    signs: dict = field(default_factory=dict)          # input -> set of -1 / +1
    parts: set = field(default_factory=set)            # of (tuple of (input, coef), const)
    real_forms: list = field(default_factory=list)     # per path: ({real output: LinForm}, noises of its atoms)

    def real_outputs_independent(self, det: dict) -> str | None:
        """None when on every path each real output minus det's value (an `LinForm` in the inputs)
        is a form in noises that occur in none of the path's half-spaces; else why not."""
        for forms, atom_noises in self.real_forms:
            for name, form in forms.items():
                want = det[name]
                noises = {n for n, _ in form.coeffs if n.startswith(NOISE)}
                rest = LinForm.make({n: c for n, c in form.coeffs if not n.startswith(NOISE)}, form.const)
                if rest != want:
                    return f"the real output '{name}' is not det's value plus noise on some path"
                if noises & atom_noises:
                    return f"the real output '{name}' shares a noise with a comparison on its path"
        return None

    def direction(self, name: str) -> int | None:
        """+1: P[out = w] non-decreasing in this input; -1: non-increasing; 0: independent of it;
        None: mixed signs (not proved monotone)."""
        seen = self.signs.get(name, set())
        if len(seen) > 1:
            return None
        return next(iter(seen)) if seen else 0


class Monotonicity(Domain):
    """The oriented half-spaces of every path of `program`, grouped by output value: a domain of
    the one walk whose samples are a mean plus a fresh noise symbol and whose facts are the
    half-spaces (paths are not pruned, see above)."""

    def __init__(self, program: ir.Program, real_outputs: bool = False):
        """real_outputs: walk real outputs too (only the numeric-sparse input distance makes a det
        that moves with the inputs compatible with dd > 0); otherwise they are refused."""
        self.program = program
        self.inputs = [n for n, t in program.inputs if isinstance(t, ir.RealT)]
        self.noises = 0
        self.by_output: dict = {}
        self.finite = [n for n, t in program.outputs if isinstance(t, (ir.DomT, ir.BoolT))]
        self.reals_out = [n for n, t in program.outputs if isinstance(t, ir.RealT)]
        for name, typ in program.outputs:
            if not isinstance(typ, (ir.DomT, ir.BoolT)) and not (real_outputs and isinstance(typ, ir.RealT)):
                raise NotReducible("program-shape", f"the output '{name}' is not finite: P[out = det(q)] is read "
                                   "per output value", hint="box claims need outputs of finite type (real "
                                   "outputs with input_distance = \"numeric-sparse\")")
        start = PathState({}, {n: LinForm.symbol(n) for n in self.inputs}, ())
        for st in Walk(program, self, MAX_PATHS).run(start):
            self.record(st)

    # -- what was found ----------------------------------------------------------------------
    def output(self, w: dict) -> OutputAtoms:
        """The paths to the finite outputs of w (its real outputs, if any, are not part of the key)."""
        return self.by_output.get(freeze_env({n: w[n] for n in self.finite}), OutputAtoms())

    def record(self, st: PathState) -> None:
        """One path's half-spaces under its output value (every output is assigned on every path:
        the front end's `check_flow` refuses a program where one may not be)."""
        found = self.by_output.setdefault(freeze_env({n: st.env[n] for n in self.finite}), OutputAtoms())
        if self.reals_out:
            atom_noises = {n for g in st.facts for n, _ in g.coeffs if n.startswith(NOISE)}
            found.real_forms.append(({n: st.reals[n] for n in self.reals_out}, atom_noises))
        for g in st.facts:
            coefs = {n: c for n, c in g.coeffs if not n.startswith(NOISE)}
            for n, c in coefs.items():
                found.signs.setdefault(n, set()).add(1 if c > 0 else -1)
            found.parts.add((tuple(sorted(coefs.items())), g.const))

    # -- the domain ----------------------------------------------------------------------------
    def sample(self, walk: Walk, s: ir.Sample, st: PathState) -> None:
        if not (isinstance(s.dist, ir.NoiseSample) and s.dist.kind == "lap"):
            drawn = s.dist.kind if isinstance(s.dist, ir.NoiseSample) else type(s.dist).__name__
            raise NotReducible("program-shape", f"'{s.target}' is drawn from a {drawn} "
                               "distribution; only Laplace samples (a mean plus noise) are covered",
                               file=s.pos.file, line=s.pos.line, column=s.pos.column)
        self.noises += 1
        st.reals[s.target] = walk.lin(s.dist.mean, st, s.pos) + LinForm.symbol(f"{NOISE}{self.noises}")

    def enter_loop(self, s: ir.While) -> None:
        raise NotReducible("program-shape", f"a {type(s).__name__} statement: its paths are not enumerated "
                           "(only straight-line code, if and exit)",
                           file=getattr(s.pos, "file", None), line=getattr(s.pos, "line", None),
                           hint="box claims are decided for loop-free (unrolled) programs")

    def too_many(self, limit: int, pos=None) -> Exception:
        return NotReducible("program-shape", f"the program has more than {limit} paths",
                            hint="use a smaller instance (fewer queries)")

    def split(self, st: PathState, form: LinForm, op: str) -> list:
        """(truth, half-spaces then) of 'form op 0' for each way it can come out; form = 0 keeps
        both orientations, so both signs."""
        neg, atoms = form.scale(-1), st.facts
        if op == "==":
            return [(True, atoms + (form, neg)), (False, atoms + (form,)), (False, atoms + (neg,))]
        if op == "!=":
            return [(True, atoms + (form,)), (True, atoms + (neg,)), (False, atoms + (form, neg))]
        holds, fails = (form, neg) if op in (">", ">=") else (neg, form)
        return [(True, atoms + (holds,)), (False, atoms + (fails,))]
