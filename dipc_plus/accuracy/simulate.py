"""Monte Carlo estimate of an accuracy claim's error probability at one rational eps.

Why: the exact closed forms of `accuracy.checker` need a witness that shares none of their
reasoning; the sampler runs the program itself and the ball is tested on each run's output.
Tests, the plots and the paper tables use it; no verdict does.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from dipc_plus.claims.accuracy_claim import AccuracyClaim


def simulate_error(claim: AccuracyClaim, u: Mapping, det_u: Mapping, gamma, eps, n: int, *, seed: int = 0):
    """Monte Carlo estimate of P[P(u) not in B(det(u), u, gamma)] at one rational eps.

    The independent witness for the exact closed forms: the sampler runs the program
    itself (no symbolic reasoning) and the ball is tested on each run's concrete output.
    Returns the sampler's `Frequency` of errors (use `.interval(confidence)`).
    """
    from dipc_plus.claims.distances import LinfOutput
    from dipc_plus.semantics.sampler import simulate
    from dipc_plus.semantics.samples import Frequency
    program = claim.program
    result = simulate(program, dict(u), Fraction(eps), n, seed=seed)
    if result.real_names():
        if not isinstance(claim.output_distance, LinfOutput):
            raise ValueError(f"cannot simulate the {claim.output_distance.name} ball for real outputs")
        inside = result.probability(result.within(Fraction(gamma), dict(det_u)))
        return Frequency(n - inside.successes, n)
    names = result.discrete_names()
    errors = 0
    for values, count in result.distribution(names).items():
        v = dict(zip(names, values))
        if any(x is None for x in values):
            errors += count  # an output left unassigned is never det(u)'s value
            continue
        if not claim.output_distance.in_ball(u, det_u, v, Fraction(gamma)):
            errors += count
    return Frequency(errors, n)
