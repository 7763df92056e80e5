"""The one walk of the pieces between sorted points (`decide.pieces_between`): the sign regions of
`analyse` and the envelopes' pieces come from it, so a zero exactly at a closed end of the interval
is one point for both (the envelope's walk used to stop there with a CertificationError)."""
from fractions import Fraction as F

from dipc_plus.decision.certified import Interval
from dipc_plus.decision.decide import analyse, boundary_text, pieces_between
from dipc_plus.decision.envelope import distinct_zeros
from dipc_plus.exact.expoly import ExpPoly


def test_zero_at_the_closed_lower_end_is_one_point_of_the_walk():
    I = Interval(F(1), F(2), True, True)
    cuts = distinct_zeros([ExpPoly.eps() - 1, ExpPoly.eps(2) - F(9, 4)], I)      # zeros 1 and 3/2
    walk = [(boundary_text(a), boundary_text(b), x) for a, b, x in pieces_between(cuts, I)]
    assert walk == [("1", "3/2", F(4, 3)), ("3/2", "2", F(5, 3))]


def test_sign_regions_with_zeros_at_both_closed_ends():
    regions = analyse((ExpPoly.eps() - 1) * (ExpPoly.eps() - 2), "[1, 2]").regions
    assert [str(r) for r in regions] == ["f = 0 at eps = 1", "f < 0 on (1, 2)", "f = 0 at eps = 2"]


def test_sign_regions_keep_the_closedness_of_the_ends():
    regions = analyse(ExpPoly.eps() - F(3, 2), "[1, 2)").regions
    assert [str(r) for r in regions] == ["f < 0 on [1, 3/2)", "f = 0 at eps = 3/2", "f > 0 on (3/2, 2)"]
