"""The argmax integral (exact/argmax_integral.py) and its recogniser (semantics/argmax.py).

(a) On every recognised form the closed forms are identical to the comparison
chain's (shortcuts=False): the same outcomes in the same order and equal canonical
ExpFracs (== and the printed text).  (b) An independent scipy quadrature of
density_i * prod CDF_j (conftest's Laplace oracles, no dipc_plus code) at m = 8.
(c) Programs that are not exactly argmax of independent samples fall back to the
chain.  (d) The probabilities add up to 1 exactly.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from dipc_plus.exact.argmax_integral import argmax_probabilities
from dipc_plus.frontend.load import load_program, parse_program
from dipc_plus.semantics.argmax import recognise
from dipc_plus.semantics.distribution import output_distribution
from conftest import PROGRAMS, lap_cdf, lap_pdf, quad


def load(name: str, m: int):
    return load_program(str(PROGRAMS / f"{name}.dip"), {"m": F(m)})


def assert_same(fast, slow):
    assert fast.method == "argmax-integral" and slow.method == "chain"
    assert list(fast.entries) == list(slow.entries)
    for o in slow.entries:
        assert fast[o] == slow[o], (o, str(fast[o]), str(slow[o]))
        assert str(fast[o]) == str(slow[o])
        assert fast.entries[o].weight == slow.entries[o].weight


INPUTS = [
    [1, 2],
    [0, 0],
    [3, -1, 2],
    [1, 1, 0],
    [F(-1, 2), F(7, 3), 0, F(7, 3)],
    [0, 1, 2, 3, 4],
    [2, 2, 2, 2, 2],
    [F(-5, 4), 0, F(-5, 4), 1, F(1, 3)],
]


@pytest.mark.parametrize("name", ["noisy_max", "noisy_min", "noisy_max_loop", "noisy_max_exp"])
@pytest.mark.parametrize("qs", INPUTS, ids=str)
def test_identical_to_chain(name, qs):
    p = load(name, len(qs))
    assert recognise(p) is not None
    fast = output_distribution(p, {"q": qs})
    slow = output_distribution(p, {"q": qs}, shortcuts=False)
    assert_same(fast, slow)
    assert fast.sums_to_one()


MIXED = """
input q: real[4]
output out: 1..4
a <- Lap(eps, q[1])
b <- Lap(eps/3, q[2] + 1/2)
c <- ExpNoise(2*eps, q[3])
d <- Lap(3/2*eps, -q[4])
out <- {fn}(a, b, c, d)
"""


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
@pytest.mark.parametrize("qs", [[0, 0, 0, 0], [1, F(-1, 2), F(1, 3), 2], [F(-3, 2), 1, 1, F(3, 2)]], ids=str)
def test_mixed_scales_and_kinds_identical_to_chain(fn, qs):
    p = parse_program(MIXED.format(fn=fn))
    shape = recognise(p)
    assert shape is not None and shape.minimum == (fn == "argmin")
    assert_same(output_distribution(p, {"q": qs}), output_distribution(p, {"q": qs}, shortcuts=False))


def test_within_passes_shortcuts_on():
    p = load("noisy_max", 4)
    qs = [0, 1, 1, F(1, 2)]
    assert (output_distribution(p, {"q": qs}).within({"out": 2}, None)
            == output_distribution(p, {"q": qs}, shortcuts=False).within({"out": 2}, None))


# --------------------------------------------------------------- (b) independent numerics


def numeric_argmax(i: int, centres, rates, eps: float) -> float:
    """P[argmax = i] by quadrature of pdf_i * prod_{j != i} cdf_j (Lap(rate_j eps) around centre_j)."""
    def f(x):
        v = lap_pdf(x, centres[i], rates[i] * eps)
        for j, (c, r) in enumerate(zip(centres, rates)):
            if j != i:
                v *= lap_cdf(x, c, r * eps)
        return v
    return quad(f, centres)


def exact_float(p, eps) -> float:
    return float(p.arb_value(eps, prec=200).mid().str(25, radius=False))


@pytest.mark.parametrize("eps", [F(1, 3), F(1), F(5, 2)])
def test_m8_against_quadrature(eps):
    centres = [F(0), F(1), F(-1, 2), F(3), F(3), F(5, 4), F(-2), F(1, 3)]
    rates = [F(1, 2), F(1, 2), F(1), F(1, 2), F(2), F(1, 3), F(1, 2), F(3, 2)]
    exact = argmax_probabilities([("lap", r, c) for r, c in zip(rates, centres)])
    for i in range(8):
        num = numeric_argmax(i, [float(c) for c in centres], [float(r) for r in rates], float(eps))
        got = exact_float(exact[i], eps)
        assert abs(got - num) <= 1e-9 * abs(num) + 1e-14, (i, float(eps), got, num)


def test_m8_noisy_max_program_against_quadrature():
    qs = [F(k, 2) for k in (3, -1, 0, 4, 4, 1, 7, -3)]
    d = output_distribution(load("noisy_max", 8), {"q": qs})
    assert d.method == "argmax-integral"
    for i in range(8):
        num = numeric_argmax(i, [float(c) for c in qs], [0.5] * 8, 1.0)
        assert abs(exact_float(d[i + 1].num, 1) - num) <= 1e-9 * num + 1e-14


def test_exp_noise_m8_against_quadrature():
    # ExpNoise(b eps) around c: pdf b eps e^(-b eps (x - c)) on x > c, cdf 1 - e^(-b eps (x - c)).
    centres = [0.0, 1.0, 0.5, 2.0, 2.0, -1.0, 1.5, 0.25]
    eps = 1.0

    def pdf(x, c):
        return 0.5 * eps * math.exp(-0.5 * eps * (x - c)) if x > c else 0.0

    def cdf(x, c):
        return 1 - math.exp(-0.5 * eps * (x - c)) if x > c else 0.0

    exact = argmax_probabilities([("exp", F(1, 2), F(c)) for c in centres])
    for i in range(8):
        def f(x, i=i):
            v = pdf(x, centres[i])
            for j, c in enumerate(centres):
                if j != i:
                    v *= cdf(x, c)
            return v
        num = quad(f, centres, lo=max(centres[:i] + centres[i + 1:] + [centres[i]]))
        assert abs(exact_float(exact[i], 1) - num) <= 1e-9 * num + 1e-14, (i, num)


def test_argmin_is_argmax_of_negated():
    centres = [F(1), F(-2), F(1, 2), F(0)]
    lo = argmax_probabilities([("lap", F(1, 2), c) for c in centres], minimum=True)
    hi = argmax_probabilities([("lap", F(1, 2), -c) for c in centres])
    assert lo == hi


# --------------------------------------------------------------- (c) fall back to the chain

NOT_ARGMAX = {
    "reused sample": """
