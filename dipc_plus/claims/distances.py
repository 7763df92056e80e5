"""Input and output distances of accuracy claims (Barthe et al., POPL 2021, sections 2-3).

An accuracy claim measures inputs with a distance d (it defines the distance to
disagreement) and outputs with an input-indexed distance d'_u (it defines the
ball B(det(u), u, gamma) the private output must land in).  The paper's
section 3 uses a handful of them; each is one class here, computed exactly.

Input distances (`INPUT_DISTANCES`):
  linf            max_i |u_i - w_i| over all inputs (DOM integers included;
                  differing symbols or Booleans are infinitely far apart)
  zero-one        0 if u = w, else 1 (Laplace, Exponential mechanism)
  numeric-sparse  as linf, except infinity when some real input is >= T in both
                  u and w with different values (section 3.6)

Output distances (`OUTPUT_DISTANCES`):
  zero-one   0 if the outputs are equal, else 1
  linf       infinity unless every DOM/Bool output is equal; then the largest
             |difference| of the real (and integer) outputs
  noisy-max  |q_i - q_j| for the indices i, j chosen (q the score array of the
             input u) — NoisyMax, section 3.3; an output that is an injective
             relabelling of an argmax index (numpy's 0-based argmax in a translated
             Python function) shows index i as its label, read back to i here
  score      |F(u, v) - F(u, v')| for the exponential mechanism's score F —
             section 3.2
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Mapping

from dipc_plus.errors import UserError
from dipc_plus.semantics import ir
from dipc_plus.semantics.argmax import recognise as recognise_argmax
from dipc_plus.semantics.evaluate import domain_values, expmech_scores
from dipc_plus.semantics.values import is_number, values_equal

INF = float("inf")


def value_gap(a, b):
    """|a - b| for numbers; 0/inf for equal/different symbols and Booleans."""
    if is_number(a) and is_number(b):
        return abs(Fraction(a) - Fraction(b))
    return Fraction(0) if values_equal(a, b) else INF


def linf_gap(u: Mapping, w: Mapping):
    """max over the keys of w of |u_k - w_k| (`value_gap`), 0 when w is empty."""
    return max((value_gap(u[k], w[k]) for k in w), default=Fraction(0))


# --------------------------------------------------------------------------- input distances


class InputDistance:
    name: ClassVar[str] = ""

    def between(self, u: Mapping, w: Mapping):
        raise NotImplementedError


@dataclass(frozen=True)
class LinfInput(InputDistance):
    name: ClassVar[str] = "linf"

    def between(self, u, w):
        return linf_gap(w, u)


@dataclass(frozen=True)
class ZeroOneInput(InputDistance):
    name: ClassVar[str] = "zero-one"

    def between(self, u, w):
        return Fraction(0) if all(values_equal(u[k], w[k]) for k in u) else Fraction(1)


@dataclass(frozen=True)
class NumericSparseInput(InputDistance):
    """Section 3.6: a query above the threshold in both inputs may not move."""
    threshold: Fraction = Fraction(0)
    reals: tuple = ()  # the real input names the threshold rule applies to
    name: ClassVar[str] = "numeric-sparse"

    def between(self, u, w):
        for k in self.reals:
            if u[k] >= self.threshold and w[k] >= self.threshold and u[k] != w[k]:
                return INF
        return linf_gap(w, u)


INPUT_DISTANCES = ("linf", "zero-one", "numeric-sparse")


# --------------------------------------------------------------------------- output distances


class OutputDistance:
    name: ClassVar[str] = ""

    def between(self, u: Mapping, v: Mapping, w: Mapping):
        """d'_u(v, w) for concrete outputs v, w (reals as Fractions)."""
        raise NotImplementedError

    def in_ball(self, u: Mapping, centre: Mapping, v: Mapping, gamma) -> bool:
        return self.between(u, centre, v) <= gamma


@dataclass(frozen=True)
class ZeroOneOutput(OutputDistance):
    name: ClassVar[str] = "zero-one"

    def between(self, u, v, w):
        return Fraction(0) if all(values_equal(v[k], w[k]) for k in v) else Fraction(1)


@dataclass(frozen=True)
class LinfOutput(OutputDistance):
    """DOM/Bool outputs must agree; real and integer outputs within gamma."""
    numeric: tuple = ()  # names of real/integer outputs
    name: ClassVar[str] = "linf"

    def between(self, u, v, w):
        worst = Fraction(0)
        for k in v:
            if k in self.numeric:
                worst = max(worst, abs(Fraction(v[k]) - Fraction(w[k])))
            elif not values_equal(v[k], w[k]):
                return INF
        return worst


@dataclass(frozen=True)
class NoisyMaxOutput(OutputDistance):
    """|q_i - q_j| where i, j are the reported indices and q the score inputs of u.  With
    `labels` (an argmax whose output relabels the index, `semantics.argmax.ArgmaxShape.labels`)
    the output value labels[i-1] reports index i; without, the output is the index itself."""
    index: str = "out"
    scores: tuple = ()  # flat input names q[1], ..., q[m]; index i (1-based) reads scores[i-1]
    labels: tuple = ()  # labels[i-1]: the output value that reports index i (empty: i itself)
    name: ClassVar[str] = "noisy-max"

    def index_of(self, value) -> int:
        """The 1-based index an output value reports."""
        if self.labels:
            return self.labels.index(value) + 1
        return int(value)

    def between(self, u, v, w):
        qi = u[self.scores[self.index_of(v[self.index]) - 1]]
        qj = u[self.scores[self.index_of(w[self.index]) - 1]]
        return abs(Fraction(qi) - Fraction(qj))


