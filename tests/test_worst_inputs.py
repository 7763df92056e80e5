"""WorstInputs keeps the n inputs of smallest margin: refuted ones first, then the smallest
certified upper end, unbounded margins last, and among equal ranks the earlier input."""
from fractions import Fraction as F

from dipc_plus.accuracy.summary import InputMargin, WorstInputs


def margin(name, lo, hi, refuted=False):
    return InputMargin({"x": name}, lo, hi, F(1), "somewhere", refuted)


def test_worst_order_and_ties():
    worst = WorstInputs(4)
    for m in [margin(1, F(3), F(4)), margin(2, None, None), margin(3, F(2), F(5)), margin(4, F(3), F(4)),
              margin(5, F(9), F(10), refuted=True), margin(6, F(1), F(2)), margin(7, F(3), F(4)),
              margin(8, F(1, 2), F(4))]:
        worst.add(m)
    # refuted first; then by hi, then lo; the tie at (3, 4) keeps the earlier inputs 1 and 4 over 7
    assert [m.input["x"] for m in worst.worst()] == [5, 6, 8, 1]


def test_unbounded_kept_only_when_room():
    worst = WorstInputs(3)
    for m in [margin(1, None, None), margin(2, F(7), F(8)), margin(3, None, None)]:
        worst.add(m)
    assert [m.input["x"] for m in worst.worst()] == [2, 1, 3]
    worst.add(None)
    worst.add(margin(4, F(1), F(2)))
    assert [m.input["x"] for m in worst.worst()] == [4, 2, 1]
