"""DLap(a*eps, mean): the discrete Laplace noise on the integers,
P(N = k) = ((1 - e^(-a eps)) / (1 + e^(-a eps))) e^(-a eps |k|).

The discrete Laplace engine (exact/dlap_engine.py) integrates it as it is.

Not a continuous scale family (`NoiseSpec.continuous_scale_family` is False): it has atoms
(two samples tie with positive probability, and the tie-break then favours an index), and
its law at rate a*eps is not the law at rate 1 scaled, since its support stays the integers.

A two-sided shift cost for integer shifts (`NoiseSpec.shift_cost`): with p = e^(-a eps),
P(N = n)/P(N = n + s) = p^(|n| - |n + s|) <= e^(a eps |s|) for integers n, s (triangle
inequality), every integer has positive mass, log P(N = n) = const - a eps |n| is concave in
n, and P[N >= s] = sum_{k >= s} (1-p)/(1+p) p^k = p^s/(1+p) for integers s >= 0.  A shift by a
non-integer leaves the support, so the cost holds only on integer inputs with integer shifts.
"""
from __future__ import annotations

import math
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.execution.lazy import lazy_import
from dipc_plus.exact.linear import Noise
from dipc_plus.exact.noises.registry import EngineReading, NoiseSpec, register

np = lazy_import("numpy")  # only the sampler draws


def draw(rng, rate_eps, m):
    """m integers K with P(K = k) = (1-p)/(1+p) p^|k|, p = exp(-rate_eps): the difference of
    two independent geometric variables on {0, 1, ...} with P(G = g) = (1-p) p^g.

    (P(G1 - G2 = k) = sum_g (1-p)^2 p^(g+k) p^g = (1-p)^2 p^k / (1-p^2) for k >= 0.)
    """
    rate = float(rate_eps)
    success = -math.expm1(-rate)  # 1 - p, accurate for small rates
    if success <= 0:
        raise UserError(f"the discrete Laplace rate {rate} is too small to sample", hint="use a larger eps")
    g1 = rng.geometric(success, m)
    g2 = rng.geometric(success, m)
    return g1.astype(np.int64) - g2.astype(np.int64)  # numpy's geometric counts trials (>= 1): offsets cancel


def reading(rate: Fraction) -> EngineReading:
    return EngineReading(Noise("dlap", rate))


SPEC = register(NoiseSpec(kind="dlap", surface="DLap", title="discrete Laplace", value_type="int",
                          draw=draw, reading=reading, shift_cost="two-sided"))
