"""The one subdivision skeleton (`decision.bisection.subdivide`) and the one tail rule its users share.

Why: holds_on_pieces, the isolation of mixed zeros and the Bernstein subdivision now run through
`subdivide`; the error text of a budget that runs out names the piece being examined, so the order
of the pieces (depth first, first half first) is part of the behaviour and is checked here.
"""
from fractions import Fraction as F

import mpmath
import pytest

from dipc_plus.decision.bisection import SETTLED, SPLIT, halves, holds_on_pieces, subdivide
from dipc_plus.decision.dominant_tail import sup_on_tail


def test_pieces_are_examined_depth_first_first_half_first():
    seen = []

    def examine(piece):
        seen.append(piece)
        return SPLIT if piece[1] - piece[0] > F(1, 4) else SETTLED

    assert subdivide((F(0), F(1)), examine, halves) is None
    assert [lo for lo, _ in seen] == [0, 0, 0, F(1, 4), F(1, 2), F(1, 2), F(3, 4)]


def test_a_value_ends_the_search_and_is_returned():
    seen = []

    def examine(piece):
        seen.append(piece)
        if piece[0] <= F(3, 10) <= piece[1] and piece[1] - piece[0] <= F(1, 8):
            return ("found", piece)
        return SPLIT if piece[1] - piece[0] > F(1, 8) else SETTLED

    assert subdivide((F(0), F(1)), examine, halves) == ("found", (F(1, 4), F(3, 8)))
    assert seen[-1] == (F(1, 4), F(3, 8)) and all(lo < F(1, 2) for lo, _ in seen[1:])


def test_holds_on_pieces_budget_and_width():
    assert holds_on_pieces(lambda lo, hi: hi - lo <= F(1, 8), F(0), F(1), 15)       # 1 + 2 + 4 + 8 pieces
    assert not holds_on_pieces(lambda lo, hi: hi - lo <= F(1, 8), F(0), F(1), 14)
    assert not holds_on_pieces(lambda lo, hi: lo > 0, F(0), F(1), 10 ** 6, F(1, 2 ** 10))


@pytest.mark.parametrize("k,A,E", [(1, F(-1), F(1, 2)), (3, F(-2), F(8)), (0, F(-1, 3), F(1)), (-2, F(0), F(3)),
                                   (-1, F(-1), F(2))])
def test_tail_sup_bounds_the_largest_value(k, A, E):
    top = sup_on_tail(k, A, E)
    xs = [E + F(i, 7) * E for i in range(200)] + ([F(k) / -A] if A < 0 and k > 0 and F(k) / -A >= E else [])
    with mpmath.workdps(50):
        q = lambda x: mpmath.mpf(x.numerator) / x.denominator       # noqa: E731
        largest = max(q(x) ** k * mpmath.exp(q(A) * q(x)) for x in xs)
        assert largest <= q(top) <= largest * (1 + mpmath.mpf(10) ** -30)


@pytest.mark.parametrize("k,A", [(1, F(0)), (0, F(1, 2)), (-3, F(1))])
def test_tail_sup_refuses_a_part_that_does_not_decay(k, A):
    assert sup_on_tail(k, A, F(8)) is None
