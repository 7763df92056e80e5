"""What a DP researcher meets first (issue 12): claim-only commands, plots that show the failure,
one JSON convention, events on real and integer outputs, a PRISM export Storm can check, and
clear errors."""
from __future__ import annotations

import json
import math
import re
from fractions import Fraction as F

import numpy as np
import pytest
from scipy import integrate, stats

from dipc_plus import cli
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.plot import failure_hidden_on_linear, figure, plot_data
from dipc_plus.claims.claim_file import load_claim
from conftest import ROOT

SPARSE_DIP, SPARSE = str(ROOT / "programs/sparse.dip"), str(ROOT / "theories/sparse.toml")
LAPLACE_DIP = str(ROOT / "programs/laplace.dip")
NSPARSE7 = str(ROOT / "theories/numeric_sparse_cor7.toml")
SVT4 = str(ROOT / "theories/svt_lyu_alg4_privacy.toml")


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- [PROGRAM] CLAIM (point 7)

@pytest.mark.parametrize("argv", [
    ["accuracy", "--set", "c=1", "--no-progress"],
    ["sweep", "--set", "c=1", "--no-progress"],
])
def test_claim_alone_is_enough(capsys, argv):
    cmd, *rest = argv
    alone = run(capsys, cmd, SPARSE, *rest)
    both = run(capsys, cmd, SPARSE_DIP, SPARSE, *rest)
    assert alone[0] == both[0] == 0
    strip = lambda text: re.sub(r"[0-9.]+ s\b", "", text)  # noqa: E731  (timings differ)
    assert strip(alone[1]) == strip(both[1])


def test_claim_alone_for_plot_privacy_and_loss(capsys, tmp_path):
    out = tmp_path / "f.png"
    assert run(capsys, "plot", SPARSE, "--set", "c=1", "--input", "q=[-1,-1,1]", "--kappa", "7",
               "-o", str(out))[0] == 1
    assert out.exists()
    code, text, _ = run(capsys, "privacy", SVT4)
    assert code == 1 and "REFUTED" in text
    code, text, _ = run(capsys, "privacy-loss", SVT4)
    assert code == 0 and "sup L(eps)/eps" in text


def test_a_program_other_than_the_claims_is_refused(capsys):
    code, _, err = run(capsys, "accuracy", LAPLACE_DIP, SPARSE)
    assert code == 2 and "the claim is about programs/sparse.dip" in err and "leave PROGRAM out" in err
    code, _, err = run(capsys, "privacy", LAPLACE_DIP, SVT4)
    assert code == 2 and "Traceback" not in err


def test_commands_share_one_argument_module():
    """No command imports another command's module for its arguments (commands/common.py)."""
    for path in (ROOT / "dipc_plus/commands").glob("*.py"):
        text = path.read_text()
        for other in ("accuracy", "privacy", "prob", "sweep", "plot", "simulate", "dtmc"):
            assert f"from dipc_plus.commands.{other} import" not in text, (path.name, other)


# --------------------------------------------------------------------------- plots (point 4)

def _outside(fig, ax) -> bool:
    """The axes' legend lies entirely outside the axes' box (it covers no data)."""
    fig.canvas.draw() if hasattr(fig.canvas, "draw") else None
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    box = ax.get_window_extent(renderer)
    return legend.x0 >= box.x1 or legend.y0 >= box.y1 or legend.x1 <= box.x0 or legend.y1 <= box.y0


