"""A program's output distribution over a box of its real inputs: per output, a piecewise closed form.

`symbolic_paths` gives, per finite output value, the atom sets of its paths; here each
output's probability, the sum over its paths of P[atoms] (`constraints.probability` on a cell), is
split into the cells of the box where one closed form holds (`piecewise`).  Each
output is split on its own and only when asked (`pieces`): one shared partition for
all outputs would multiply their cells together.  Every output's pieces partition
the box (equality cells included), so every input of the box has exactly one closed
form per output, equal to the per-point chain's there.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.errors import ResourceLimit, UserError
from dipc_plus.exact.constraints import probability as probability_of_set
from dipc_plus.exact.cells import Cell, box_of
from dipc_plus.exact.piecewise import Piece, piecewise
from dipc_plus.exact.symbolic_terms import SymbolicForm
from dipc_plus.execution import limits
from dipc_plus.semantics import ir
from dipc_plus.semantics.inputs import coerce, flat_elements
from dipc_plus.semantics.symbolic_chain import HINT, SymbolicPaths, symbolic_paths
from dipc_plus.semantics.symbolic_size import cells_at_least
from dipc_plus.semantics.values import show_value
from dipc_plus.exact.convert import fmt_q, linear_text

__all__ = ["SymbolicDistribution", "symbolic_distribution", "path_pieces", "bind_finite_inputs", "box_bounds", "cell_text"]


def symbolic_distribution(program: ir.Program, box: dict, finite_inputs: dict | None = None,
                          max_cells: int | None = None) -> "SymbolicDistribution":
    """The distribution of `program`'s finite outputs for every input of `box`: {name: (lo, hi)},
    a name being a real input or a real array (every element gets the bounds).  `finite_inputs`
    gives the Bool/DOM inputs (flat names -> values).  `NotSymbolic` where the path does not
    apply; a `UserError` for a bad box."""
    real_inputs = [n for n, t in program.inputs if isinstance(t, ir.RealT)]
    bounds = box_bounds(program, box, real_inputs)    # a bad box is reported before any walk
    if not real_inputs:
        raise UserError(f"{program.name} has no real input: nothing to keep symbolic", hint=HINT)
    paths = symbolic_paths(program, finite_inputs)
    sd = SymbolicDistribution(paths, bounds, max_cells)
    sd.refuse_too_many_cells()
    return sd


def bind_finite_inputs(program: ir.Program, given: dict) -> dict:
    """The Bool/DOM inputs given as the user writes them ({'x': true, 'r': [1, 2]}) -> flat checked
    values; a real input given a value is refused (it is a symbol: give it a box)."""
    types = dict(program.inputs)
    out: dict = {}
    for name, value in given.items():
        elems = named_inputs(program, name, "--input")
        values = value if isinstance(value, list) and name not in types else [value]
        if len(values) != len(elems):
            raise UserError(f"--input {name}: {len(elems)} values needed, {len(values)} given")
        for e, v in zip(elems, values):
            if isinstance(types[e], ir.RealT):
                raise UserError(f"--input {name}: a real input is a symbol here",
                                hint=f"give its range with --box {name}=[LO,HI] instead; {HINT}")
            out[e] = coerce(v, types[e], f"input {e}")
    return out


def named_inputs(program: ir.Program, name: str, option: str) -> list:
    """The flat inputs `name` stands for (itself, or its array's elements); `option` starts the error."""
    elems = flat_elements(program, name, program.inputs)
    if elems is None:
        raise UserError(f"{option} {name}: '{name}' is not an input of {program.name}",
                        hint=f"its inputs are {', '.join(program.input_names())}")
    return elems


def box_bounds(program: ir.Program, box: dict, real_inputs: list) -> list:
    """[(lo, hi)] per real input (Fractions), from {name or array name: (lo, hi)}."""
    types = dict(program.inputs)
    flat: dict = {}
    for name, pair in box.items():
        for e in named_inputs(program, name, "--box"):
            if not isinstance(types[e], ir.RealT):
                raise UserError(f"--box {name}: '{e}' is a {types[e]} input, not a real one",
                                hint=f"give a finite input with --input {name}=...; {HINT}")
            lo, hi = (Fraction(x) for x in pair)
            if lo > hi:
                raise UserError(f"--box {name}: the lower end {lo} is above the upper end {hi}",
                                hint="write NAME=[LO,HI] with LO <= HI")
            flat[e] = (lo, hi)
    missing = [n for n in real_inputs if n not in flat]
    if missing:
        raise UserError(f"--box: no bounds for the real input(s) {', '.join(missing)}",
                        hint=f"give every real input a box, e.g. --box {missing[0].split('[')[0]}=[-1,1]; {HINT}")
    return [flat[n] for n in real_inputs]


def path_pieces(atom_sets, noises: dict, ids: dict, root: Cell, max_cells: int, on_cell=None,
                too_many=None) -> list:
    """[Piece] of the sum over `atom_sets` of P[the set's atoms] on the cells of `root` (`ids`: symbol
    id -> coordinate), the one way the symbolic routes turn paths into a piecewise closed form.
    More than `max_cells` cells raises `too_many()` (a ResourceLimit worded by the caller) when
    given, else piecewise's ValueError (`piecewise` raises either)."""
    def compute(cell):
        total = SymbolicForm(cell.p, {})
        for atoms in atom_sets:
            total = total + probability_of_set(atoms, noises, ids, cell)
        return total

    return piecewise(compute, root, max_cells, on_cell, too_many)


class SymbolicDistribution:
    """Per output value (a tuple of the finite outputs), the pieces of the box with its closed
    form on each (`pieces`, computed on first use).  `at(q)` gives the exact closed forms in eps
    at one input of the box."""

    def __init__(self, paths: SymbolicPaths, bounds: list, max_cells: int | None = None):
        self.paths = paths
        self.program = paths.program
        self.input_names = paths.real_inputs   # the symbolic inputs, in the order of q
        self.output_names = paths.output_names
        self.bounds = bounds
        self.root = box_of(bounds)
        self.max_cells = limits.get("cells") if max_cells is None else max_cells
        self._pieces: dict = {}
        self._least: dict | None = None

    def outputs(self) -> list:
        return self.paths.outputs()

    def cells_at_least(self) -> dict:
        """{output value: `symbolic_size.CellBound`}: cells each output needs at least (no splitting)."""
        if self._least is None:
            self._least = cells_at_least(self.paths, self.bounds)
        return self._least

    def refuse_too_many_cells(self) -> None:
        """A ResourceLimit, before any cell is computed, when an output needs more cells than
        `max_cells` (by `cells_at_least`): splitting would only find it out after long work."""
        for output, least in self.cells_at_least().items():
            if least.count > self.max_cells:
                raise ResourceLimit(f"{self.program.name}: output {self.output_text(output)} needs "
                                    f"{least.text()}, more than the limit of {self.max_cells} cells",
                                    hint=f"use fewer queries or a smaller box; {limits.hint('cells')}; or {HINT}")

    def pieces(self, output, on_cell=None) -> list:
        """[Piece] partitioning the box for one output value; `on_cell(cell, pieces_done)` is
        called before each cell is worked on (progress, the ledger of a guarded run)."""
        found = self._pieces.get(output)
        if found is None:
            def too_many():
                return ResourceLimit(f"{self.program.name}: output {self.output_text(output)} needs "
                                     f"more than {self.max_cells} cells of the box",
                                     hint=f"use a smaller box or fewer queries; {limits.hint('cells')}; or {HINT}")

            found = path_pieces(self.paths.paths[output], self.paths.noises, self.paths.input_ids,
                                self.root, self.max_cells, on_cell, too_many)
            self._pieces[output] = found
        return found

    def cells(self) -> dict:
        """{output value: [Piece]} for every output (each computed if not yet)."""
        return {o: self.pieces(o) for o in self.outputs()}

    def piece_at(self, output, q) -> Piece:
        q = self.point(q)
        owners = [pc for pc in self.pieces(output) if pc.cell.contains(q)]
        if len(owners) != 1:   # the pieces partition the box
            raise AssertionError(f"{len(owners)} cells contain {q}")
        return owners[0]

    def at(self, q) -> dict:
        """{output value: the exact closed form (ExpPoly in eps) at input q} (outputs of
        probability 0 there included, as 0)."""
        q = self.point(q)
        return {o: self.piece_at(o, q).form.at(q) for o in self.outputs()}

    def point(self, q) -> list:
        """q as a list of Fractions, checked to lie in the box."""
        q = [Fraction(x) for x in q]
        if len(q) != len(self.bounds):
            raise UserError(f"{len(q)} values given for {len(self.bounds)} real inputs "
                            f"({', '.join(self.input_names)})")
        for name, x, (lo, hi) in zip(self.input_names, q, self.bounds):
            if not lo <= x <= hi:
                raise UserError(f"{name} = {x} lies outside the box [{lo}, {hi}]")
        return q

    def output_text(self, output) -> str:
        """`out=[bot, top, none]` (array outputs grouped, as the per-point report names outcomes)."""
        from dipc_plus.semantics.distribution import outputs_text
        return outputs_text(self.program, self.output_names, output, show_value)

    def cell_text(self, cell: Cell) -> str:
        return cell_text(cell, self.input_names, self.root)

    def __repr__(self) -> str:
        return f"<SymbolicDistribution of {self.program.name}: {len(self.outputs())} outputs>"


def cell_text(cell: Cell, names: list, root: Cell | None = None) -> str:
    """The cell's constraints as inequalities on the named inputs (`q[1] - q[2] < 0`,
    `q[1] == 1/2`), leaving out those of `root` (the box), or 'the whole box'."""
    skip = set(root.constraints) if root is not None else set()
    parts = []
    for h, op in cell.constraints:
        if (h, op) in skip:
            continue
        if next((c for c in h[:-1] if c), 0) < 0:    # -q[1] <= 0 reads better as q[1] >= 0
            h, op = tuple(-c for c in h), {"<": ">", "<=": ">="}.get(op, op)
        text = f"{linear_text(h[:-1], names)} {op} {fmt_q(Fraction(-h[-1]))}"
        if text not in parts:       # h == 0 and -h == 0 read the same
            parts.append(text)
    return " and ".join(parts) or "the whole box"
