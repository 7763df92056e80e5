"""The closed-form distance to disagreement of an argmax of noisy reads (claims.argmax_dd)
against the exact LP (`RealSpace.lp_dd`, which knows nothing of argmax), on random programs
of the recognised class (m = 2..5: argmax or argmin, builtin or loop form, Lap or ExpNoise
samples at random rates, the inputs read in a random order) at random rational points drawn
with many ties; and programs just outside the class, which must keep the LP."""
from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from dipc_plus.claims import noise_free as nf
from dipc_plus.claims.argmax_dd import recognise_regions
from dipc_plus.claims.disagreement import INF, RealSpace, outputs_equal
from dipc_plus.claims.distances import LinfInput, ZeroOneInput
from dipc_plus.frontend.load import parse_program
from dd_near import TOLERANCE, near_disagreeing

RATES = ["eps/2", "eps", "eps/3", "2*eps"]


def _noise(rng) -> str:
    return rng.choice(["Lap", "Lap", "ExpNoise"])


def builtin_program(rng, m: int, order: list, minimum: bool) -> str:
    lines = [f"input q: real[{m}]", f"output out: 1..{m}", f"noisy: real[{m}]"]
    for i, j in enumerate(order, start=1):
        lines.append(f"noisy[{i}] <- {_noise(rng)}({rng.choice(RATES)}, q[{j}])")
    lines.append(f"out <- {'argmin' if minimum else 'argmax'}(noisy)")
    return "\n".join(lines) + "\n"


def loop_program(rng, m: int, order: list, minimum: bool) -> str:
    op = "<" if minimum else ">"
    lines = [f"input q: real[{m}]", f"output out: 1..{m}", "best: real", "r: real",
             f"best <- {_noise(rng)}({rng.choice(RATES)}, q[{order[0]}])", "out <- 1"]
    for i, j in enumerate(order[1:], start=2):
        lines += [f"r <- {_noise(rng)}({rng.choice(RATES)}, q[{j}])",
                  f"if r {op} best then", "  best <- r", f"  out <- {i}", "end"]
    return "\n".join(lines) + "\n"


def random_point(rng, m: int) -> dict:
    pool = [F(-1), F(-1, 2), F(0), F(1, 3), F(1)]
    values = [rng.choice(pool) if rng.random() < 0.7 else F(rng.randint(-9, 9), rng.randint(1, 5))
              for _ in range(m)]
    return {f"q[{i}]": v for i, v in enumerate(values, start=1)}


@pytest.mark.parametrize("seed", range(12))
def test_closed_form_equals_the_lp_on_random_programs(seed):
    rng = random.Random(seed)
    for m in range(2, 6):
        order = list(range(1, m + 1))
        rng.shuffle(order)
        minimum = rng.random() < 0.5
        make = builtin_program if seed % 2 == 0 else loop_program
        program = parse_program(make(rng, m, order, minimum), f"<random {seed} m={m}>")
        space = RealSpace(program, LinfInput())
        assert recognise_regions(program, LinfInput()) is not None
        for _ in range(25):
            u = random_point(rng, m)
            det = nf.run(program, u)
            fast, slow = space.argmax_dd(u, det), space.lp_dd(u, det)
            assert (fast.value, fast.attained) == (slow.value, slow.attained), (u, order, minimum)
            assert space.dd(u, det).value == fast.value
            if fast.attained:
                assert LinfInput().between(u, fast.witness) == fast.value
                assert not outputs_equal(nf.run(program, fast.witness), det)
            elif fast.value != INF:
                near = near_disagreeing(lambda w: nf.run(program, w), u, fast, LinfInput(), det)
                assert near is not None and fast.value < LinfInput().between(u, near) <= fast.value + TOLERANCE


@pytest.mark.parametrize("text", [
    # a mean that is not a plain input
    "input q: real[2]\noutput out: 1..2\nnoisy: real[2]\nnoisy[1] <- Lap(eps, 2*q[1])\n"
    "noisy[2] <- Lap(eps, q[2])\nout <- argmax(noisy)\n",
    "input q: real[2]\noutput out: 1..2\nnoisy: real[2]\nnoisy[1] <- Lap(eps, q[1] + 1)\n"
    "noisy[2] <- Lap(eps, q[2])\nout <- argmax(noisy)\n",
    # one input read twice, another never
    "input q: real[2]\noutput out: 1..2\nnoisy: real[2]\nnoisy[1] <- Lap(eps, q[1])\n"
    "noisy[2] <- Lap(eps, q[1])\nout <- argmax(noisy)\n",
    # a finite input beside the reals
    "input q: real[2]\ninput flag: bool\noutput out: 1..2\nnoisy: real[2]\nnoisy[1] <- Lap(eps, q[1])\n"
    "noisy[2] <- Lap(eps, q[2])\nout <- argmax(noisy)\n",
])
def test_outside_the_class_keeps_the_lp(text):
    program = parse_program(text, "<outside>")
    assert recognise_regions(program, LinfInput()) is None
    space = RealSpace(program, LinfInput())
    u = {n: F(0) for n in nf.real_inputs(program)}
    u.update({n: False for n, t in program.inputs if n not in u})
    assert space.argmax_dd(u, nf.run(program, u)) is None


def test_other_distances_keep_the_lp():
    program = parse_program(builtin_program(random.Random(0), 3, [1, 2, 3], False))
    assert recognise_regions(program, LinfInput()) is not None
    assert recognise_regions(program, ZeroOneInput()) is None
