"""A probability over symbolic inputs as a piecewise closed form: one per cell of a partition.

`laplace_engine.probability_on_cell` computes P[atoms] on a cell, or stops with
`NeedSplit(h)` when the answer depends on the sign of h there.  The driver splits
that cell on h (into ``h <= 0`` / ``h > 0``, or ``h < 0`` / ``h == 0`` / ``h > 0``
when h is a comparison of inputs alone, where the probability jumps) and runs the
children, until every piece has its closed form.  The pieces partition the root
cell: every input of it lies in exactly one.
"""
from __future__ import annotations

from dataclasses import dataclass

from dipc_plus.exact.cells import Cell, NeedSplit
from dipc_plus.exact.laplace_engine import probability_on_cell
from dipc_plus.exact.symbolic_terms import SymbolicForm

__all__ = ["Piece", "piecewise", "piecewise_probability"]


@dataclass
class Piece:
    """One cell and the closed form of the probability on it."""
    cell: Cell
    form: SymbolicForm


def piecewise_probability(atoms: tuple, noises: tuple, root: Cell, max_cells: int = 10_000) -> list:
    """[Piece] partitioning `root`, for atoms over noises 0..n-1 and inputs n..n+p-1 (see
    `probability_on_cell`)."""
    return piecewise(lambda cell: probability_on_cell(atoms, noises, cell), root, max_cells)


def piecewise(compute, root: Cell, max_cells: int = 10_000) -> list:
    """[Piece] partitioning `root`, `compute(cell)` giving a cell's closed form or raising
    NeedSplit; `max_cells` bounds the work (ValueError beyond it)."""
    start = root.normalised()
    stack = [] if start is None else [start]
    pieces = []
    while stack:
        cell = stack.pop()
        try:
            form = compute(cell)
        except NeedSplit as split:
            stack.extend(reversed(cell.children(split)))
            if len(pieces) + len(stack) > max_cells:
                raise ValueError(f"more than {max_cells} cells")
            continue
        pieces.append(Piece(cell, form))
    return pieces
