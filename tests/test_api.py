"""The Python API (dipc_plus.check_accuracy, sweep, check_privacy, privacy_loss) is the CLI's twin:
the same verdicts and the same JSON, readable reports, HTML tables, and Figures without pyplot.
The tutorial notebook runs in a real kernel in tests/test_api_notebook.py."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import dipc_plus
from dipc_plus import cli
from conftest import ROOT
from dipc_plus.errors import UserError

SPARSE = str(ROOT / "theories/sparse.toml")
SVT4 = str(ROOT / "theories/svt_lyu_alg4_privacy.toml")
RR_COIN = str(ROOT / "theories/randomized_response_coin_privacy.toml")


def _cli_json(capsys, *argv):
    code = cli.main([*argv, "--json"])
    out = json.loads(capsys.readouterr().out)
    return code, out


def _without_time(obj):
    """The JSON without wall-clock fields (they differ between two runs) and without the CLI's
    --strict report (an option of the command, not part of the result)."""
    if isinstance(obj, dict):
        return {k: _without_time(v) for k, v in obj.items() if k not in ("seconds", "strict")}
    if isinstance(obj, list):
        return [_without_time(v) for v in obj]
    return obj


def test_check_accuracy_is_the_cli_twin(capsys):
    r = dipc_plus.check_accuracy(SPARSE, params={"c": 1}, input={"q": [-1, -1, 1]}, kappa=7)
    code, out = _cli_json(capsys, "accuracy", SPARSE, "--set", "c=1", "--input", "q=[-1,-1,1]", "--kappa", "7")
    assert code == 1 and r.verdict == "refuted" and not r.verified
    assert _without_time(r.to_json()) == _without_time(out)
    assert out["program"] == "sparse" and out["program_path"].endswith("programs/sparse.dip")
    # the counterexample is the certified one: P[error] above beta/7 at eps = 1
    cex = r.counterexample
    assert cex.eps == 1 and cex.error_ball > cex.bound_ball
    text = str(r)   # print(r): the command's text report
    assert "REFUTED at q=[-1,-1,1], eps = 1" in text and "object at 0x" not in text
    html = r._repr_html_()
    assert html.startswith("<div>") and "<table>" in html and "refuted" in html


def test_check_accuracy_verified_over_the_grid():
    r = dipc_plus.check_accuracy(SPARSE, params={"c": 1})
    assert r.verified and r.to_json()["inputs_checked"] == 27
    assert "VERIFIED" in str(r)


def test_sweep_finds_the_papers_constant(capsys):
    s = dipc_plus.sweep(SPARSE, params={"c": 1})
    # Barthe et al. Table 4 row Sparse c=1: beta/6 holds, beta/7 fails (kappa* = 6.3758...)
    assert s.best_kappa == 6 and s.kappa_star.text.startswith("6.3758")
    assert s.counterexample.kappa == 7
    code, out = _cli_json(capsys, "sweep", SPARSE, "--set", "c=1")
    assert code == 0 and _without_time(s.to_json()) == _without_time(out)
    assert "kappa* (the infimum of beta/P[error]) = 6.3758" in str(s)
    assert "best kappa" in s._repr_html_()


def test_privacy_and_loss_are_the_cli_twins(capsys):
    p = dipc_plus.check_privacy(SVT4)
    code, out = _cli_json(capsys, "privacy", SVT4)
    assert code == 1 and p.verdict == "refuted"
    assert _without_time(p.to_json()) == _without_time(out)
    loss = dipc_plus.privacy_loss(RR_COIN)
    code, out = _cli_json(capsys, "privacy-loss", RR_COIN)
    assert code == 0 and _without_time(loss.to_json()) == _without_time(out)
    # one convention: "program" is the name everywhere, the path is "program_path"
    assert out["program"] == "randomized_response_coin" and out["program_path"].endswith(".dip")
    assert "ln(3)" in str(loss)  # a coin telling the truth with probability 3/4: eps = ln 3


def test_parameters_in_params_and_bad_ones():
    from dipc_plus.errors import UserError
    r = dipc_plus.check_accuracy(SPARSE, params={"c": 2}, input={"q": [-1, 1, -1]}, kappa=13)
    assert r.verdict == "refuted" and r.to_json()["params"]["c"] == 2
    with pytest.raises(UserError):
        dipc_plus.check_accuracy(SPARSE, params={"c": "two"})
    with pytest.raises(UserError):
        dipc_plus.check_accuracy(SPARSE, program=ROOT / "programs/laplace.dip")
    with pytest.raises(UserError):
        dipc_plus.check_accuracy(SPARSE, kappa=0)


def test_plots_are_figures_with_their_elements():
    from matplotlib.figure import Figure
    r = dipc_plus.check_accuracy(SPARSE, params={"c": 1}, input={"q": [-1, -1, 1]}, kappa=7)
    fig = r.plot()
    assert isinstance(fig, Figure)
    assert [len(r.plot(points=n).axes[0].get_lines()[0].get_xdata()) for n in (50, 120)] == [50, 120]
    top, bottom = fig.axes[:2]
    assert top.get_yscale() == "linear" and top.get_title().startswith("sparse")
    labels = [t.get_text() for t in top.get_legend().get_texts()]
    assert any(lab.startswith("P[error]") for lab in labels) and any(lab.startswith("beta/7") for lab in labels)
    loss = dipc_plus.privacy_loss(SVT4).plot()
    (ax,) = loss.axes
    assert "svt_lyu_alg4" in ax.get_title() and "L-inf distance at most 1" in ax.get_title()
    assert "8 input(s)" in ax.get_title()
    assert [line.get_label() for line in ax.get_lines()] == ["tight loss L(eps)", "claimed budget eps"]
    # the loss is above eps here (sup L/eps ~ 1.4457), so the curve is above the budget at the right end
    y_loss, y_budget = (line.get_ydata()[-1] for line in ax.get_lines())
    assert y_loss > y_budget


def test_importing_and_using_the_api_does_not_touch_pyplot():
    code = ("import sys, dipc_plus\n"
            f"r = dipc_plus.check_accuracy({SPARSE!r}, params={{'c': 1}}, input={{'q': [-1, -1, 1]}}, kappa=7)\n"
            "r.plot()\n"
            "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'\n"
            "import matplotlib; assert matplotlib.get_backend() is not None\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_the_no_accuracy_table_and_kappa_refusals_are_one_check_in_each_words():
    # one function each (accuracy.checker.accuracy_table, commands.common.check_kappa); the
    # command line says --kappa 7, the API kappa=7
    from conftest import run_main
    from dipc_plus.accuracy.checker import AccuracyChecker
    from dipc_plus.claims.claim_file import load_claim
    no_table = "the claim file has no [accuracy] table"
    with pytest.raises(UserError, match=r"no \[accuracy\] table") as api:
        dipc_plus.check_accuracy(RR_COIN)
    with pytest.raises(UserError) as direct:
        AccuracyChecker(load_claim(RR_COIN))
    code, _, err = run_main(["accuracy", RR_COIN])
    assert code == 2 and f"{RR_COIN}: error: {no_table}" in err
    for e in (api.value, direct.value):
        assert (e.message, e.file, e.hint) == (no_table, RR_COIN, "add an [accuracy] table (see docs/claims.md)")
    for bad in (0, -1, 2.5, True):   # True is an int in Python: it was accepted as kappa = 1
        with pytest.raises(UserError) as api:
            dipc_plus.check_accuracy(SPARSE, kappa=bad)
        assert (api.value.message, api.value.hint) == (f"kappa must be a positive integer, not {bad!r}",
                                                       "use e.g. kappa=7")
    code, _, err = run_main(["accuracy", SPARSE, "--kappa", "0"])
    assert code == 2 and "--kappa must be a positive integer, not 0" in err and "use e.g. --kappa 7" in err
