"""Programs over symbolic inputs: for every shipped program with real inputs, each cell's closed form
equals the per-point chain's closed form at rational points of the cell (inside, on its faces and on
equality cells), the outputs' forms add up to 1, one form agrees with quadrature, and the programs the
symbolic path refuses are pinned with their reason."""
from __future__ import annotations

import random
from fractions import Fraction as F
from functools import lru_cache
from itertools import product

import pytest

from dipc_plus.errors import ResourceLimit, UserError
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.frontend.load import load_program, parse_program
from dipc_plus.semantics import ir
from dipc_plus.semantics.distribution import output_distribution
from dipc_plus.semantics.symbolic_chain import NotSymbolic, symbolic_paths
from dipc_plus.semantics.symbolic_distribution import SymbolicDistribution, symbolic_distribution
from conftest import PROGRAMS, lap_cdf, lap_pdf, lap_sf, quad

# every shipped program with a real input, and which path it takes
SYMBOLIC = ["above_threshold", "above_threshold_forever", "above_threshold_gap", "above_threshold_numeric",
            "bad_gap_sparse_vector", "either_nonnegative", "gap_above_threshold",
            "noisy_compare", "noisy_max", "noisy_max_loop", "noisy_min", "numeric_sparse", "numeric_sparse_fig4a", "sparse",
            "sparse_resample_once", "sparse_variant", "svt_lyu_alg1", "svt_lyu_alg2", "svt_lyu_alg3",
            "svt_lyu_alg4", "svt_lyu_alg5", "svt_lyu_alg6", "svt_resample_forever", "threshold_half", "two_thresholds",
            "svt_shifted_mean", "svt_assign", "online_noisy_max", "online_noisy_min", "online_sort", "svt_count",
            "isvt1", "isvt2", "isvt3", "isvt4", "svt_count_no_query_noise", "noisy_max_exp",
            "range", "k_range", "min_max", "k_min_max", "m_range", "k_min_max_watch"]
REFUSED = {   # program -> (words of the reason, line of the statement or None)
    "binary_mechanism": ("every output is real", None),
    "laplace": ("every output is real", None),
    "jump_mean": ("every output is real", None),
    "laplace_histogram": ("every output is real", None),
    "noisy_max_value": ("every output is real", None),
    "partial_sums": ("every output is real", None),
    "smart_sum": ("every output is real", None),
}


def real_input_programs() -> list:
    out = []
    for path in sorted(PROGRAMS.glob("*.dip")):
        program = load_program(str(path), {})
        if any(isinstance(t, ir.RealT) for _, t in program.inputs):
            out.append(path.stem)
    return out


def test_every_program_with_real_inputs_is_pinned():
    assert sorted(SYMBOLIC + list(REFUSED)) == real_input_programs()


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_programs_name_the_reason(name):
    words, line = REFUSED[name]
    program = load_program(str(PROGRAMS / f"{name}.dip"), {})
    with pytest.raises(NotSymbolic) as err:
        symbolic_paths(program)
    assert words in err.value.message and err.value.line == line
    assert "without --symbolic" in err.value.hint


def small(name: str):
    """The program with m = 2 queries where it has the parameter (small cells, fast chains)."""
    text = (PROGRAMS / f"{name}.dip").read_text()
    params = {"m": F(2)} if "param m" in text else {}
    return load_program(str(PROGRAMS / f"{name}.dip"), params)


@lru_cache(maxsize=None)
def distribution_of(name: str):
    program = small(name)
    box = {n: (-1, 1) for n in {n.split("[")[0] for n, t in program.inputs if isinstance(t, ir.RealT)}}
    sd = symbolic_distribution(program, box)
    sd.cells()
    return program, sd


def per_point(program, names: list, q) -> dict:
    """The per-point chain's probabilities of the finite outputs at q (real outputs summed out)."""
    inputs = dict(zip(names, q))
    dist = output_distribution(program, inputs, shortcuts=False)
    keep = [i for i, (_, t) in enumerate(program.outputs) if isinstance(t, (ir.BoolT, ir.DomT))]
    out: dict = {}
    for o, p in dist.items():
        key = tuple(o.values[i] for i in keep)
        out[key] = out[key] + p if key in out else p
    return out


