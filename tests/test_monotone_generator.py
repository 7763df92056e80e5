"""The corner reduction's monotonicity recogniser (accuracy.monotone) against the exact engine,
on random loop-free programs: wherever it proves "P[out = w] is non-decreasing (non-increasing,
independent) in q_j", the per-point engine's exact probabilities at two inputs differing in q_j
alone must agree, certified (arb balls at 200 bits; an inconclusive ball is skipped, never
counted as agreement).  A generator, not a list, so that it can find the next hole.

DIPC_LONG_GENERATOR=1 runs 1,000 programs instead of the CI's 40.
"""
from __future__ import annotations

import os
import random
from fractions import Fraction

import pytest

from dipc_plus.accuracy.monotone import Monotonicity, NotReducible
from dipc_plus.frontend.load import parse_program
from dipc_plus.semantics.distribution import certified, output_distribution

F = Fraction
SEED = 2026_11_26
COUNT = 1000 if os.environ.get("DIPC_LONG_GENERATOR") == "1" else 40
INPUTS = ("q[1]", "q[2]")
HEADER = "type Sym = {s0, s1, s2}\ninput q: real[2]\noutput o: Sym\noutput p: bool\no <- s0\np <- false\n"


class _Writer:
    """A random loop-free program over two real inputs: Laplace reads of affine means, a derived
    real, comparisons of reals, inputs and constants (all six operators), nested ifs writing the
    outputs, and exits."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.reals: list[str] = []
        self.bools: list[str] = []
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def affine(self) -> str:
        rng = self.rng
        terms = []
        for name in INPUTS:
            c = rng.choice((0, 0, 1, 1, -1, 2, F(1, 2)))
            if c:
                terms.append(f"{c}*{name}" if c != 1 else name)
        const = rng.choice((0, 0, 1, -1, F(1, 2)))
        text = " + ".join(terms) if terms else "0"
        return f"{text} + {const}" if const else text

    def operand(self) -> str:
        rng = self.rng
        kind = rng.random()
        if self.reals and kind < 0.55:
            base = rng.choice(self.reals)
            return base if rng.random() < 0.6 else f"{base} + {rng.choice(INPUTS)}"
        if kind < 0.8:
            return rng.choice(INPUTS)
        return str(rng.choice((0, 1, -1, F(1, 2))))

    def statements(self, depth: int, n: int) -> list[str]:
        out = []
        for _ in range(n):
            out.extend(self.statement(depth))
        return out

    def statement(self, depth: int) -> list[str]:
        rng = self.rng
        roll = rng.random()
        if roll < 0.3 or not self.reals:
            name = self.fresh("r")
            self.reals.append(name)
            return [f"{name} <- Lap({rng.choice(('', '2*', '1/2*'))}eps, {self.affine()})"]
        if roll < 0.38:
            line = f"{self.operand()} - {rng.choice(INPUTS)}"
            name = self.fresh("x")
            self.reals.append(name)
            return [f"{name} <- {line}"]
        if roll < 0.65:
            name = self.fresh("b")
            self.bools.append(name)
            op = rng.choice(("<", "<=", ">", ">=", ">=", "<", "==", "!="))
            return [f"{name} <- {self.operand()} {op} {self.operand()}"]
        if roll < 0.75:
            return [f"o <- s{rng.randrange(3)}"] if rng.random() < 0.6 else [f"p <- {rng.choice(('true', 'false'))}"]
        if self.bools and depth < 2:
            test = rng.choice(self.bools)
            test = test if rng.random() < 0.7 else f"not {test}"
            saved = (list(self.reals), list(self.bools))
            then = self.statements(depth + 1, rng.randint(1, 3))
            self.reals, self.bools = list(saved[0]), list(saved[1])
            other = self.statements(depth + 1, rng.randint(0, 2))
            self.reals, self.bools = saved
            if rng.random() < 0.25:
                then.append("exit")
            lines = [f"if {test} then", *("  " + s for s in then)]
            if other:
                lines += ["else", *("  " + s for s in other)]
            return lines + ["end"]
        return [f"o <- s{rng.randrange(3)}"]


def random_program(index: int) -> str:
    rng = random.Random(f"{SEED}:{index}")
    writer = _Writer(rng)
    body = writer.statements(0, rng.randint(3, 7))
    return HEADER + "\n".join(body) + "\n"


def _point(rng: random.Random) -> dict:
    return {name: F(rng.randint(-4, 4), 4) for name in INPUTS}


def _checks(index: int):
    """(program text, [(w, j, direction, low input, high input, eps)]) for one generated program,
    or None where the recogniser refuses it (a refusal is always sound)."""
    text = random_program(index)
    program = parse_program(text, f"<generated {index}>")
    try:
        mono = Monotonicity(program)
    except NotReducible:
        return text, program, None
    rng = random.Random(f"{SEED}:points:{index}")
    checks = []
    for w_key, atoms in mono.by_output.items():
        w = {name: value for name, (_, value) in w_key}
        for j in INPUTS:
            k = atoms.direction(j)
            if k is None:
                continue
            low = _point(rng)
            high = {**low, j: low[j] + F(rng.choice((1, 2, 3)), 4)}
            checks.append((w, j, k, low, high, rng.choice((F(1), F(5, 2)))))
    return text, program, checks


@pytest.mark.parametrize("index", range(COUNT))
def test_proved_direction_holds_on_the_exact_engine(index):
    text, program, checks = _checks(index)
    if checks is None:
        pytest.skip("refused by the recogniser (sound)")
    for w, j, k, low, high, eps in checks:
        p_low = output_distribution(program, low).within(w, F(0))
        p_high = output_distribution(program, high).within(w, F(0))
        diff = certified(p_high, eps, 200) - certified(p_low, eps, 200)
        where = f"\n{text}\nw = {w}, {j}: proved {k:+d}, {low} -> {high}, eps = {eps}: diff {diff}"
        if k == 0:
            assert diff.contains(0), "proved independent, but the probability moved" + where
        elif k > 0:
            assert not diff < 0, "proved non-decreasing, but it decreased" + where
        else:
            assert not diff > 0, "proved non-increasing, but it increased" + where


def test_the_generator_reaches_proofs_refusals_and_both_signs():
    """The generator is not vacuous: among the CI's programs the recogniser proves both signs and
    independence for some (output, input) pairs (mixed signs leave a pair open, not refused), and a
    mutant recogniser (the '<' outcome's orientation flipped) was caught by 6 of these 38 checks."""
    refused, signs = 0, set()
    for index in range(COUNT):
        _, _, checks = _checks(index)
        if checks is None:
            refused += 1
            continue
        signs.update(k for _, _, k, _, _, _ in checks)
    assert signs == {-1, 0, 1}
    assert COUNT - refused >= COUNT // 2
