"""`dipc prob` and `dipc dtmc` end to end, the notebook API, and the PRISM export
checked by an independent model checker (Storm, through stormpy; skipped when
stormpy is not installed)."""
from __future__ import annotations

import json
import math
from fractions import Fraction as F

import pytest

import dipc_plus
import dipc_plus.frontend.load  # noqa: F401 (a broken module must fail here, not skip)
from dipc_plus.cli import main as dipc
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.semantics.distribution import output_distribution
from conftest import ROOT, lap_cdf, lap_pdf, quad

NOISY_MAX = str(ROOT / "programs" / "noisy_max.dip")
RR_RETRY = str(ROOT / "programs" / "randomized_response_retry.dip")
FIG4A = str(ROOT / "programs" / "numeric_sparse_fig4a.dip")
SPARSE = str(ROOT / "programs" / "sparse.dip")


def run(capsys, *argv):
    code = dipc(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def noisy_max_quad(q, i, eps):
    b = eps / 2

    def f(x):
        v = lap_pdf(x, q[i], b)
        for j, qj in enumerate(q):
            if j != i:
                v *= lap_cdf(x, qj, b)
        return v
    return quad(f, q)


# --------------------------------------------------------------------------- dipc prob


def test_prob_prints_closed_forms_certified_values_and_the_identity(capsys):
    code, out, err = run(capsys, "prob", NOISY_MAX, "--input", "q=[-1,0,0]", "--at", "eps=27/82")
    assert code == 0, err
    prog = dipc_plus.load(NOISY_MAX, m=3)
    dist = prog.distribution(q=[-1, 0, 0])
    for value in (1, 2, 3):
        assert f"out={value}:" in out
        assert str(dist[value]) in out
    assert "The probabilities sum to exactly 1" in out
    # the certified decimals agree with quadrature
    balls = [line.split(": ", 1)[1] for line in out.splitlines() if "at eps=27/82" in line]
    assert len(balls) == 3
    for i, ball in enumerate(balls):
        mid = float(ball.strip("[]").split(" +/- ")[0])
        assert abs(mid - noisy_max_quad([-1.0, 0.0, 0.0], i, 27 / 82)) < 1e-9


def test_prob_json_has_exact_values(capsys):
    """docs/json.md: numbers are integers or "p/q" strings; closed forms are strings."""
    code, out, _ = run(capsys, "prob", SPARSE, "--set", "m=3", "--set", "c=2", "--input", "q=[1,-1,0]",
                       "--json", "--at", "eps=1/2")
    assert code == 0
    report = json.loads(out)
    assert report["sums_to_one"] is True and report["sum"] == "1"
    assert report["params"]["c"] == 2 and report["params"]["m"] == 3
    assert report["inputs"]["q"] == [1, -1, 0]
    prog = dipc_plus.load(SPARSE, m=3, c=2)
    dist = prog.distribution(q=[1, -1, 0])
    assert len(report["outcomes"]) == len(dist)
    exact = {str(p) for _, p in dist.items()}
    for entry in report["outcomes"]:
        assert entry["probability"] in exact
        assert isinstance(entry["outputs"]["out"], list) and len(entry["outputs"]["out"]) == 3
        assert "1/2" in entry["at"]


def test_prob_real_outputs_show_their_symbolic_values(capsys):
    code, out, _ = run(capsys, "prob", FIG4A, "--input", "q1=-1", "--input", "q2=1", "--latex")
    assert code == 0
    assert "o2_2=N" in out and "Lap(eps/9, 0)" in out
    assert "e^{" in out


@pytest.mark.parametrize("argv, needle", [
    (["--at", "eps=-1"], "positive"),
    (["--at", "x=1"], "only eps"),
    (["--max-states", "2", "--chain"], "--max-states"),  # the argmax integral builds no chain
    (["--input", "q=[1,2]"], "3 elements"),
])
def test_prob_errors_are_clean(capsys, argv, needle):
    base = ["prob", NOISY_MAX]
    if not any(a.startswith("q=") for a in argv):
        base += ["--input", "q=[0,0,0]"]
    code, out, err = run(capsys, *(base + argv))
    assert code == 2
    assert needle in err
    assert "Traceback" not in err


def test_prob_reports_a_program_that_may_not_terminate(tmp_path, capsys):
    src = tmp_path / "forever.dip"
    src.write_text(
        "input q: real\noutput y: bool\nn <- Lap(eps, q)\nagain <- true\ny <- true\n"
        "while again do\n    again <- n > 0\nend\n")
    code, _, err = run(capsys, "prob", str(src), "--input", "q=0")
    assert code == 2, err
    assert "may not terminate" in err and "forever.dip:6" in err
    assert "Traceback" not in err


# --------------------------------------------------------------------------- dipc dtmc


def test_dtmc_dot_export(tmp_path, capsys):
    target = tmp_path / "chain.dot"
    code, out, err = run(capsys, "dtmc", FIG4A, "--input", "q1=-1", "--input", "q2=1", "--full", "-o", str(target))
    assert code == 0, err
    text = target.read_text()
    assert text.startswith("digraph") and text.rstrip().endswith("}")
    assert "r2 <- Lap(2*eps/9, q2)" in text
    assert text.count("peripheries=2") == 3  # three exit states


def _prism(capsys, path, *argv):
    code, out, err = run(capsys, "dtmc", path, "--format", "prism", *argv)
    assert code == 0, err
    return out


def test_prism_export_is_well_formed(capsys):
    text = _prism(capsys, NOISY_MAX, "--input", "q=[-1,0,1/2]")
    # one constant eps; t is tied to it by a formula (PRISM has no exp())
    assert "dtmc" in text and "const double eps;" in text and "const double t;" not in text
    assert "formula t = pow(2.718281828459045235360287, eps/4);" in text  # exponents in quarters of eps
    assert "endmodule" in text and 'label "o0"' in text
    for line in text.splitlines():
        if line.strip().startswith("[]"):
            assert line.rstrip().endswith(";")
            assert line.count("(") == line.count(")")


def _storm_values(text, labels, tmp_path, parametric):
    stormpy = pytest.importorskip("stormpy")
    path = tmp_path / "chain.pm"
    path.write_text(text)
    program = stormpy.parse_prism_program(str(path))
    values = {}
    for label in labels:
        props = stormpy.parse_properties(f'P=? [F "{label}"]', program)
        if parametric:
            model = stormpy.build_model[stormpy.RationalFunction](program, props)
        else:  # exact arithmetic on the decimals (Storm's default float solver iterates to 1e-6)
            model = stormpy.build_model[stormpy.Rational](program, props)
        result = stormpy.model_checking(model, props[0])
        values[label] = result.get_value(model.initial_states[0])
    return values


def _eval_eps_t(f: ExpFrac, L: int, eps: F, t: F) -> F:
    """Our value with e^(q eps) replaced by t^(q L), eps and t independent rationals."""
    def poly(p: ExpPoly) -> F:
        total = F(0)
        for c, k, q in p.monomials():
            j = q * L
            assert j.denominator == 1
            total += c * eps ** k * t ** int(j)
        return total
    return poly(f.num) / poly(f.den)


def _labels(text):
    """{label: output text} from the comments the export writes above each label."""
    out, last = {}, None
    for line in text.splitlines():
        if line.startswith("// o"):
            last = line[3:].split(": ", 1)
        elif line.startswith('label "o') and last:
            out[last[0]] = last[1]
    return out


@pytest.mark.parametrize("path, argv, api_inputs, params", [
    (NOISY_MAX, ["--input", "q=[-1,0,1/2]"], {"q": [-1, 0, F(1, 2)]}, {}),
    (RR_RETRY, ["--input", "x=true"], {"x": True}, {}),
    (SPARSE, ["--input", "q=[1,-1]", "--set", "m=2", "--set", "c=2"], {"q": [1, -1]}, {"m": 2, "c": 2}),
])
def test_storm_parametric_model_checking_agrees(path, argv, api_inputs, params, capsys, tmp_path):
    stormpy = pytest.importorskip("stormpy")
    from stormpy.numbers.developer import cln
    text = _prism(capsys, path, *argv, "--parametric")
    L = int(text.split("exp(eps/")[1].split(")")[0])
    labels = _labels(text)
    values = _storm_values(text, list(labels), tmp_path, parametric=True)
    chain = dipc_plus.load(path, **params).dtmc(**api_inputs)
    dist = output_distribution(chain.program, api_inputs)
    by_text = {}
    for outcome, p in dist.items():
        by_text[", ".join(f"{n}={'true' if v is True else 'false' if v is False else v}"
                          for n, v in zip(dist.names, outcome.values))] = p
    assert set(by_text) == set(labels.values())
    for label, rf in values.items():
        ours = by_text[labels[label]]
        vars_ = {str(v): v for v in rf.gather_variables()}
        for eps, t in [(F(1, 3), F(2)), (F(5, 2), F(7, 5)), (F(2), F(3, 7))]:
            point = {}
            if "eps" in vars_:
                point[vars_["eps"]] = cln.Rational(cln.Integer(eps.numerator), cln.Integer(eps.denominator))
            if "t" in vars_:
                point[vars_["t"]] = cln.Rational(cln.Integer(t.numerator), cln.Integer(t.denominator))
            storm = F(str(rf.evaluate(point))) if point else F(str(rf.constant_part()))
            assert storm == _eval_eps_t(ours, L, eps, t), (label, eps, t)


def test_storm_numeric_export_at_one_eps(capsys, tmp_path):
    pytest.importorskip("stormpy")
    text = _prism(capsys, RR_RETRY, "--input", "x=false", "--at", "eps=1/2")
    assert "const double" not in text
    labels = _labels(text)
    values = _storm_values(text, list(labels), tmp_path, parametric=False)
    e = math.exp(0.5)
    expected = {"y=false": e / (1 + e), "y=true": 1 / (1 + e)}
    for label, v in values.items():
        assert abs(float(F(str(v))) - expected[labels[label]]) < 1e-12


# --------------------------------------------------------------------------- notebook API


def test_notebook_api():
    nm = dipc_plus.load(NOISY_MAX, m=3)
    d = nm.distribution(q=[-1, 0, 0])
    assert d.sums_to_one() and len(d) == 3
    ball = d.at(F(27, 82))
    assert sum(ball.values()).contains(1)
    assert "out=1" in str(d)
    sym = d.to_sympy()
    assert len(sym) == 3
    w = nm.within({"out": 2}, 0, q=[-1, 0, 0])
    assert w == d[2]
    narrow = w.at(F(1, 2))
    assert narrow.rad() < 1e-30
    wide = d[2].arb_value(F(1, 2), 53)
    assert wide.contains(narrow)
    assert "e^{" in w.latex()
    chain = nm.dtmc(q=[-1, 0, 0])
    assert chain.stats.states == 6
    runs = nm.simulate(F(27, 82), 20_000, seed=1, q=[-1, 0, 0])
    assert runs.n == 20_000
    fig = dipc_plus.load(FIG4A)
    p = fig.within({"o1_1": 0, "o2_1": 1, "o2_2": 1}, 2, q1=-1, q2=1)
    assert 0 < float(p.at(1).mid()) < 1
