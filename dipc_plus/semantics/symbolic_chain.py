"""A program's paths with its real inputs kept as symbols: per output, the atom sets of its paths.

The per-point chain (`semantics.dtmc`) fixes the inputs and prunes branches by their
probability at that point.  Here every real input stays a symbol (its own id beside
the noise ids, as `exact.constraints.probability` on a cell expects), so a comparison becomes an atom
over noises and inputs, and the program is walked once for every input (a domain of
the one walk, `semantics.walk`): a path is
the outcome of each comparison, and P[output = o] on a cell of input space is the sum
over o's paths of P[the path's atoms] there.  Nothing is decided by a point value:
a comparison of inputs alone is kept as an atom (the cell decides it, or splits with
an equality cell), and a path whose atoms are empty on a cell contributes the zero
form there.  A comparison is decided on the path only when its atom or its negation
is already on it.

Only what the walk handles takes this path (a whitelist); anything else raises
`NotSymbolic`, a `UserError` naming the statement's line, so callers fall back to
the per-point chain: DLap (the noises the Laplace engine reads, Laplace and one-sided
exponential, are symbolic), `choose` and exponential mechanism draws, integer inputs, loops that come back to the same state (chains with
cycles), and programs whose outputs are all real.  Real outputs beside finite ones
are summed out: an output value here is the tuple of the finite outputs; the real
outputs' linear forms at each path's exit are kept beside it (`real_forms`) for
whoever needs their densities.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.exact import noises
from dipc_plus.exact.linear import LinForm, Noise, atom, negate
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import domain_rank
from dipc_plus.semantics.instructions import compiled
from dipc_plus.semantics.values import freeze_env
from dipc_plus.semantics.walk import Domain, PathState, Walk

__all__ = ["NotSymbolic", "SymbolicPaths", "symbolic_paths", "DEFAULT_MAX_PATHS"]

DEFAULT_MAX_PATHS = 20_000
_MAX_STEPS = 1_000_000
HINT = "run without --symbolic for the per-point path"


class NotSymbolic(UserError):
    """The symbolic path does not apply to this program (the reason names the statement)."""

    def __init__(self, message: str, pos: ir.Pos | None = None):
        super().__init__(message, file=getattr(pos, "file", None), line=getattr(pos, "line", None),
                         column=getattr(pos, "column", None), hint=HINT)


@dataclass(repr=False, eq=False)
class SymbolicPaths:
    """The walk's result.  `real_inputs`: the flat names of the symbolic inputs (q index =
    position); `input_ids`: atom id -> q index; `noises`: noise id -> `Noise`;
    `output_names`: the finite outputs; `paths`: output value tuple -> [frozenset of Atom];
    `real_output_names`: the real outputs; `real_forms`: output value tuple -> [tuple of the
    real outputs' LinForms (None if unassigned)], one per path, in the order of `paths`."""
    program: ir.Program
    real_inputs: list
    input_ids: dict
    noises: dict
    output_names: list
    paths: dict
    real_output_names: list = field(default_factory=list)
    real_forms: dict = field(default_factory=dict)

    def outputs(self) -> list:
        return list(self.paths)

    def input_terms(self, output):
        """(input position, coefficient, comparison) for each input an atom on a path to `output` reads."""
        for atoms in self.paths[output]:
            for a in atoms:
                for ident, c in a.form.coeffs:
                    k = self.input_ids.get(ident)
                    if k is not None:
                        yield k, c, a.op

    def __repr__(self) -> str:
        count = sum(len(v) for v in self.paths.values())
        return f"<SymbolicPaths of {self.program.name}: {len(self.paths)} outputs, {count} paths>"


def symbolic_paths(program: ir.Program, finite_inputs: dict | None = None,
                   max_paths: int = DEFAULT_MAX_PATHS, real_outputs_only: bool = False) -> SymbolicPaths:
    """Walk `program` with its real inputs as symbols; `finite_inputs` gives the Bool/DOM inputs
    (flat names -> checked values).  Raises `NotSymbolic` where the walk does not apply.  A program
    whose outputs are all real is walked only with `real_outputs_only` (the densities of its real
    outputs, one outcome of no finite output): the distribution of finite outputs is empty."""
    return _Atoms(program, dict(finite_inputs or {}), max_paths, real_outputs_only).run()


class _Atoms(Domain):
    """The domain of the one walk for symbolic atoms: a path's facts are its atom set and its
    trail of branch choices (True first), so that paths are listed depth first."""

    def __init__(self, program: ir.Program, finite_inputs: dict, max_paths: int, real_outputs_only: bool = False):
        self.program = program
        self.max_paths = max_paths
        code, _ = compiled(program.body, program.output_names())
        # noise ids are the positions of their samples in the compiled code; input ids follow
        self.sample_ids = {id(instr.stmt): pc for pc, instr in enumerate(code) if instr.op == "sample"}
        self.finite_outputs = [n for n, t in program.outputs if isinstance(t, (ir.BoolT, ir.DomT))]
        self.real_outputs = [n for n, t in program.outputs if isinstance(t, ir.RealT)]
        if not self.finite_outputs and not real_outputs_only:
            raise NotSymbolic(f"{program.name}: every output is real; the symbolic path gives the "
                              "distribution of finite (Bool or DOM) outputs")
        self.real_inputs, self.input_ids, self.noises, self.steps = [], {}, {}, 0
        env0, reals0 = {}, {}
        for name, typ in program.inputs:
            if isinstance(typ, ir.IntT):
                raise NotSymbolic(f"the input '{name}' is an integer: only real inputs are symbolic")
            if isinstance(typ, ir.RealT):
                nid = len(code) + len(self.real_inputs)
                self.input_ids[nid] = len(self.real_inputs)
                reals0[name] = LinForm.symbol(nid)
                self.real_inputs.append(name)
            elif name not in finite_inputs:
                raise UserError(f"the finite input '{name}' needs a value", hint=f"give it with --input {name}=...")
            else:
                env0[name] = finite_inputs[name]
        self.start = PathState(env0, reals0, (frozenset(), ()))

    def run(self) -> SymbolicPaths:
        ends = Walk(self.program, self, self.max_paths).run(self.start)
        paths, real_forms = {}, {}
        for st in sorted(ends, key=lambda st: st.facts[1]):     # depth first, by the trail of branch choices
            key = tuple(st.env.get(n) for n in self.finite_outputs)
            paths.setdefault(key, []).append(st.facts[0])
            real_forms.setdefault(key, []).append(tuple(st.reals.get(n) for n in self.real_outputs))
        types = [self.program.variables[n] for n in self.finite_outputs]
        ordered = dict(sorted(paths.items(), key=lambda kv: _value_key(kv[0], types)))
        return SymbolicPaths(self.program, self.real_inputs, self.input_ids, self.noises,
                             self.finite_outputs, ordered, self.real_outputs, real_forms)

    def split(self, st: PathState, form: LinForm, op: str) -> list:
        """A comparison already decided by an atom of the path takes one outcome; else both."""
        atoms, trail = st.facts
        a = atom(form, op, LinForm.constant(0))
        if a in atoms:
            return [(True, st.facts)]
        no = negate(a)
        if no in atoms:
            return [(False, st.facts)]
        return [(True, (atoms | {a}, trail + (0,))), (False, (atoms | {no}, trail + (1,)))]

    def loop_key(self, st: PathState):
        self.steps += 1
        if self.steps > _MAX_STEPS:
            raise NotSymbolic(f"{self.program.name}: more than {_MAX_STEPS} loop steps in the symbolic walk")
        return freeze_env(st.env), st.facts[0]

    def loop_repeats(self, s: ir.While) -> Exception:
        return NotSymbolic("this loop comes back to the same state (a chain with a cycle): "
                           "the symbolic path handles acyclic chains only", s.pos)

    def too_many(self, limit: int, pos=None) -> Exception:
        return NotSymbolic(f"{self.program.name} has more than {limit} paths")

    def sample(self, walk: Walk, s: ir.Sample, st: PathState) -> None:
        d = s.dist
        if isinstance(d, (ir.ExpMech, ir.Choose)):
            raise NotSymbolic("a choose or exponential-mechanism draw: the symbolic path handles "
                              "noise samples and comparisons only", s.pos)
        spec = noises.by_kind(d.kind)
        reading = spec.reading(Fraction(d.rate))
        if reading.noise.kind != "lap":   # exact.constraints.component_probability's condition
            article = "an" if spec.surface[:1] in "AEIOU" else "a"
            raise NotSymbolic(f"{article} {spec.surface} sample: only noises the Laplace engine reads "
                              "(Laplace, one-sided exponential) are symbolic so far", s.pos)
        pc = self.sample_ids[id(s)]
        self.noises[pc] = Noise(d.kind, Fraction(d.rate))
        st.reals[s.target] = walk.lin(d.mean, st, s.pos) + LinForm.symbol(pc)


def _value_key(values: tuple, types: list) -> tuple:
    """Output values in the order of their domains (unassigned outputs first), as per-point reports."""
    return tuple(-1 if v is None else domain_rank(v, t) for v, t in zip(values, types))
