"""The sup search's enclosure [lo, hi] keeps the upper bounds of the boxes it set aside as too narrow
to split, also when it stops early because lo already exceeds the bound it was asked about: the
early stop passed the caller's side bounds only, so hi could fall below a proven upper bound (a
printed bound that is not one)."""
from __future__ import annotations

from fractions import Fraction as F

from dipc_plus.decision.sup_ratio import _branch_and_bound


class TwoLevelRatio:
    """A ratio whose first box (from 0) has upper bound 1000 and every other box 600; the midpoint
    of any box gives the lower bound 10."""

    def box_upper(self, x, y):
        return F(1000) if x == 0 else F(600)

    def g_lower(self, mid):
        return F(10)


def test_early_stop_keeps_the_narrow_boxes_upper_bounds():
    # tol = 512 makes every one of the 64 first boxes (width 1/64) narrower than tol / 2^14:
    # the first box popped (upper 1000) is set aside, then lo = 10 > against = 5 stops the search
    found = _branch_and_bound(TwoLevelRatio(), F(0), F(1), F(0), None, [], F(512), against=F(5))
    assert found.lo == 10 and found.hi == 1000


def test_without_against_the_search_keeps_them_too():
    found = _branch_and_bound(TwoLevelRatio(), F(0), F(1), F(0), None, [], F(512))
    assert found.hi == 1000
