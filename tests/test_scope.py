"""Verdicts say what they cover (issue 8, item 5; issue 12, point 1).

A program whose mean jumps only for 1/4 < q < 3/4 is eps-DP on the integer grid and not
at step 1/4: the integer-grid verdict must say "grid" (and which grid), not "for every
neighbouring pair".  Real outputs checked on named events say so; a tight loss is tight
on its grid; vacuous and event-limited verdicts fail under --strict with exit 4.
"""
from __future__ import annotations

import json
import os

import pytest

from dipc_plus.cli import main
from conftest import ROOT


MEAN_JUMP = """\
# the mean jumps by 10 only for 1/4 < q < 3/4: no integer input sees it
input  q: real
output out: real
b <- q > 1/4 and q < 3/4
if b then
    out <- Lap(eps, q + 10)
else
    out <- Lap(eps, q)
end
"""

CLAIM = """\
[program]
path = "mean_jump.dip"
[privacy]
adjacency = "linf"
budget = "eps"
events = { out = ["(-inf, 0]", "(0, 1]", "(1, inf)"] }
[privacy.inputs]
grid = { q = [-2, 2] }
STEP
"""


@pytest.fixture
def mean_jump(tmp_path):
    (tmp_path / "mean_jump.dip").write_text(MEAN_JUMP)

    def claim(step: str | None = None, name: str = "claim.toml") -> tuple[str, str]:
        path = tmp_path / name
        path.write_text(CLAIM.replace("STEP", f'step = "{step}"' if step else ""))
        return str(tmp_path / "mean_jump.dip"), str(path)
    return claim


def test_integer_grid_verdict_says_grid_and_events(mean_jump, capsys):
    program, claim = mean_jump()
    assert main(["privacy", program, claim]) == 0
    out = capsys.readouterr().out
    verdict = next(line for line in out.splitlines() if line.startswith("VERIFIED"))
    assert verdict.startswith("VERIFIED on the grid q in {-2, -1, ..., 2} (step 1)")
    assert "real outputs only on the named events" in verdict
    assert "for every neighbouring pair (u, u') of these inputs" in verdict
    coverage = out.splitlines()[-1]
    assert coverage.startswith("scope: events;") and "not covered: inputs off the grid" in coverage
    assert main(["privacy", program, claim, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scope"]["kind"] == "events" and data["scope"]["inputs"] == "grid"
    assert data["scope"]["inputs_detail"] == "q in {-2, -1, ..., 2} (step 1)"
    assert data["scope"]["complete"] is False and data["scope"]["outputs"] == "events"


def test_step_quarter_refutes_it(mean_jump, capsys):
    program, claim = mean_jump("1/4", "quarter.toml")
    assert main(["privacy", program, claim, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    cex = data["counterexample"]
    jumps = [x for x in (cex["input"]["q"], cex["neighbour"]["q"]) if x in ("1/2",)]
    assert jumps, cex                       # one of the two inputs is inside (1/4, 3/4)
    assert data["scope"]["inputs_detail"] == "q in {-2, -7/4, ..., 2} (step 1/4)"


def test_strict_fails_event_limited_verdicts_with_exit_4(mean_jump, capsys):
    program, claim = mean_jump()
    assert main(["privacy", program, claim, "--strict"]) == 4
    assert "STRICT: real outputs were checked only on the named events: exit 4" in capsys.readouterr().out
    assert main(["privacy", program, claim, "--strict", "--json"]) == 4
    assert json.loads(capsys.readouterr().out)["strict"]["reason"]


def test_strict_fails_vacuous_verdicts(tmp_path, capsys):
    """A list of inputs with no two neighbours, and an accuracy claim applying nowhere."""
    body = f"""
[program]
path = "{ROOT}/programs/randomized_response_coin.dip"
[privacy]
adjacency = "hamming"
budget = "0*eps"
[privacy.inputs]
list = [ {{ x = true }} ]
"""
    path = tmp_path / "one.toml"
    path.write_text(body)
    program = os.path.join(ROOT, "programs/randomized_response_coin.dip")
    assert main(["privacy", program, str(path)]) == 0
    assert "VERIFIED (vacuously" in capsys.readouterr().out
    assert main(["privacy", program, str(path), "--strict"]) == 4
    acc = f"""
[program]
path = "{ROOT}/programs/laplace.dip"
params = {{ k = 1 }}
[accuracy]
input_distance = "linf"
output_distance = "linf"
alpha = 100
gamma = 1
beta = "exp(-eps)"
[accuracy.inputs]
grid = {{ q = [0, 1] }}
"""
    apath = tmp_path / "acc.toml"
    apath.write_text(acc)
    lap = os.path.join(ROOT, "programs/laplace.dip")
    assert main(["accuracy", lap, str(apath), "--no-progress", "--allow-vacuous"]) == 0
    out = capsys.readouterr().out
    assert "VERIFIED (vacuously" in out and "on the grid q[1] in {0, 1}" in out
    assert main(["accuracy", lap, str(apath), "--no-progress", "--strict", "--allow-vacuous"]) == 4
    capsys.readouterr()
    assert main(["sweep", lap, str(apath), "--no-progress", "--strict", "--allow-vacuous", "--json"]) == 4
    data = json.loads(capsys.readouterr().out)
    assert data["vacuous"] is True and data["scope"]["kind"] == "grid"


def test_complete_finite_domain_is_said_so_and_strict_passes(capsys):
    program = os.path.join(ROOT, "programs/randomized_response_coin.dip")
    claim = os.path.join(ROOT, "theories/randomized_response_coin_privacy.toml")
    assert main(["privacy", program, claim, "--strict"]) == 0
    out = capsys.readouterr().out
    assert "VERIFIED on every input (x in {false, true})" in out
    assert "scope: grid (every input)" in out


def test_accuracy_and_sweep_name_their_grid(capsys):
    program = os.path.join(ROOT, "programs/sparse.dip")
    claim = os.path.join(ROOT, "theories/sparse.toml")
    assert main(["accuracy", program, claim, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "VERIFIED on the grid q[1..3] each in {-1, 0, 1}, for m = 3, c = 2, T = 0:" in out
    # dd = 0 at q=[0,0,1] (a query on the threshold): a vacuous answer, exit 5
    assert main(["accuracy", program, claim, "--no-progress", "--input", "q=[0,0,1]", "--json"]) in (0, 1, 5)
    data = json.loads(capsys.readouterr().out)
    assert data["scope"]["inputs"] == "list"
    assert main(["sweep", program, claim, "--no-progress"]) in (0, 1)
    out = capsys.readouterr().out
    assert "on the grid q[1..3] each in {-1, 0, 1}" in out and "every number below is over these inputs only" in out


def test_tight_loss_is_tight_on_its_grid(capsys):
    """Lyu Alg. 6 with m = 2: sup L/eps = 3/4 exactly, on {0,1}^2 only (over real inputs the
    ratio tends to eps), and the report says so."""
    program = os.path.join(ROOT, "programs/svt_lyu_alg6.dip")
    claim = os.path.join(ROOT, "theories/svt_lyu_alg6_privacy.toml")
    assert main(["privacy-loss", program, claim, "--set", "m=2"]) == 0
    out = capsys.readouterr().out
    assert "sup L(eps)/eps = 3/4" in out
    assert "on the grid q[1..2] each in {0, 1}" in out.splitlines()[0]
    assert "tight on these inputs: other inputs" in out
    assert main(["privacy-loss", program, claim, "--set", "m=2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scope"]["kind"] == "grid" and data["sup_loss_over_eps"] == "3/4"
