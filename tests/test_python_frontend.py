"""The Python front end checked against the Python functions themselves and their .dip twins.

* Each shipped function of programs/python/ is RUN (here, in the test, never by dipc) with a
  seeded numpy generator, and its outputs are compared with the exact distribution of the
  program dipc translated, by a chi-square test.  Each of the 16 cases below (and the
  8 of tests/test_python_subset.py) is tested at a false-alarm rate of 1e-8, so the two files
  raise a false alarm with probability below 1e-6; a translation that changed a noise scale, a comparison or an output would fail.
* Each function and its hand-written .dip twin give the same closed forms (`dipc prob --json`).
* Each shipped claim gets the literature's verdict.
"""
from __future__ import annotations

import importlib.util
import json
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dipc_plus
from conftest import PROGRAMS, THEORIES, run_main

PY = PROGRAMS / "python"
FALSE_ALARM = 1e-8
RUNS = 20_000


def load_function(name: str):
    """Import the shipped function (the test runs it; dipc only parses it)."""
    spec = importlib.util.spec_from_file_location(f"shipped_{name}", PY / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


# name, params, python keyword arguments besides prng/queries/epsilon
CASES = [
    ("noisy_max", {"m": 3}, {}),
    ("noisy_max_exp", {"m": 3}, {}),
    ("svt", {"m": 3, "N": 1, "T": 0}, {"N": 1, "T": 0}),
    ("svt", {"m": 3, "N": 2, "T": 0}, {"N": 2, "T": 0}),
    ("svt_resample", {"m": 3, "N": 2, "T": 0}, {"N": 2, "T": 0}),
    ("isvt2", {"m": 3, "N": 1, "T": Fraction(1, 2)}, {"N": 1, "T": 0.5}),
]
INPUTS = [[0, 1, 0], [1, -1, Fraction(1, 2)]]


def python_outcome(value, m: int) -> tuple:
    """A Python result as the translated program's output values (lists padded with none, a tuple
    flattened)."""
    if isinstance(value, tuple):
        return tuple(v for part in value for v in python_outcome(part, m))
    if isinstance(value, list):
        return tuple(str(v) for v in value) + ("none",) * (m - len(value))
    if isinstance(value, (bool, np.bool_)):
        return (str(bool(value)),)
    return (str(int(value)),)


def assert_same_distribution(program, func, queries, kwargs: dict, m: int, lengths=None) -> None:
    """Chi-square test at FALSE_ALARM of RUNS runs of `func` against the exact distribution of
    `program` at eps = 1; an output the translation gives probability 0 fails at once."""
    exact = program.distribution(input={"queries": queries}).at(Fraction(1))
    expected = {tuple(str(v) for v in outcome.values): float(ball.mid()) for outcome, ball in exact.items()}
    assert abs(sum(expected.values()) - 1) < 1e-9
    rng = np.random.default_rng(20260427)
    np.random.seed(20260427)     # for module calls np.random.laplace(...)
    counts: dict = {}
    floats = [float(q) for q in queries]
    for _ in range(RUNS):
        got = python_outcome(func(rng, floats, 1.0, **kwargs), m if lengths is None else lengths)
        counts[got] = counts.get(got, 0) + 1
    unexpected = set(counts) - set(expected)
    assert not unexpected, f"the function gave outputs the translation gives probability 0: {unexpected}"
    big = [o for o, p in expected.items() if p * RUNS >= 5]
    observed = [counts.get(o, 0) for o in big]
    predicted = [expected[o] * RUNS for o in big]
    rest = RUNS - sum(observed)
    if rest or len(big) < len(expected):
        observed.append(rest)
        predicted.append(RUNS - sum(predicted))
    chi2 = sum((o - e) ** 2 / e for o, e in zip(observed, predicted) if e > 0)
    limit = stats.chi2.isf(FALSE_ALARM, max(len(observed) - 1, 1))
    assert chi2 < limit, (func.__name__, queries, counts, expected)


@pytest.mark.slow
@pytest.mark.parametrize("name,params,kwargs", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
@pytest.mark.parametrize("queries", INPUTS, ids=["q1", "q2"])
def test_translation_agrees_with_the_function_in_distribution(name, params, kwargs, queries):
    func = load_function(name)
    program = dipc_plus.Program.from_python(func, params=params)
    assert_same_distribution(program, func, queries, kwargs, params["m"])


def test_a_wrong_translation_would_fail_the_test():
    """The test's power: SVT run with the wrong query scale (2/eps instead of 4/eps) against the
    translation of the right one is rejected."""
    program = dipc_plus.Program.from_python(load_function("svt"), params={"m": 3, "N": 1, "T": 0})
    exact = program.distribution(input={"queries": [0, 1, 0]}).at(Fraction(1))
    expected = {tuple(str(v) for v in o.values): float(b.mid()) for o, b in exact.items()}
    rng = np.random.default_rng(7)
    counts: dict = {}
    for _ in range(RUNS):
        out, noisy_t = [], rng.laplace(scale=2.0)
        for q in (0.0, 1.0, 0.0):
            if q + rng.laplace(scale=2.0) >= noisy_t:
                out.append(True)
                break
            out.append(False)
        key = python_outcome(out, 3)
        counts[key] = counts.get(key, 0) + 1
    chi2 = sum((counts.get(o, 0) - p * RUNS) ** 2 / (p * RUNS) for o, p in expected.items())
    assert chi2 > stats.chi2.isf(FALSE_ALARM, len(expected) - 1)


# python function, its params, the .dip twin, the twin's params, relabel of output values
TWINS = [
    ("noisy_max", "m=3", "noisy_max.dip", ["m=3"], "index"),
    ("noisy_max_exp", "m=3", "noisy_max_exp.dip", ["m=3"], "index"),
    ("svt", "m=3 N=1 T=0", "svt_lyu_alg1.dip", ["m=3", "c=1", "T=0"], "answers"),
    ("svt", "m=3 N=2 T=0", "svt_lyu_alg1.dip", ["m=3", "c=2", "T=0"], "answers"),
    ("svt_resample", "m=3 N=2 T=0", "svt_lyu_alg2.dip", ["m=3", "c=2", "T=0"], "answers"),
]


def closed_forms(argv: list) -> dict:
    code, out, err = run_main(["prob", *argv, "--json"])
    assert code == 0, err
    return {json.dumps(o["outputs"], sort_keys=True): o["probability"] for o in json.loads(out)["outcomes"]}


def relabel(outputs: dict, how: str) -> str:
    """The Python twin's output values in the .dip twin's words."""
    (name, value), = outputs.items()
    if how == "index":
        return json.dumps({"out": int(value) + 1})
    words = {"True": "top", "False": "bot", "none": "none"}
    return json.dumps({"out": [words[v] for v in value]})


@pytest.mark.parametrize("name,params,twin,twin_params,how", TWINS, ids=[f"{t[0]}-{t[1]}" for t in TWINS])
def test_python_function_and_dip_twin_have_the_same_closed_forms(name, params, twin, twin_params, how):
    sets = [a for p in params.split() for a in ("--set", p)]
    for queries in ("[0,1,0]", "[1,-1,1/2]"):
        py = closed_forms([PY / f"{name}.py", "--function", name, *sets, "--input", f"queries={queries}"])
        dip = closed_forms([PROGRAMS / twin, *[a for p in twin_params for a in ("--set", p)],
                            "--input", f"q={queries}"])
        assert {relabel(json.loads(k), how): v for k, v in py.items()} == dip


VERDICTS = [("noisy_max", 0), ("noisy_max_exp", 0), ("svt", 0), ("svt_resample", 0), ("histogram", 0),
            ("noisy_max_value", 1), ("noisy_max_exp_value", 1)]


@pytest.mark.parametrize("name,code", VERDICTS)
def test_shipped_claims_get_the_literature_verdict(name, code):
    got, out, err = run_main(["privacy", THEORIES / f"python_{name}_privacy.toml"])
    assert got == code, out + err
    assert ("VERIFIED" if code == 0 else "REFUTED") in out


def test_show_prints_the_translated_program():
    code, out, err = run_main(["show", PY / "svt.py", "--function", "svt", "--set", "m=3", "--set", "N=1",
                               "--set", "T=0"])
    assert code == 0, err
    assert "noisy_T <- Lap(eps/2, 0)" in out and "Lap(eps/4, queries[1])" in out and "exit" in out
    assert "output out: PyBoolOrNone[3]" in out


def test_number_literals_are_read_exactly():
    src = "def f(prng, queries, epsilon):\n    return queries[0] + prng.laplace(scale=0.1 / epsilon) >= 0.3\n"
    program = dipc_plus.Program.from_python(src, "f", params={"m": 1})
    assert "Lap(10*eps, queries[1])" in program.text and "(3/10)" in program.text


def test_a_local_named_result_is_not_the_generated_output(tmp_path):
    path = tmp_path / "f.py"
    path.write_text("def f(prng, queries, epsilon):\n    result = queries[0] + prng.laplace(scale=1/epsilon)\n"
                    "    return result > 0\n")
    code, out, err = run_main(["prob", path, "--function", "f", "--set", "m=1", "--input", "queries=[0]"])
    assert code == 0 and "result=true" in out and "1/2" in out, out + err


def test_every_length_refuses_a_python_function_clearly():
    code, out, err = run_main(["privacy", THEORIES / "python_svt_privacy.toml", "--every-length"])
    assert code == 2 and "a Python function is translated at one m" in err, out + err


def test_simulate_runs_the_translation():
    code, out, err = run_main(["simulate", PY / "noisy_max.py", "--function", "noisy_max", "--set", "m=2",
                               "--input", "queries=[0,1]", "--eps", "1", "-n", "2000", "--seed", "3"])
    assert code == 0 and "result=1" in out, out + err


def test_statdp_histogram_with_scale_eps_is_refused_with_the_reason():
    code, out, err = run_main(["show", PY / "histogram_eps.py", "--function", "histogram_eps", "--set", "m=2"])
    assert code == 2 and err.startswith(f"{PY / 'histogram_eps.py'}:9:36: error: a scale that grows with epsilon")
