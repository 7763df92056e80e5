"""A claim's grid size limit applies to the points a run checks: `--input` narrows the grid
first, so one input of a grid past the limit is checked; the whole grid is still refused."""
from __future__ import annotations

import json

import pytest

import dipc_plus
from dipc_plus.claims.claim_file import MAX_POINTS, load_claim
from dipc_plus.cli import main as dipc
from dipc_plus.errors import UserError
from conftest import THEORIES

SPARSE = str(THEORIES / "sparse.toml")
M = 12  # [-1, 1]^12 has 3^12 = 531441 points, past the limit
Q = "q=[-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,1]"


def test_the_grid_is_past_the_limit():
    claim = load_claim(SPARSE, {"m": M})
    assert len(claim.accuracy.points) == 3 ** M > MAX_POINTS
    with pytest.raises(UserError, match="531441 points"):
        list(claim.accuracy.points)


def test_one_input_of_an_oversize_grid_is_checked(capsys):
    code = dipc(["accuracy", SPARSE, "--set", f"m={M}", "--set", "c=1", "--input", Q, "--json", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["verdict"] == "verified" and not report["vacuous"]
    assert report["inputs_checked"] == 1 and report["scope"]["inputs"] == "list"
    [row] = report["reports"]
    assert row["input"]["q"] == [-1] * (M - 1) + [1] and row["verdict"] == "verified"


def test_the_api_narrows_too():
    report = dipc_plus.check_accuracy(SPARSE, params={"m": M, "c": 1}, input={"q": [-1] * (M - 1) + [1]})
    assert report.verified


@pytest.mark.parametrize("extra", [[], ["--dd-over", "grid"]])
def test_the_whole_grid_is_still_refused(capsys, extra):
    """Without --input every point is checked; with dd over the grid every point is needed."""
    argv = ["accuracy", SPARSE, "--set", f"m={M}", "--no-progress"]
    if extra:
        argv += ["--input", Q] + extra
    code = dipc(argv)
    out, err = capsys.readouterr()
    assert code == 2
    assert "sparse.toml:23" in err and f"the grid has {3 ** M} points, more than {MAX_POINTS}" in err
    assert "Traceback" not in err
