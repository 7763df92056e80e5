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

from dipc_plus.decision.decide import CertificationError, decide, sign_at
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
    keys = list(P)
    keys += [k for k in Q if k not in P]
    return keys


def hockey_stick_rational(P: dict, Q: dict, E: Fraction) -> tuple[Fraction, list]:
    """(sum_v max(0, P_v - E Q_v), the set where P_v > E Q_v) for rational tables."""
    S = [v for v in output_keys(P, Q) if P.get(v, Fraction(0)) > E * Q.get(v, Fraction(0))]
    return sum((P.get(v, Fraction(0)) - E * Q.get(v, Fraction(0)) for v in S), Fraction(0)), S


def check_pair(P: dict, Q: dict, checker) -> SetViolation | None:
    """None when H <= delta on the claim's eps range for this ordered pair, else the worst set."""
    keys = output_keys(P, Q)
    if checker.claim.eps.is_log_point:
        return _check_at_log_point(P, Q, keys, checker)
    pc, qc = _constant_tables(P, Q, keys)
    if checker.claim.budget.k == 0 and pc is not None:
        return _check_constant(pc, qc, checker)
    return _check_piecewise(P, Q, keys, checker)


def _check_at_log_point(P: dict, Q: dict, keys: list, checker) -> SetViolation | None:
    """At eps = ln r every probability is a rational: H and the worst set are computed exactly."""
    r = checker.claim.eps.log_of
    Pr = {v: rational_at_log(P.get(v, ZERO), r) for v in keys}
    Qr = {v: rational_at_log(Q.get(v, ZERO), r) for v in keys}
    H, S = hockey_stick_rational(Pr, Qr, checker.E_at)
    if H <= checker.delta_at:
        return None
    return SetViolation(S, ("ln", r), sum((Pr[v] for v in S), Fraction(0)),
                        sum((Qr[v] for v in S), Fraction(0)))


def _constant_tables(P: dict, Q: dict, keys: list) -> tuple[dict | None, dict | None]:
    """The two tables as rationals when no probability depends on eps, else (None, None)."""
    pc = {v: constant_value(P.get(v, ZERO)) for v in keys}
    qc = {v: constant_value(Q.get(v, ZERO)) for v in keys}
    if all(x is not None for x in pc.values()) and all(x is not None for x in qc.values()):
        return pc, qc
    return None, None


def _check_constant(pc: dict, qc: dict, checker) -> SetViolation | None:
    """Nothing depends on eps but (perhaps) delta: H is one rational, compared with delta(eps)
    on the whole interval by one decided sentence."""
    H, S = hockey_stick_rational(pc, qc, checker.claim.budget.factor)
    if not S:
        return None
    d = decide(checker.delta - ExpFrac.of(H), ">=", checker.claim.eps.interval)
    if d.holds:
        return None
    checker.decisions += 1
    if d.witness is None:
        raise CertificationError("a failed '>=' sentence without a rational witness")
    return SetViolation(S, d.witness, sum((pc[v] for v in S), Fraction(0)),
                        sum((qc[v] for v in S), Fraction(0)))


def _worst_sets(live: dict, I) -> list:
    """The distinct sets S*(eps) = {v : d_v(eps) > 0}, one per piece between the zeros of the d_v
    (signs certified at a rational sample of each piece), in order of the pieces."""
    points = distinct_zeros(list(live.values()), I)
    sets: list = []
    for _, _, x in pieces_between(points, I):
        S = tuple(v for v, d in live.items() if sign_at(d, x) > 0)
        if S and S not in sets:
            sets.append(S)
    return sets


def _check_piecewise(P: dict, Q: dict, keys: list, checker) -> SetViolation | None:
    """H over an eps interval: for every worst set, "delta - sum_{v in S} d_v >= 0" is decided on
    the whole interval; a failure gives the worst set at the witness eps."""
    I = checker.claim.eps.interval
    diffs = {v: ExpFrac.of(P.get(v, ZERO)) - checker.E * ExpFrac.of(Q.get(v, ZERO)) for v in keys}
    live = {v: d for v, d in diffs.items() if not d.is_zero()}
    for S in _worst_sets(live, I):
        total = ExpFrac.of(ZERO)
        for v in S:
            total = total + live[v]
        checker.decisions += 1
        d = decide(checker.delta - total, ">=", I)
        if not d.holds:
            eps = d.witness
            if eps is None:
                raise CertificationError("a failed '>=' sentence without a rational witness")
            worst = [v for v, dv in live.items() if sign_at(dv, eps) > 0]
            p = sum((ExpFrac.of(P.get(v, ZERO)) for v in worst), ExpFrac.of(ZERO))
            q = sum((ExpFrac.of(Q.get(v, ZERO)) for v in worst), ExpFrac.of(ZERO))
            return SetViolation(worst, eps, p, q)
    return None
