"""(eps, delta)-DP over sets of outputs: the hockey-stick divergence, decided exactly.

Why it exists: (budget, delta)-DP quantifies over every set S of outputs,

    P[P(u) in S] <= e^budget P[P(u') in S] + delta,

which for delta > 0 is strictly stronger than the same inequality for each output
alone (issue 8, item 1: randomized response on 6 clients passes every per-output
test at (ln 2, 3/20) while S = {y[1] = 0} gives 0.8 > 2 * 0.2 + 0.15).  For finite
outputs the worst set at a given eps is S*(eps) = {v : d_v(eps) > 0} with
d_v = P[u -> v] - e^budget P[u' -> v], so the claim is the hockey-stick inequality

    H(eps) = sum_v max(0, d_v(eps)) <= delta(eps)   for every eps of the claim.

H is piecewise: S*(eps) changes only at zeros of the d_v.  The zeros of all d_v
are found exactly (`envelope.distinct_zeros`), each piece between them gives one set
(signs certified at a rational sample), and for each such set S the sentence
"for all eps in I: delta - sum_{v in S} d_v >= 0" is decided by `decide` on the
whole interval.  This is exact both ways: H = max over these sets of the sums
(each sum is <= H everywhere, and equals H on its piece and at its ends).  At
eps = ln r, or when nothing depends on eps, everything is a rational.

Real or integer outputs have no finite set of values: over densities this is not
built yet, so such claims with delta != 0 are refused (exit 2) rather than checked
on named events only.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.decision.decide import sign_at
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.decision.envelope import distinct_zeros, pieces_between
from dipc_plus.exact.log_point import constant_value, rational_at_log
from dipc_plus.privacy.output_tables import ZERO


@dataclass
class SetViolation:
    """A set S of outputs and an eps where P[u in S] > e^budget P[u' in S] + delta."""
    outputs: list            # output keys in S (the worst set S*(eps) at eps)
    eps: object              # Fraction, or ("ln", r)
    p: object                # P[P(u) in S]: ExpFrac, or Fraction at a point / constant
    q: object                # P[P(u') in S]


def output_keys(P: dict, Q: dict) -> list:
    """The outputs of either table, P's first (in its order), then Q's others."""
    return list(P) + [k for k in Q if k not in P]


def check_pair(P: dict, Q: dict, checker) -> SetViolation | None:
    """None when H <= delta on the claim's eps range for this ordered pair, else the worst set."""
    keys = output_keys(P, Q)
    eps = checker.claim.eps
    if eps.is_log_point:
        Pr, Qr = ({v: rational_at_log(T.get(v, ZERO), eps.log_of) for v in keys} for T in (P, Q))
        return _check_rational(Pr, Qr, checker.E_at, checker, ("ln", eps.log_of))
    pc, qc = ({v: constant_value(T.get(v, ZERO)) for v in keys} for T in (P, Q))
    if checker.claim.budget.k == 0 and None not in pc.values() and None not in qc.values():
        return _check_rational(pc, qc, checker.claim.budget.factor, checker)
    return _check_piecewise(P, Q, keys, checker)


def _check_rational(Pr: dict, Qr: dict, E: Fraction, checker, log_point=None) -> SetViolation | None:
    """Every probability is a rational (at eps = `log_point`, ln r, or because nothing depends on
    eps): H = sum over S of P_v - E Q_v, with S the set where P_v > E Q_v, is exact.  At ln r, H is
    compared with the rational delta there; else with delta(eps) on the whole interval by one
    decided sentence (counted when it fails)."""
    S = [v for v in Pr if Pr[v] > E * Qr[v]]
    H = sum((Pr[v] - E * Qr[v] for v in S), Fraction(0))
    if log_point is not None:
        if H <= checker.delta_at:
            return None
        eps = log_point
    else:
        if not S:
            return None
        found = checker.nonnegative(checker.delta - ExpFrac.of(H))
        if found.holds:
            return None
        checker.decisions += 1
        eps = found.witness
    return SetViolation(S, eps, sum((Pr[v] for v in S), Fraction(0)), sum((Qr[v] for v in S), Fraction(0)))


def _worst_sets(live: dict, I) -> list:
    """The distinct sets S*(eps) = {v : d_v(eps) > 0}, one per piece between the zeros of the d_v
    (signs certified at a rational sample of each piece), in order of the pieces."""
    points = distinct_zeros(list(live.values()), I)
    sets = (tuple(v for v, d in live.items() if sign_at(d, x) > 0) for _, _, x in pieces_between(points, I))
    return list(dict.fromkeys(S for S in sets if S))   # each nonempty set once, first piece first


def _check_piecewise(P: dict, Q: dict, keys: list, checker) -> SetViolation | None:
    """H over an eps interval: for every worst set, "delta - sum_{v in S} d_v >= 0" is decided on
    the whole interval; a failure gives the worst set at the witness eps."""
    I = checker.claim.eps.interval
    diffs = {v: ExpFrac.of(P.get(v, ZERO)) - checker.E * ExpFrac.of(Q.get(v, ZERO)) for v in keys}
    live = {v: d for v, d in diffs.items() if not d.is_zero()}
    for S in _worst_sets(live, I):
        checker.decisions += 1
        found = checker.nonnegative(checker.delta - sum((live[v] for v in S), ExpFrac.of(ZERO)))
        if not found.holds:
            eps = found.witness
            worst = [v for v, dv in live.items() if sign_at(dv, eps) > 0]
            p, q = (sum((ExpFrac.of(T.get(v, ZERO)) for v in worst), ExpFrac.of(ZERO)) for T in (P, Q))
            return SetViolation(worst, eps, p, q)
    return None
