"""Decisions bounded by counts of work, never by the clock: a slow clock changes no verdict, a tiny
bound ends undecided (or with the sup shown as an interval) and names the bound.

The two loops: the two-variable branch-and-bound (`decision.two_variable.BNB_RECTANGLES`, once
also cut at 120 s) and the exact proofs for the printed sup under the coupling bound
(`privacy.dp.real_output_check.COUPLED_PROOFS`, once cut at 60 s)."""
from __future__ import annotations

import time
from fractions import Fraction as F

import pytest

from dipc_plus.decision import two_variable
from dipc_plus.decision.two_variable import ExpPoly2, Rect, branch_and_bound


class JumpingClock:
    """A clock that leaps an hour at every reading: any deadline has passed at its first check."""

    def __init__(self):
        self.now = 1_000.0

    def __call__(self) -> float:
        self.now += 3_600.0
        return self.now


@pytest.fixture
def slow_clock(monkeypatch):
    clock = JumpingClock()
    for name in ("monotonic", "perf_counter", "time"):
        monkeypatch.setattr(time, name, clock)
    return clock


def sentence():
    """1 - eps*d/2 + (eps*d)^2/4 - e^(-eps)/2 > 0 on d in (0, 1], eps in [1/10, 1]: the branch-and-bound
    alone (`branch_and_bound`, without the exact routes) needs several rectangles to prove it."""
    x = ExpPoly2.term
    return x(1) - x(F(1, 2), 1, 1) + x(F(1, 4), 2, 2) - x(F(1, 2), A=-1)


RECT = Rect(F(0), F(1), F(1, 10), F(1))   # d in [0, 1], eps in [1/10, 1]


def test_two_variable_verdict_ignores_a_slow_clock(slow_clock):
    found = branch_and_bound(sentence(), RECT)
    assert found.verdict == "verified" and found.rectangles > 1
    assert slow_clock.now == 1_000.0       # the decision never reads the clock


def test_two_variable_tiny_bound_is_undecided_and_named(monkeypatch):
    full = branch_and_bound(sentence(), RECT)
    monkeypatch.setattr(two_variable, "BNB_RECTANGLES", 1)
    found = branch_and_bound(sentence(), RECT)
    assert full.rectangles > 1 and found.verdict == "undecided" and found.undecided
    assert "budget of 1 rectangles" in found.note and "BNB_RECTANGLES" in found.note
