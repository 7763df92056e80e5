"""The sign prover of the real-output loss (`real_output_loss.nonnegative_on`: H >= 0 for every
eps > 0 and every w of an interval, by power-free bounds, Abel summation and Bernstein coefficients)
against the exact certified decision at points: on random small forms, whenever the prover says
True, H at every sampled rational w of the interval is decided >= 0 for every eps > 0 (the decision
of decision.decide, independent of the three arguments).  A wrong True is a soundness hole of every
verdict on every value of a real output.  50 forms in the suite, 400 with DIPC_LONG=1."""
from __future__ import annotations

import os
import random
from fractions import Fraction as F

import pytest
from flint import fmpq, fmpq_poly

from dipc_plus.decision.decide import decide
from dipc_plus.errors import UserError
from dipc_plus.exact.symbolic_terms import SymbolicForm
from dipc_plus.privacy.dp.real_output_loss import ALL_EPS, nonnegative_on

COUNT = 400 if os.environ.get("DIPC_LONG") == "1" else 50
MUS = [F(-2), F(-1), F(-1, 2), F(0), F(1, 2), F(1)]


def random_form(rng: random.Random) -> SymbolicForm:
    """sum of 1-3 terms c(eps) v^j e^(mu v), c a polynomial in eps of degree <= 1, j <= 1."""
    terms = {}
    for _ in range(rng.randint(1, 3)):
        key = ((rng.choice(MUS),), F(0), (rng.choice([0, 0, 1]),))
        coeffs = [rng.choice([-2, -1, 0, 1, 1, 2, 3]) for _ in range(rng.randint(1, 2))]
        if any(coeffs):
            terms[key] = fmpq_poly([fmpq(c) for c in coeffs])
    return SymbolicForm(1, terms)


def random_interval(rng: random.Random):
    """An interval on one side of 0, possibly unbounded away from 0."""
    a = F(rng.randint(0, 4), rng.choice([1, 2]))
    b = None if rng.random() < 0.3 else a + F(rng.randint(1, 6), rng.choice([1, 2]))
    return (a, b) if rng.random() < 0.5 else ((None if b is None else -b), -a)


def sample_points(lo, hi) -> list:
    if lo is None:
        return [hi - F(k, 2) for k in (1, 2, 5, 20)]
    if hi is None:
        return [lo + F(k, 2) for k in (1, 2, 5, 20)]
    return [lo + (hi - lo) * F(k, 8) for k in range(1, 8)]


@pytest.mark.parametrize("seed", range(COUNT))
def test_a_proved_sign_holds_at_sampled_points(seed):
    rng = random.Random(seed)
    H = random_form(rng)
    lo, hi = random_interval(rng)
    if not proved(H, lo, hi):
        return
    for w in sample_points(lo, hi):
        assert decide(H.at([w]), ">=", ALL_EPS).holds, (str(H), lo, hi, w)


def proved(H: SymbolicForm, lo, hi) -> bool:
    """The prover's answer; a decision that reaches its step limit (a UserError the command reports
    with exit 2) proves nothing."""
    try:
        return bool(H.terms) and nonnegative_on(H, lo, hi)
    except UserError as exc:
        assert "refinement steps" in exc.message
        return False


def test_the_generator_reaches_proofs_of_both_kinds():
    """The forms are not all trivial: some are proved and some are not."""
    count = sum(proved(H, *random_interval(rng))
                for rng in (random.Random(s) for s in range(COUNT)) for H in [random_form(rng)])
    assert 0 < count < COUNT
