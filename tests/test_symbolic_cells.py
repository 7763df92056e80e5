"""The Laplace engine over symbolic inputs: each cell's closed form equals the per-point closed
form at rational points of the cell (inside it, on its closed faces and on equality cells),
the cells partition the box, and one cell's form agrees with scipy quadrature."""
from __future__ import annotations

import random
from fractions import Fraction as F
from functools import lru_cache
from itertools import product

import pytest

from dipc_plus.exact import constraints
from dipc_plus.exact import laplace_engine as le
from dipc_plus.exact.cells import Cell, NeedSplit, box
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.exact.linear import LinForm, Noise, atom
from dipc_plus.exact.piecewise import piecewise
from conftest import lap_cdf, lap_pdf, lap_sf, quad

THRESHOLD_RATE, QUERY_RATE = F(1, 2), F(1, 4)   # Sparse c = 1: Lap(2/eps) and Lap(4/eps)


def threshold_region(m: int, above: tuple, T) -> tuple:
    """Noise 0 is the threshold's, noise i (1..m) query i's, input id m+i is q_i: query i
    (i <= len(above)) is at or above the noisy threshold iff above[i-1]."""
    atoms = []
    for i, up in enumerate(above, start=1):
        lhs, rhs = LinForm.make({i: 1, m + i: 1}), LinForm.make({0: 1}, T)
        atoms.append(atom(lhs, ">=" if up else "<", rhs))
    return tuple(atoms)


def threshold_noises(m: int) -> tuple:
    return (Noise("lap", THRESHOLD_RATE),) + (Noise("lap", QUERY_RATE),) * m


def ordering_region() -> tuple:
    """X_i = q_i + N_i (inputs as means): X_0 < X_1 < X_2 (noises 0..2, inputs 3..5)."""
    x = [LinForm.make({i: 1, 3 + i: 1}) for i in range(3)]
    return atom(x[0], "<", x[1]), atom(x[1], "<", x[2])


ORDERING_NOISES = (Noise("lap", F(1)), Noise("lap", F(1, 2)), Noise("lap", F(1, 3)))


def jump_region(op: str) -> tuple:
    """A noise-free comparison of the inputs (q_0 op q_1) and a noisy one: the probability
    jumps across q_0 = q_1 (noises 0, 1; inputs 2, 3)."""
    return (atom(LinForm.make({2: 1}), op, LinForm.make({3: 1})),
            atom(LinForm.make({0: 1, 2: 1}), "<", LinForm.make({1: 1, 3: 1}, F(1, 3))))


JUMP_NOISES = (Noise("lap", F(1)), Noise("lap", F(1, 2)))

CASES = {}
for _m in (2, 3):
    for _above in product((False, True), repeat=_m):
        CASES[f"sparse m={_m} {''.join('TB'[not a] for a in _above)}"] = (
            threshold_region(_m, _above, 0), threshold_noises(_m), _m)
for _k in range(1, 4):   # AboveThreshold, T = 1/2: k-1 queries below, then the k-th above
    CASES[f"above_threshold T=1/2 k={_k}"] = (
        threshold_region(3, (False,) * (_k - 1) + (True,), F(1, 2)), threshold_noises(3), 3)
CASES["ordering of 3 samples"] = (ordering_region(), ORDERING_NOISES, 3)
for _op in ("<", "<=", "==", "!="):
    CASES[f"inputs alone q0 {_op} q1"] = (jump_region(_op), JUMP_NOISES, 2)


def piecewise_probability(atoms: tuple, noises: tuple, root: Cell) -> list:
    """The engine's pieces for atoms over noises 0..n-1 and inputs n.. on `root`."""
    return piecewise(lambda cell: le.probability_on_cell(atoms, noises, cell), root)


@lru_cache(maxsize=None)
def pieces_of(name: str) -> list:
    atoms, noises, p = CASES[name]
    return piecewise_probability(atoms, noises, box(p))


