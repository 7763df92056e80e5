"""A probability over symbolic inputs as a piecewise closed form: one per cell of a partition.

`constraints.probability` (through `laplace_engine.probability_on_cell`) computes
P[atoms] on a cell, or stops with `NeedSplit(h)` when the answer depends on the sign of h there.  The driver splits
that cell on h (into ``h <= 0`` / ``h > 0``, or ``h < 0`` / ``h == 0`` / ``h > 0``
when h is a comparison of inputs alone, where the probability jumps) and runs the
children, until every piece has its closed form.  The pieces partition the root
cell: every input of it lies in exactly one.
"""
from __future__ import annotations

from dataclasses import dataclass

from dipc_plus.exact.cells import Cell, NeedSplit
from dipc_plus.exact.symbolic_terms import SymbolicForm

__all__ = ["Piece", "piecewise"]


@dataclass
class Piece:
    """One cell and the closed form of the probability on it.

    The probability 1 on the whole box [-1, 1]:

    >>> from dipc_plus.exact.cells import box
    >>> from dipc_plus.exact.symbolic_terms import SymbolicForm
    >>> piece = Piece(box(1), SymbolicForm.one(1))
    >>> print(piece.cell, "|", piece.form.at([0]))
    Cell(-1*q0 <= 1 and q0 <= 1) | 1

    P[N < q] for N ~ Lap(eps) and an input q in [-1, 1], by the Laplace
    engine on each cell: the Laplace CDF, 1 - e^(-q eps)/2 for q >= 0 and e^(q eps)/2 for q < 0:

    >>> from fractions import Fraction
    >>> from dipc_plus.exact.laplace_engine import probability_on_cell
    >>> from dipc_plus.exact.linear import LinForm, Noise, atom
    >>> below_q = atom(LinForm.make({0: 1}), "<", LinForm.make({1: 1}))    # noise 0, input 1
    >>> lap = (Noise("lap", Fraction(1)),)
    >>> for piece in piecewise(lambda cell: probability_on_cell((below_q,), lap, cell), box(1)):
    ...     print(piece.cell, "|", piece.form)
    Cell(-1*q0 <= 1 and -1*q0 <= 0 and q0 <= 1) | 1 - 1/2*e^(-q0*eps)
    Cell(-1*q0 <= 1 and q0 <= 1 and q0 < 0) | 1/2*e^(q0*eps)
    """
    cell: Cell
    form: SymbolicForm


def piecewise(compute, root: Cell, max_cells: int = 10_000, on_cell=None, too_many=None) -> list:
    """[Piece] partitioning `root`, `compute(cell)` giving a cell's closed form or raising
    NeedSplit; `max_cells` bounds the work: beyond it the error `too_many()` (worded by the caller)
    is raised, or a ValueError without one; `on_cell(cell, pieces_done)`, if given, is called before
    each compute (to show progress).

    A toy `compute` that needs the sign of q0 - 1/2 (2 q0 - 1) and answers with a constant:

    >>> from dipc_plus.exact.cells import box
    >>> from dipc_plus.exact.symbolic_terms import SymbolicForm
    >>> def compute(cell):
    ...     cell.sign((2, -1))         # raises NeedSplit where 2 q0 - 1 changes sign
    ...     return SymbolicForm.one(1)
    >>> [str(p.cell) for p in piecewise(compute, box(1, 0, 1))]
    ['Cell(-1*q0 <= 0 and q0 <= 1 and 2*q0 <= 1)', 'Cell(-2*q0 < -1 and -1*q0 <= 0 and q0 <= 1)']
    """
    start = root.normalised()
    stack = [] if start is None else [start]
    pieces = []
    while stack:
        cell = stack.pop()
        if on_cell is not None:
            on_cell(cell, len(pieces))
        try:
            form = compute(cell)
        except NeedSplit as split:
            stack.extend(reversed(cell.children(split)))
            if len(pieces) + len(stack) > max_cells:
                raise ValueError(f"more than {max_cells} cells") if too_many is None else too_many()
            continue
        pieces.append(Piece(cell, form))
    return pieces
