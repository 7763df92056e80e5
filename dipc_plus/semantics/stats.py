"""Confidence intervals for Monte Carlo frequencies, so simulations can be compared
with exact probabilities honestly (a statement with a stated confidence, not a
float tolerance).

Wilson score intervals: they behave well near 0 and 1, where the exact engine's
interesting probabilities live.  `z` comes from the standard library, so no scipy
is needed at run time.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from dipc_plus.errors import UserError


def z_value(confidence: float) -> float:
    """Two-sided normal quantile: 0.95 -> 1.96, 0.99 -> 2.576."""
    if not 0 < confidence < 1:
        raise UserError(f"confidence {confidence} is not between 0 and 1",
                        hint="write e.g. --confidence 0.99")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


@dataclass(frozen=True)
class Interval:
    """A closed confidence interval [low, high] for a probability."""
    low: float
    high: float
    confidence: float

    def __str__(self) -> str:
        """Printed outward (6 digits), so the printed interval contains the computed one."""
        from dipc_plus.exact.decimals import decimal_down, decimal_up
        return f"[{decimal_down(self.low, 6)}, {decimal_up(self.high, 6)}]"


def wilson(successes: int, trials: int, confidence: float = 0.99) -> Interval:
    """Wilson score interval for a binomial proportion successes/trials."""
    if trials <= 0:
        raise UserError("no runs to estimate a probability from", hint="use -n with a positive number of runs")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes {successes} not in [0, {trials}]")
    z = z_value(confidence)
    n = trials
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = (z / denom) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = max(0.0, centre - half)
    high = min(1.0, centre + half)
    # The interval always contains 0 when nothing was seen and 1 when everything was.
    if successes == 0:
        low = 0.0
    if successes == n:
        high = 1.0
    return Interval(low, high, confidence)
