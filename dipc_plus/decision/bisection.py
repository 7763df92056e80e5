"""Proving a property on a whole interval by halving it until a certified test passes on each piece.

Why: the strips of the two-variable decision (bounded eps-parts and dominant terms in
`decision.two_variable` and `decision.dominant_tail`, the series at eps -> 0 in
`decision.series_strip`) each enclose a function on pieces of an interval and split the pieces
where the enclosure does not yet decide; the splitting and its budget live here once.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable


def holds_on_pieces(holds_on: Callable[[Fraction, Fraction], bool], a: Fraction, b: Fraction, max_pieces: int,
                    smallest: Fraction = Fraction(0)) -> bool:
    """Whether `holds_on(lo, hi)` passes on every piece of [a, b] made by halving (depth first); False
    when more than `max_pieces` pieces were tried or a failing piece is narrower than `smallest`.

    x^2 - 1/10 > 0 on [1/2, 2] at once; x - 1/3 >= 0 fails near 1/3 of [0, 1], below the width 1/64:

    >>> holds_on_pieces(lambda lo, hi: lo * lo > Fraction(1, 10), Fraction(1, 2), Fraction(2), 10)
    True
    >>> holds_on_pieces(lambda lo, hi: lo >= Fraction(1, 3), Fraction(0), Fraction(1), 100, Fraction(1, 64))
    False
    """
    todo, count = [(a, b)], 0
    while todo:
        count += 1
        if count > max_pieces:
            return False
        lo, hi = todo.pop()
        if not holds_on(lo, hi):
            if hi - lo < smallest:
                return False
            mid = (lo + hi) / 2
            todo += [(lo, mid), (mid, hi)]
    return True
