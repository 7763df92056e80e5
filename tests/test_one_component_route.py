"""`constraints.probability` is one route at a point and on a cell of symbolic inputs: the
same split into components, the same one-sided support atoms (ExpNoise is twice a Laplace
density on N > 0) and the same 2^k.  Checked here: on every cell of a random partition, the
cell's closed form at sample points equals the per-point closed form, for chains mixing
Laplace and exponential noises, with inputs linking no components; the cell route's refusals
(a noise the Laplace engine does not read, an id that is neither a noise nor an input); and
the one-sided density against numerical integration (scipy), independent of both routes."""
from __future__ import annotations

import math
import random
from fractions import Fraction as F

import pytest

from dipc_plus.exact import constraints
from dipc_plus.exact.cells import box
from dipc_plus.exact.linear import LinForm, Noise, atom
from dipc_plus.exact.piecewise import piecewise
from conftest import quad

KINDS = ("lap", "exp")


def chain_problem(rng: random.Random):
    """Atoms as a chain names them: noise ids 10.., input ids 100 and 101 (cell indices 0, 1)."""
    noises = {10 + j: Noise(rng.choice(KINDS), rng.choice([F(1), F(1, 2)])) for j in range(rng.randint(2, 3))}
    inputs = {100: 0, 101: 1}
    ids = list(noises)
    atoms = []
    for _ in range(rng.randint(1, 3)):
        i, j = rng.sample(ids, 2)
        q = {rng.choice(list(inputs)): rng.choice([F(1), F(-1), F(1, 2)])}
        off = F(rng.randint(-2, 2), 2)
        if rng.random() < 0.6:
            atoms.append(atom(LinForm.make({i: 1, **q}, off), rng.choice(["<", ">="]), LinForm.make({j: 1})))
        else:
            atoms.append(atom(LinForm.make({i: 1}), rng.choice(["<", ">"]), LinForm.make(q, off)))
    if rng.random() < 0.3:      # inputs alone: decided by the cell
        atoms.append(atom(LinForm.make({100: 1}), "<=", LinForm.make({101: 1})))
    return tuple(atoms), noises, inputs


def at_point(atoms, inputs: dict, q) -> list:
    """The atoms with the inputs' values moved into their constants."""
    fixed = []
    for a in atoms:
        coeffs, const = {}, a.form.const
        for i, c in a.form.coeffs:
            if i in inputs:
                const += c * q[inputs[i]]
            else:
                coeffs[i] = c
        fixed.append(atom(LinForm.make(coeffs, const), a.op, LinForm.constant(0)))
    return fixed


@pytest.mark.parametrize("seed", range(10))
def test_cell_forms_equal_point_forms_with_one_sided_noises(seed):
    rng = random.Random(500 + seed)
    atoms, noises, inputs = chain_problem(rng)
    constraints.clear_probability_caches()
    pieces = piecewise(lambda cell: constraints.probability(atoms, noises, inputs, cell), box(2))
    for piece in pieces:
        for q in piece.cell.sample(rng, 2):
            assert piece.form.at(q) == constraints.probability(at_point(atoms, inputs, q), noises), (atoms, q)


def test_exponential_noise_below_an_input_matches_integration():
    """N ~ ExpNoise(eps) (density eps e^(-eps x) on x > 0), P[N < q] = 1 - e^(-eps q) for q > 0
    and 0 for q <= 0: the cell route's closed forms against scipy at eps = 1."""
    below = atom(LinForm.make({7: 1}), "<", LinForm.make({3: 1}))
    noises = {7: Noise("exp", F(1))}
    pieces = piecewise(lambda cell: constraints.probability([below], noises, {3: 0}, cell), box(1))
    for q in (F(-1, 2), F(1, 4), F(3, 4)):
        (piece,) = [pc for pc in pieces if pc.cell.contains([q])]
        exact = piece.form.at([q]).arb_value(1)
        numeric = quad(lambda x: math.exp(-x), [], 0, float(q)) if q > 0 else 0.0
        assert abs(float(exact.mid()) - numeric) < 1e-9


def test_the_cell_route_refuses_what_the_laplace_engine_does_not_read():
    dlap = {7: Noise("dlap", F(1))}
    below = atom(LinForm.make({7: 1}), "<", LinForm.make({3: 1}))
    with pytest.raises(ValueError, match="'dlap' noise: only noises the Laplace engine reads are symbolic"):
        constraints.probability([below], dlap, {3: 0}, box(1))
    stray = atom(LinForm.make({7: 1, 8: 1}), "<", LinForm.make({3: 1}))
    with pytest.raises(ValueError, match="atom id 8 is neither a noise nor an input"):
        constraints.probability([stray], {7: Noise("lap", F(1))}, {3: 0}, box(1))