input q: real[3]
output out: 1..3
a <- Lap(eps, q[1])
b <- Lap(eps, q[2])
out <- argmax(a, b, a)
""",
    "conditions on a sample": """
input q: real[3]
output out: 1..3
noisy: real[3]
for i = 1 to 3 do
    noisy[i] <- Lap(eps/2, q[i])
end
if noisy[1] > 0 then
    noisy[2] <- Lap(eps/2, q[2])
end
out <- argmax(noisy)
""",
    "outputs the value too": """
input q: real[3]
output out: 1..3
output v: real
noisy: real[3]
for i = 1 to 3 do
    noisy[i] <- Lap(eps/2, q[i])
end
out <- argmax(noisy)
v <- noisy[1]
""",
    "centre is another sample": """
input q: real[3]
output out: 1..3
a <- Lap(eps, q[1])
b <- Lap(eps, a)
c <- Lap(eps, q[3])
out <- argmax(a, b, c)
""",
    "shifted values": """
input q: real[3]
output out: 1..3
a <- Lap(eps, q[1])
b <- Lap(eps, q[2])
c <- Lap(eps, q[3])
out <- argmax(a, b + 1, c)
""",
    "statement after the scan": """
input q: real[3]
output out: 1..3
noisy: real[3]
for i = 1 to 3 do
    noisy[i] <- Lap(eps/2, q[i])
end
out <- argmax(noisy)
if out == 3 then
    out <- 1
end
""",
    "loop without keeping the best": """
input q: real[3]
output out: 1..3
best <- Lap(eps/2, q[1])
out <- 1
for i = 2 to 3 do
    r <- Lap(eps/2, q[i])
    if r > best then
        out <- i
    end
end
""",
    "loop keeps the later of ties": """
input q: real[3]
output out: 1..3
best <- Lap(eps/2, q[1])
out <- 1
for i = 2 to 3 do
    r <- Lap(eps/2, q[i])
    if r >= best then
        best <- r
        out <- i
    end
end
""",
}


@pytest.mark.parametrize("name", sorted(NOT_ARGMAX))
def test_non_matching_programs_use_the_chain(name):
    p = parse_program(NOT_ARGMAX[name])
    assert recognise(p) is None
    d = output_distribution(p, {"q": [0, 1, F(1, 2)]})
    assert d.method == "chain"
    assert d.sums_to_one()


def test_reused_sample_differs_from_independent_integral():
    # the false match the recogniser must avoid: argmax(a, b, a) is not argmax of 3 independent samples
    p = parse_program(NOT_ARGMAX["reused sample"])
    d = output_distribution(p, {"q": [0, 0, 0]})
    naive = argmax_probabilities([("lap", F(1), F(0))] * 3)
    assert d[3].is_zero() and not naive[2].is_zero()


@pytest.mark.parametrize("name", ["discrete_noisy_max_naive", "discrete_noisy_max_improved"])
def test_discrete_noisy_max_uses_the_chain(name):
    p = load_program(str(PROGRAMS / f"{name}.dip"), {"m": F(2), "k": F(2)})
    assert recognise(p) is None
    assert output_distribution(p, {"v": [1, 2]}).method == "chain"


# --------------------------------------------------------------- (d) total probability 1


@pytest.mark.parametrize("m", [1, 2, 7, 12])
def test_sums_to_one_exactly(m):
    for qs in ([F(k) for k in range(1, m + 1)], [F(0)] * m, [F((-1) ** k * k, 3) for k in range(m)]):
        d = output_distribution(load("noisy_max", m), {"q": qs})
        assert d.method == "argmax-integral" and d.sums_to_one(), (m, qs)
        assert len(d) == m


def test_unsupported_noise_is_refused():
    with pytest.raises(ValueError):
        argmax_probabilities([("dlap", F(1), F(0)), ("lap", F(1), F(0))])
    with pytest.raises(ValueError):
        argmax_probabilities([("lap", F(0), F(0))])


# --------------------------------------------------------------- chains counted only when built


def test_privacy_check_counts_no_chain_for_the_argmax_integral():
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    from dipc_plus.privacy.dp.check import check_dp
    from conftest import THEORIES
    fast = check_dp(load_privacy_claim(str(THEORIES / "noisy_min_privacy.toml")))
    assert fast.verified and fast.evaluations > 0 and fast.markov_chains == 0
    other = check_dp(load_privacy_claim(str(THEORIES / "laplace_privacy.toml")))
    assert other.markov_chains > 0
