"""The exact output distribution of a program at one input (Lemma 11), and accuracy events.

`output_distribution(program, inputs)` builds the DTMC (dtmc.py), solves
reachability (reach.py) and groups the exit states by their outputs: a
Bool/DOM output is a value; a real output is its symbolic definition, a linear
form over the noises, together with the constraints that still bind those
noises at the exit.  Every probability is an exact `ExpFrac` in eps.

With ``shortcuts=True`` (the default) a program that is exactly argmax/argmin of
independent Laplace/ExpNoise samples (semantics/argmax.py) gets its distribution
from m exact one-dimensional integrals instead of the chain; the values are the
same canonical closed forms, and `Distribution.method` says which path ran.

`Distribution.within(targets, gamma)` is the probability that every real
output lies within gamma of its target and every DOM output equals its target
(for the outputs given): the atoms |o - v| <= gamma are added to each exit
state's constraints, so no instrumentation of the program is needed.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from dipc_plus.semantics import ir
from dipc_plus.exact.linear import Atom, LinForm, Noise, atom
from dipc_plus.exact.sparse import accumulate
from dipc_plus.semantics.events import restricted_total
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES, DTMC
from dipc_plus.semantics.evaluate import domain_rank
from dipc_plus.exact.expoly import FRAC_ONE as ONE, FRAC_ZERO as ZERO, ExpFrac
from dipc_plus.semantics.pretty import format_atom, format_linform, format_noise
from dipc_plus.semantics.inputs import bind_inputs, python_value
from dipc_plus.semantics.values import plain_number, show_env, show_value, values_equal
from dipc_plus.errors import UserError
from dipc_plus.semantics.reach import absorption
from dipc_plus.semantics.argmax import recognise as recognise_argmax, samples_at
from dipc_plus.exact.argmax_integral import argmax_probabilities


# --------------------------------------------------------------------------- numbers


def certified(value, eps, prec: int = 128):
    """A certified arb ball containing value(eps), every operation at `prec` bits."""
    return ExpFrac.of(value).arb_value(python_value(eps), prec)


# --------------------------------------------------------------------------- inputs


def bind(program: ir.Program, inputs: Mapping) -> dict:
    """Inputs as the user gives them (arrays as lists; ints, Fractions, decimals) -> flat checked values.

    Flat names (``{'q[1]': 0, 'q[2]': 1}``, as `inputs.bind_inputs` returns them)
    are accepted too.
    """
    return bind_inputs(program, {k: python_value(v, f"--input {k}") for k, v in dict(inputs).items()})


def build_chain(program: ir.Program, inputs: Mapping, *, max_states: int = DEFAULT_MAX_STATES,
                **options) -> DTMC:
    """The DTMC of `program` at `inputs` (user-level or flat)."""
    return DTMC(program, bind(program, inputs), max_states=max_states, **options)


# --------------------------------------------------------------------------- outcomes


@dataclass(frozen=True)
class Outcome:
    """One exit of the chain: output values (a LinForm for a real/int output) and the
    constraints that still bind the noises those forms mention."""
    values: tuple
    constraints: frozenset = frozenset()


@dataclass
class Entry:
    """An outcome's exact probability = weight * P[constraints]; events and `within` multiply the
    weight by P[constraints and the event's atoms]."""
    weight: ExpFrac
    probability: ExpFrac


class Distribution:
    """The exact output distribution of a program at one input.

    ``dist[values]`` for programs with only Bool/DOM outputs (values a tuple in
    output order, or a single value when there is one output); otherwise
    iterate ``dist.items()`` over (Outcome, ExpFrac).  ``dist.probability(out=2)``
    adds up the outcomes whose named finite outputs have the given values.  The outcomes are kept
    in the order of the output domains (real outputs by their text).
    """

    def __init__(self, program: ir.Program, inputs: dict, entries: dict, noises: dict, chain: DTMC | None = None,
                 method: str = "chain"):
        self.program = program
        self.method = method  # "chain" or "argmax-integral": which path computed the entries
        self.inputs = inputs
        self.names = program.output_names()
        self.types = dict(program.outputs)
        self.entries: dict[Outcome, Entry] = dict(sorted(entries.items(), key=lambda kv: _outcome_key(kv[0], program)))
        self.noises: dict[int, Noise] = noises
        self.chain = chain

    # -- access --------------------------------------------------------------------------
    def items(self):
        return [(o, e.probability) for o, e in self.entries.items()]

    def outcomes(self) -> list:
        return list(self.entries)

    def __iter__(self):
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, key) -> ExpFrac:
        if isinstance(key, Outcome):
            return self.entries[key].probability
        if not isinstance(key, tuple):
            key = (key,)
        if len(key) != len(self.names):
            raise KeyError(f"give one value per output ({', '.join(self.names)})")
        return self.probability(**dict(zip(self.names, key)))

    def probability(self, **fixed) -> ExpFrac:
        """P[the named outputs take the given values] (finite outputs only; an array as a list)."""
        fixed = flat_outputs(self.program, fixed)
        for name in fixed:
            if isinstance(_output_type(self.program, name), (ir.RealT, ir.IntT)):
                raise UserError(f"'{name}' is a real output: use within(...) for it")
        idx = {n: i for i, n in enumerate(self.names)}
        return sum((e.probability for o, e in self.entries.items()
                    if all(values_equal(o.values[idx[n]], plain_number(v)) for n, v in fixed.items())), ZERO)

    def total(self) -> ExpFrac:
        return sum((e.probability for e in self.entries.values()), ZERO)

    def sums_to_one(self) -> bool:
        """Whether the probabilities add up to 1 identically in eps (an exact check)."""
        return self.total() == ONE

    def marginal(self) -> dict:
        """{finite output values: probability}: real outputs summed out."""
        keep = [i for i, n in enumerate(self.names) if not isinstance(self.types[n], (ir.RealT, ir.IntT))]
        out: dict = {}
        for o, e in self.entries.items():
            accumulate(out, tuple(o.values[i] for i in keep), e.probability)
        return out

    def within(self, targets: Mapping, gamma) -> ExpFrac:
        """P[every real output within gamma of its target and every finite one equal to it]:
        `gamma` a rational or {output: rational}."""
        idx = {n: i for i, n in enumerate(self.names)}
        flat_targets = _flatten_targets(self.program, targets)
        gammas = _gammas(self.program, flat_targets, gamma)

        def atoms(outcome):
            extra: list[Atom] = []
            for name, target in flat_targets.items():
                v = outcome.values[idx[name]]
                if isinstance(self.types[name], (ir.RealT, ir.IntT)):
                    if not isinstance(v, LinForm):
                        return None  # never assigned: not within anything
                    g, t = gammas[name], Fraction(target)
                    extra += [atom(v, "<=", LinForm.constant(t + g)), atom(v, ">=", LinForm.constant(t - g))]
                elif not values_equal(v, plain_number(target)):
                    return None
            return extra
        return restricted_total(self, atoms)

    # -- evaluation and printing ---------------------------------------------------------------
    def at(self, eps, prec: int = 128) -> dict:
        """{Outcome: certified arb ball at this eps}."""
        return {o: certified(e.probability, eps, prec) for o, e in self.entries.items()}

    def to_sympy(self) -> dict:
        return {self.label(o): e.probability.to_sympy() for o, e in self.entries.items()}

    def latex(self) -> str:
        rows = [f"{_latex_label(self.label(o))} & {e.probability.latex()}"
                for o, e in self.entries.items()]
        return "\\begin{array}{ll}\n" + " \\\\\n".join(rows) + "\n\\end{array}"

    def _repr_latex_(self) -> str:  # Jupyter
        return "$" + self.latex() + "$"

    def label(self, o: Outcome) -> str:
        """`out=[bot, top]` or `o1_1=1, o1_2=N9 - 1` (noises named N<k>, arrays grouped)."""
        return outputs_text(self.program, self.names, o.values, _render)

    def noise_legend(self) -> str:
        """`N9 ~ Lap(eps/9, 0)` for the noises the outcomes mention."""
        ids = set().union(*(v.noises() for oc in self.entries for v in oc.values if isinstance(v, LinForm)),
                          *(a.noises() for oc in self.entries for a in oc.constraints))
        return ", ".join(format_noise(i, self.noises[i]) for i in sorted(ids))

    def describe(self, o: Outcome) -> str:
        text = self.label(o)
        if o.constraints:
            text += " given " + " and ".join(format_atom(a) for a in sorted(o.constraints))
        return text

    def __str__(self) -> str:
        lines = [f"{self.describe(o)}: {e.probability}" for o, e in self.entries.items()]
        legend = self.noise_legend()
        if legend:
            lines.append(f"where {legend}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Distribution of {self.program.name}: {len(self)} outcomes>"


def _render(value) -> str:
    if isinstance(value, LinForm):
        return format_linform(value)
    return show_value(value)


def group_outputs(program: ir.Program, names: list, values: tuple, render) -> dict:
    """{display name: rendered value or list of them}: array elements grouped under their array
    (at the place of its first element)."""
    out: dict = {}
    for name, value in zip(names, values):
        base = name.split("[")[0]
        if "[" in name and base in program.arrays:
            out.setdefault(base, []).append(render(value))
        else:
            out[name] = render(value)
    return out


def outputs_text(program: ir.Program, names: list, values: tuple, render) -> str:
    """`out=[bot, top]`, `o1_1=1, o1_2=N9 - 1`: how reports name an outcome (arrays grouped)."""
    return show_env(group_outputs(program, names, values, render), braces=False, list_sep=", ")


def _latex_label(text: str) -> str:
    return "\\text{" + text.replace("_", "\\_") + "}"






# --------------------------------------------------------------------------- public API


def exit_weights(chain: DTMC) -> dict:
    """w(e) = reach(e) / P[C_e] for every exit node e (no quotient computed)."""
    w = absorption(chain.graph, chain.initial, "factor")
    return {e: w.get(e, ZERO) for e in chain.exits}


def distribution_of_chain(chain: DTMC) -> Distribution:
    weights = exit_weights(chain)
    entries: dict = {}
    for e in chain.exits:
        p = weights[e] * chain.constraint_probability(e)
        outcome = Outcome(chain.outputs_at(e), chain.graph.nodes[e]["state"].constraints)
        if outcome in entries:  # only possible without merging
            old = entries[outcome]
            old.weight = old.weight + weights[e]
            old.probability = old.probability + p
        else:
            entries[outcome] = Entry(weights[e], p)
    return Distribution(chain.program, chain.inputs, entries, dict(chain.noises), chain)


def _outcome_key(o: Outcome, program: ir.Program) -> tuple:
    """Outcomes in the order of the output domains (then by the text of real outputs)."""
    key = [(0, domain_rank(v, t), "") if isinstance(t, (ir.DomT, ir.BoolT)) else (1, 0, str(v))
           for v, (_, t) in zip(o.values, program.outputs)]
    key.append((2, 0, str(sorted(o.constraints))))
    return tuple(key)


def output_distribution(program: ir.Program, inputs: Mapping, *, max_states: int = DEFAULT_MAX_STATES,
                        shortcuts: bool = True, **options) -> Distribution:
    """The exact distribution of the outputs of `program` at `inputs`: by the argmax integral
    (method "argmax-integral") when `shortcuts` allows it and `program` is recognised as argmax/argmin
    of independent samples, else by the chain."""
    shape = recognise_argmax(program) if shortcuts else None
    if shape is not None:
        flat = bind(program, inputs)
        samples = samples_at(shape, flat)
        if samples is not None:
            return distribution_of_argmax(program, flat, argmax_probabilities(samples, minimum=shape.minimum),
                                          shape.labels)
    return distribution_of_chain(build_chain(program, inputs, max_states=max_states, **options))


def distribution_of_argmax(program: ir.Program, flat: dict, probabilities: list,
                           labels: tuple = ()) -> Distribution:
    """The Distribution of an argmax program's one output at flat inputs, given P[index = i] for
    i = 1..m (`output_distribution`'s, and accuracy.classes' for a permuted orbit representative);
    index i is the output value labels[i-1] (i itself when `labels` is empty)."""
    entries: dict = {}
    for i, p in enumerate(probabilities, start=1):
        if not p.is_zero():
            p = ExpFrac.of(p)
            entries[Outcome((labels[i - 1] if labels else i,), frozenset())] = Entry(p, p)
    return Distribution(program, flat, entries, {}, None, method="argmax-integral")


def flat_outputs(program: ir.Program, given: Mapping, what: str = "", broadcast: bool = False) -> dict:
    """{'val': [1, 2], 'c': 3} -> {'val[1]': 1, 'val[2]': 2, 'c': 3}: an output array given as a list
    (with `broadcast`, one value may stand for every element); `what` starts the message."""
    types = dict(program.outputs)
    flat: dict = {}
    for name, value in dict(given).items():
        elems = program.arrays.get(name) if name not in types else None
        if elems is None:
            flat[name] = value
            continue
        if broadcast and not isinstance(value, (list, tuple)):
            value = [value] * len(elems)
        if not isinstance(value, (list, tuple)) or len(value) != len(elems):
            raise UserError(f"{what}'{name}' is an array of {len(elems)} outputs: give a list of {len(elems)} values")
        flat.update(zip(elems, value))
    return flat


def _output_type(program: ir.Program, name: str) -> ir.Type:
    """The type of the flat output `name`, refused when `program` has no such output."""
    types = dict(program.outputs)
    if name not in types:
        raise UserError(f"'{name}' is not an output of {program.name}",
                        hint=f"its outputs are: {', '.join(program.output_names())}")
    return types[name]


def _flatten_targets(program: ir.Program, targets: Mapping) -> dict:
    """{'val': [1, 2]} -> {'val[1]': 1, 'val[2]': 2}; values checked against the output types."""
    out = flat_outputs(program, targets, "target ")
    for name, value in out.items():
        if isinstance(_output_type(program, name), (ir.RealT, ir.IntT)):
            v = python_value(value, f"target '{name}'")
            if not isinstance(v, Fraction):
                raise UserError(f"target of the real output '{name}' must be a number, not {value!r}")
            out[name] = v
        else:
            out[name] = plain_number(python_value(value, f"target '{name}'")) if not isinstance(value, (bool, str)) else value
    return out


def _gammas(program: ir.Program, flat_targets: dict, gamma) -> dict:
    types = dict(program.outputs)
    reals = [n for n in flat_targets if isinstance(types[n], (ir.RealT, ir.IntT))]
    if isinstance(gamma, Mapping):
        flat = flat_outputs(program, gamma, "gamma of ", broadcast=True)
        missing = [n for n in reals if n not in flat]
        if missing:
            raise UserError(f"no gamma for the real output(s) {', '.join(missing)}")
        result = {n: python_value(flat[n], f"gamma of '{n}'") for n in reals}
    else:
        if reals and gamma is None:
            raise UserError("a real output has a target: give gamma, the allowed distance")
        result = {n: python_value(gamma, "gamma") for n in reals}
    for n, g in result.items():
        if not isinstance(g, Fraction) or g < 0:
            raise UserError(f"gamma for '{n}' must be a non-negative rational, not {g}")
    return result


# --------------------------------------------------------------------------- a printable exact value


class Exact:
    """An exact probability (an ExpFrac in eps) that prints nicely and evaluates with certainty."""

    def __init__(self, value, what: str = ""):
        self.value = ExpFrac.of(value)
        self.what = what

    def at(self, eps, prec: int = 128):
        """A certified arb ball containing the value at this eps (a rational, e.g. Fraction(27, 82))."""
        return certified(self.value, eps, prec)

    def to_sympy(self):
        return self.value.to_sympy()

    def latex(self) -> str:
        return self.value.latex()

    def _repr_latex_(self) -> str:
        return "$" + self.latex() + "$"

    def __call__(self, eps: float) -> float:
        return self.value(eps)

    def __eq__(self, other):
        if isinstance(other, Exact):
            other = other.value
        return self.value == other

    def __hash__(self):
        return hash(self.value)

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"Exact({self.value})" if not self.what else f"Exact({self.what}: {self.value})"
