"""GridSpace at inputs off the grid's integer scale (u = 1/3 on an integer grid), and with Booleans:
the exact vectorised step steps aside and the answer is still the nearest disagreeing grid point."""
from fractions import Fraction as F

from dipc_plus.claims.distances import LinfInput, NumericSparseInput, ZeroOneInput
from dipc_plus.claims.grid_dd import GridSpace


def _det(w):
    return {"out": w["a"] + w["b"] >= 1}


def _brute(points, u, distance):
    det_u = _det(u)
    return min(distance.between(u, w) for w in points if _det(w) != det_u)


def test_off_scale_and_on_scale_inputs_give_the_nearest_disagreeing_point():
    points = [{"a": F(a), "b": F(b)} for a in range(-2, 3) for b in range(-2, 3)]
    for distance in (LinfInput(), ZeroOneInput(), NumericSparseInput(F(1), ("a", "b"))):
        space = GridSpace(points, _det, distance)
        for u in ({"a": F(1, 3), "b": F(1, 3)}, {"a": F(2, 7), "b": F(-5, 3)}, {"a": F(0), "b": F(1)}):
            d = space.dd(u)
            assert d.attained and d.value == _brute(points, u, distance)
            assert distance.between(u, d.witness) == d.value and _det(d.witness) != _det(u)


def test_boolean_grid_uses_the_distance_itself():
    points = [{"a": F(a), "b": b} for a in range(3) for b in (True, False)]
    space = GridSpace(points, lambda w: {"out": w["b"] and w["a"] > 0}, LinfInput())
    d = space.dd({"a": F(1), "b": True})
    assert d.value == 1 and d.witness == {"a": F(0), "b": True}
