"""A real output the symbolic walk cannot take (an ExpNoise draw) is refused with a hint the user can
follow: name output events (the per-point engine takes every noise there), never "run without
--symbolic" to a user who did not pass it."""
import json
import subprocess
import sys

import pytest

PROGRAM = """\
input  q: real
output v: real
v <- ExpNoise(eps, q)
"""

CLAIM = """\
[program]
path = "expval.dip"

[privacy]
adjacency = "linf"
bound = 1
budget = "eps"
eps = "(0, inf)"
{events}
[privacy.inputs]
{inputs}
"""


def _run(tmp_path, inputs: str, events: str = "") -> subprocess.CompletedProcess:
    (tmp_path / "expval.dip").write_text(PROGRAM)
    claim = tmp_path / "expval.toml"
    claim.write_text(CLAIM.format(inputs=inputs, events=events))
    return subprocess.run([sys.executable, "-m", "dipc_plus", "privacy", str(claim), "--json"],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("inputs", ["grid = { q = [0, 1] }", "box = { q = [0, 1] }"])
def test_every_value_of_an_exp_noise_output_points_to_events(tmp_path, inputs):
    got = _run(tmp_path, inputs)
    assert got.returncode == 2, got.stderr
    error = json.loads(got.stdout)["error"]
    assert error["file"].endswith("expval.dip") and error["line"] == 3
    assert "--symbolic" not in error["hint"] and "events = { v = " in error["hint"]


def test_the_hinted_events_decide_it(tmp_path):
    """Following the hint gives a verdict: one-sided noise moves its support, so the loss is infinite."""
    got = _run(tmp_path, "grid = { q = [0, 1] }", 'events = { v = ["(-inf, 1/2]", "(1/2, inf)"] }')
    assert got.returncode == 1, got.stderr
    assert json.loads(got.stdout)["verdict"] == "refuted"
