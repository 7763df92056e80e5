"""One-sided exponential noise on the symbolic path (issue 38): an ExpNoise draw is read by the
Laplace engine on one side (its atom N > 0, twice the density), so its cells' closed forms must be
the per-point chain's exactly at rational points of every cell, on a grid of inputs, and agree with
independent numerical integration and with simulation; the densities of a released ExpNoise value
(alone, beside a finite output, as a gap with a Laplace threshold) must be the per-point chain's CDF
differentiated, checked against the CDF exactly and against quadrature of the convolution."""
from __future__ import annotations

import math
import random
from fractions import Fraction as F
from itertools import product

import numpy as np
import pytest

from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.frontend.load import load_program, parse_program
from dipc_plus.privacy.dp.real_output_check import outcome_event_probability
from dipc_plus.semantics import ir
from dipc_plus.semantics.distribution import bind, output_distribution
from dipc_plus.semantics.real_output_density import real_output_densities
from dipc_plus.semantics.symbolic_chain import symbolic_paths
from dipc_plus.semantics.symbolic_distribution import symbolic_distribution
from conftest import PROGRAMS, lap_cdf, lap_pdf, quad

ZERO = ExpFrac.of(0)

EXP_SVT = """\
type Ans = {none, bot, top}
input  q: real[2]
output out: Ans[2]
for i = 1 to 2 do
    out[i] <- none
end
rT <- ExpNoise(eps/2, 0)
for i = 1 to 2 do
    r <- ExpNoise(eps/4, q[i])
    if r >= rT then
        out[i] <- top
        exit
    else
        out[i] <- bot
    end
end
"""

MIXED = """\
input  q1: real
input  q2: real
output first: bool
output wide: bool
r1 <- ExpNoise(eps, q1)
r2 <- Lap(eps/2, q2)
first <- r1 >= r2 + 1/2
if q1 >= q2 then
    wide <- r1 >= q2 + 1
else
    wide <- false
end
"""


def programs() -> dict:
    return {"noisy_max_exp m=2": load_program(str(PROGRAMS / "noisy_max_exp.dip"), {"m": F(2)}),
            "noisy_max_exp m=3": load_program(str(PROGRAMS / "noisy_max_exp.dip"), {"m": F(3)}),
            "exp_svt": parse_program(EXP_SVT, "<exp_svt>", {}),
            "mixed": parse_program(MIXED, "<mixed>", {})}


PROGRAMS_BY_NAME = programs()


def per_point(program, flat: dict) -> dict:
    """{output tuple: P} of the per-point chain (no argmax shortcut: the independent route)."""
    return output_distribution(program, bind(program, flat), shortcuts=False).marginal()


def distribution(program):
    names = {n.split("[")[0] for n, t in program.inputs if isinstance(t, ir.RealT)}
    sd = symbolic_distribution(program, {n: (-1, 1) for n in names})
    return sd, sd.cells()


@pytest.mark.parametrize("name", sorted(PROGRAMS_BY_NAME))
def test_each_cell_form_is_the_per_point_form(name):
    """Random rational points of every cell (interior and faces the sampler reaches)."""
    program = PROGRAMS_BY_NAME[name]
    sd, cells = distribution(program)
    rng = random.Random(name)
    checked = 0
    for output, pieces in cells.items():
        for piece in pieces:
            for q in piece.cell.sample(rng, 2):
                want = per_point(program, dict(zip(sd.input_names, q))).get(output, ZERO)
                assert ExpFrac.of(piece.form.at(q)) == want, (output, piece.cell, q)
                checked += 1
    assert checked >= 2 * len(cells)


@pytest.mark.parametrize("name", sorted(PROGRAMS_BY_NAME))
def test_on_a_grid_of_inputs_one_cell_each_and_the_per_point_form(name):
    """On {-1, -1/2, 0, 1/2, 1}^p (ties and cell faces included) every output has exactly one
    owning cell, its form there is the per-point chain's, and the outputs add up to 1."""
    program = PROGRAMS_BY_NAME[name]
    sd, cells = distribution(program)
    grid = [F(-1), F(-1, 2), F(0), F(1, 2), F(1)]
    points = list(product(grid, repeat=len(sd.input_names)))
    if len(points) > 30:
        points = random.Random(name).sample(points, 30)
    for q in points:
        q = list(q)
        chain = per_point(program, dict(zip(sd.input_names, q)))
        total = ZERO
        for output, pieces in cells.items():
            owners = [pc for pc in pieces if pc.cell.contains(q)]
            assert len(owners) == 1, (output, q)
            value = ExpFrac.of(owners[0].form.at(q))
            assert value == chain.get(output, ZERO), (output, q)
            total = total + value
        assert total == ExpFrac.of(1)
        assert set(chain) <= set(cells)


def exp_pdf(x: float, mu: float, rate: float) -> float:
    return rate * math.exp(-rate * (x - mu)) if x > mu else 0.0


def exp_cdf(x: float, mu: float, rate: float) -> float:
    return 1 - math.exp(-rate * (x - mu)) if x > mu else 0.0


def symbolic_value(program, output, q, eps: float) -> float:
    sd, cells = distribution(program)
    (piece,) = [pc for pc in cells[output] if pc.cell.contains(q)]
    return piece.form.at(q)(eps)


