"""Box claims whose det region is a union of several noise-free paths with one det (issue 39, item 3).

Why: dd on a union is the L-inf distance to the complement of the whole union, not of each path, and the
union is decided piece by piece of its cover (`accuracy.union_regions`).  The verdicts are cross-checked
against exact per-point checks on a lattice of the box, and the cover against the exact LP distance.
"""
from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from dipc_plus.accuracy.box import decide_box, det_regions_by_shape
from dipc_plus.accuracy.box_reduction import REFUTED, UNDECIDED, VERIFIED
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.union_regions import UnionRegion
from dipc_plus.claims import noise_free
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.lp_dd import linf_to_region
from conftest import PROGRAMS
from test_box_accuracy_generator import SEED, decide_case, lattice, refuted_at

THEORY = PROGRAMS.parent / "theories" / "either_nonnegative_box.toml"
# seeds of tests/test_box_accuracy_generator.py (m = 2) whose box was undecided before unions were decided:
# a conjunction of two tests, whose 'false' is a union of paths
WERE_UNDECIDED = (218, 323, 347, 440, 590, 653, 680, 827, 914, 1025, 1157, 1184, 1541, 1628, 1685, 1715,
                  1826, 1937)


def claim_with(tmp_path, beta: str, q2: str):
    text = THEORY.read_text().replace('"../programs/', f'"{PROGRAMS}/')
    text = text.replace('beta = "exp(-alpha*eps)"', f'beta = "{beta}"').replace("q2 = [-1, 1]", f"q2 = {q2}")
    path = tmp_path / "claim.toml"
    path.write_text(text)
    return load_claim(str(path)).accuracy


def lattice_refutes(claim, kappa: int) -> list:
    checker = AccuracyChecker(claim)
    return [u for u in lattice(claim.points.bounds)
            if any(r.verdict == REFUTED for r in checker.check_input(u, kappa))]


def test_the_union_is_verified_and_no_lattice_point_is_refuted():
    claim = load_claim(str(THEORY)).accuracy
    result = decide_box(claim, 1)
    union = next(r for r in result.regions if r.det["either"] is True)
    assert result.verdict == VERIFIED and union.verdict == VERIFIED and "union cover" in union.method
    assert union.share == F(3, 4)
    assert not lattice_refutes(claim, 1)


def test_a_false_claim_on_the_union_is_refuted_and_rechecked(tmp_path):
    """On q2 in [0, 2] only the union applies (the quadrant meets the box on a face); beta/4 fails at
    the worst point (-1, d) of the piece q2 >= d, a point a fresh per-point check refutes again."""
    claim = claim_with(tmp_path, "exp(-alpha*eps)/4", "[0, 2]")
    result = decide_box(claim, 1)
    assert result.verdict == REFUTED
    u = result.counterexample.input
    assert F(-1) <= u["q1"] <= 1 and F(0) <= u["q2"] <= 2 and u["q2"] > 0
    assert refuted_at(claim, u, 1)
    assert lattice_refutes(claim, 1)
    true_claim = claim_with(tmp_path, "exp(-alpha*eps)/2", "[0, 2]")
    assert decide_box(true_claim, 1).verdict == VERIFIED
    assert not lattice_refutes(true_claim, 1)


def test_the_cover_is_the_set_at_distance_d_from_the_complement_of_the_union():
    """q lies in a piece of the cover at d = its exact LP distance to the other outputs' paths, and in no
    piece at any larger d: dd is the distance to the complement of the union, not of q's own path
    (at (1/2, 0) it is 1/2, though q's path q1 >= 0, q2 >= 0 has its border at q2 = 0)."""
    claim = load_claim(str(THEORY)).accuracy
    names, bounds = list(claim.points.bounds), claim.points.bounds
    _, polys, _ = det_regions_by_shape(claim.program, names)
    union = next(p for p in polys if isinstance(p, UnionRegion))
    pieces = union.cover(bounds)
    others = [list(p.condition) for p in noise_free.paths(claim.program, {}, names) if p.outputs["either"] is False]

    def inside(q, d):
        return any(all(sum((a * q[n] for n, a in c.items()), F(0)) >= b + d * norm for c, b, norm in piece.facets)
                   for piece in pieces)

    rng = random.Random(39)
    points = [{"q1": F(1, 2), "q2": F(0)}] + [{n: F(rng.randint(-16, 16), 16) for n in names} for _ in range(60)]
    seen = 0
    for q in points:
        dd = min(linf_to_region(q, region, names)[0] for region in others)
        if dd <= 0:
            continue
        seen += 1
        assert inside(q, dd) and not inside(q, dd + F(1, 64)), q
    assert seen > 20
    assert min(linf_to_region(points[0], r, names)[0] for r in others) == F(1, 2)


@pytest.mark.parametrize("seed", WERE_UNDECIDED)
def test_generated_unions_are_decided_and_agree_with_the_lattice(seed, tmp_path):
    outcome = decide_case(SEED + seed, tmp_path)
    assert outcome.split(",")[0] in (VERIFIED, REFUTED), outcome
    assert outcome != UNDECIDED