def per_point(atoms: tuple, noises: tuple, q) -> object:
    """Today's per-point closed form: the inputs' values moved into the atoms' constants."""
    n = len(noises)
    fixed = []
    for a in atoms:
        coeffs, const = {}, a.form.const
        for i, c in a.form.coeffs:
            if i < n:
                coeffs[i] = c
            else:
                const += c * q[i - n]
        fixed.append(atom(LinForm.make(coeffs, const), a.op, LinForm.constant(0)))
    return le.probability(tuple(fixed), noises)


def grid_points(p: int) -> list:
    """Every point of {-1, -1/2, 0, 1/2, 1}^p: they lie on the faces the cells share."""
    return [list(q) for q in product([F(-1), F(-1, 2), F(0), F(1, 2), F(1)], repeat=p)]


def random_points(p: int, rng: random.Random, k: int) -> list:
    """k random rational points of the box [-1, 1]^p."""
    out = []
    for _ in range(k):
        den = rng.choice([3, 4, 7, 12])
        out.append([F(rng.randint(-den, den), den) for _ in range(p)])
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_cell_form_is_the_per_point_form_inside_the_cell(name):
    atoms, noises, p = CASES[name]
    rng = random.Random(name)
    pieces = pieces_of(name)
    assert pieces
    for piece in pieces:
        for q in piece.cell.sample(rng, 3):
            assert piece.cell.contains(q)
            assert piece.form.at(q) == per_point(atoms, noises, q), (piece.cell, q)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_cells_partition_the_box_and_hold_on_its_faces(name):
    """Grid points sit on cell boundaries (closed faces, equality cells): each lies in exactly
    one cell, whose form is the per-point form there; random points of the box too."""
    atoms, noises, p = CASES[name]
    rng = random.Random(name)
    pieces = pieces_of(name)
    points = grid_points(p) + random_points(p, rng, 40)
    rng.shuffle(points)
    for q in points[:60]:
        owners = [pc for pc in pieces if pc.cell.contains(q)]
        assert len(owners) == 1, (q, [pc.cell for pc in owners])
        assert owners[0].form.at(q) == per_point(atoms, noises, q), (owners[0].cell, q)
    assert all(not any(pc.cell.contains(q) for pc in pieces) for q in ([F(2)] * p, [F(-3, 2)] * p))


def test_the_forms_are_not_trivial():
    """The checks above compare something: the forms vary, and splits happened."""
    big = pieces_of("sparse m=3 BBT")
    assert len(big) > 4 and max(len(pc.form) for pc in big) > 5
    assert len({str(pc.form) for pc in big}) > 4


def test_an_input_only_comparison_makes_an_equality_cell():
    for op, holds_on_diagonal in (("<", False), ("<=", True), ("==", True), ("!=", False)):
        pieces = pieces_of(f"inputs alone q0 {op} q1")
        flat = [pc for pc in pieces if any(o == "==" for _, o in pc.cell.constraints)]
        assert flat, op
        for pc in flat:
            assert pc.cell.contains([F(1, 5), F(1, 5)])
            assert pc.form.is_zero() != holds_on_diagonal


def test_closed_form_of_a_cell_against_quadrature():
    """P[X0 < X1 < X2], X_i = q_i + Lap(a_i eps): the integral over x1 of pdf_1 cdf_0 sf_2."""
    pieces = pieces_of("ordering of 3 samples")
    rng = random.Random(5)
    piece = max(pieces, key=lambda pc: len(pc.form))
    q = piece.cell.sample(rng, 2)[1]
    for eps in (F(1, 2), F(2)):
        ball = piece.form.at(q).arb_value(eps, prec=200)
        b = [float(nz.rate * eps) for nz in ORDERING_NOISES]
        m = [float(x) for x in q]
        want = quad(lambda x: lap_pdf(x, m[1], b[1]) * lap_cdf(x, m[0], b[0]) * lap_sf(x, m[2], b[2]), m)
        assert abs(float(ball.mid()) - want) <= 1e-9 * want


