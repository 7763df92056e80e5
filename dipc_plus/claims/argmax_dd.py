"""Distance to disagreement of an argmax of noisy reads, in closed form (no LP per input).

When `semantics.argmax.recognise` proves a program is out = argmax (or argmin) of
independent samples whose means are distinct real inputs, each read plainly
(coefficient 1, no constant), the noise-free program is the scan over those
inputs: det(w) = the first index i whose mean is largest (smallest for argmin).
Its det region for output i is

    w_i > w_k for k < i   and   w_i >= w_k for k > i,

so the set where det differs from i is the union over k != i of one half-space
each: {w_k >= w_i} (closed) for k < i and {w_k > w_i} (open) for k > i.  The
L-inf distance from u to {w_k >= w_i} is (u_i - u_k)/2 when u_i >= u_k (move
both halfway), so

    dd(u) = min over k != i of (u_i - u_k)/2,

attained exactly when some k < i reaches the minimum (a closed half-space), and
INF when there is no other index.  Argmin is the same with every input negated.
The accuracy checker then needs no LP per grid point (the LP cost 20.8 of 23.3 s
of NoisyMax's m = 6 grid); tests compare this with the LP on random points.

An output that relabels the index one-to-one (`semantics.argmax`, e.g. numpy's 0-based
argmax in a translated Python function) has the same regions: det is the label of that index.

Recognition is a whitelist: every input of the program is real and is the mean
of exactly one sample, and the input distance is plain L-inf.  Anything else
returns None and the LP runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from dipc_plus.claims.dd_result import Disagreement
from dipc_plus.claims.distances import INF, LinfInput
from dipc_plus.semantics import ir
from dipc_plus.semantics.argmax import plain_variable, recognise

__all__ = ["ArgmaxRegions", "recognise_regions", "argmax_dd"]


@dataclass(frozen=True)
class ArgmaxRegions:
    """det = the first index of the largest (smallest if `minimum`) of `means` (flat input
    names, index 1 first), shown as its label (`labels[i-1]`; i itself when empty)."""
    means: tuple
    minimum: bool
    labels: tuple = ()

    def label(self, index: int):
        """det's output value when `index` (1-based) is the first largest."""
        return self.labels[index - 1] if self.labels else index


def recognise_regions(program: ir.Program, distance) -> ArgmaxRegions | None:
    """The argmax det regions of `program` under `distance`, or None unless the whitelist holds."""
    if type(distance) is not LinfInput:
        return None
    shape = recognise(program)
    if shape is None:
        return None
    if any(not isinstance(t, ir.RealT) for _, t in program.inputs):
        return None
    means = [plain_variable(mean) for _kind, _rate, mean in shape.samples]
    if len(set(means)) != len(means) or set(means) != set(program.input_names()):  # a None is no input
        return None
    return ArgmaxRegions(tuple(means), shape.minimum, shape.labels if shape.relabelled else ())


def argmax_dd(regions: ArgmaxRegions, u: Mapping) -> tuple:
    """(det output value (the index, or its label), `Disagreement`) at input u, from the
    formula of the docstring.  The witness (attained: a disagreeing input at distance dd; otherwise
    the closure point) is u with u_i and u_k both moved to their midpoint."""
    sign = -1 if regions.minimum else 1
    values = [sign * Fraction(u[n]) for n in regions.means]
    best = max(range(len(values)), key=values.__getitem__)   # the first largest
    if len(values) == 1:
        return regions.label(best + 1), Disagreement(INF, False)
    # the first k with the least gap (the largest other value): the closed half-spaces (k < best)
    # come first, so one of them is chosen whenever one reaches the minimum
    nearest = max((k for k in range(len(values)) if k != best), key=values.__getitem__)
    gap = (values[best] - values[nearest]) / 2
    attained = nearest < best
    middle = (values[best] + values[nearest]) / 2
    witness = dict(u)
    for k in (best, nearest):
        witness[regions.means[k]] = sign * middle
    return regions.label(best + 1), Disagreement(gap, attained, witness)
