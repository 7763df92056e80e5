"""Adjacency on mixed grid values: numbers by their distance, symbols and Booleans only when equal
(a Boolean is never near a number), for every per-position kind."""
from fractions import Fraction as F

import pytest

from dipc_plus.claims.adjacency import Adjacency
from dipc_plus.privacy.dp.support_pairs import neighbour_indices


@pytest.mark.parametrize("kind", ["one-position", "linf", "l1"])
def test_symbols_and_booleans_are_never_near_anything_else(kind):
    adj = Adjacency(kind, F(5))
    assert adj.adjacent({"a": 0, "h": "bot"}, {"a": 1, "h": "bot"})
    assert not adj.adjacent({"a": 0, "h": "bot"}, {"a": 0, "h": "top"})
    assert not adj.adjacent({"a": 1}, {"a": True})
    assert not adj.adjacent({"a": True}, {"a": False})
    assert not adj.coordinate_ok(1, True) and not adj.coordinate_ok("bot", 0)
    assert adj.coordinate_ok(True, True) and adj.coordinate_ok(0, F(9, 2))


def test_distance_bounds_per_kind():
    u, w = {"a": 0, "b": 0}, {"a": F(1, 2), "b": F(3, 4)}
    assert Adjacency("linf", F(3, 4)).adjacent(u, w)
    assert not Adjacency("l1", F(3, 4)).adjacent(u, w)
    assert Adjacency("l1", F(5, 4)).adjacent(u, w)
    assert not Adjacency("one-position", F(1)).adjacent(u, w)
    assert Adjacency("hamming").adjacent({"a": 1, "b": True}, {"a": 1, "b": False})


def test_neighbour_indices_skip_values_of_another_kind():
    assert neighbour_indices([0, 1, True, "s", 3], F(1)) == [[0, 1], [0, 1], [2], [3], [4]]


def test_each_relation_says_itself_in_words():
    said = {kind: Adjacency(kind, F(3, 2)).describe() for kind in ("hamming", "one-position", "linf", "l1")}
    assert said == {"hamming": "Hamming distance 1 (one input position changes)",
                    "one-position": "one input position changes by at most 3/2",
                    "linf": "L-inf distance at most 3/2", "l1": "L1 distance at most 3/2"}
    pairs = Adjacency("pairs")
    pairs.set_pairs([({"a": 0}, {"a": 1})])
    assert pairs.describe() == "1 explicit pair(s)"
