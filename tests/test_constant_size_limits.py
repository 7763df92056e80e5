"""Constants a program computes while it loads stay within the `digits` limit.

Thirty lines of chained squaring (`param p1 = p0*p0`, ...) asked the front end for a constant of
ten billion digits and it never finished.  Every refusal here is exit 2 at the operation's line and
column with the `--limit digits=N` hint, and comes from a subprocess with a timeout, so a hang
fails the test instead of stopping the suite.
"""
from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.frontend.constant_size import bounded_arith, within_digits
from dipc_plus.frontend.load import parse_program

ROOT = Path(__file__).resolve().parent.parent
TAIL = "input q: real\noutput out: real\nout <- Lap(eps, q)\n"


def squaring_chain(length: int, start: str = "10") -> str:
    lines = [f"param p0 = {start}"] + [f"param p{k} = p{k - 1}*p{k - 1}" for k in range(1, length + 1)]
    return "\n".join(lines) + "\n" + TAIL


def dipc(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / "prog.dip"
    path.write_text(text)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "dipc_plus", "show", str(path), *args], capture_output=True,
                          text=True, timeout=30, env=env)


def test_chained_squaring_is_refused_at_the_product(tmp_path):
    run = dipc(tmp_path, squaring_chain(30))
    assert run.returncode == 2, run.stderr
    # p6 = 10^64 is the first square past 60 digits: line 7, at its '*' (column 12)
    assert "prog.dip:7:12:" in run.stderr
    assert "more than 60" in run.stderr and "--limit digits=N" in run.stderr
    assert "Traceback" not in run.stderr


def test_raising_the_digits_limit_accepts_the_same_program(tmp_path):
    run = dipc(tmp_path, squaring_chain(6), "--limit", "digits=70")
    assert run.returncode == 0, run.stderr
    assert dipc(tmp_path, squaring_chain(6)).returncode == 2


def test_a_chain_of_additions_stays_small_and_is_accepted(tmp_path):
    lines = ["param p0 = 10"] + [f"param p{k} = p{k - 1} + p{k - 1} + 1/3" for k in range(1, 31)]
    run = dipc(tmp_path, "\n".join(lines) + "\n" + TAIL)
    assert run.returncode == 0, run.stderr
    program = parse_program("\n".join(lines) + "\n" + TAIL, "adds.dip")
    value = Fraction(10)
    for _ in range(30):
        value = value + value + Fraction(1, 3)
    assert program.params["p30"] == value


def test_a_set_value_makes_a_short_chain_too_large(tmp_path):
    text = squaring_chain(4, start="2")       # p4 = 2^16: fine
    assert dipc(tmp_path, text).returncode == 0
    run = dipc(tmp_path, text, "--set", "p0=1000000")     # p4 = 10^96
    assert run.returncode == 2, run.stderr
    assert "prog.dip:5:12:" in run.stderr and "--limit digits=N" in run.stderr


def test_a_set_value_within_the_limit_is_still_checked_after_its_square(tmp_path):
    run = dipc(tmp_path, squaring_chain(2, start="2"), "--set", "p1=" + "9" * 40)   # p2 = p1^2: 80 digits
    assert run.returncode == 2, run.stderr
    assert "prog.dip:3:12:" in run.stderr


@pytest.mark.parametrize("expression, column, what", [
    ("1/p/p", 11, "quotient"),          # only the denominator grows
    ("1 + (p*p - 1)", 16, "product"),   # a product inside a sum, placed where it starts
])
def test_denominators_and_nested_products_are_bounded(tmp_path, expression, column, what):
    text = f"param p = {'7' * 40}\nparam r = {expression}\n" + TAIL
    run = dipc(tmp_path, text)
    assert run.returncode == 2, run.stderr
    assert f"prog.dip:2:{column}: error: this {what} is a number of" in run.stderr


def test_a_folded_coefficient_of_the_program_body_is_bounded():
    text = (f"param p = {'7' * 40}\ninput q: real\noutput out: real\nout <- Lap(eps, q*p*p)\n")
    with pytest.raises(UserError) as err:
        parse_program(text, "body.dip")
    assert err.value.line == 4 and "--limit digits=N" in err.value.hint


def test_a_rate_and_a_loop_bound_are_bounded(tmp_path):
    big = "7" * 40
    rate = dipc(tmp_path, f"param p = {big}\ninput q: real\noutput out: real\nout <- Lap(eps*p*p, q)\n")
    assert rate.returncode == 2 and "prog.dip:4:" in rate.stderr, rate.stderr
    loop = dipc(tmp_path, f"param p = {big}\ninput q: real\noutput out: real\n"
                          "for i = 1 to p*p - p*p + 1 do\n  out <- Lap(eps, q)\nend\n")
    assert loop.returncode == 2 and "prog.dip:4:" in loop.stderr, loop.stderr


def test_bounded_arith_refuses_a_product_before_forming_it():
    huge = Fraction(2) ** 200_000            # past the limit already: only its bit length is read
    limits.reset()
    with pytest.raises(UserError, match="about"):
        bounded_arith("*", huge, huge, None)
    # cancellation first: (10^50/3) * (3/10^50) = 1 is accepted
    assert bounded_arith("*", Fraction(10 ** 50, 3), Fraction(3, 10 ** 50), None) == 1
    assert bounded_arith("/", Fraction(10 ** 50, 7), Fraction(10 ** 50, 7), None) == 1


def test_within_digits_counts_the_limit_exactly():
    limits.reset()
    assert within_digits(Fraction(10 ** 60 - 1), None) == 10 ** 60 - 1       # 60 digits
    with pytest.raises(UserError, match="61 digits"):
        within_digits(Fraction(10 ** 60), None)
    with pytest.raises(UserError, match="61 digits"):
        within_digits(Fraction(1, 10 ** 60), None)
