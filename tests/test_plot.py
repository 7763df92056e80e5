"""`dipc plot` and dipc_plus.accuracy.plot: the figure is written and shows the certified numbers."""
from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from dipc_plus import cli
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.accuracy.plot import plot_claim
from dipc_plus.semantics.distribution import certified
from conftest import ROOT, THEORIES

PNG = b"\x89PNG\r\n\x1a\n"


def test_plot_data_and_png(tmp_path):
    ch = AccuracyChecker(load_claim(str(THEORIES / "sparse.toml"), {"c": F(1)}))
    u = {"q[1]": F(-1), "q[2]": F(-1), "q[3]": F(1)}
    out = tmp_path / "sparse.png"
    data = plot_claim(ch, u, str(out), kappa=7, simulate=4000)
    assert out.read_bytes()[:8] == PNG and out.stat().st_size > 20_000
    (curve,) = data.curves
    rep = curve.report
    assert rep.verdict == "refuted"
    # the drawn values are the exact closed forms (sampled points)
    for i in (5, 100, 300):
        e = F(float(data.eps[i]))
        assert curve.p_error[i] == pytest.approx(float(certified(rep.p_error, e).mid()), rel=1e-12)
        assert curve.bound[i] == pytest.approx(float(certified(rep.bound, e).mid()), rel=1e-12)
    # the marked counterexample is the certified one, inside the shaded region
    cex = rep.counterexample
    assert cex.error_ball > cex.bound_ball
    assert data.eps[0] < float(cex.eps) < data.eps[-1]
    above = curve.p_error > curve.bound
    k = int(np.argmin(abs(data.eps - float(cex.eps))))
    assert above[k]
    # the shading agrees with the decision's failing region away from its ends
    (region,) = rep.decision.failing_regions
    hi = float(region.hi.ball(64).mid())
    for x, a in zip(data.eps, above):
        if abs(x - hi) > 1e-2:
            assert a == (x < hi)
    # the sampler's points carry intervals that contain the exact curve (99% each; 8 points)
    inside = sum(low <= float(certified(rep.p_error, F(e).limit_denominator(1000)).mid()) <= high
                 for e, _, low, high in curve.simulated)
    assert len(curve.simulated) == 8 and inside >= 7
    # the bottom panel's minimum is this input's exact infimum of beta/P[error]
    assert curve.ratio_inf.at.kind == "critical"


def test_plot_several_gammas_log_scale(tmp_path):
    ch = AccuracyChecker(load_claim(str(THEORIES / "laplace.toml")))
    out = tmp_path / "laplace.svg"
    data = plot_claim(ch, {"q[1]": F(0), "q[2]": F(1)}, str(out), log=True)
    assert out.read_text().lstrip().startswith("<?xml") and len(data.curves) == 3
    assert all(c.report.verdict == "verified" for c in data.curves)
    assert all(c.ratio_inf.exact and c.ratio_inf.lo == 1 for c in data.curves)


def test_cli_plot_exit_codes(tmp_path, capsys):
    prog, claim = str(ROOT / "programs/sparse.dip"), str(THEORIES / "sparse.toml")
    out = tmp_path / "f.png"
    assert cli.main(["plot", prog, claim, "--set", "c=1", "--input", "q=[-1,-1,1]", "--kappa", "7",
                     "-o", str(out)]) == 1
    assert out.read_bytes()[:8] == PNG
    assert "counterexample eps" in capsys.readouterr().out
    assert cli.main(["plot", prog, claim, "--set", "c=1", "--input", "q=[-1,-1,1]", "-o", str(out),
                     "--eps-max", "5"]) == 0
    for bad in (["-o", str(out)],                                                   # no input
                ["--input", "q=[-1,-1,1]", "-o", str(tmp_path / "f.txt")],          # unknown format
                ["--input", "q=[-1,-1,1]", "-o", str(tmp_path / "no" / "f.png")],   # no such folder
                ["--input", "q=[-1,-1,1]", "-o", str(out), "--eps-max", "-1"]):
        assert cli.main(["plot", prog, claim, *bad]) == 2, bad
    capsys.readouterr()
