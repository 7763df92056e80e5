"""The DP checker's own refusals of a claim (exit 2, never a traceback): a budget that is not an
integer multiple of eps at eps = ln r (e^budget is then irrational there), and a delta that is
negative somewhere on the eps range.  The claim reader lets both through; no test reached them."""
from __future__ import annotations

import os

from dipc_plus.cli import main
from conftest import ROOT

DNM = f"""
[program]
path = "{ROOT}/programs/discrete_noisy_max_naive.dip"
params = {{ m = 3, k = 2 }}

[privacy]
adjacency = "linf"
budget = "eps/2"
eps = "ln(2)"
"""

RR = f"""
[program]
path = "{ROOT}/programs/rr_clients.dip"
params = {{ n = 2, lam = "1/5" }}

[privacy]
adjacency = "hamming"
budget = "ln(4)"
delta = "1/10 - exp(-eps)"
"""


def test_a_fractional_multiple_of_eps_at_ln_r_is_refused(tmp_path, capsys):
    path = tmp_path / "half.toml"
    path.write_text(DNM)
    assert main(["privacy", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "e^(1/2*eps) is not rational at eps = ln(2)" in err
    assert "integer multiple of eps in the budget" in err and "Traceback" not in err


def test_a_delta_negative_on_the_eps_range_is_refused(tmp_path, capsys):
    path = tmp_path / "negative.toml"
    path.write_text(RR)
    assert main(["privacy", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"{os.path.basename(path)}: error: delta = 1/10 - exp(-eps) is negative for some eps in (0, inf)" in err
    assert "delta is a probability slack: it must be >= 0" in err and "Traceback" not in err
