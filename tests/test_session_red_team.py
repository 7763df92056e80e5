"""Breaks found by running small hostile variants of this session's features (box accuracy on
unions and polyhedra, every-length, box privacy, the tight loss): each test fails on the code
before its fix.  Every bad input must end in exit 2 with the claim file, line and column."""
from __future__ import annotations

import json

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
    assert code in (0, 5), (out, err)
    got = {f"either={str(r['det']['either']).lower()}": r["share"] for r in json.loads(out)["regions"]}
    assert got == shares, got


def _two_thresholds_claim(tmp_path, beta: str, eps: str) -> str:
    path = tmp_path / "two_thresholds.toml"
    path.write_text(f'[program]\npath = "{(PROGRAMS / "two_thresholds.dip").as_posix()}"\n\n[accuracy]\n'
                    'det = "noise-free"\ninput_distance = "linf"\noutput_distance = "zero-one"\nalpha = "dd"\n'
                    f'gamma = 0\nbeta = "{beta}"\neps = "{eps}"\n\n[accuracy.inputs]\nbox = {{ q = [0, 1] }}\n')
    return str(path)


@pytest.mark.parametrize("beta, code, word", [
    # on 0 < q <= 1 (det = 1, dd = min(q, 1 - q)) P[error] = (e^(-2q) + e^(-2(1 - q)))/2 at eps = 2, which
    # is e^(-1) = beta at q = 1/2 and below e^(-2 dd) + 1/10 everywhere; beta/2 fails at q = 1/2
    ("exp(-alpha*eps) + 1/10", 0, "VERIFIED"),
    ("exp(-alpha*eps)/2", 1, "REFUTED"),
])
def test_the_region_branch_and_bound_takes_a_single_eps(tmp_path, beta, code, word):
    # eps = [2, 2] made the eps interval of width 0 the denominator of the relative eps width: exit 3
    got, out, err = run_main(["accuracy", "--no-progress", _two_thresholds_claim(tmp_path, beta, "[2, 2]")])
    assert got == code, (out, err)
    assert word in out and "internal error" not in err


@pytest.mark.parametrize("line, key", [('eps = "[2, 2]"', "eps"), ('budget = "eps + ln(2)"', "budget")])
def test_every_output_value_refusals_are_located_at_their_key(tmp_path, line, key):
    # a box claim on a real output with no events, at one eps or with a constant in the budget: the
    # refusal named the claim file only (no line, no column)
    path = tmp_path / "jump_mean.toml"
    budget = "" if key == "budget" else 'budget = "eps"\n'
    path.write_text(f'[program]\npath = "{(PROGRAMS / "jump_mean.dip").as_posix()}"\n\n[privacy]\n'
                    f'adjacency = "linf"\nbound = "1/2"\n{budget}{line}\n\n[privacy.inputs]\nbox = {{ x = [0, 1] }}\n')
    code, out, err = run_main(["privacy", "--no-progress", str(path)])
    assert code == 2, (out, err)
    number = path.read_text().splitlines().index(line) + 1
    assert f"{path}:{number}:{len(key) + 4}: error:" in err, err
