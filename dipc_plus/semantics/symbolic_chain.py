"""A program's paths with its real inputs kept as symbols: per output, the atom sets of its paths.

The per-point chain (`semantics.dtmc`) fixes the inputs and prunes branches by their
probability at that point.  Here every real input stays a symbol (its own id beside
the noise ids, as `exact.cell_probability` expects), so a comparison becomes an atom
over noises and inputs, and the program is walked once for every input: a path is
the outcome of each comparison, and P[output = o] on a cell of input space is the sum
over o's paths of P[the path's atoms] there.  Nothing is decided by a point value:
a comparison of inputs alone is kept as an atom (the cell decides it, or splits with
an equality cell), and a path whose atoms are empty on a cell contributes the zero
form there.  A comparison is decided on the path only when its atom or its negation
is already on it.

Only what the walk handles takes this path (a whitelist); anything else raises
`NotSymbolic`, a `UserError` naming the statement's line, so callers fall back to
the per-point chain: DLap, one-sided exponential noise, `choose` and exponential
mechanism draws, integer inputs, loops that come back to the same state (chains with
cycles), and programs whose outputs are all real.  Real outputs beside finite ones
are summed out: an output value here is the tuple of the finite outputs; the real
outputs' linear forms at each path's exit are kept beside it (`real_forms`) for
whoever needs their densities.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.exact import noises
from dipc_plus.exact.linear import LinForm, Noise, atom, negate
from dipc_plus.semantics import evaluate, ir
from dipc_plus.semantics.instructions import compiled

__all__ = ["NotSymbolic", "SymbolicPaths", "symbolic_paths", "DEFAULT_MAX_PATHS"]

DEFAULT_MAX_PATHS = 20_000
_MAX_STEPS = 1_000_000
HINT = "run without --symbolic for the per-point path"


class NotSymbolic(UserError):
    """The symbolic path does not apply to this program (the reason names the statement)."""

    def __init__(self, message: str, pos: ir.Pos | None = None):
        super().__init__(message, file=getattr(pos, "file", None), line=getattr(pos, "line", None),
                         column=getattr(pos, "column", None), hint=HINT)


class SymbolicPaths:
    """The walk's result.  `real_inputs`: the flat names of the symbolic inputs (q index =
    position); `input_ids`: atom id -> q index; `noises`: noise id -> `Noise`;
    `output_names`: the finite outputs; `paths`: output value tuple -> [frozenset of Atom];
    `real_output_names`: the real outputs; `real_forms`: output value tuple -> [tuple of the
    real outputs' LinForms (None if unassigned)], one per path, in the order of `paths`."""

    def __init__(self, program: ir.Program, real_inputs: list, input_ids: dict, noises: dict,
                 output_names: list, paths: dict, real_output_names: list | None = None,
                 real_forms: dict | None = None):
        self.program = program
        self.real_inputs = real_inputs
        self.input_ids = input_ids
        self.noises = noises
        self.output_names = output_names
        self.paths = paths
        self.real_output_names = real_output_names or []
        self.real_forms = real_forms or {}

    def outputs(self) -> list:
        return list(self.paths)

    def __repr__(self) -> str:
        count = sum(len(v) for v in self.paths.values())
        return f"<SymbolicPaths of {self.program.name}: {len(self.paths)} outputs, {count} paths>"


def symbolic_paths(program: ir.Program, finite_inputs: dict | None = None,
                   max_paths: int = DEFAULT_MAX_PATHS, real_outputs_only: bool = False) -> SymbolicPaths:
    """Walk `program` with its real inputs as symbols; `finite_inputs` gives the Bool/DOM inputs
    (flat names -> checked values).  Raises `NotSymbolic` where the walk does not apply.  A program
    whose outputs are all real is walked only with `real_outputs_only` (the densities of its real
    outputs, one outcome of no finite output): the distribution of finite outputs is empty."""
    return _Walk(program, dict(finite_inputs or {}), max_paths, real_outputs_only).run()


class _Walk:
    def __init__(self, program: ir.Program, finite_inputs: dict, max_paths: int, real_outputs_only: bool = False):
        self.program = program
        self.max_paths = max_paths
        outputs = program.output_names()
        self.code, _ = compiled(program.body, outputs)
        types = program.variables
        self.finite_outputs = [n for n, t in program.outputs if isinstance(t, (ir.BoolT, ir.DomT))]
        self.real_outputs = [n for n, t in program.outputs if isinstance(t, ir.RealT)]
        if not self.finite_outputs and not real_outputs_only:
            raise NotSymbolic(f"{program.name}: every output is real; the symbolic path gives the "
                              "distribution of finite (Bool or DOM) outputs")
        self.real_inputs = []
        self.env0: dict = {}
        self.reals0: dict = {}
        self.input_ids: dict = {}
        for name, typ in program.inputs:
            if isinstance(typ, ir.IntT):
                raise NotSymbolic(f"the input '{name}' is an integer: only real inputs are symbolic")
            if isinstance(typ, ir.RealT):
                nid = len(self.code) + len(self.real_inputs)   # beside the noise ids (instruction positions)
                self.input_ids[nid] = len(self.real_inputs)
                self.reals0[name] = LinForm(((nid, Fraction(1)),), Fraction(0))
                self.real_inputs.append(name)
            else:
                if name not in finite_inputs:
                    raise UserError(f"the finite input '{name}' needs a value",
                                    hint=f"give it with --input {name}=...")
                self.env0[name] = finite_inputs[name]
        self.types = types
        self.noises: dict = {}
        self.paths: dict = {}
        self.real_forms: dict = {}
        self.count = 0

    def run(self) -> SymbolicPaths:
        stack = [(0, dict(self.env0), dict(self.reals0), frozenset(), frozenset())]
        steps = 0
        while stack:
            pc, env, reals, atoms, seen = stack.pop()
            while True:
                steps += 1
                if steps > _MAX_STEPS:
                    raise NotSymbolic(f"{self.program.name}: more than {_MAX_STEPS} steps in the symbolic walk")
                instr = self.code[pc]
                op = instr.op
                s = instr.stmt
                if op == "exit":
                    self._record(env, reals, atoms)
                    break
                if op == "jump":
                    pc = instr.target
                elif op == "branch":
                    if instr.loop_head:
                        key = (pc, tuple(sorted(env.items(), key=_first)), atoms)
                        if key in seen:
                            raise NotSymbolic("this loop comes back to the same state (a chain with a cycle): "
                                              "the symbolic path handles acyclic chains only", s.pos)
                        seen = seen | {key}
                    value = evaluate.eval_expr(instr.cond, env, self.program, s.pos)
                    if not isinstance(value, bool):
                        raise UserError.at(s.pos, f"a condition is {value}, not true or false")
                    pc = pc + 1 if value else instr.target
                elif op == "assign":
                    if isinstance(self.types.get(s.target), (ir.RealT, ir.IntT)):
                        reals = dict(reals)
                        reals[s.target] = self._lin(s.expr, env, reals, s.pos)
                    else:
                        env = dict(env)
                        env[s.target] = evaluate.fit(evaluate.eval_expr(s.expr, env, self.program, s.pos),
                                                     self.types[s.target], s.pos,
                                                     f"the value assigned to '{s.target}'")
                    pc += 1
                elif op == "sample":
                    reals = dict(reals)
                    reals[s.target] = self._sample(pc, s, env, reals)
                    pc += 1
                elif op == "compare":
                    a = atom(self._lin(s.lhs, env, reals, s.pos), s.op, self._lin(s.rhs, env, reals, s.pos))
                    if a.form.is_constant():
                        decided = a.holds_constant()
                    elif a in atoms:
                        decided = True
                    elif negate(a) in atoms:
                        decided = False
                    else:
                        decided = None
                    if decided is not None:
                        env = dict(env)
                        env[s.target] = decided
                        pc += 1
                        continue
                    false_env = dict(env)
                    false_env[s.target] = False
                    stack.append((pc + 1, false_env, reals, atoms | {negate(a)}, seen))
                    env = dict(env)
                    env[s.target] = True
                    atoms = atoms | {a}
                    pc += 1
                else:
                    raise NotSymbolic(f"the statement kind {op!r} is not handled by the symbolic path",
                                      getattr(s, "pos", None))
        types = [self.types[n] for n in self.finite_outputs]
        ordered = dict(sorted(self.paths.items(), key=lambda kv: _value_key(kv[0], types)))
        return SymbolicPaths(self.program, self.real_inputs, self.input_ids, self.noises,
                             self.finite_outputs, ordered, self.real_outputs, self.real_forms)

    def _record(self, env: dict, reals: dict, atoms: frozenset) -> None:
        self.count += 1
        if self.count > self.max_paths:
            raise NotSymbolic(f"{self.program.name} has more than {self.max_paths} paths")
        key = tuple(env.get(n) for n in self.finite_outputs)
        self.paths.setdefault(key, []).append(atoms)
        self.real_forms.setdefault(key, []).append(tuple(reals.get(n) for n in self.real_outputs))

    def _lin(self, lin: ir.Lin, env: dict, reals: dict, pos) -> LinForm:
        coefs, const = evaluate.lin_value_parts(lin, env, self.program, pos)
        total = LinForm.constant(const)
        for var, c in coefs.items():
            form = reals.get(var)
            if form is None:
                raise UserError.at(pos, f"'{var}' is read before it is assigned",
                                   hint="assign it on every path that reaches this statement")
            total = total + form.scale(c)
        return total

    def _sample(self, pc: int, s: ir.Sample, env: dict, reals: dict) -> LinForm:
        d = s.dist
        if isinstance(d, (ir.ExpMech, ir.Choose)):
            raise NotSymbolic("a choose or exponential-mechanism draw: the symbolic path handles "
                              "Laplace samples and comparisons only", s.pos)
        if not isinstance(d, ir.NoiseSample):
            raise NotSymbolic(f"the distribution {type(d).__name__} is not handled by the symbolic path", s.pos)
        spec = noises.by_kind(d.kind)
        reading = spec.reading(Fraction(d.rate))
        if reading.noise.kind != "lap" or reading.positive_only:   # exact.cell_probability's condition
            article = "an" if spec.surface[:1] in "AEIOU" else "a"
            raise NotSymbolic(f"{article} {spec.surface} sample: only Laplace noise is symbolic so far", s.pos)
        self.noises[pc] = Noise(d.kind, Fraction(d.rate))
        mean = self._lin(d.mean, env, reals, s.pos)
        return mean + LinForm(((pc, Fraction(1)),), Fraction(0))


def _first(item: tuple):
    return item[0]


def _value_key(values: tuple, types: list) -> tuple:
    """Output values in the order of their domains (unassigned outputs first), as per-point reports."""
    key = []
    for v, t in zip(values, types):
        if v is None:
            key.append(-1)
        elif isinstance(t, ir.DomT):
            key.append(t.values.index(v) if v in t.values else len(t.values))
        else:
            key.append(int(bool(v)))
    return tuple(key)