def test_noisy_max_exp_against_quadrature():
    """P[out = 1] of noisy max at m = 3: the integral over the first noisy value x of its density
    times P[the others below x] (the others' exponential CDFs)."""
    program = PROGRAMS_BY_NAME["noisy_max_exp m=3"]
    q, eps = [F(1, 3), F(0), F(-1, 2)], 0.7
    mus, rate = [float(x) for x in q], eps / 2
    want = quad(lambda x: exp_pdf(x, mus[0], rate) * exp_cdf(x, mus[1], rate) * exp_cdf(x, mus[2], rate),
                mus, lo=mus[0])
    assert symbolic_value(program, (1,), q, eps) == pytest.approx(want, rel=1e-10)


def test_mixed_noises_against_quadrature():
    """P[first] = P[q1 + E >= q2 + L + 1/2] with E ~ Exp(eps), L ~ Lap(eps/2): the integral over E."""
    program = PROGRAMS_BY_NAME["mixed"]
    q, eps = [F(1, 2), F(-1, 2)], 1.3
    want = quad(lambda x: exp_pdf(x, 0.5, eps) * lap_cdf(x - 0.5, -0.5, eps / 2), [0.5, 0.0], lo=0.5)
    sd, cells = distribution(program)
    value = sum(pc.form.at(q)(eps) for output, pieces in cells.items() if output[0] is True
                for pc in pieces if pc.cell.contains(q))
    assert value == pytest.approx(want, rel=1e-10)


def test_exp_svt_against_simulation():
    """The frequencies of 200,000 simulated runs of the SVT with exponential noises lie within
    five standard deviations of the symbolic probabilities."""
    program = PROGRAMS_BY_NAME["exp_svt"]
    q, eps, n = [F(1, 2), F(-1)], 1.0, 200_000
    rng = np.random.default_rng(38)
    t = rng.exponential(2 / eps, n)
    r1 = 0.5 + rng.exponential(4 / eps, n)
    r2 = -1.0 + rng.exponential(4 / eps, n)
    top1 = r1 >= t
    top2 = ~top1 & (r2 >= t)
    freq = {("top", "none"): top1.mean(), ("bot", "top"): top2.mean(), ("bot", "bot"): 1 - top1.mean() - top2.mean()}
    for output, f in freq.items():
        p = symbolic_value(program, output, q, eps)
        assert abs(f - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-12, (output, f, p)


# --------------------------------------------------------------------------- densities

RELEASED = """\
input  q: real
output big: bool
output v: real
v <- ExpNoise(eps, q)
big <- v >= 1
"""

GAP = """\
input  q: real
output g: real
rT <- Lap(eps/2, 0)
r <- ExpNoise(eps, q)
g <- r - rT
"""


def densities(text: str, u: F) -> tuple:
    program = parse_program(text, "<density>", {})
    return program, real_output_densities(symbolic_paths(program, real_outputs_only=True), [u])


def density_at(od, w: F):
    (piece,) = [pc for pc in od.density if pc.cell.contains([w])]
    return piece.form.at([w])


@pytest.mark.parametrize("u", [F(0), F(1, 2), F(-2)])
def test_a_released_exp_noise_value_has_the_exponential_density(u):
    """v = q + E beside big = (v >= 1): density eps e^(-eps (w - q)) on w > q, split at 1 by big,
    0 below q; and the CDF pieces are the per-point chain's P[outcome, v <= w] exactly."""
    program, dens = densities(RELEASED, u)
    assert {o.finite for o in dens} == ({(True,), (False,)} if u < 1 else {(True,)})
    for outcome, od in dens.items():
        big = outcome.finite == (True,)
        for w in (u - 1, u + F(1, 3), u + 2, F(1, 2), F(3, 2)):
            if w == u or w == 1:
                continue
            inside = w > u and (w >= 1) == big
            want = (lambda e, w=w: e * math.exp(-e * float(w - u))) if inside else (lambda e: 0.0)
            got = density_at(od, w)
            for eps in (0.5, 2.0):
                assert got(eps) == pytest.approx(want(eps), rel=1e-12, abs=1e-300)
            for pc in od.cdf:
                if pc.cell.contains([w]):
                    exact = outcome_event_probability(program, {"q": u}, outcome, None, w)
                    assert ExpFrac.of(pc.form.at([w])) == exact, (outcome, w)


@pytest.mark.parametrize("u", [F(0), F(3, 4)])
def test_the_density_of_a_gap_is_the_convolution(u):
    """g = (q + E) - L: f(w) = integral of eps e^(-eps (x - q)) f_L(x - w) over x > q."""
    program, dens = densities(GAP, u)
    (od,) = dens.values()
    for w in (F(-2), F(0), F(1, 2), F(5, 2)):
        got = density_at(od, w)
        for eps in (0.5, 1.5):
            want = quad(lambda x: exp_pdf(x, float(u), eps) * lap_pdf(x - float(w), 0.0, eps / 2),
                        [float(u), float(w)], lo=float(u))
            assert got(eps) == pytest.approx(want, rel=1e-9)
        exact = outcome_event_probability(program, {"q": u}, next(iter(dens)), None, w)
        (cdf,) = [pc for pc in od.cdf if pc.cell.contains([w])]
        assert ExpFrac.of(cdf.form.at([w])) == exact
