"""Constant rows (no variable left) in the exact LP: the simplex decides them like any other row.

`lp.minimize` and `lp.interior_point` once tested such rows on their own before any LP; now the
row's own LP decides it, and these tests pin that every operator, true or false, strict or not,
alone or beside variables, gives the verdict of its truth.
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from dipc_plus.exact import lp
from dipc_plus.exact.linear import holds

C = lp.Constraint.make
CASES = [(op, rhs) for op in ("<", "<=", "==", ">=", ">") for rhs in (-1, 0, 1)]


@pytest.mark.parametrize("op, rhs", CASES)
def test_a_constant_row_alone_is_its_truth(op, rhs):
    true = holds(-Fraction(rhs), op)             # 0 op rhs  <=>  0 - rhs op 0
    row = C({}, op, rhs)
    assert lp.feasible([row]) is true
    assert (lp.interior_point([row]) is not None) is true
    assert lp.minimize({}, [row]).status == ("optimal" if true else "infeasible")


@pytest.mark.parametrize("op, rhs", CASES)
def test_a_constant_row_beside_variables_decides_the_system(op, rhs):
    true = holds(-Fraction(rhs), op)
    system = [C({}, op, rhs), C({"x": 1}, ">", 0), C({"x": 1}, "<=", 2)]
    low = lp.minimize({"x": 1}, system)
    high = lp.maximize({"x": 1}, system)
    if true:
        assert (low.status, low.value, low.attained) == ("optimal", 0, False)
        assert (high.status, high.value, high.attained) == ("optimal", 2, True)
        assert all(c.holds(low.interior) for c in system)
    else:
        assert (low.status, low.value) == ("infeasible", lp.INF)
        assert (high.status, high.value) == ("infeasible", -lp.INF)


def test_row_point_reads_integer_rows_and_keeps_strictness():
    # 0 < x0 < 1/2 and x1 = x0 (rows over (x0, x1, 1)); then the open x0 < 0 beside x0 >= 0 has no point
    point = lp.row_point([((2, 0, -1), "<"), ((-1, 0, 0), "<"), ((1, -1, 0), "==")], 2)
    assert 0 < point[0] < Fraction(1, 2) and point[1] == point[0]
    assert lp.row_point([((1, 0), "<"), ((-1, 0), "<=")], 1) is None
    assert lp.row_point([((1, 0), "<="), ((-1, 0), "<=")], 1) == [0]
