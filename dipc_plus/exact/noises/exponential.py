"""ExpNoise(a*eps, mean): one-sided exponential noise, density a eps e^(-a eps x) for x > 0.

The noise of report-noisy-max in the DP-Sniper and StatDP suites.  Its density is twice
the Lap(a*eps) density on x > 0, so the Laplace engine integrates it as a Laplace noise
restricted to x > 0 with weight 2 (exact/constraints.py), and the argmax shortcut reads
it as the 'exp' kind of exact/argmax_integral.py.

A continuous scale family (`NoiseSpec.continuous_scale_family`): its density
a eps e^(-a eps x) [x > 0] is a eps * f(a eps x) with f(y) = e^(-y) [y > 0], which is
independent of a and eps (a eps x > 0 exactly when x > 0), so N = Y/(a eps) for Y standard
exponential, and Y has a density.

A one-sided shift cost (`NoiseSpec.shift_cost`): moving a draw up by s >= 0 costs e^(a eps s),
but moving it down maps part of x > 0 below 0, where the density is 0: no finite cost.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.exact.linear import Noise
from dipc_plus.exact.noises.registry import EngineReading, NoiseSpec, register


def draw(rng, rate_eps, m):
    """m exponential draws of scale 1/(a eps)."""
    return rng.exponential(float(1 / rate_eps), m)


def reading(rate: Fraction) -> EngineReading:
    return EngineReading(Noise("lap", rate), positive_only=True)


SPEC = register(NoiseSpec(kind="exp", surface="ExpNoise", title="one-sided exponential", value_type="real",
                          draw=draw, reading=reading,
                          continuous_scale_family=True, shift_cost="one-sided"))
