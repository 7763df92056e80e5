"""One-sided exponential noise, ExpNoise(a*eps, mean) (issue 12, point 8).

The exact engine reads an ExpNoise(a) sample as a Laplace(a) one restricted to x > 0
with twice the density (exact/noises/exponential.py, read by
constraints.component_probability).  Checked here against numerical integration (scipy), against the sampler, and through the privacy of Report Noisy Max
with exponential noise, whose tight loss is known: eps-DP at scale 2/eps (Ding et al. 2021).
"""
import math
import subprocess
from fractions import Fraction

import pytest
from conftest import run_main
from scipy import integrate

import dipc_plus
from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program
from dipc_plus.semantics.distribution import certified

RNM_EXP = "programs/noisy_max_exp.dip"
CLAIM = "theories/noisy_max_exp_privacy.toml"


def _exp_pdf(x, loc, rate):
    return rate * math.exp(-rate * (x - loc)) if x > loc else 0.0


def _exp_cdf(x, loc, rate):
    return 1.0 - math.exp(-rate * (x - loc)) if x > loc else 0.0


def _argmax_by_quadrature(q, rate, i):
    """P[q_i + E_i > q_j + E_j for all j != i], E iid Exp(rate): integral of pdf_i * prod cdf_j."""
    def f(x):
        p = _exp_pdf(x, q[i], rate)
        for j, qj in enumerate(q):
            if j != i:
                p *= _exp_cdf(x, qj, rate)
        return p
    points = sorted(set(q))
    total, lo = 0.0, q[i]
    for b in [p for p in points if p > lo] + [math.inf]:
        total += integrate.quad(f, lo, b, epsabs=1e-13, epsrel=1e-12, limit=200)[0]
        lo = b
    return total


@pytest.mark.parametrize("q", [[0, 1, -1], [0, 0, 0], [2, -1, Fraction(1, 2)], [1, 1, 0]])
@pytest.mark.parametrize("eps", [Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_argmax_closed_forms_match_quadrature(q, eps):
    dist = dipc_plus.load(RNM_EXP, m=3).distribution(q=q)
    rate = float(eps) / 2
    for i in range(3):
        exact = float(certified(dist.probability(out=i + 1), eps).mid())
        assert exact == pytest.approx(_argmax_by_quadrature([float(x) for x in q], rate, i), abs=1e-9)


def test_two_queries_by_hand():
    # P[E1 > 1 + E2] = E[e^(-a(1+E2))] = e^(-a)/2 with a = eps/2
    dist = dipc_plus.load(RNM_EXP, m=2).distribution(q=[0, 1])
    assert str(dist.probability(out=1)) == "1/2*e^(-1/2*eps)"


def test_sampler_agrees_with_the_exact_distribution():
    program = dipc_plus.load(RNM_EXP, m=3)
    dist = program.distribution(q=[0, 1, -1])
    runs = program.simulate(Fraction(1), 200_000, seed=7, q=[0, 1, -1])
    freq = runs.distribution(["out"])
    for i in (1, 2, 3):
        exact = float(certified(dist.probability(out=i), 1).mid())
        observed = freq.get((i,), 0) / 200_000
        # 5 standard deviations of a binomial frequency
        assert abs(observed - exact) < 5 * math.sqrt(exact * (1 - exact) / 200_000)


def _dipc(*argv):
    """`dipc ARGV` in this process (conftest.run_main), as a CompletedProcess."""
    code, out, err = run_main(argv)
    return subprocess.CompletedProcess(argv, code, out, err)


def test_rnm_with_exponential_noise_is_eps_dp():
    proc = _dipc("privacy", CLAIM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "VERIFIED on the grid" in proc.stdout


def test_rnm_with_exponential_noise_is_not_nine_tenths_eps_dp(tmp_path):
    claim = tmp_path / "c.toml"
    text = open(CLAIM).read().replace('budget = "eps"', 'budget = "9/10*eps"')
    claim.write_text(text.replace('path = "../programs/', f'path = "{__import__("os").path.abspath("programs")}/'))
    proc = _dipc("privacy", str(claim))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "REFUTED (re-checked by an independent evaluation)" in proc.stdout
    assert "neighbour  q=[1, 1, 0]" in proc.stdout and "output     out=3" in proc.stdout


def test_tight_loss_is_ln_of_the_known_ratio():
    proc = _dipc("privacy-loss", CLAIM)
    assert proc.returncode == 0
    assert "L(eps) = ln(3*e^(1/2*eps) - 3 + e^(-1/2*eps))" in proc.stdout
    assert "sup L(eps)/eps = 1" in proc.stdout
    # independent: the ratio P[out=3 | q=(0,0,1)] / P[out=3 | q=(1,1,0)] by quadrature at eps = 1
    a = 0.5
    ratio = _argmax_by_quadrature([0, 0, 1], a, 2) / _argmax_by_quadrature([1, 1, 0], a, 2)
    assert ratio == pytest.approx(3 * math.exp(0.5) - 3 + math.exp(-0.5), rel=1e-9)


def test_wrong_uses_are_located_errors():
    with pytest.raises(UserError) as exc:
        parse_program("input q: real\noutput x: int\nx <- ExpNoise(eps, q)\n", "t.dip")
    assert "a real sample" in exc.value.message
    with pytest.raises(UserError) as exc:
        parse_program("input q: real\noutput x: real\nx <- ExpNoise(eps)\n", "t.dip")
    assert "takes 2 arguments" in exc.value.message


def test_gaussian_noise_is_refused_with_the_supported_list():
    with pytest.raises(UserError) as exc:
        parse_program("input q: real\noutput x: real\nx <- Gauss(eps, q)\n", "t.dip")
    assert "ExpNoise" in exc.value.hint and "Lap" in exc.value.hint