def test_the_engine_asks_for_a_split_it_cannot_decide_on_the_cell():
    """On the whole box, Sparse's second query's region depends on the sign of q_1 - q_2 + ...:
    the engine stops with NeedSplit, whose h is a linear form over (q, 1)."""
    atoms, noises, p = CASES["sparse m=2 BT"]
    with pytest.raises(NeedSplit) as stop:
        le.probability_on_cell(atoms, noises, box(p))
    assert len(stop.value.h) == p + 1 and any(stop.value.h[:-1]) and not stop.value.jump
    # on a piece of the partition it does not stop
    piece = pieces_of("sparse m=2 BT")[0]
    assert le.probability_on_cell(atoms, noises, piece.cell) == piece.form


def test_cell_questions():
    cell = Cell(2, [((1, -1, 0), "<"), ((-1, 0, -1), "<="), ((0, 1, -1), "<=")])   # -1 <= q0 < q1 <= 1
    assert cell.sign((1, -1, 0)) == -1
    assert cell.sign((0, 1, -2)) == -1                # q1 < 2
    with pytest.raises(NeedSplit) as stop:
        cell.sign((1, 0, 0))                          # q0 takes both signs
    assert not stop.value.jump
    assert cell.decide((1, -1, 0), "<") and not cell.decide((1, -1, 0), "==")
    with pytest.raises(NeedSplit) as jump:
        cell.decide((0, 1, -1), "<")                  # q1 < 1 fails on the face q1 = 1 only
    assert jump.value.jump
    parts = cell.children(jump.value)
    assert len(parts) == 2                            # q1 > 1 is empty
    assert any(o == "==" for pc in parts for _, o in pc.constraints)
    # a <= forced to equality becomes ==: q0 <= 0 and q0 >= 0
    flat = Cell(1, [((1, 0), "<="), ((-1, 0), "<=")]).normalised()
    assert flat is not None and {o for _, o in flat.constraints} == {"=="}
    assert Cell(1, [((1, 0), "<"), ((-1, 0), "<")]).normalised() is None


def random_symbolic_problem(rng: random.Random):
    """2-3 noises with assorted rates, 2 inputs with assorted coefficients in the atoms:
    comparisons of samples, a sample against an input, sums of samples (the LP's kind),
    comparisons of inputs alone."""
    n = rng.randint(2, 3)
    noises = tuple(Noise("lap", rng.choice([F(1), F(1, 2), F(2, 3)])) for _ in range(n))
    inputs = {n: None, n + 1: None}
    atoms = []
    for _ in range(rng.randint(1, 3)):
        i, j = rng.sample(range(n), 2)
        q = {rng.choice(list(inputs)): rng.choice([F(1), F(-1), F(2), F(1, 2)])}
        off = F(rng.randint(-2, 2), rng.choice([1, 2]))
        kind = rng.random()
        if kind < 0.5:
            atoms.append(atom(LinForm.make({i: 1, **q}, off), rng.choice(["<", ">="]), LinForm.make({j: 1})))
        elif kind < 0.7:
            atoms.append(atom(LinForm.make({i: 1}), rng.choice(["<", ">"]), LinForm.make(q, off)))
        elif kind < 0.85:    # inputs alone: the probability jumps (equality cells)
            atoms.append(atom(LinForm.make({n: 1, n + 1: rng.choice([-1, 1, 2])}),
                              rng.choice(["<", "<=", "==", "!="]), LinForm.constant(off / 2)))
        else:
            k = rng.choice([x for x in range(n) if x not in (i, j)] or [i])
            atoms.append(atom(LinForm.make({i: 1, j: 1, **q}, off), "<", LinForm.make({k: 2})))
    return tuple(atoms), noises


@pytest.mark.parametrize("seed", range(12))
def test_random_problems_cell_forms_equal_per_point_forms(seed):
    rng = random.Random(1000 + seed)
    atoms, noises = random_symbolic_problem(rng)
    pieces = piecewise_probability(atoms, noises, box(2))
    for piece in pieces:
        for q in piece.cell.sample(rng, 2):
            assert piece.form.at(q) == per_point(atoms, noises, q), (atoms, piece.cell, q)
    for q in grid_points(2)[::3]:
        owners = [pc for pc in pieces if pc.cell.contains(q)]
        assert len(owners) == 1 and owners[0].form.at(q) == per_point(atoms, noises, q), (atoms, q)


