"""The report classes of an argmax grid are the orbits of its inputs under permuting them.

Why: `dipc accuracy --summary` on NoisyMax's grid {-1,0,1}^14 (4.8 million inputs) spent about
60 us of Python per input although the exact work is a few dozen orbits.  When the program is an
argmax (argmin) of iid continuous noisy reads of its inputs (`classes.InputClasses.argmax`: every
sample plainly reads its own input, one noise kind and rate), permuting the inputs permutes the
output distribution the same way (ties have probability 0).  det(u) is the first index of the
largest value and dd(u) a function of the two largest values (`claims.argmax_dd`), so the
permuted det follows the permuted largest value and dd is the same; a zero-one ball is {det} or
everything, a noisy-max ball (scores = the argmax's inputs) the indices whose value is within
gamma of det's: both are permuted with the input.  So P[error], the obligations, the decisions,
the counterexample's eps and the margin (all functions of dd and P[error]) are one per multiset
of values; only the input itself differs.  A class is a multiset (counts per grid value), its size
the multinomial coefficient, its first input in grid order the values in grid order, and its next
inputs the following multiset permutations.  `accuracy.grid_classes.counted_summary` is the one
place that decides to use this; tests/test_argmax_orbit_classes.py compares it with per input.
"""
from __future__ import annotations

import collections
import itertools
import math

from dipc_plus.claims.distances import NoisyMaxOutput, ZeroOneOutput

MAX_ORBITS = 1 << 16   # multisets of a grid's values counted before the per-input path is used


def orbit_classes_apply(checker, ranges: dict) -> bool:
    """Whether the permutation argument of the docstring holds for this checker's claim on a grid
    with these ranges (name -> values, in grid order)."""
    classes, claim = checker.classes, checker.claim
    regions = classes.argmax
    if not classes.share_argmax_dd or regions is None or classes.shape is None:
        return False
    if len({(kind, rate) for kind, rate, _ in classes.shape.samples}) != 1:   # not iid
        return False
    distance = claim.output_distance
    if type(distance) is NoisyMaxOutput:
        if tuple(distance.scores) != tuple(regions.means) or distance.index != classes.shape.output:
            return False
    elif type(distance) is not ZeroOneOutput:
        return False
    names = list(ranges)
    if sorted(names) != sorted(regions.means):
        return False
    values = ranges[names[0]]
    if len(set(values)) != len(values) or any(list(ranges[name]) != list(values) for name in names):
        return False
    return math.comb(len(names) + len(values) - 1, len(values) - 1) <= MAX_ORBITS


def orbit_classes(ranges: dict):
    """(first input in grid order, size, first_inputs) per multiset of the grid's values, where
    `first_inputs(n)` lists the class's first n inputs in grid order."""
    names = list(ranges)
    values = list(ranges[names[0]])
    for digits in itertools.combinations_with_replacement(range(len(values)), len(names)):   # nondecreasing
        size = math.factorial(len(names)) // math.prod(map(math.factorial, collections.Counter(digits).values()))
        first = dict(zip(names, (values[k] for k in digits)))   # the first of its class in grid order

        def first_inputs(n: int, digits=digits) -> list:
            return [dict(zip(names, (values[k] for k in p))) for p in multiset_permutations(list(digits), n)]

        yield first, size, first_inputs


def multiset_permutations(digits: list, n: int):
    """The first n distinct permutations of `digits` (sorted) in lexicographic order."""
    for _ in range(n):
        yield tuple(digits)
        i = len(digits) - 2
        while i >= 0 and digits[i] >= digits[i + 1]:
            i -= 1
        if i < 0:
            return
        j = len(digits) - 1
        while digits[j] <= digits[i]:
            j -= 1
        digits[i], digits[j] = digits[j], digits[i]
        digits[i + 1:] = reversed(digits[i + 1:])
