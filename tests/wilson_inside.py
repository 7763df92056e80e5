"""Whether an exact value lies in a Monte Carlo confidence interval (`semantics.stats.Interval`):
how the tests compare exact closed forms with simulated frequencies, exactly (no tolerance)."""
from __future__ import annotations

import math
from fractions import Fraction

from dipc_plus.exact.decimals import arb_bounds


def in_interval(interval, value) -> bool:
    """`value` (an int, Fraction or float compared exactly, or a flint `arb` ball, inside only
    when the whole ball is) lies in the closed interval [low, high]."""
    low, high = Fraction(interval.low), Fraction(interval.high)
    if hasattr(value, "rad") and hasattr(value, "mid"):
        lo_b, hi_b = arb_bounds(value)
        return low <= lo_b and hi_b <= high
    if isinstance(value, float) and math.isnan(value):
        return False
    return low <= Fraction(value) <= high
