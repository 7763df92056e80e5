"""Box privacy of translated Python mechanisms (issue 42): the same verdicts as their .dip twins.

The Python noisy max ends with `result <- _a2 - 1` (numpy's 0-based argmax), which the argmax
recogniser reads as an injective relabelling of the index; the Python SVT is unrolled at one m,
which the coupling bound reads from the lowered program (`online.shape.shape_at_length`)."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from conftest import PROGRAMS, THEORIES, run_main
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.frontend.load import load_program, parse_program
from dipc_plus.privacy.dp.box import REFUTED, VERIFIED, decide_box_privacy
from dipc_plus.privacy.dp.coupling import coupling_for
from dipc_plus.semantics.argmax import recognise
from dipc_plus.semantics.distribution import output_distribution

TWINS = [
    ("python_noisy_max_privacy_box.toml", "noisy_max_privacy_box.toml"),
    ("python_noisy_max_exp_privacy_box.toml", "noisy_max_exp_privacy_box.toml"),
    ("python_svt_privacy_box.toml", "svt_lyu_alg1_privacy_box.toml"),
]

RELABELLED = """input q: real[3]
output o: 0..4
var noisy: real[3]
var k: 1..3
noisy[1] <- Lap(eps/2, q[1])
noisy[2] <- Lap(eps/2, q[2])
noisy[3] <- Lap(eps/2, q[3])
k <- argmax(noisy)
o <- {}
"""


@pytest.mark.parametrize("python, dip", TWINS)
def test_python_box_twin_has_the_dip_verdict_and_method(python, dip):
    py_res = decide_box_privacy(load_privacy_claim(str(THEORIES / python)))
    dip_res = decide_box_privacy(load_privacy_claim(str(THEORIES / dip)))
    assert py_res.verdict == dip_res.verdict == VERIFIED
    assert py_res.method == dip_res.method


def test_python_svt_coupling_value_equals_the_dip_loop():
    py = coupling_for(load_privacy_claim(str(THEORIES / "python_svt_privacy_box.toml")))
    dip = coupling_for(load_privacy_claim(str(THEORIES / "svt_lyu_alg1_privacy_box.toml")))
    assert py.applies and dip.applies and py.d == dip.d == F(3, 4)


def test_python_box_cli_exit_codes():
    for python, _ in TWINS:
        code, out, _ = run_main(["privacy", str(THEORIES / python)])
        assert code == 0 and "VERIFIED on the box queries" in out


def test_relabelled_noisy_max_with_a_too_small_budget_is_not_verified(tmp_path):
    """The relabelling must not make a false claim provable: the true loss is eps, not eps/2."""
    text = (THEORIES / "python_noisy_max_privacy_box.toml").read_text()
    text = text.replace('budget = "eps"', 'budget = "eps/2"').replace("../programs", str(PROGRAMS))
    path = tmp_path / "half.toml"
    path.write_text(text)
    res = decide_box_privacy(load_privacy_claim(str(path)))
    assert res.verdict == REFUTED


@pytest.mark.parametrize("expr, labels", [("k - 1", (0, 1, 2)), ("2*k - 2", (0, 2, 4)),
                                          ("k - k", None), ("abs(k - 2)", None), ("k + 2", None)])
def test_recogniser_takes_injective_relabellings_in_the_output_type(expr, labels):
    program = parse_program(RELABELLED.format(expr))
    shape = recognise(program)
    assert (None if shape is None else shape.labels) == labels
    assert shape is None or shape.relabelled     # a caller reading the output as the index can tell it is not


def test_relabelled_argmax_integral_matches_the_chain():
    """The integral's P[index = j], put at label j, equals the chain's distribution of the output."""
    program = load_program(PROGRAMS / "python" / "noisy_max.py", {"m": F(3)}, "noisy_max")
    inputs = {"queries": [0, F(1, 2), 2]}
    fast = output_distribution(program, inputs)
    chain = output_distribution(program, inputs, shortcuts=False)
    assert fast.method == "argmax-integral" and chain.method == "chain"
    assert {o.values: e.probability for o, e in fast.entries.items()} == \
        {o.values: e.probability for o, e in chain.entries.items()}


def test_translated_noisy_read_is_one_sample_centred_at_the_query():
    code, text, _ = run_main(["show", str(PROGRAMS / "python" / "svt.py"), "--function", "svt", "--set", "m=3",
                              "--set", "N=1", "--set", "T=0"])
    assert code == 0 and "<- Lap(eps/4, queries[1])" in text and "queries[1] + _n" not in text