def _canvas(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    FigureCanvasAgg(fig)
    return fig


def test_accuracy_plot_linear_when_the_failure_shows(tmp_path):
    ch = AccuracyChecker(load_claim(SPARSE, {"c": F(1)}))
    data = plot_data(ch, {"q[1]": F(-1), "q[2]": F(-1), "q[3]": F(1)}, kappa=7)
    assert not failure_hidden_on_linear(data)  # P[error] exceeds beta/7 by ~0.07 at eps = 1
    fig = _canvas(figure(data))
    top, bottom = fig.axes
    assert top.get_yscale() == "linear"
    assert _outside(fig, top) and _outside(fig, bottom)
    # the counterexample marker sits at eps = 1, above the dashed bound
    marks = [ln for ln in top.get_lines() if ln.get_marker() == "X"]
    assert len(marks) == 1 and marks[0].get_xdata()[0] == 1.0


def test_accuracy_plot_turns_logarithmic_when_the_failure_is_invisible():
    # Numeric Sparse (paper convention), c = 2, beta/7: fails only for eps >= ~22, where P[error] and
    # beta/7 differ by less than 0.002: the linear axis shows one curve
    ch = AccuracyChecker(load_claim(NSPARSE7, {"c": F(2)}), boundary=True)
    data = plot_data(ch, {"q[1]": F(-1), "q[2]": F(1), "q[3]": F(1)}, kappa=7)
    (curve,) = data.curves
    above = curve.p_error > curve.bound
    assert above.any() and float(np.max((curve.p_error - curve.bound)[above])) < 0.02
    assert failure_hidden_on_linear(data)
    fig = _canvas(figure(data))
    assert fig.axes[0].get_yscale() == "log"
    assert figure(data, log=False).axes[0].get_yscale() == "linear"  # the user's choice wins
    assert _outside(fig, fig.axes[0])


def test_privacy_loss_plot_style(capsys, tmp_path):
    out = tmp_path / "loss.png"
    code, _, _ = run(capsys, "privacy-loss", SVT4, "--plot", str(out))
    assert code == 0 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    from dipc_plus.privacy.loss.tight import privacy_loss
    from dipc_plus.privacy.loss.plot import loss_figure
    fig = _canvas(loss_figure(privacy_loss(load_privacy_claim(SVT4, {}))))
    (ax,) = fig.axes
    title = ax.get_title()
    assert title.startswith("svt_lyu_alg4 (m=3, c=1, T=0)")
    assert "L-inf distance at most 1" in title and "q[1] in {0, 1}" in title
    assert _outside(fig, ax)
    assert ax.get_xlabel() == "eps" and ax.get_ylabel() == "privacy loss"


# --------------------------------------------------------------------------- output (point 5)

def test_sweep_words_kappa_star_as_an_infimum(capsys):
    code, out, _ = run(capsys, "sweep", SPARSE, "--set", "c=1", "--no-progress")
    assert code == 0
    assert "kappa* (the infimum of beta/P[error]) = 6.3758" in out
    assert "kappa* = inf" not in out


def test_several_gammas_are_named_outside_the_tuple(capsys):
    code, out, _ = run(capsys, "accuracy", str(ROOT / "theories/laplace.toml"), "--no-progress")
    assert code == 0
    first = out.splitlines()[0]
    assert "(0, k*exp(-gamma*eps/sens), gamma)-accuracy of laplace for each gamma in {1, 2, 3}" in first


def _numbers_convention(obj, path=""):
    """docs/json.md: exact numbers are JSON integers or "p/q" strings, never decimal strings of integers."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            _numbers_convention(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _numbers_convention(v, f"{path}[{i}]")
    elif isinstance(obj, str) and re.fullmatch(r"-?\d+", obj):
        raise AssertionError(f"{path}: the integer {obj} written as a string")


@pytest.mark.parametrize("argv", [
    ["prob", SPARSE_DIP, "--set", "c=2", "--input", "q=[1,-1,1/2]"],
    ["accuracy", SPARSE, "--set", "c=1", "--input", "q=[-1,-1,1]", "--kappa", "7"],
    ["privacy", SVT4],
    ["privacy-loss", SVT4],
])
def test_one_json_convention(capsys, argv):
    code, out, _ = run(capsys, *argv, "--json")
    report = json.loads(out)
    for key in ("params",):
        _numbers_convention(report[key], key)
    assert "/" not in report["program"] and report["program"] in ("sparse", "svt_lyu_alg4")
    assert report.get("program_path", "x.dip").endswith(".dip")
    if "inputs" in report and isinstance(report["inputs"], dict):
        _numbers_convention(report["inputs"], "inputs")
        assert report["inputs"]["q"] == [1, -1, "1/2"]


def test_eps_spelling(capsys):
    a = run(capsys, "prob", SPARSE_DIP, "--input", "q=[1,-1,0]", "--eps", "1/2")
    b = run(capsys, "prob", SPARSE_DIP, "--input", "q=[1,-1,0]", "--at", "eps=1/2")
    strip = lambda text: re.sub(r"[0-9.]+ s\b", "", text)  # noqa: E731
    assert a[0] == b[0] == 0 and strip(a[1]) == strip(b[1]) and "at eps=1/2:" in a[1]


# --------------------------------------------------------------------------- events (point 6)

def test_prob_events_on_real_outputs_are_exact(capsys):
    code, out, _ = run(capsys, "prob", LAPLACE_DIP, "--input", "q=[0,1]", "--events", "out[1]<=0", "out[1]>2",
                       "out[1]>-1 & out[1]<=1", "out[1]<=0 & out[2]>1", "--json", "--eps", "3/2")
    assert code == 0
    events = {e["event"]: e for e in json.loads(out)["events"]}
    # out[i] = q[i] + Lap(1/eps): closed forms checked against scipy's Laplace distribution
    eps = 1.5
    lap = stats.laplace(scale=1 / eps)
    expected = {"out[1]<=0": lap.cdf(0), "out[1]>2": lap.sf(2), "out[1]>-1 & out[1]<=1": lap.cdf(1) - lap.cdf(-1),
                "out[1]<=0 & out[2]>1": lap.cdf(0) * stats.laplace(loc=1, scale=1 / eps).sf(1)}
    assert events["out[1]>2"]["probability"] == "1/2*e^(-2*eps)"
    for name, value in expected.items():
        ball = events[name]["at"]["3/2"]
        mid = float(ball.strip("[").split(" ")[0])
        assert mid == pytest.approx(value, rel=1e-12), name


def test_prob_values_of_an_integer_output(capsys, tmp_path):
    prog = tmp_path / "geo.dip"
    prog.write_text("input q: int\noutput x: int\nx <- DLap(eps, q)\n")
    code, out, _ = run(capsys, "prob", str(prog), "--input", "q=1", "--values", "x=-1..3", "--eps", "1")
    assert code == 0
    lines = [ln for ln in out.splitlines() if ln.startswith("P[")]
    assert [ln.split("]")[0] for ln in lines] == [f"P[x = {k}" for k in range(-1, 4)]
    # discrete Laplace: P[x = k] = (e^eps - 1)/(e^eps + 1) * e^(-eps |k - q|), summed against the series
    values = re.findall(r"at eps=1: \[([0-9.]+)", out)
    a = math.exp(-1)
    for k, v in zip(range(-1, 4), values):
        assert float(v) == pytest.approx((1 - a) / (1 + a) * a ** abs(k - 1), rel=1e-12)
    code, _, err = run(capsys, "prob", str(prog), "--input", "q=1", "--events", "y<0")
    assert code == 2 and "not an output" in err
    code, _, err = run(capsys, "prob", str(prog), "--input", "q=1", "--events", "x<__import__")
    assert code == 2 and "Traceback" not in err


def test_simulate_lists_integer_outcomes_by_value(capsys, tmp_path):
    prog = tmp_path / "geo.dip"
    prog.write_text("input q: int\noutput x: int\nx <- DLap(eps, q)\n")
    code, out, _ = run(capsys, "simulate", str(prog), "--input", "q=0", "--eps", "1", "-n", "3000", "--seed", "3")
    assert code == 0
    values = [int(m) for m in re.findall(r"^x=(-?\d+)", out, re.M)]
    assert len(values) > 5 and values == sorted(values)


# --------------------------------------------------------------------------- PRISM (point 8)

def test_prism_export_ties_eps_and_t_and_its_props_check_in_storm(capsys, tmp_path):
    stormpy = pytest.importorskip("stormpy")
    import dipc_plus
    model = tmp_path / "nm.pm"
    code, _, err = run(capsys, "dtmc", str(ROOT / "programs/noisy_max.dip"), "--set", "m=3", "--input",
                       "q=[-1,0,1/2]", "--format", "prism", "-o", str(model))
    assert code == 0 and "nm.props" in err
    text, props_text = model.read_text(), (tmp_path / "nm.props").read_text()
    assert "const double t" not in text and "formula t = pow(" in text
    labels = dict(re.findall(r'^// (o\d+): (.*)$', props_text, re.M))
    program = stormpy.parse_prism_program(str(model))
    em = program.expression_manager
    dist = dipc_plus.load(str(ROOT / "programs/noisy_max.dip"), m=3).distribution(q=[-1, 0, F(1, 2)])
    for eps in (F(1, 2), F(3)):
        fixed = program.define_undefined_constants(
            {program.get_constant("eps").expression_variable: em.rational(stormpy.Rational(str(eps)))})
        props = stormpy.parse_properties(props_text, fixed)
        assert len(props) == len(labels) + 1
        built = stormpy.build_model(fixed, props)
        for prop in props:
            value = stormpy.model_checking(built, prop).get_value(built.initial_states[0])
            name = str(prop).split(")")[0].strip("(")
            if name == "exit":
                assert value == pytest.approx(1, abs=1e-9)
                continue
            out = int(labels[name].split("=")[1])
            assert value == pytest.approx(float(dist[out].arb_value(eps, 64).mid()), rel=1e-9), (name, eps)


def test_prism_parametric_single_parameter(capsys):
    code, out, _ = run(capsys, "dtmc", str(ROOT / "programs/svt_lyu_alg4.dip"), "--input", "q=[0,0,1]",
                       "--format", "prism", "--parametric")
    assert code == 0
    assert "const double t;" in out and "const double eps" not in out and "the only parameter" in out


# --------------------------------------------------------------------------- errors and the README

def test_gaussian_noise_gets_an_explanation(capsys, tmp_path):
    prog = tmp_path / "g.dip"
    prog.write_text("input q: real\noutput x: real\nx <- Gauss(eps, q)\n")
    code, _, err = run(capsys, "show", str(prog))
    assert code == 2
    assert "'Gauss' noise is not part of DiPWhile+" in err and "erf" in err
    assert "Lap(" in err and "DLap(" in err and "choose(" in err


def test_readme_first_command_needs_no_test_extras():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert lines[0] == "```"
    first, second = lines[1], lines[2]
    assert first == "pip install -e . && dipc accuracy programs/sparse.dip theories/sparse.toml"
    assert second.startswith("pip install -e \".[test]\" && python -m pytest") and lines[3] == "```"
    # and that first check verifies (run through the CLI entry point, as `dipc` would)
    assert cli.main(["accuracy", SPARSE_DIP, SPARSE, "--no-progress"]) == 0


def test_numerical_integration_backs_the_event_closed_form():
    """P[out[1] in (-1, 1]] = 1 - e^(-eps) at q = 0: the closed form against quadrature of the density."""
    import dipc_plus
    from dipc_plus.semantics.events import event_probability, parse_event
    d = dipc_plus.load(LAPLACE_DIP).distribution(q=[0, 1])
    p = event_probability(d, parse_event("-1 < out[1] <= 1", d.names))
    for eps in (0.3, 2.0):
        density = lambda x: eps / 2 * math.exp(-eps * abs(x))  # noqa: E731
        value, _ = integrate.quad(density, -1, 1)
        assert float(p.arb_value(F(eps).limit_denominator(10), 64).mid()) == pytest.approx(value, rel=1e-9)


def test_attack_plot_style():
    from dipc_plus.privacy.pufferfish.attack import attack_figure, scenario_attacks
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    claim = load_privacy_claim(str(ROOT / "theories/discrete_noisy_max_improved_contagious_pufferfish.toml"), {})
    fig = _canvas(attack_figure(scenario_attacks(claim), program=claim.program.name))
    (ax,) = fig.axes
    assert ax.get_title().startswith("discrete_noisy_max_improved: Bayes-optimal attack")
    assert _outside(fig, ax) and len(ax.get_lines()) == len(ax.get_legend().get_texts()) >= 1


def test_prism_props_carry_the_accuracy_claims_probability(capsys, tmp_path):
    """--claim: Storm's P[correct] at eps equals 1 - our exact P[error] of the accuracy check."""
    stormpy = pytest.importorskip("stormpy")
    import dipc_plus
    model = tmp_path / "nmin.pm"
    code, _, err = run(capsys, "dtmc", str(ROOT / "programs/noisy_min.dip"), "--input", "q=[-1,0,0]",
                       "--format", "prism", "--claim", str(ROOT / "theories/noisy_min.toml"), "-o", str(model))
    assert code == 0, err
    props_text = (tmp_path / "nmin.props").read_text()
    assert '"correct": P=? [ F (s=' in props_text and "det(u): out=1" in props_text
    report = dipc_plus.check_accuracy(str(ROOT / "theories/noisy_min.toml"), input={"q": [-1, 0, 0]})
    (rep,) = report.result.reports
    program = stormpy.parse_prism_program(str(model))
    em = program.expression_manager
    for eps in (F(1, 3), F(2)):
        fixed = program.define_undefined_constants(
            {program.get_constant("eps").expression_variable: em.rational(stormpy.Rational(str(eps)))})
        props = stormpy.parse_properties(props_text, fixed)
        built = stormpy.build_model(fixed, props)
        (correct,) = [p for p in props if str(p).startswith("(correct)")]
        value = stormpy.model_checking(built, correct).get_value(built.initial_states[0])
        assert 1 - value == pytest.approx(float(rep.p_error.arb_value(eps, 64).mid()), rel=1e-9)
    code, _, err = run(capsys, "dtmc", str(ROOT / "programs/noisy_min.dip"), "--input", "q=[-1,0,0]",
                       "--format", "prism", "--claim", str(ROOT / "theories/noisy_max.toml"),
                       "-o", str(tmp_path / "x.pm"))
    assert code == 2 and not (tmp_path / "x.pm").exists()


def test_a_program_alone_asks_for_its_claim(capsys):
    code, _, err = run(capsys, "accuracy", SPARSE_DIP)
    assert code == 2 and "a claim file is needed" in err and "theories/" in err
