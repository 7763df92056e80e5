"""The real-space dd of a program with a finite input and a real one: the LP of a region takes the
distance of the finite inputs as a lower bound on its L-inf distance (`lp_dd.linf_to_region`'s
`at_least`), so a region reached by changing only the finite input is at that distance, attained,
unless a nearer region of the real input wins."""
from fractions import Fraction as F

import pytest

from dipc_plus.claims import noise_free
from dipc_plus.claims.disagreement import RealSpace
from dipc_plus.claims.distances import LinfInput
from dipc_plus.frontend.load import parse_program

PROGRAM = """
type K = 0..3
input  k: K
input  q: real
output big: bool

r <- Lap(eps, q)
if k >= 2 then
    big <- true
else
    if r > 0 then
        big <- true
    else
        big <- false
    end
end
"""


def brute_dd(u):
    """min over k' of max(|k' - k|, the distance from q to where det differs): the definition."""
    det = u["k"] >= 2 or u["q"] > 0
    best = None
    for k in range(4):
        if k >= 2:     # det is true at every q
            q_gap, attained = (F(0), True) if not det else (None, None)
        elif det:      # det(u) true: q <= 0 disagrees (closed)
            q_gap, attained = max(u["q"], F(0)), True
        else:          # det(u) false: q > 0 disagrees (open)
            q_gap, attained = -u["q"], False
        if q_gap is None:
            continue
        k_gap = F(abs(k - u["k"]))
        value, attained = (k_gap, True) if k_gap > q_gap else (q_gap, attained)
        if best is None or value < best[0] or (value == best[0] and attained and not best[1]):
            best = (value, attained)
    return best


@pytest.mark.parametrize("k, q, value, attained", [
    (0, F(-5), F(2), True),          # k -> 2 at distance 2 (the LP's own distance is 0)
    (1, F(-1, 2), F(1, 2), False),   # q -> 0+ beats every change of k
    (1, F(-3), F(1), True),          # k -> 2 at distance 1
    (0, F(-1, 3), F(1, 3), False),
])
def test_the_finite_gap_bounds_the_region_distance(k, q, value, attained):
    program = parse_program(PROGRAM)
    space = RealSpace(program, LinfInput())
    u = {"k": k, "q": q}
    det_u = noise_free.run(program, u)
    found = space.lp_dd(u, det_u)
    assert (found.value, found.attained) == (value, attained) == brute_dd(u)
    assert (space.dd(u, det_u).value, space.dd(u, det_u).attained) == (value, attained)
    if attained:   # the witness disagrees (re-checked by the space) and is within dd of u
        assert found.output != det_u
        assert max(abs(F(found.witness[n]) - F(u[n])) for n in u) <= value
