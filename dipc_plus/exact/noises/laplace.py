"""Lap(a*eps, mean): the Laplace noise, density (a eps / 2) e^(-a eps |x|) around the mean.

The Laplace engine (exact/laplace_engine.py) integrates it as it is.

A continuous scale family (`NoiseSpec.continuous_scale_family`): its density
(a eps / 2) e^(-a eps |x|) is a eps * f(a eps x) with f(y) = e^(-|y|)/2, which is
independent of a and eps, so N = Y/(a eps) for Y standard Laplace, and Y has a density.

A two-sided shift cost (`NoiseSpec.shift_cost`): f(n)/f(n + s) = e^(a eps (|n + s| - |n|)) <=
e^(a eps |s|) by the triangle inequality; log f = const - a eps |n| is concave; P[N >= s] =
e^(-a eps s)/2 for s >= 0.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.exact.linear import Noise
from dipc_plus.exact.noises.registry import EngineReading, NoiseSpec, register


def draw(rng, rate_eps, m):
    """m Laplace draws of scale 1/(a eps)."""
    return rng.laplace(0.0, float(1 / rate_eps), m)


def reading(rate: Fraction) -> EngineReading:
    return EngineReading(Noise("lap", rate))


SPEC = register(NoiseSpec(kind="lap", surface="Lap", title="Laplace", value_type="real",
                          draw=draw, reading=reading, continuous_scale_family=True,
                          shift_cost="two-sided"))
