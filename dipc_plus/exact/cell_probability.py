"""P[constraint set] on a cell of the inputs, for atoms as a chain builds them.

A chain names its noises by ids of its own, and with symbolic inputs an atom also
holds ids standing for inputs.  This is the symbolic counterpart of
`constraints.probability`: it splits the atoms into components that share a noise
(inputs link nothing), renames each component's noises 0..k-1 and its inputs to
the engine's ids k + index, asks `laplace_engine.probability_on_cell` for each, and
multiplies.  Equal renamed components on the same cell share one memo entry.
`NeedSplit` passes through to the caller, who splits the cell.  Every noise the Laplace
engine reads takes this path; one read on one side only (`EngineReading.positive_only`,
the one-sided exponential) adds its atom N > 0 to its component and doubles the
component's probability, as `constraints.component_probability` does at a point.
"""
from __future__ import annotations

from fractions import Fraction

from flint import fmpq_poly

from dipc_plus.exact.cells import Cell
from dipc_plus.exact.constraints import components, support_atoms
from dipc_plus.exact.laplace_engine import probability_on_cell
from dipc_plus.exact.linear import Atom
from dipc_plus.exact.memo import remember
from dipc_plus.exact.noises import engine_reading
from dipc_plus.exact.symbolic_terms import SymbolicForm

__all__ = ["probability_of_set", "clear_cell_memo"]

_MEMO: dict = {}
_MEMO_LIMIT = 100_000


def _read_by_laplace_engine(nz) -> bool:
    """The Laplace engine reads `nz` (on the whole line or on one side, exact/noises/)."""
    return engine_reading(nz).noise.kind == "lap"


def probability_of_set(atoms, noises: dict, inputs: dict, cell: Cell) -> SymbolicForm:
    """P[every atom holds] on `cell`: `noises` maps noise ids to `Noise`, `inputs` maps the ids
    of symbolic inputs to their index in the cell's q.

    A chain's noise 7 ~ Lap(eps) below its input 3 (the cell's q0), for q0 in [0, 1]:
    1 - e^(-eps q0)/2, the Laplace CDF.

    >>> from fractions import Fraction
    >>> from dipc_plus.exact.cells import box
    >>> from dipc_plus.exact.linear import LinForm, Noise, atom
    >>> below = atom(LinForm.make({7: 1}), "<", LinForm.make({3: 1}))
    >>> form = probability_of_set([below], {7: Noise("lap", Fraction(1))}, {3: 0}, box(1, 0, 1))
    >>> print(form.at([Fraction(1)]))
    1 - 1/2*e^(-eps)
    """
    atoms = list(atoms)
    p = cell.p
    ignore = frozenset(inputs)
    for a in atoms:
        for i in a.noises():
            if i not in noises and i not in inputs:
                raise ValueError(f"atom id {i} is neither a noise nor an input")
            if i in noises and not _read_by_laplace_engine(noises[i]):
                raise ValueError(f"a {noises[i].kind!r} noise: only noises the Laplace engine reads are symbolic")
    readings = {i: engine_reading(nz) for i, nz in noises.items()}
    result = SymbolicForm.one(p)
    alone = [a for a in atoms if not (a.noises() - ignore)]
    if alone:   # inputs (or constants) alone: decided by the cell, no noise to integrate
        result = _memo(tuple(_renamed(a, {}, inputs, 0) for a in alone), (), cell)
        if result.is_zero():
            return result
    for comp in components(atoms, ignore):
        ids = sorted({i for a in comp for i in a.noises()} - ignore)
        new_id = {i: k for k, i in enumerate(ids)}
        renamed = tuple(sorted(_renamed(a, new_id, inputs, len(ids)) for a in comp))
        support = support_atoms([readings[i] for i in ids])
        value = _memo(renamed + support, tuple(readings[i].noise for i in ids), cell)
        result = result * (value * _constant(p, 2 ** len(support)) if support else value)
        if result.is_zero():
            break
    return result


def clear_cell_memo() -> None:
    """Forget the memoised components (for cold timings; results never depend on it).

    >>> clear_cell_memo()
    >>> len(_MEMO)
    0
    """
    _MEMO.clear()


def _memo(atoms: tuple, noises: tuple, cell: Cell) -> SymbolicForm:
    key = (atoms, noises, cell)
    found = _MEMO.get(key)
    return found if found is not None else remember(_MEMO, _MEMO_LIMIT, key, probability_on_cell(atoms, noises, cell))


def _constant(p: int, c: int) -> SymbolicForm:
    return SymbolicForm(p, {((Fraction(0),) * p, Fraction(0), (0,) * p): fmpq_poly([c])})


def _renamed(a: Atom, new_id: dict, inputs: dict, n: int) -> Atom:
    """Noise ids by `new_id`, input ids to n + their index (the form's scale is kept)."""
    return Atom(a.form.renamed({i: new_id[i] if i in new_id else n + inputs[i] for i in a.noises()}), a.op)
