"""box_dd.pick: for every small interval (open or closed ends, bounded or not), every u and every
value the interval attains from u, the point picked lies in the interval within `value` of u."""
import itertools
from fractions import Fraction as F

from dipc_plus.claims.box_dd import Box, pick

XS = [F(x, 2) for x in range(-4, 5)]


def _ends():
    yield from [None] + [(x, closed) for x in XS[2:7] for closed in (True, False)]


def test_pick_lands_in_the_interval_within_value():
    checked = 0
    for lo, hi in itertools.product(_ends(), _ends()):
        box = Box()
        if lo is not None:
            box.add_bound("q", lo[0], ">=" if lo[1] else ">")
        if hi is not None:
            box.add_bound("q", hi[0], "<=" if hi[1] else "<")
        if box.is_empty(["q"]):
            continue
        for u in XS:
            # the distance to the closure, and whether it is attained (the nearest end closed, or u inside)
            d, attained = F(0), box.admits("q", u)
            if lo is not None and u <= lo[0]:
                d, attained = lo[0] - u, lo[1] or (hi is not None and u == lo[0] == hi[0])
            elif hi is not None and u >= hi[0]:
                d, attained = u - hi[0], hi[1]
            if box.admits("q", u):
                d, attained = F(0), True
            for value in (d, d + F(1, 4), d + 3):
                if value == d and not attained:
                    continue
                p = pick(u, lo, hi, value)
                assert box.admits("q", p) and abs(p - u) <= value, (lo, hi, u, value, p)
                checked += 1
    assert checked > 1000
