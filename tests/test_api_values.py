"""API values go through the command's one reading, with its limits (issue 36 item 10).

Every bad value raises `UserError` with the command's words (re-worded for Python), never a
ValueError, TypeError or AttributeError from inside; texts obey the `file_bytes` limit of files.
"""
from fractions import Fraction

import numpy as np
import pytest

import dipc_plus
from dipc_plus import UserError, example

SPARSE = example("theories/sparse.toml")


@pytest.fixture(scope="module")
def noisy_max():
    return dipc_plus.load(example("programs/noisy_max.dip"), params={"m": 3})


@pytest.mark.parametrize("bad, words", [
    (["x", None, float("nan")], "None is not a value"),
    ([0, 1, float("nan")], "nan is not a finite number"),
    ([0, float("-inf"), 1], "-inf is not a finite number"),
    ([0, object(), 1], "a object is not a value"),
])
def test_check_accuracy_refuses_bad_input_values(bad, words):
    with pytest.raises(UserError) as err:
        dipc_plus.check_accuracy(SPARSE, params={"c": 1}, input={"q": bad})
    assert words in err.value.message and err.value.message.startswith("input q")


def test_distribution_refuses_inf_and_too_many_digits(noisy_max):
    with pytest.raises(UserError, match="inf is not a finite number"):
        noisy_max.distribution(input={"q": [0, float("inf"), 0]})
    with pytest.raises(UserError, match="309 digits, more than 60") as err:
        noisy_max.distribution(input={"q": [1e308, 1, 0]})
    assert "limits={'digits': N}" in err.value.hint


def test_api_numbers_are_exact_and_of_every_numeric_kind(noisy_max):
    import flint
    plain = noisy_max.distribution(input={"q": [Fraction(1, 10), 0, 1]})
    for same in ([0.1, 0, 1], ["0.1", "0", "1"], ["1/10", np.int64(0), flint.fmpz(1)],
                 [flint.fmpq(1, 10), np.float64(0.0), Fraction(1)]):
        assert str(noisy_max.distribution(input={"q": same})) == str(plain)


@pytest.mark.parametrize("value, words", [
    (10**100000, "has 100001 digits, more than 60"),
    (Fraction(1, 10**61), "has 62 digits, more than 60"),
    ("9" * 61, "has 61 digits, more than 60"),
    (None, "None is not a value"),
    (float("nan"), "nan is not a finite number"),
    ("abc", "a parameter is a number, not 'abc'"),
], ids=["huge-int", "long-fraction", "long-string", "none", "nan", "symbol"])
def test_params_are_read_with_the_commands_limits(value, words):
    with pytest.raises(UserError) as err:
        dipc_plus.check_accuracy(SPARSE, params={"c": value})
    assert err.value.message.startswith("params['c']:") and words in err.value.message


def test_a_raised_digits_limit_admits_the_value():
    with pytest.raises(UserError, match="71 digits, more than 60"):
        dipc_plus.check_accuracy(SPARSE, params={"c": 10**70}, input={"q": [0, 0, 0]})
    with pytest.raises(UserError) as err:     # admitted now; refused later for another reason or decided
        dipc_plus.check_accuracy(SPARSE, params={"c": 10**70}, input={"q": [0, 0, 0]}, limits={"digits": 100})
    assert "digits" not in err.value.message and "values, more than" in err.value.message


@pytest.mark.parametrize("params, inputs", [([1], None), ({"c": 1}, 5), ({"c": 1}, [[0, 1]])])
def test_mappings_and_lists_are_checked(params, inputs):
    with pytest.raises(UserError):
        dipc_plus.check_accuracy(SPARSE, params=params, inputs=inputs)


@pytest.mark.parametrize("make", [dipc_plus.Program.from_text, dipc_plus.Claim.from_text])
@pytest.mark.parametrize("text, words", [(None, "not NoneType"), (5, "not int"),
                                         (b"\xff\xfe", "not UTF-8 text: byte 0xff"),
                                         ("#" * 1_000_001, "more than 1000000 bytes"),
                                         ("\u00e9" * 600_000, "more than 1000000 bytes")],
                         ids=["none", "int", "latin1-bytes", "big-ascii", "big-utf8"])
def test_from_text_refuses_what_a_file_would_be_refused_for(make, text, words):
    with pytest.raises(UserError) as err:
        make(text)
    assert words in err.value.message


def test_program_from_bytes_is_read_as_utf8():
    prog = dipc_plus.Program.from_text(b"input x: real\noutput y: real\ny <- Lap(eps, x)\n", name="lap")
    assert prog.text.startswith("input x") and prog.inputs == {"x": "real"}


def test_claim_from_file_obeys_the_file_bytes_limit(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("#" * 1_000_001)
    with pytest.raises(UserError, match="over the limit of 1000000"):
        dipc_plus.Claim.from_file(big)