def face_points(p: int) -> list:
    """Points of {-1, -1/2, 0, 1/2, 1}^p: they lie on the faces cells share (q_i = q_j, q_i = 0)."""
    return [list(q) for q in product([F(-1), F(-1, 2), F(0), F(1, 2), F(1)], repeat=p)]


@pytest.mark.parametrize("name", SYMBOLIC)
def test_each_cell_form_is_the_per_point_form(name):
    program, sd = distribution_of(name)
    rng = random.Random(name)
    zero = ExpFrac.of(0)
    checked = 0
    for output, pieces in sd.cells().items():
        assert pieces
        for piece in pieces:
            for q in piece.cell.sample(rng, 2):
                assert piece.cell.contains(q)
                want = per_point(program, sd.input_names, q).get(output, zero)
                assert ExpFrac.of(piece.form.at(q)) == want, (output, sd.cell_text(piece.cell), q)
                checked += 1
    assert checked >= 2 * len(sd.outputs())


@pytest.mark.parametrize("name", SYMBOLIC)
def test_on_shared_faces_one_cell_per_output_and_the_forms_add_up_to_one(name):
    """At points on cell boundaries every output has exactly one owning cell, its form is the
    per-point one, and the forms of all outputs there add up to 1 (a common refinement point)."""
    program, sd = distribution_of(name)
    rng = random.Random(name + "faces")
    points = face_points(len(sd.input_names))
    rng.shuffle(points)
    zero = ExpFrac.of(0)
    for q in points[:8]:
        forms = sd.at(q)
        want = per_point(program, sd.input_names, q)
        assert set(want) <= set(forms)
        total = ExpFrac.of(0)
        for output, form in forms.items():
            assert ExpFrac.of(form) == want.get(output, zero), (output, q)
            total = total + ExpFrac.of(form)
        assert total == ExpFrac.of(1), q


def test_the_forms_depend_on_the_inputs_and_cells_split():
    """The identities above compare something: Sparse m = 3's last outputs need several cells and
    forms with powers and exponents of the inputs."""
    program = load_program(str(PROGRAMS / "sparse.dip"), {"m": F(3)})
    sd = symbolic_distribution(program, {"q": (-1, 1)})
    pieces = sd.pieces(("bot", "bot", "top"))
    assert len(pieces) == 24
    assert any(any(key[2]) for pc in pieces for key in pc.form.terms)
    assert len({str(pc.form) for pc in pieces}) > 10


INPUT_ONLY = """
input  q: real[2]
output out: 0..2
b <- q[1] < q[2]
if b then
    r <- Lap(eps, q[1])
    c <- r >= 0
    if c then
        out <- 1
    else
        out <- 2
    end
else
    out <- 0
end
"""


def test_a_comparison_of_inputs_alone_makes_equality_cells():
    program = parse_program(INPUT_ONLY, "input_only", {})
    sd = symbolic_distribution(program, {"q": (-1, 1)})
    rng = random.Random(4)
    zero = ExpFrac.of(0)
    for output in sd.outputs():
        pieces = sd.pieces(output)
        flat = [pc for pc in pieces if any(op == "==" for _, op in pc.cell.constraints)]
        assert flat, output
        for pc in pieces:
            for q in pc.cell.sample(rng, 2):
                assert ExpFrac.of(pc.form.at(q)) == per_point(program, sd.input_names, q).get(output, zero)
    on_diagonal = sd.at([F(1, 3), F(1, 3)])
    assert on_diagonal[(0,)] == ExpFrac.of(1).num and on_diagonal[(1,)].is_zero()
    below = sd.at([F(0), F(1, 3)])
    assert below[(0,)].is_zero() and not below[(1,)].is_zero()
    assert "q[1] - q[2] == 0" in " ".join(sd.cell_text(pc.cell) for pc in sd.pieces((0,)))


def test_a_box_point_and_a_thin_box():
    """A box of one point (lo = hi) gives one equality cell with that point's forms."""
    program = small("sparse")
    sd = symbolic_distribution(program, {"q": (F(1, 2), F(1, 2))})
    for output, pieces in sd.cells().items():
        assert len(pieces) == 1
        want = per_point(program, sd.input_names, [F(1, 2)] * 2).get(output, ExpFrac.of(0))
        assert ExpFrac.of(pieces[0].form.at([F(1, 2)] * 2)) == want