@dataclass(frozen=True)
class ScoreOutput(OutputDistance):
    """|F(u, v) - F(u, w)| with F the score function of the exponential mechanism."""
    output: str = "out"
    sample: object = None   # the ir.Sample with an ir.ExpMech
    program: object = None  # ir.Program (for the function and domains)
    name: ClassVar[str] = "score"

    def scores(self, u) -> dict:
        typ = self.program.variables[self.output]
        return dict(expmech_scores(self.sample.dist, domain_values(typ), u, self.program, self.sample.pos))

    def between(self, u, v, w):
        table = self.scores(u)
        return abs(table[v[self.output]] - table[w[self.output]])


# --------------------------------------------------------------------------- construction


def _noisy_max_distance(program: ir.Program, scores, output) -> NoisyMaxOutput:
    """The noisy-max distance: an index output (named, or the only finite output) into an array
    of real scores (named, or the only real input array)."""
    finite = [n for n, t in program.outputs if isinstance(t, (ir.DomT, ir.BoolT))]
    name = output or (finite[0] if len(program.outputs) == 1 and finite else None)
    if name is None or name not in dict(program.outputs):
        raise UserError("the noisy-max output distance needs one index output",
                        hint="name it with output = \"out\" (a DOM output holding an index 1..m)")
    typ = dict(program.outputs)[name]
    arrays = [a for a, elems in program.arrays.items()
              if elems and all(isinstance(dict(program.inputs).get(e), ir.RealT) for e in elems)]
    array = scores or (arrays[0] if len(arrays) == 1 else None)
    if array is None or array not in program.arrays:
        raise UserError("the noisy-max output distance needs the array of scores",
                        hint="name the real input array with scores = \"q\"")
    elems = tuple(program.arrays[array])
    if isinstance(typ, ir.DomT) and all(isinstance(x, int) and 1 <= x <= len(elems) for x in typ.values):
        return NoisyMaxOutput(name, elems)
    labels = argmax_labels(program, name, len(elems))
    if labels is None:
        raise UserError(f"output '{name}' must hold indices 1..{len(elems)} of '{array}' for the noisy-max distance, "
                        "or be an argmax of at most that many noisy reads relabelled one-to-one (as numpy's 0-based "
                        "argmax), every value of its type a label", hint="use zero-one or linf for other outputs")
    return NoisyMaxOutput(name, elems, labels)


def argmax_labels(program: ir.Program, name: str, size: int) -> tuple | None:
    """The labels of `name` when the program is an argmax of at most `size` samples whose index
    it relabels one-to-one (`semantics.argmax`), every value of its type being a label (so each
    value it can hold reports one index); None otherwise."""
    shape = recognise_argmax(program)
    if shape is None or shape.output != name or not shape.relabelled or len(shape.samples) > size:
        return None
    if not set(program.variables[name].values) <= set(shape.labels):
        return None
    return shape.labels


def _score_distance(program: ir.Program, scores, output) -> ScoreOutput:
    """The score distance: the one exponential-mechanism sample (into `output` if named), whose
    arguments read only inputs, so that its score table is known at every input."""
    mechs = [s for s in ir.statements(program.body) if isinstance(s, ir.Sample) and isinstance(s.dist, ir.ExpMech)]
    if output:
        mechs = [s for s in mechs if s.target == output]
    if len(mechs) != 1:
        raise UserError("the score output distance needs exactly one exponential-mechanism sample"
                        + (f" into '{output}'" if output else ""),
                        hint="name its target with output = \"...\"" if len(mechs) > 1 else "use zero-one or linf instead")
    sample = mechs[0]
    inputs = set(program.input_names())
    for a in sample.dist.args:
        if not _reads_only(a, inputs):
            raise UserError("the score output distance needs the mechanism's arguments to be inputs of the program",
                            hint="compute the score from inputs directly, or use zero-one")
    return ScoreOutput(sample.target, sample, program)


# name -> builder(program, scores, output) of the output distance for `program` (the reader has
# checked the name; a builder's UserError is unlocated: the claim reader locates it at its key)
OUTPUT_DISTANCES = {
    "zero-one": lambda program, scores, output: ZeroOneOutput(),
    "linf": lambda program, scores, output: LinfOutput(tuple(n for n, t in program.outputs
                                                             if isinstance(t, (ir.RealT, ir.IntT)))),
    "noisy-max": _noisy_max_distance,
    "score": _score_distance,
}


def _reads_only(expr, names: set) -> bool:
    """Whether the expression reads only `names` (and constants) through plain operations."""
    if isinstance(expr, ir.Var):
        return expr.name in names
    if isinstance(expr, ir.Const):
        return True
    if isinstance(expr, (ir.Unary, ir.Binary, ir.Cond, ir.Call)):
        return all(_reads_only(e, names) for e in ir.children(expr))
    return False
