"""The exact proofs for the printed sup under the coupling bound stop at `COUPLED_PROOFS`
(`privacy.dp.real_output_check`): a claim of the online class whose grid's pairs are closer than the
adjacency bound (q in {0, 1/2}, L-inf 1) has a loss, 1/4 for m = 2, below the coupling's d*B = 1/2, so
the intervals not proved monotone are proved one by one for an exact sup.  Cut at a count, the verdict
(resting on the coupling bound) is unchanged, the sup becomes an interval and the note names the bound."""
from __future__ import annotations

import pytest

from conftest import PROGRAMS, run_main
from dipc_plus.privacy.dp import real_output_check

CLAIM = f"""
[program]
path = "{PROGRAMS / "gap_above_threshold.dip"}"
params = {{ m = 2, T = 0 }}

[privacy]
adjacency = "linf"
budget = "eps"

[privacy.inputs]
grid = {{ q = {{ values = [0, "1/2"] }} }}
"""


@pytest.fixture
def claim(tmp_path):
    path = tmp_path / "gap_half.toml"
    path.write_text(CLAIM)
    return path


def test_the_proofs_run_and_the_sup_is_exact(claim):
    """Exact only because the intervals not proved monotone were proved (with 0 proofs: an interval)."""
    code, out, err = run_main(["privacy", claim, "--no-progress"])
    assert code == 0, (out, err)
    assert "L(eps)/eps = 1/4" in out and "COUPLED_PROOFS" not in out


@pytest.mark.parametrize("budget", [0, 1])
def test_a_tiny_bound_keeps_the_verdict_shows_an_interval_and_names_the_bound(claim, monkeypatch, budget):
    monkeypatch.setattr(real_output_check, "COUPLED_PROOFS", budget)
    code, out, err = run_main(["privacy", claim, "--no-progress"])
    assert code == 0, (out, err)
    assert f"budget of {budget} proofs" in out and "COUPLED_PROOFS" in out, out
    assert "[1/4, 1/2]" in out and "L(eps)/eps = 1/4" not in out, out
