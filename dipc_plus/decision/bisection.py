"""One subdivision skeleton: a certified test examines each piece, and a piece it cannot settle is split.

Why: the strips of the two-variable decision (bounded eps-parts and dominant terms in
`decision.two_variable` and `decision.dominant_tail`, the series at eps -> 0 in
`decision.series_strip`), the isolation of the zeros of mixed factors (`decision.roots`) and the
Bernstein subdivision on a parameter box (`decision.param_decide`) each examine the pieces of a
domain and split the ones not yet decided; the depth-first loop lives here once, the test and the
split are the caller's.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

SETTLED, SPLIT = "settled", "split"      # what `examine` says of a piece, besides a value that ends the search


def subdivide(first, examine: Callable, split: Callable):
    """Depth first over the pieces made from `first`, the first part of a split first: `examine(piece)`
    is SETTLED (nothing left to do there), SPLIT (go on with the parts `split(piece)`), or any other
    value, which ends the search and is returned.  None when every piece settled.

    The first piece of [0, 8] that is narrower than 3 and holds 5:

    >>> subdivide((0, 8), lambda p: SPLIT if p[1] - p[0] >= 3 else p if p[0] <= 5 <= p[1] else SETTLED, halves)
    (4.0, 6.0)
    """
    todo = [first]
    while todo:
        piece = todo.pop()
        verdict = examine(piece)
        if verdict is SPLIT:
            todo += reversed(split(piece))
        elif verdict is not SETTLED:
            return verdict
    return None


def halves(piece: tuple) -> tuple:
    """The two halves of an interval (lo, hi).

    >>> halves((Fraction(0), Fraction(1)))
    ((Fraction(0, 1), Fraction(1, 2)), (Fraction(1, 2), Fraction(1, 1)))
    """
    lo, hi = piece
    mid = (lo + hi) / 2
    return (lo, mid), (mid, hi)


def holds_on_pieces(holds_on: Callable[[Fraction, Fraction], bool], a: Fraction, b: Fraction, max_pieces: int,
                    smallest: Fraction = Fraction(0)) -> bool:
    """Whether `holds_on(lo, hi)` passes on every piece of [a, b] made by halving; False when more
    than `max_pieces` pieces were tried or a failing piece is narrower than `smallest`.

    x^2 - 1/10 > 0 on [1/2, 2] at once; x - 1/3 >= 0 fails near 1/3 of [0, 1], below the width 1/64:

    >>> holds_on_pieces(lambda lo, hi: lo * lo > Fraction(1, 10), Fraction(1, 2), Fraction(2), 10)
    True
    >>> holds_on_pieces(lambda lo, hi: lo >= Fraction(1, 3), Fraction(0), Fraction(1), 100, Fraction(1, 64))
    False
    """
    tried = 0

    def examine(piece: tuple):
        nonlocal tried
        tried += 1
        if tried > max_pieces:
            return False
        if holds_on(*piece):
            return SETTLED
        return False if piece[1] - piece[0] < smallest else SPLIT

    return subdivide((a, b), examine, halves) is None
