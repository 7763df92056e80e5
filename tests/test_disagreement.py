"""Distance to disagreement: hand-computed cases, and a brute-force check that uses
no LP at all (a fine rational grid around u, judged by a plain-Python det).

Hand computations (Barthe et al., POPL 2021, Definition 1; L-inf unless said):

* AboveThreshold, T = 0, c = 1, q = [-1, 1, 1]: det = (bot, top, none).  Raising
  q1 to 0 makes it the first top: distance 1, attained at w1 = 0 (q >= T is
  non-strict).  Lowering q2 below 0 needs q2 < 0: distance > 1.  dd = 1, attained.
* NoisyMax q = [-1, 0, 0]: det = 2 (tie, first index).  w = (-1, 0, d) gives 3
  for every d > 0: dd = 0, not attained (w = u itself gives 2).
* NoisyMax q = [2, 0, -1]: det = 1.  Index 2 wins only if w2 > w1 (ties go to 1):
  min max(|w1 - 2|, |w2|) over w2 > w1 is 1, approached at w1 = w2 = 1 but not
  reached; index 3 needs w3 > w1, distance 3/2.  dd = 1, not attained.
* NoisyMax q = [0, 1, -1]: det = 2.  w = (1/2, 1/2, -1) ties 1 and 2, and ties go
  to index 1: dd = 1/2, attained.  On the integer grid [-1, 1]^3 the nearest
  disagreeing point is at distance 1 (e.g. (1, 1, -1) or (0, 0, -1)): grid dd = 1.
* Sparse c = 2, T = 0, q = [1, 1, -1]: det = (top, top, none) (stops after two
  tops, q3 is never read).  Either top must drop below 0: dd = 1, not attained.
* NumericSparse c = 1, T = 0, q = [1, -1, -1]: det = (num, bot, bot; 1, 0, 0).
  Under plain L-inf any w1 != 1 changes the released value: dd = 0.  Under the
  section 3.6 distance w1 may not move while >= T (infinite distance), so q1 must
  drop below 0 or q2/q3 rise to 0 — but after the first num the program exits, so
  only q1 < 0 helps: dd = 1, not attained.
* Zero-one input distance: dd = 1 whenever some input disagrees at all.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from dipc_plus.claims import noise_free as nf
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.disagreement import INF, GridSpace, RealSpace, outputs_equal
from dipc_plus.claims.distances import LinfInput, NumericSparseInput, ZeroOneInput
from dipc_plus.frontend.load import load_program

from test_noise_free import first_argmax, numeric_sparse_reference, sparse_reference
from conftest import PROGRAMS, ROOT, THEORIES
from dd_near import near_disagreeing



def load(name, **params):
    return load_program(str(PROGRAMS / f"{name}.dip"), {k: F(v) for k, v in params.items()})


def env(q):
    return {f"q[{i + 1}]": F(x) for i, x in enumerate(q)}


def grid(m, lo=-1, hi=1):
    return [env(q) for q in itertools.product(range(lo, hi + 1), repeat=m)]


# --------------------------------------------------------------------------- hand-computed


def test_above_threshold_hand_case():
    program = load("above_threshold", m=3, T=0)
    d = RealSpace(program, LinfInput()).dd(env([-1, 1, 1]))
    assert d.value == 1 and d.attained
    assert d.witness["q[1]"] == 0 and d.output["out[1]"] == "top"


def test_noisy_max_tie_has_dd_zero():
    program = load("noisy_max", m=3)
    u = env([-1, 0, 0])
    d = RealSpace(program, LinfInput()).dd(u)
    assert d.value == 0 and not d.attained
    near = near_disagreeing(lambda w: nf.run(program, w), u, d, LinfInput(), nf.run(program, u))
    assert near is not None and nf.run(program, near)["out"] == 3 and 0 < LinfInput().between(u, near) <= F(1, 1000)


def test_noisy_max_gap_two():
    program = load("noisy_max", m=3)
    u = env([2, 0, -1])
    d = RealSpace(program, LinfInput()).dd(u)
    assert d.value == 1 and not d.attained
    # the closure point ties q1 and q2 at 1: it still answers 1, so it does not disagree
    assert d.witness["q[1]"] == d.witness["q[2]"] == 1
    assert nf.run(program, d.witness) == {"out": 1}
    near = near_disagreeing(lambda w: nf.run(program, w), u, d, LinfInput(), {"out": 1})
    assert nf.run(program, near) == {"out": 2} and 1 < LinfInput().between(u, near) <= 1 + F(1, 1000)


def test_noisy_max_grid_and_reals_differ():
    program = load("noisy_max", m=3)
    u = env([0, 1, -1])
    real = RealSpace(program, LinfInput()).dd(u)
    assert real.value == F(1, 2) and real.attained and real.output == {"out": 1}
    on_grid = GridSpace(grid(3), lambda w: nf.run(program, w), LinfInput()).dd(u)
    assert on_grid.value == 1 and on_grid.attained
    assert nf.run(program, on_grid.witness) != {"out": 2}


def test_sparse_stops_after_c_tops():
    program = load("sparse", m=3, c=2, T=0)
    u = env([1, 1, -1])
    d = RealSpace(program, LinfInput()).dd(u)
    assert d.value == 1 and not d.attained
    near = nf.run(program, near_disagreeing(lambda w: nf.run(program, w), u, d, LinfInput(), nf.run(program, u)))
    assert near["out[1]"] == "bot" or near["out[2]"] == "bot"


def test_numeric_sparse_distance_versus_linf():
    program = load("numeric_sparse", m=3, c=1, T=0)
    u = env([1, -1, -1])
    plain = RealSpace(program, LinfInput()).dd(u)
    assert plain.value == 0 and not plain.attained
    special = NumericSparseInput(F(0), tuple(nf.real_inputs(program)))
    d = RealSpace(program, special).dd(u)
    assert d.value == 1 and not d.attained
    near = near_disagreeing(lambda w: nf.run(program, w), u, d, special, nf.run(program, u))
    assert nf.run(program, near)["out[1]"] == "bot" and near["q[1]"] < 0
    assert 1 < special.between(u, near) <= 1 + F(1, 1000)


def test_numeric_sparse_infinite_distance_rule():
    d = NumericSparseInput(F(0), ("q[1]", "q[2]"))
    assert d.between(env([1, -1]), env([2, -1])) == INF      # both >= T, different
    assert d.between(env([1, -1]), env([-1, 3])) == 4        # q1 crosses below T: plain L-inf
    assert d.between(env([1, 5]), env([1, 5])) == 0


def test_zero_one_input_distance():
    program = load("laplace", k=2, sens=1)
    d = RealSpace(program, ZeroOneInput()).dd(env([0, 1]))
    assert d.value == 1 and d.attained and not outputs_equal(d.output, nf.run(program, env([0, 1])))
    exp = load("exponential", n=2)
    u = {"h1": 2, "h2": 0, "h3": 0}
    d = RealSpace(exp, ZeroOneInput()).dd(u)
    assert d.value == 1 and d.attained and d.output != {"out": 1}
    # over a grid where every point answers 1, nothing disagrees: dd is infinite
    only_ones = [{"h1": 2, "h2": a, "h3": b} for a in range(2) for b in range(2)]
    d = GridSpace(only_ones, lambda w: nf.run(exp, w), ZeroOneInput()).dd(u)
    assert d.value == INF and not d.attained


def test_finite_inputs_in_real_space_linf():
    exp = load("exponential", n=2)
    # Finite (DOM) inputs are enumerated and measured with |difference|.  h = (2, 0, 0)
    # answers item 1; every input at distance 1 (h1 >= 1, h2, h3 <= 1) keeps item 1
    # ahead or tied first, while (1, 2, 0) answers 2 at distance 2: dd = 2, attained.
    d = RealSpace(exp, LinfInput()).dd({"h1": 2, "h2": 0, "h3": 0})
    brute = min(max(abs(a - 2), b, c) for a, b, c in itertools.product(range(3), repeat=3)
                if first_argmax([a, b, c]) != 1)
    assert d.value == brute == 2 and d.attained


# --------------------------------------------------------------------------- brute force


def _fine_points(u, radius, step):
    """Every point of u + step*Z^m within L-inf distance < radius (radius capped)."""
    k = int(min(radius, 3) / step)
    offs = [step * i for i in range(-k, k + 1)]
    names = sorted(u)
    for delta in itertools.product(offs, repeat=len(names)):
        yield {n: u[n] + d for n, d in zip(names, delta)}


BRUTE = {
    "noisy_max": ({"m": 3}, lambda q: {"out": first_argmax(q)}, "linf"),
    "above_threshold": ({"m": 3, "T": 0}, lambda q: sparse_reference(q, 1, 0), "linf"),
    "sparse": ({"m": 3, "c": 2, "T": 0}, lambda q: sparse_reference(q, 2, 0), "linf"),
    "sparse_variant": ({"m": 3, "c": 2, "T": 0}, lambda q: sparse_reference(q, 2, 0), "linf"),
    "numeric_sparse": ({"m": 3, "c": 1, "T": 0}, lambda q: numeric_sparse_reference(q, 1, 0), "numeric-sparse"),
}


@pytest.mark.parametrize("name", sorted(BRUTE))
def test_dd_against_fine_grid(name):
    """No input closer than dd disagrees; the reported witness or near point does.

    The reference det is plain Python (independent of the noise-free
    interpreter), the distance is checked pointwise, and no LP is involved.
    """
    params, ref, dist_name = BRUTE[name]
    program = load(name, **params)
    reals = nf.real_inputs(program)
    distance = LinfInput() if dist_name == "linf" else NumericSparseInput(F(0), tuple(reals))
    space = RealSpace(program, distance)

    def det(w):
        return ref([w[n] for n in reals])
    step = F(1, 4)
    for u in grid(3):
        d = space.dd(u)
        det_u = det(u)
        for w in _fine_points(u, d.value if d.value != INF else 3, step):
            dist = distance.between(u, w)
            if dist < d.value:
                assert outputs_equal(det(w), det_u), (u, w, d.value)
        if d.value == INF:
            continue
        found = d.witness if d.attained else near_disagreeing(det, u, d, distance, det_u)
        assert found is not None
        assert not outputs_equal(det(found), det_u)
        got = distance.between(u, found)
        if d.attained:
            assert got == d.value
        else:
            assert d.value < got <= d.value + F(1, 1000)


def test_grid_dd_is_never_below_real_dd():
    """A grid only offers some of the disagreeing inputs, so its dd can only be larger.

    AboveThreshold, T = 0: at q = [1, -1, -1] the top must fall below 0; over the reals
    dd = 1 (not attained), on the integer grid the nearest such point has q1 = -1: 2.
    At q = [-1, 1, 1] raising q1 to 0 is on the grid: both are 1.
    """
    program = load("above_threshold", m=3, T=0)
    space = RealSpace(program, LinfInput())
    pts = grid(3, -2, 2)
    det = lambda w: nf.run(program, w)  # noqa: E731
    for u in grid(3):
        real, on_grid = space.dd(u), GridSpace(pts, det, LinfInput()).dd(u)
        assert real.value <= on_grid.value
        if real.value < on_grid.value:  # only when the real infimum is not attained
            assert not real.attained
    assert space.dd(env([1, -1, -1])).value == 1
    assert GridSpace(pts, det, LinfInput()).dd(env([1, -1, -1])).value == 2
    assert space.dd(env([-1, 1, 1])).value == GridSpace(pts, det, LinfInput()).dd(env([-1, 1, 1])).value == 1


# --------------------------------------------------------------------------- the fast paths


def _claim_on_grid(tmp_path, name, params, step):
    text = (THEORIES / name).read_text().replace('path = "../programs', f'path = "{ROOT}/programs')
    text = text.replace("grid = { q = [-1, 1] }", f'grid = {{ q = [-1, 1] }}\nstep = "{step}"')
    path = tmp_path / name
    path.write_text(text)
    return load_claim(str(path), params).accuracy


@pytest.mark.parametrize("name, params, step", [("sparse.toml", {"c": F(2)}, "1/2"),
                                                ("numeric_sparse.toml", {"m": F(2), "c": F(1)}, "1/2"),
                                                ("numeric_sparse.toml", {"m": F(3), "c": F(2)}, "1"),
                                                ("above_threshold.toml", {}, "1"),
                                                ("above_threshold.toml", {}, "1/2")])
def test_box_closed_form_equals_the_lp(tmp_path, name, params, step):
    """RealSpace.dd takes the closed form for box regions; it gives the LP's value and attainment
    at every grid point (half-integer grids put inputs on open and closed region boundaries)."""
    claim = _claim_on_grid(tmp_path, name, params, step)
    space = RealSpace(claim.program, claim.input_distance)
    used_boxes = 0
    for u in claim.points:
        det = claim.det_at(u)
        fast, slow = space.box_dd(u, det), space.lp_dd(u, det)
        assert fast is not None, u
        used_boxes += 1
        assert (fast.value, fast.attained) == (slow.value, slow.attained), u
        got = space.dd(u, det)
        assert (got.value, got.attained, got.witness) == (fast.value, fast.attained, fast.witness), u
        if fast.attained:
            assert claim.input_distance.between(u, fast.witness) == fast.value
            assert not outputs_equal(nf.run(claim.program, fast.witness), det)
        elif fast.value != INF:
            near = near_disagreeing(lambda w: nf.run(claim.program, w), u, fast, claim.input_distance, det)
            assert near is not None, u
            assert fast.value < claim.input_distance.between(u, near) <= fast.value + F(1, 1000)
    assert used_boxes == len(claim.points)


def test_non_box_regions_use_the_argmax_formula_or_the_lp():
    """NoisyMax compares q_i with q_j: no region is a box.  Recognised as an argmax of noisy reads,
    its dd comes from claims.argmax_dd, with the LP's value and attainment (tests/test_argmax_dd.py
    compares them on random programs)."""
    noisy = load_claim(str(THEORIES / "noisy_max.toml")).accuracy
    space = RealSpace(noisy.program, noisy.input_distance)
    for u in noisy.points:
        det = noisy.det_at(u)
        assert space.box_dd(u, det) is None
        got, lp_only = space.dd(u, det), space.lp_dd(u, det)
        assert space.argmax_dd(u, det) is not None
        assert (got.value, got.attained) == (lp_only.value, lp_only.attained)


def _dd_grid_by_loop(u, points, det, distance):
    """The definition, one point at a time (no grouping, no numpy)."""
    det_u, best = det(u), None
    for w in points:
        out = det(w)
        if outputs_equal(out, det_u):
            continue
        dist = distance.between(u, w)
        if best is None or dist < best[0]:
            best = (dist, dict(w))
    return (INF, False, None) if best is None or best[0] == INF else (best[0], True, best[1])


@pytest.mark.parametrize("name, params, step", [("sparse.toml", {"c": F(1)}, "1"),
                                                ("numeric_sparse.toml", {"m": F(2)}, "1"),
                                                ("numeric_sparse.toml", {"m": F(2), "c": F(1)}, "1/2"),
                                                ("laplace.toml", {}, "1"), ("exponential.toml", {}, "1")])
def test_grid_space_equals_the_loop(tmp_path, name, params, step):
    """The one-pass grid dd (`GridSpace`) agrees with the plain loop at every
    point, witness included (ties go to the first point in grid order)."""
    claim = _claim_on_grid(tmp_path, name, params, step)
    fast = GridSpace(claim.points, claim.det_at, claim.input_distance)
    for u in claim.points:
        got = fast.dd(u)
        assert (got.value, got.attained, got.witness) == _dd_grid_by_loop(
            u, claim.points, claim.det_at, claim.input_distance), u
        one_off = GridSpace(claim.points, claim.det_at, claim.input_distance).dd(u)
        assert (one_off.value, one_off.witness) == (got.value, got.witness)
