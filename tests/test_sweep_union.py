"""`dipc sweep` on a box whose det region is a union of noise-free paths (theories/either_nonnegative_box.toml):
kappa* from the convex pieces of the union's cover (`accuracy.union_regions`), each with its worst point,
as polyhedral pieces are read; a piece whose sentence has two variables (d, eps) is proved above the
others' kappa* by the two-variable decision.  Cross-checked against the per-point sweep on a lattice of
the box: the box's kappa* is at most every grid point's."""
from __future__ import annotations

import pathlib
from fractions import Fraction

import dipc_plus

ROOT = pathlib.Path(__file__).resolve().parent.parent
THEORY = ROOT / "theories" / "either_nonnegative_box.toml"


def test_union_box_sweep_gives_kappa_star():
    """Before: 'kappa* not computed (a det region is a union of several paths ...)'.  By hand (the theory's
    comment): on the quadrant beta/P_err = e^(-x)/(e^(-x) - e^(-2x)/4) -> 1 as x -> inf; on the union's
    pieces it is 2/(1 - e^(-eps)/2) >= 2, so kappa* = 1, approached on the quadrant."""
    report = dipc_plus.sweep(str(THEORY))
    data = report.to_json()
    assert data["kappa_star_note"] is None, data["kappa_star_note"]
    detail = data["kappa_star_detail"]
    assert detail["exact"] == "1" and detail["box_infimum"]
    assert detail["at"]["piece"]["region"] == "q1 < 0 and q2 < 0"
    assert data["best_kappa"] == 1


def test_union_kappa_star_at_most_the_lattice(tmp_path):
    """The per-point sweep at every point of the lattice step 1/2 in the box (dd over the reals, the same
    program and beta) never finds a kappa* below the box's lower end."""
    box = dipc_plus.sweep(str(THEORY)).to_json()["kappa_star_detail"]
    lower = Fraction(box["enclosure"][0])
    grid = tmp_path / "grid.toml"
    grid.write_text(THEORY.read_text().replace("../programs/", f"{ROOT}/programs/")
                    .replace("box = {", "grid = {") + 'step = "1/2"\n')
    swept = dipc_plus.sweep(str(grid)).to_json()
    least = Fraction(swept["kappa_star_detail"]["enclosure"][0])
    assert lower <= least, (lower, least)


def _two_variable_pieces():
    from dipc_plus.accuracy.box import BoxDecider
    from dipc_plus.accuracy.box_sweep import piece_ratios
    from dipc_plus.claims.claim_file import load_claim
    claim = load_claim(str(THEORY)).accuracy
    pieces: list = []
    ratios = piece_ratios(claim, BoxDecider(claim, 1), pieces)
    return claim, ratios, pieces


def test_two_variable_pieces_bounded_against_the_others():
    """The union's two pieces (worst points (d, -1) and (-1, d)) have sentences in (d, eps) with
    beta/P_err = 2/(1 - e^(-eps)/2), in (2, 4): proved above kappa* = 1, not above 3 (it fails for
    eps > ln(3/2)), so a kappa* of 3 from the other pieces would be refused, never reported."""
    from dipc_plus.accuracy.box_sweep import bound_two_variable_pieces
    from dipc_plus.accuracy.sweep import KappaStar
    claim, ratios, pieces = _two_variable_pieces()
    assert len(pieces) == 2 and all(r.condition.startswith("q1 >= 0 and q2 >= 0") for r, *_ in pieces)
    assert [rep.condition for rep, _ in ratios] == ["q1 < 0 and q2 < 0"]
    one = KappaStar(Fraction(1), Fraction(1), "1", 6, None, exact=True)
    three = KappaStar(Fraction(3), Fraction(3), "3", 6, None, exact=True)
    assert bound_two_variable_pieces(claim, pieces, one) == ""
    assert "not proved above kappa* <= 3" in bound_two_variable_pieces(claim, pieces, three)
