"""A real output the symbolic walk cannot take (beside a `choose` draw) is refused with a hint the user
can follow: name output events (the per-point engine takes every noise there), never "run without
--symbolic" to a user who did not pass it.  An ExpNoise output, symbolic since issue 38, is decided on
every value: its support moves with its mean, so the claim is refuted on an event of the released
value that has probability 0 at the neighbour, re-checked by the per-point chain."""
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


CHOOSE = """\
distribution coin() over bool { true: 1/2; false: 1/2 }
input  q: real
output v: real
b <- choose(coin())
v <- Lap(eps, q)
"""


def _run(tmp_path, inputs: str, events: str = "", program: str = PROGRAM) -> subprocess.CompletedProcess:
    (tmp_path / "expval.dip").write_text(program)
    claim = tmp_path / "expval.toml"
    claim.write_text(CLAIM.format(inputs=inputs, events=events))
    return subprocess.run([sys.executable, "-m", "dipc_plus", "privacy", str(claim), "--json"],
                          capture_output=True, text=True, timeout=120)


def test_every_value_of_a_real_output_beside_a_choose_points_to_events(tmp_path):
    """On a grid (a box is proved by the density-ratio bound, which reads `choose` fine)."""
    got = _run(tmp_path, "grid = { q = [0, 1] }", program=CHOOSE)
    assert got.returncode == 2, got.stderr
    error = json.loads(got.stdout)["error"]
    assert error["file"].endswith("expval.dip") and error["line"] == 4
    assert "--symbolic" not in error["hint"] and "events = { v = " in error["hint"]


@pytest.mark.parametrize("inputs", ["grid = { q = [0, 1] }", "box = { q = [0, 1] }"])
def test_every_value_of_an_exp_noise_output_is_refuted_on_an_event(tmp_path, inputs):
    """v = q + E: at q = 0 the value lies in (0, 1] with probability 1 - e^(-eps), at q = 1 never."""
    got = _run(tmp_path, inputs)
    assert got.returncode == 1, got.stdout + got.stderr
    cex = json.loads(got.stdout)["counterexample"]
    assert (cex["input"], cex["neighbour"]) == ({"q": "0"}, {"q": "1"})
    assert cex["event"] == "(0, 1]" and cex["neighbour_probability"] == "0"
    assert cex["probability"] != "0"


def test_the_hinted_events_decide_it(tmp_path):
    """Following the hint gives a verdict: one-sided noise moves its support, so the loss is infinite."""
    got = _run(tmp_path, "grid = { q = [0, 1] }", 'events = { v = ["(-inf, 1/2]", "(1/2, inf)"] }')
    assert got.returncode == 1, got.stderr
    assert json.loads(got.stdout)["verdict"] == "refuted"
