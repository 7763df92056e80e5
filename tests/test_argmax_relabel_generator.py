"""The argmax recogniser's relabelled form (semantics/argmax.py: an argmax written as
a comparison chain or argmax(...), then out <- an injective affine image of the index - what the
Python front end emits) is a shortcut: the argmax integral replaces the Markov chain when it
applies.  Random relabellings, noises and inputs at m = 2, 3: where the recogniser takes a program,
the integral's distribution equals the chain's exactly; a non-injective image is never taken."""
from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from dipc_plus.frontend.load import parse_program
from dipc_plus.semantics.argmax import recognise as recognise_argmax
from dipc_plus.semantics.distribution import output_distribution

SEEDS = range(24)


def relabelled_program(rng: random.Random) -> tuple[str, int, int, int]:
    m = rng.choice((2, 3))
    a = rng.choice((1, -1, 2, -3, 0))          # 0: every index shows as b (not injective)
    b = rng.randint(-2, 2)
    noise = rng.choice(("Lap(eps/2, q[i])", "ExpNoise(eps/2, q[i])"))
    values = sorted({a * k + b for k in range(1, m + 1)})
    text = (f"input q: real[{m}]\noutput out: {values[0]}..{values[-1]}\nvar noisy: real[{m}]\nvar k: 1..{m}\n"
            f"for i = 1 to {m} do\n    noisy[i] <- {noise}\nend\n"
            f"k <- argmax(noisy)\nout <- {a}*k + {b}\n")
    return text, m, a, b


@pytest.mark.parametrize("seed", SEEDS)
def test_the_argmax_integral_of_a_relabelled_argmax_is_the_chain(seed):
    rng = random.Random(4200 + seed)
    text, m, a, b = relabelled_program(rng)
    program = parse_program(text)
    shape = recognise_argmax(program)
    if a == 0:
        assert shape is None, text            # not injective: the shortcut must not apply
        return
    assert shape is not None, text
    q = {f"q[{i}]": F(rng.randint(-2, 2), rng.choice((1, 2))) for i in range(1, m + 1)}
    fast = output_distribution(program, q)
    slow = output_distribution(program, q, shortcuts=False)
    assert fast.method == "argmax-integral" and slow.method == "chain"
    got = {o: p for o, p in fast.items()}
    want = {o: p for o, p in slow.items()}
    assert got.keys() == want.keys(), text
    for o in want:
        assert (got[o] - want[o]).is_zero(), (text, q, o)
