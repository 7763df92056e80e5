"""A claim's grid made when read (claims.grid_points.GridPoints) reads as the list of its points."""
from __future__ import annotations

import itertools
import pickle
from fractions import Fraction as F

from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.grid_points import GridPoints
from dipc_plus.claims.scope import grid_of_points
from conftest import THEORIES

RANGES = {"q[1]": [F(-1), F(0), F(1)], "q[2]": [F(-1, 2), F(1, 2)], "b": [True, False], "r": [F(3)]}


def _listed(ranges: dict) -> list:
    names = list(ranges)
    return [dict(zip(names, c)) for c in itertools.product(*(ranges[n] for n in names))]


def test_grid_points_read_as_the_list_of_the_product():
    grid, listed = GridPoints(RANGES), _listed(RANGES)
    assert len(grid) == len(listed) == 12 and list(grid) == listed and grid == listed
    assert [grid[i] for i in range(-12, 12)] == listed[-12:] + listed
    for a, b in [(0, 12), (3, 9), (5, 5), (-4, None), (None, 7), (10, 40)]:
        part = grid[a:b]
        assert list(part) == listed[a:b] and len(part) == len(listed[a:b])
        assert [part[i] for i in range(len(part))] == listed[a:b]
        assert list(part[1:3]) == listed[a:b][1:3]
    assert grid[::5] == listed[::5]
    assert pickle.loads(pickle.dumps(grid[2:7])) == listed[2:7]
    assert list(GridPoints({})) == [{}] and list(GridPoints({"x": []})) == []


def test_the_grid_of_a_whole_grid_is_known_and_a_part_is_recovered():
    grid = GridPoints(RANGES)
    assert grid.grid is RANGES and grid[1:].grid is None and grid[:].grid is RANGES
    assert grid_of_points(grid) == grid_of_points(_listed(RANGES))
    assert grid_of_points(grid[1:]) is None == grid_of_points(_listed(RANGES)[1:])


def test_a_claims_grid_is_made_when_read():
    acc = load_claim(str(THEORIES / "sparse.toml"), {"m": 3}).accuracy
    assert isinstance(acc.points, GridPoints) and len(acc.points) == 27
    assert acc.points[0] == {"q[1]": -1, "q[2]": -1, "q[3]": -1} and acc.points[-1] == {f"q[{i}]": 1 for i in (1, 2, 3)}
