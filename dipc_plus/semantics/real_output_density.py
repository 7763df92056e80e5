"""The density of a program's real outputs at one input, for every output value: a piecewise closed form in w.

A real output that carries noise (say r = q[i] + N) has no probability mass at any
value, so a privacy question about it without named events is a question about
densities.  At a fixed input u the walk of `symbolic_chain` gives, per path, its atoms
and the linear forms of the real outputs at the exit.  For the released (noisy) real
outputs R_1..R_k we keep their values w_1..w_k as never-integrated coordinates, exactly
as symbolic inputs are kept (v = eps w, cells in w): the joint CDF

    F(w) = P[finite outputs = o, R_1 <= w_1, ..., R_k <= w_k]

is the probability of the path atoms plus the atoms ``R_j - w_j <= 0``, which
`constraints.probability` computes as one closed form per cell of w-space.  The density is
the mixed derivative d^k F / dw_1..dw_k, taken term by term on each open cell (where
F is one analytic closed form): d/dw = eps d/dv.  This covers any released linear
form (a noisy query released as is, where the change of variables N = w - q has
Jacobian 1, as well as a gap r - rT of two noises), which is why the CDF route is
taken instead of substituting a noise.

Real outputs that carry no noise on a path (unassigned, or a constant at u) are
point masses: they are part of the outcome's key (`RealOutcome.fixed`), and an outcome
with no released output has a probability, not a density.  Equality cells of w
(measure zero) carry no density and are left out.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import fmpq_poly

from dipc_plus.errors import ResourceLimit
from dipc_plus.exact.cells import Cell
from dipc_plus.exact.convert import to_fmpq
from dipc_plus.exact.linear import Atom, LinForm
from dipc_plus.exact.piecewise import Piece
from dipc_plus.exact.sparse import accumulate
from dipc_plus.exact.symbolic_terms import SymbolicForm
from dipc_plus.semantics.symbolic_chain import SymbolicPaths
from dipc_plus.semantics.symbolic_distribution import path_pieces

__all__ = ["RealOutcome", "OutcomeDensity", "real_output_densities", "derivative", "substitute_inputs"]


@dataclass(frozen=True)
class RealOutcome:
    """An outcome class: the finite outputs' values, the real outputs without noise as
    (name, value or None if unassigned), and the names of the released real outputs
    (the coordinates w_0..w_{k-1} of the density, in this order)."""
    finite: tuple
    fixed: tuple
    released: tuple


@dataclass
class OutcomeDensity:
    """The CDF pieces (every cell of w-space, equality cells included) and the density pieces
    (open cells only; for k = 0 one piece holding the probability)."""
    outcome: RealOutcome
    cdf: list
    density: list


def substitute_inputs(form: LinForm, input_ids: dict, u: list) -> LinForm:
    """The form with every input id replaced by its value in u."""
    coeffs = {}
    const = Fraction(form.const)
    for i, c in form.coeffs:
        if i in input_ids:
            const += c * Fraction(u[input_ids[i]])
        else:
            coeffs[i] = c
    return LinForm.make(coeffs, const)


def derivative(form: SymbolicForm, j: int) -> SymbolicForm:
    """d/dw_j of a closed form in (v, eps), v = eps w: eps times d/dv_j, term by term."""
    out: dict = {}
    eps = fmpq_poly([0, 1])
    for (lv, le, powers), P in form.terms.items():
        if powers[j]:
            accumulate(out, (lv, le, powers[:j] + (powers[j] - 1,) + powers[j + 1:]), P * powers[j] * eps)
        if lv[j]:
            accumulate(out, (lv, le, powers), P * to_fmpq(lv[j]) * eps)
    return SymbolicForm(form.p, out)


def real_output_densities(paths: SymbolicPaths, u: list, max_cells: int = 10_000) -> dict:
    """{RealOutcome: OutcomeDensity} at the real input u (values in the order of
    `paths.real_inputs`), for every outcome class of positive probability."""
    u = [Fraction(x) for x in u]
    if len(u) != len(paths.real_inputs):
        raise ValueError(f"{len(u)} values for {len(paths.real_inputs)} real inputs")
    ids = paths.input_ids
    top = max(list(paths.noises) + list(ids) + [0]) + 1     # the w ids start here
    groups: dict = {}
    for key, atom_sets in paths.paths.items():
        forms = paths.real_forms.get(key) or [()] * len(atom_sets)
        for atoms, reals in zip(atom_sets, forms):
            atoms = frozenset(Atom(substitute_inputs(a.form, ids, u), a.op) for a in atoms)
            fixed, released = [], []
            for name, f in zip(paths.real_output_names, reals):
                if f is None:
                    fixed.append((name, None))
                    continue
                f = substitute_inputs(f, ids, u)
                if f.is_constant():
                    fixed.append((name, f.const))
                else:
                    released.append((name, f))
            outcome = RealOutcome(key, tuple(fixed), tuple(n for n, _ in released))
            cdf_atoms = atoms | {Atom(f - LinForm(((top + j, Fraction(1)),), Fraction(0)), "<=")
                                 for j, (_, f) in enumerate(released)}
            groups.setdefault(outcome, []).append(cdf_atoms)
    out = {}
    for outcome, atom_sets in groups.items():
        k = len(outcome.released)
        cdf = path_pieces(atom_sets, paths.noises, {top + j: j for j in range(k)}, Cell(k, []), max_cells,
                          too_many=lambda released=outcome.released: ResourceLimit(
                              f"the density of {released} needs more than {max_cells} cells"))
        density = []
        for piece in cdf:
            if any(op == "==" for _, op in piece.cell.constraints):
                continue
            form = piece.form
            for j in range(k):
                form = derivative(form, j)
            density.append(Piece(piece.cell, form))
        if all(pc.form.is_zero() for pc in density):
            continue
        out[outcome] = OutcomeDensity(outcome, cdf, density)
    return out