def test_a_chain_s_constraint_set_on_cells_matches_the_per_point_probability():
    """Atoms as a chain names them (noise ids 10.., input ids 100..): two independent
    components, one with an input-only comparison beside it; the product per cell equals
    constraints.probability at each point."""
    noises = {10: Noise("lap", F(1, 2)), 11: Noise("lap", F(1, 4)), 12: Noise("lap", F(1, 4)),
              20: Noise("lap", F(1)), 21: Noise("lap", F(1, 3))}
    inputs = {100: 0, 101: 1, 102: 2}
    atoms = (atom(LinForm.make({11: 1, 100: 1}), "<", LinForm.make({10: 1})),
             atom(LinForm.make({12: 1, 101: 1}), ">=", LinForm.make({10: 1})),
             atom(LinForm.make({20: 1, 102: 1}), "<", LinForm.make({21: 1, 100: 1})),
             atom(LinForm.make({101: 1}), "<=", LinForm.make({102: 1})))
    constraints.clear_probability_caches()
    pieces = piecewise(lambda cell: constraints.probability(atoms, noises, inputs, cell), box(3))
    rng = random.Random(3)

    def at(q):
        from test_one_component_route import at_point
        return constraints.probability(at_point(atoms, inputs, q), noises)

    assert any(any(o == "==" for _, o in pc.cell.constraints) for pc in pieces)
    for piece in pieces:
        for q in piece.cell.sample(rng, 2):
            assert ExpFrac.of(piece.form.at(q)) == at(q), (piece.cell, q)
    for q in random_points(3, rng, 20) + [[F(1, 2), F(0), F(0)], [F(-1), F(1), F(1)]]:
        owners = [pc for pc in pieces if pc.cell.contains(q)]
        assert len(owners) == 1 and ExpFrac.of(owners[0].form.at(q)) == at(q), q


def test_on_an_equality_cell_forms_are_in_the_free_inputs():
    """On q0 = q1, P[N0 + q0 < N1 + q1] is P[N0 < N1]: the engine writes q0 as q1 first, so the
    two forms are identical (with q0 left in, both bounds of a case would tie on the cell and
    strict case constraints would drop both cases), and they match the per-point forms."""
    cell = Cell(2, box(2).constraints + (((1, -1, 0), "=="),)).normalised()
    assert cell.eliminations() == [(0, (F(0), F(1), F(0)))]
    moving = (atom(LinForm.make({0: 1, 2: 1}), "<", LinForm.make({1: 1, 3: 1})),)
    fixed = (atom(LinForm.make({0: 1}), "<", LinForm.make({1: 1})),)
    a = le.probability_on_cell(moving, JUMP_NOISES, cell)
    assert not a.is_zero() and a == le.probability_on_cell(fixed, JUMP_NOISES, cell)
    for q in cell.sample(random.Random(9), 3):
        assert a.at(q) == per_point(moving, JUMP_NOISES, q)


def test_a_tied_input_with_a_slope_and_an_offset():
    """q1 = 2 q0 - 1/2 on a flat cell: Sparse's second query (inputs as means, so powers and
    exponents of v appear), the tied input gone from every form, per-point forms matched."""
    atoms, noises, p = CASES["sparse m=2 BT"]
    cell = Cell(2, box(2).constraints + (((4, -2, -1), "=="),)).normalised()
    ((k, _),) = cell.eliminations()
    pieces = piecewise_probability(atoms, noises, cell)
    rng = random.Random(11)
    assert any(any(key[2]) for pc in pieces for key in pc.form.terms)      # powers of v occur
    for pc in pieces:
        assert all(not key[2][k] and not key[0][k] for key in pc.form.terms)   # q_k is gone
        for q in pc.cell.sample(rng, 3):
            assert pc.cell.contains(q) and q[1] == 2 * q[0] - F(1, 2)
            assert pc.form.at(q) == per_point(atoms, noises, q)
