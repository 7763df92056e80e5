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
