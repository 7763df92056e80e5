"""Upper envelopes of exact functions of eps, and the distinct points where they cross.

Why it exists: the tight privacy loss is the upper envelope of exact likelihood
ratios, the Bayes-optimal attack an envelope per output, and the hockey-stick
divergence changes form where a difference p - e^b q changes sign.  All three need
the zeros of many exact functions as one sorted list of distinct points.  A zero is
a `decide.RealRoot` of one irreducible factor; two zeros are the same point exactly
when they are zeros of the same factor (different irreducible factors share no zero
on eps > 0, see `decide`) and the same zero of it -- so each zero is matched against
one fresh isolation of its factor, and zeros of different factors are refined until
their enclosures are disjoint.  No zero is dropped and none is merged by guesswork.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.decision.decide import (Interval, analyse, boundary_text, compare_boundary, decide,  # noqa: F401
                                       pieces_between, sample_points, sign_at)
from dipc_plus.decision.roots import separate
from dipc_plus.exact.expoly import ExpFrac, ExpPoly


@dataclass
class Piece:
    """A piece (lo, hi) of the eps interval on which one closed form leads (the loss's ratio, the
    attack's success); ends are rationals or `RealRoot`s, hi None for infinity.

    >>> piece = Piece(Fraction(0), analyse(ExpFrac.of(ExpPoly.exp(1) - 2)).roots[0])
    >>> piece.where(), piece.contains(Fraction(1, 2)), piece.contains(Fraction(1))
    ('(0, ln(2))', True, False)
    """
    lo: object
    hi: object

    def where(self) -> str:
        return f"({boundary_text(self.lo)}, {boundary_text(self.hi)})"

    def contains(self, x: Fraction) -> bool:
        """lo <= x <= hi, decided exactly (ends shared by two pieces belong to both)."""
        return compare_boundary(x, self.lo) >= 0 and (self.hi is None or compare_boundary(x, self.hi) <= 0)


def _factor_key(factor: ExpPoly) -> ExpPoly:
    """The factor scaled so that its term of largest (exponent, degree) has coefficient 1."""
    c, _, _ = max(factor.monomials(), key=lambda m: (m[2], m[1]))
    return factor * ExpPoly.const(1 / Fraction(c))


def distinct_points(found: list, I: Interval) -> list:
    """The distinct points among zeros (`RealRoot`s in I), sorted, enclosures pairwise disjoint.

    ln 2 found twice (in e^eps - 2 and in (e^eps - 2)(eps - 1)) is one point:

    >>> from dipc_plus.decision.roots import zeros_in
    >>> found = zeros_in(ExpPoly.exp(1) - 2, 1, Interval()) + zeros_in((ExpPoly.exp(1) - 2) * (ExpPoly.eps() - 1), 1, Interval())
    >>> [str(p) for p in distinct_points(found, Interval())]
    ['ln(2)', '1']
    """
    # each factor once, in the order found, isolated afresh: a zero of it is one of these (they are all
    # its zeros in I), and zeros of different factors are different points
    keys = dict.fromkeys(_factor_key(r.factor) for r in found)
    return separate([z for key in keys for z in analyse(ExpFrac.of(key), I).roots])


def distinct_zeros(functions: list, I: Interval) -> list:
    """Every zero in I of every function (ExpPoly/ExpFrac, defined on I), each point once, sorted.

    >>> fs = [ExpPoly.exp(1) - 2, (ExpPoly.exp(1) - 2) * (ExpPoly.eps() - 1), 2 * ExpPoly.eps() - 1]
    >>> [str(p) for p in distinct_zeros(fs, Interval())]
    ['1/2', 'ln(2)', '1']
    """
    found: list = []
    for f in dict.fromkeys(map(ExpFrac.of, functions)):     # each function once, in order
        if not f.num.is_zero():
            found += analyse(f, I).roots
    return distinct_points(found, I)


def _argmax_at(funcs: list, x: Fraction) -> int:
    """Index of the largest function at the rational x.  Certified: each function is
    evaluated once as an arb ball, and two are compared by the exact sign of their
    difference only when their balls overlap (building that difference symbolically for
    every pair was most of the time of a loss with thousands of ratios)."""
    balls = [f.arb_value(x, 128) for f in funcs]
    best = 0
    for i in range(1, len(funcs)):
        if balls[i] > balls[best]:
            best = i
        elif balls[i] < balls[best]:
            continue
        elif sign_at(funcs[i] - funcs[best], x) > 0:
            best = i
    return best


def dominated_task(source, task) -> list:
    """One task: for each function of the hand, is it dominated on I by one of the sample maxima?

    Against the leader 1 on (0, inf): 1/2 is dominated, eps is not:

    >>> one, half, eps = (ExpFrac.of(x) for x in (ExpPoly.ONE, ExpPoly.const(Fraction(1, 2)), ExpPoly.eps()))
    >>> dominated_task(None, ((Interval(), [one]), [half, eps]))
    [True, False]
    """
    (I, leaders), funcs = task
    return [any(decide(g - f, ">=", I).holds for g in leaders) for f in funcs]


def envelope(cands: list, I: Interval, executor=None, source=None) -> list:
    """Upper envelope of exact functions on I: [(lo, hi, function, info)], maximal pieces.

    Members are pruned first: a function dominated on all of I by a kept one (decided
    exactly) is dropped; the kept set's pairwise crossings cut I into pieces, each with a
    certified maximum at a rational sample point.  The pruning against the maxima at the
    sample points - most of the decisions - runs on `executor` (execution.executor); the
    functions they leave are then checked in order against everything kept before them, as
    a single loop would, so the envelope does not depend on the executor.

    max(1, e^eps/2, 1/2) on (0, inf): 1 up to ln 2, then e^eps/2; 1/2 never leads.

    >>> cands = [(ExpPoly.ONE, "one"), (ExpPoly.exp(1, Fraction(1, 2)), "half e"), (ExpPoly.const(Fraction(1, 2)), "half")]
    >>> [(boundary_text(lo), boundary_text(hi), str(f), tag) for lo, hi, f, tag in envelope(cands, Interval())]
    [('0', 'ln(2)', '1', 'one'), ('ln(2)', 'inf', '1/2*e^eps', 'half e')]
    """
    from dipc_plus.execution.executor import SERIAL, Source, run_dealt
    funcs = [ExpFrac.of(r) for r, _ in cands]
    samples = sample_points(I, 8)
    keep: list[int] = []
    for x in samples:
        i = _argmax_at(funcs, x)
        if i not in keep:
            keep.append(i)
    leaders = [funcs[i] for i in keep]
    rest = [j for j in range(len(funcs)) if j not in keep]
    executor = executor or SERIAL
    source = source if source is not None else Source(None, (), (), key="envelope")
    # dealt in small hands, not cut into ranges: the functions whose decision isolates roots
    # come in runs, and a range holding one left the other worker idle
    by_leaders = run_dealt(dominated_task, source, [funcs[j] for j in rest], executor=executor,
                           context=(I, leaders))
    first_found = len(keep)
    for j, dominated in zip(rest, by_leaders):
        if dominated:
            continue
        if not any(decide(funcs[i] - funcs[j], ">=", I).holds for i in keep[first_found:]):
            keep.append(j)
    cuts = distinct_zeros([funcs[a] - funcs[b] for a, b in itertools.combinations(keep, 2)], I)
    pieces = []
    sub = [funcs[i] for i in keep]
    for left, right, x in pieces_between(cuts, I):
        i = keep[_argmax_at(sub, x)]
        if pieces and pieces[-1][2] == i:
            pieces[-1][1] = right
        else:
            pieces.append([left, right, i])
    return [(lo, hi, *cands[i]) for lo, hi, i in pieces]