CYCLE = """
input  x: real
output y: bool
r <- Lap(eps, x)
done <- false
while not done do
    b <- r < 0
    if b then
        done <- true
    end
end
y <- true
"""


def test_a_chain_with_a_cycle_is_refused_at_its_loop():
    program = parse_program(CYCLE, "cycle", {})
    with pytest.raises(NotSymbolic) as err:
        symbolic_paths(program)
    assert err.value.line == 6 and "cycle" in err.value.message


def test_bad_boxes_are_user_errors():
    program = small("sparse")
    for box, words in (({"q": (1, -1)}, "above the upper end"), ({}, "no bounds"),
                       ({"z": (0, 1)}, "not an input")):
        with pytest.raises(UserError) as err:
            symbolic_distribution(program, box)
        assert words in err.value.message
    sd = symbolic_distribution(program, {"q": (0, 1)})
    with pytest.raises(UserError):
        sd.at([F(2), F(0)])


def test_the_cell_limit_is_a_resource_limit():
    """Refused before any cell when the 4! orders of Sparse m = 3's breakpoints pass it
    (tests/test_symbolic_limits.py), and still while splitting where no bound was known."""
    program = load_program(str(PROGRAMS / "sparse.dip"), {"m": F(3)})
    with pytest.raises(ResourceLimit) as err:
        symbolic_distribution(program, {"q": (-1, 1)}, max_cells=5)
    assert "at least 24 cells" in err.value.message and "limit of 5 cells" in err.value.message
    sd = SymbolicDistribution(symbolic_paths(program), [(F(-1), F(1))] * 3, max_cells=5)
    with pytest.raises(ResourceLimit) as err:
        sd.pieces(("bot", "bot", "top"))
    assert "more than 5 cells" in err.value.message


def test_a_cell_form_against_quadrature():
    """Sparse m = 3, output (bot, bot, top): the integral over the noisy threshold t of
    pdf_T(t) P[X1 < t] P[X2 < t] P[X3 >= t] (T ~ Lap(eps/2, 0), X_i ~ Lap(eps/4, q_i))."""
    program = load_program(str(PROGRAMS / "sparse.dip"), {"m": F(3)})
    sd = symbolic_distribution(program, {"q": (-1, 1)})
    rng = random.Random(8)
    piece = max(sd.pieces(("bot", "bot", "top")), key=lambda pc: len(pc.form))
    q = piece.cell.sample(rng, 2)[1]
    for eps in (F(1, 2), F(3)):
        ball = piece.form.at(q).arb_value(eps, prec=200)
        a, b = float(eps) / 2, float(eps) / 4
        m = [float(x) for x in q]
        want = quad(lambda t: lap_pdf(t, 0.0, a) * lap_cdf(t, m[0], b) * lap_cdf(t, m[1], b) * lap_sf(t, m[2], b),
                    [0.0] + m)
        assert abs(float(ball.mid()) - want) <= 1e-9 * want


@pytest.mark.parametrize("name, finite, words, line", [
    ("discrete_above_threshold", {"r[1]": 0, "r[2]": 1, "r[3]": 2}, "DLap", 34),
    ("discrete_svt", {"q[1]": 0, "q[2]": 1, "q[3]": -1}, "is an integer", None),
    ("discrete_svt_forever", {"q[1]": 0, "q[2]": 1, "q[3]": -1}, "is an integer", None),
    ("truncated_geometric_choose", {"x": 1}, "choose", 29),
    ("exponential", {"h1": 0, "h2": 1, "h3": 2}, "exponential-mechanism", 29),
])
def test_the_walk_refuses_what_it_does_not_handle_at_the_statement(name, finite, words, line):
    """Programs without real inputs, walked with their finite inputs: the draws the symbolic path
    does not handle are refused at their line (the whitelist), never walked past."""
    program = load_program(str(PROGRAMS / f"{name}.dip"), {})
    with pytest.raises(NotSymbolic) as err:
        symbolic_paths(program, finite)
    assert words in err.value.message and err.value.line == line


def test_an_integer_input_is_refused():
    program = parse_program("input k: int\noutput y: bool\ny <- true\n", "int_input", {})
    with pytest.raises(NotSymbolic) as err:
        symbolic_paths(program)
    assert "integer" in err.value.message
