"""Issue 36, item 12: a number of at most `digits` digits is not refused as longer (10**50 has 51
digits, not "more than 60"), and a program path in a claim that cannot be read (a /proc file, no
permission) is located at the claim's `path` line, as a missing program is."""
from __future__ import annotations

from fractions import Fraction

import pytest

from conftest import PROGRAMS, THEORIES, run_main
from dipc_plus.claims import expression


def _refusal(base, n):
    messages = []
    expression.check_rational_power(Fraction(base), n, lambda message, hint: messages.append(message))
    return messages


@pytest.mark.parametrize("base, n", [(10, 50), (10, 59), (2, 199), (Fraction(1, 10), 59), (Fraction(-7, 3), -70),
                                     (-1, 200), (0, 200)])
def test_a_power_within_the_digits_limit_is_accepted(base, n):
    value = Fraction(base) ** n
    assert max(len(str(abs(value.numerator))), len(str(value.denominator))) <= 60   # the oracle: Python's own
    assert _refusal(base, n) == []


@pytest.mark.parametrize("base, n", [(10, 60), (2, 200), (Fraction(1, 10), 60), (Fraction(-7, 3), -71), (3, 200)])
def test_a_power_past_the_digits_limit_is_refused(base, n):
    assert _refusal(base, n) and "has more than 60 digits" in _refusal(base, n)[0]


def test_integer_digits_counts_exactly_near_the_limit_and_bounds_far_past_it():
    for n in (0, 9, 10, 10 ** 59, 10 ** 60 - 1, 10 ** 60, -(10 ** 50)):
        assert expression.integer_digits(n) == len(str(abs(n)))
    assert expression.integer_digits(10 ** 5000) > 60


def _claim(tmp_path, replace):
    text = (THEORIES / "laplace_privacy.toml").read_text()
    for old, new in replace:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "claim.toml"
    path.write_text(text)
    return path, text


@pytest.mark.parametrize("budget", ["10**50 * eps", "9" * 60 + " * eps"])
def test_a_budget_of_51_or_60_digits_is_not_refused_as_more_than_60(tmp_path, budget):
    claim, _ = _claim(tmp_path, [('"../programs/laplace.dip"', f'"{PROGRAMS / "laplace.dip"}"'),
                                 ('budget = "eps"', f'budget = "{budget}"')])
    code, out, err = run_main(["privacy", claim, "--no-progress"])
    assert code == 2   # the eps coefficient is too large for the exact procedure: a limit, named
    assert "more than 60 digits" not in err and "too large" in err


def test_a_kernel_file_as_program_path_is_located_at_the_claims_line(tmp_path):
    claim, text = _claim(tmp_path, [('"../programs/laplace.dip"', '"/proc/self/status"')])
    line = next(k for k, row in enumerate(text.splitlines(), 1) if row.startswith("path ="))
    code, out, err = run_main(["privacy", claim, "--no-progress"])
    assert code == 2
    assert err.startswith(f"{claim}:{line}:"), err
    assert "program.path" in err and "a file of the kernel" in err
