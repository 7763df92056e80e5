"""StatDP's algorithm list as Python functions (programs/python/): iSVT1-4, SVT returning the
count of bots.  Each gets the literature's verdict, matches its hand-written .dip twin's closed
forms, and (for the discrete outputs) agrees in distribution with the function itself when run
(4 chi-square tests at a false-alarm rate of 1e-8 each)."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest

import dipc_plus
from conftest import PROGRAMS, THEORIES, run_main
from test_python_frontend import PY, assert_same_distribution, closed_forms, load_function, relabel

SVT_PARAMS = "m=3 N=1 T=0"
INPUTS = ("[0,1,0]", "[1,-1,1/2]")


def sets(params: str) -> list:
    return [a for p in params.split() for a in ("--set", p)]


def python_forms(name: str, params: str, queries: str) -> dict:
    return closed_forms([PY / f"{name}.py", "--function", name, *sets(params), "--input", f"queries={queries}"])


def twin_forms(twin: str, params: str, queries: str) -> dict:
    return closed_forms([PROGRAMS / twin, *sets(params), "--input", f"q={queries}"])


@pytest.mark.parametrize("name,twin,twin_params", [
    ("isvt1", "svt_lyu_alg5.dip", "m=3 T=0"),
    ("isvt2", "svt_lyu_alg6.dip", "m=3 T=0"),
    ("isvt3", "svt_lyu_alg4.dip", "m=3 c=1 T=0"),
])
def test_isvt_variants_have_their_twins_closed_forms(name, twin, twin_params):
    for queries in INPUTS:
        py = python_forms(name, SVT_PARAMS, queries)
        assert {relabel(json.loads(k), "answers"): v for k, v in py.items()} == twin_forms(twin, twin_params, queries)


def test_svt_count_of_bots_is_the_twins_bots_counted():
    """The count is a function of Algorithm 1's answer list: the twin's outcomes grouped by their
    number of bots give the same probabilities (compared as closed-form sums at three eps)."""
    for queries in INPUTS:
        code, out, err = run_main(["prob", PY / "svt_count_bots.py", "--function", "svt_count_bots",
                                   *sets(SVT_PARAMS), "--input", f"queries={queries}", "--json"])
        assert code == 0, err
        py = {o["outputs"]["result"]: o["probability"] for o in json.loads(out)["outcomes"]}
        twin = defaultdict(list)
        for key, form in twin_forms("svt_lyu_alg1.dip", "m=3 c=1 T=0", queries).items():
            twin[json.loads(key)["out"].count("bot")].append(form)
        assert set(py) == set(twin)
        for bots, forms in twin.items():
            if len(forms) == 1:
                assert py[bots] == forms[0]
            else:       # never for c = 1: the bots come before the one top
                pytest.fail(f"two answer lists with {bots} bots")


def test_isvt4_in_the_subset_has_its_twins_closed_forms():
    """After the N-th True the answers are False where Algorithm 3 produces nothing: relabelled,
    the outcomes (probabilities and published values) are the twin's."""
    for queries in INPUTS:
        code, out, err = run_main(["prob", PY / "isvt4_answers_and_values.py", "--function",
                                   "isvt4_answers_and_values", *sets(SVT_PARAMS), "--input", f"queries={queries}",
                                   "--json"])
        assert code == 0, err
        code, tout, err = run_main(["prob", PROGRAMS / "svt_lyu_alg3.dip", *sets("m=3 c=1 T=0"), "--input",
                                    f"q={queries}", "--json"])
        assert code == 0, err

        def shape(values):
            return [(v["constant"], len(v["noise"])) for v in values]

        py = set()
        for o in json.loads(out)["outcomes"]:
            answers, seen = [], 0
            for a in o["outputs"]["answers"]:
                answers.append("none" if seen >= 1 else "num" if a == "True" else "bot")
                seen += a == "True"
            py.add((tuple(answers), str(shape(o["outputs"]["values"])), o["probability"]))
        twin = {(tuple(o["outputs"]["out"]), str(shape(o["outputs"]["val"])), o["probability"])
                for o in json.loads(tout)["outcomes"]}
        assert py == twin


@pytest.mark.parametrize("name,code", [("svt_count_bots", 0), ("histogram_l1", 0), ("isvt1", 1), ("isvt2", 1), ("isvt3", 1),
                                       ("isvt4_answers_and_values", 1)])
def test_statdp_claims_get_the_literature_verdict(name, code):
    got, out, err = run_main(["privacy", THEORIES / f"python_{name}_privacy.toml"])
    assert got == code, out + err
    assert ("VERIFIED" if code == 0 else "REFUTED") in out


def test_isvt4_as_statdp_writes_it_is_refused_at_the_mixed_append():
    code, out, err = run_main(["prob", PY / "isvt4.py", "--function", "isvt4", *sets(SVT_PARAMS),
                               "--input", "queries=[0,1,0]"])
    assert code == 2, out + err
    assert "isvt4.py:23:" in err and "mixing real and bool" in err


@pytest.mark.slow
@pytest.mark.parametrize("name", ["svt_count_bots", "isvt1", "isvt2", "isvt3"])
def test_translation_agrees_with_the_function_in_distribution(name):
    program = dipc_plus.Program.from_python(load_function(name), params={"m": 3, "N": 1, "T": 0})
    assert_same_distribution(program, load_function(name), [0, 1, 0], {"N": 1, "T": 0}, 3)


def test_break_computes_the_final_return_first():
    """`return out.count(False)` after a loop left by `break` is the count at the break, not 0."""
    src = ("def f(prng, queries, epsilon):\n    out = []\n    for q in queries:\n"
           "        if q + prng.laplace(scale=1.0 / epsilon) >= 0:\n            out.append(True)\n"
           "            break\n        out.append(False)\n    return out.count(False)\n")
    program = dipc_plus.Program.from_python(src, "f", params={"m": 2})
    assert "result <- count(EQ(out[1], False), EQ(out[2], False))\n" in program.text.replace("    ", "")
    dist = program.distribution(input={"queries": [0, 0]}).at(1)
    got = {str(o.values[0]): float(b.mid()) for o, b in dist.items()}
    assert got == pytest.approx({"0": 0.5, "1": 0.25, "2": 0.25})
