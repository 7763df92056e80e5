"""A path condition on no input (a comparison of constants left in a path) is not "a comparison of
several inputs": it bounds nothing when true and empties the region when false (share 0, so the
region misses the box), while a condition on two inputs is still refused as not a box."""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.accuracy.box import Region, box_of, share_of
from dipc_plus.exact.lp import Constraint

BOUNDS = {"q": (Fraction(-1), Fraction(1))}
HALF = Constraint.make({"q": 1}, ">=", 0)


def test_a_true_constant_condition_bounds_nothing():
    region = box_of({}, "path", [Constraint.make({}, "<", 1), HALF])
    assert isinstance(region, Region) and not region.box.empty
    assert share_of(BOUNDS, region) == Fraction(1, 2)


def test_a_false_constant_condition_empties_the_region():
    region = box_of({}, "path", [Constraint.make({}, ">", 1), HALF])
    assert isinstance(region, Region) and region.box.empty
    assert share_of(BOUNDS, region) == 0


def test_two_inputs_are_still_not_a_box():
    why = box_of({}, "path", [Constraint.make({"p": 1, "q": 1}, ">", 1)])
    assert isinstance(why, str) and "compares several inputs" in why
