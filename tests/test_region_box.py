"""A box-shaped det region is a `claims.box_dd.Box`: its open ends decide the share of a point box.

The program's one comparison x > 0 makes two regions, x > 0 (open at 0) and x <= 0 (closed at 0).
On the box x in [0, 0] the first has share 0 and the second share 1; on [-1, 1] each has share 1/2.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.accuracy.box import Region, det_regions_by_shape, share_of
from dipc_plus.claims.box_dd import Box
from dipc_plus.frontend.load import parse_program

SIGN = "input x: real\noutput b: bool\nif x > 0 then\n  b <- true\nelse\n  b <- false\nend\n"


def _regions():
    boxes, polys, others = det_regions_by_shape(parse_program(SIGN), ["x"])
    assert not polys and not others
    return {r.det["b"]: r for r in boxes}


def test_the_regions_are_boxes_with_their_open_ends():
    regions = _regions()
    assert all(isinstance(r, Region) and isinstance(r.box, Box) for r in regions.values())
    assert regions[True].box.interval("x") == ((Fraction(0), False), None)
    assert regions[False].box.interval("x") == (None, (Fraction(0), True))


def test_the_share_of_a_point_box_reads_the_open_end():
    regions = _regions()
    point, wide = {"x": (Fraction(0), Fraction(0))}, {"x": (Fraction(-1), Fraction(1))}
    assert share_of(point, regions[True]) == 0
    assert share_of(point, regions[False]) == 1
    assert share_of(wide, regions[True]) == share_of(wide, regions[False]) == Fraction(1, 2)
