"""Breaks found by running small hostile variants of this session's features (box accuracy on
unions and polyhedra, every-length, box privacy, the tight loss): each test fails on the code
before its fix.  Every bad input must end in exit 2 with the claim file, line and column."""
from __future__ import annotations

import pytest

from conftest import PROGRAMS, run_main


def _one_point_claim(tmp_path, every_length: bool) -> str:
    path = tmp_path / "one_point.toml"
    path.write_text(f'[program]\npath = "{(PROGRAMS / "svt_count.dip").as_posix()}"\n'
                    'params = { m = 3, T = 0 }\n\n[privacy]\nadjacency = "linf"\nbudget = "eps"\n'
                    + ('length = "every"\n' if every_length else "")
                    + '\n[privacy.inputs]\ngrid = { q = [0, 0] }\n')
    return str(path)


@pytest.mark.parametrize("command, every_length", [("privacy-loss", False), ("privacy", True)])
def test_a_grid_without_an_adjacent_pair_is_located_in_the_claim(tmp_path, command, every_length):
    # one grid point has no neighbour: the tight loss has nothing to compare; the error named no file
    path = _one_point_claim(tmp_path, every_length)
    code, out, err = run_main([command, "--no-progress", path])
    assert code == 2, (out, err)
    line = open(path).read().splitlines().index("grid = { q = [0, 0] }") + 1
    assert f"{path}:{line}:8: error: no pair of adjacent inputs" in err, err
    assert "hint:" in err and "Traceback" not in err


def _either_claim(tmp_path, box: str) -> str:
    path = tmp_path / "either.toml"
    path.write_text(f'[program]\npath = "{(PROGRAMS / "either_nonnegative.dip").as_posix()}"\n\n[accuracy]\n'
                    'det = "noise-free"\ninput_distance = "linf"\noutput_distance = "zero-one"\nalpha = "dd"\n'
                    'gamma = 0\nbeta = "exp(-alpha*eps)"\neps = "(0, inf)"\n\n[accuracy.inputs]\n'
                    f'box = {box}\n')
    return str(path)


@pytest.mark.parametrize("box, shares", [
    # q2 = 0 lies on q2 >= 0 only: the quadrant q2 < 0 misses the box, the union is all of it
    ("{ q1 = [-1, 1], q2 = [0, 0] }", {"either=false": "0", "either=true": "1"}),
    # a single input: it is in the union (q1 >= 0), not in the quadrant
    ("{ q1 = [1, 1], q2 = [1, 1] }", {"either=false": "0", "either=true": "1"}),
    ("{ q1 = [-1, -1], q2 = [-1, -1] }", {"either=false": "1", "either=true": "0"}),
])
def test_the_shares_of_a_degenerate_box_count_each_input_once(tmp_path, box, shares):
    # the share skipped a coordinate of width 0, so every path whose closure held the point counted
    # it: the union of three paths printed share 3 (and 3/2 on a segment), a share above the whole box
    code, out, err = run_main(["accuracy", "--json", "--no-progress", _either_claim(tmp_path, box)])
    import json
    assert code in (0, 5), (out, err)
    got = {f"either={str(r['det']['either']).lower()}": r["share"] for r in json.loads(out)["regions"]}
    assert got == shares, got
