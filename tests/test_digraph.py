"""`digraph.Digraph` (a chain's graph) answers as the networkx.DiGraph built by the same calls.

Chains replaced networkx.DiGraph by `Digraph` so that building one no longer imports networkx;
the absorption of an acyclic chain sums in `topological_order`, and a cyclic chain goes to
networkx through `to_networkx()`.  On random graphs, acyclic and not, with self-loops and
repeated edges: the same nodes, edges, attributes, degrees, successor and predecessor orders,
topological order (or the same verdict that there is none), descendants, and the same
absorption probabilities.
"""
from __future__ import annotations

import random
from fractions import Fraction as F

import networkx as nx
import pytest

from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.semantics.digraph import Digraph
from dipc_plus.semantics.reach import absorption


def _random_calls(seed: int, acyclic: bool) -> list:
    rng = random.Random(seed)
    n = rng.randint(1, 12)
    nodes = list(range(n))
    rng.shuffle(nodes)
    calls = [("node", u, {"tag": u * 10}) for u in nodes[: rng.randint(0, n)]]
    for _ in range(rng.randint(0, 3 * n)):
        u, v = rng.randrange(n), rng.randrange(n)
        if acyclic and u >= v:
            continue
        calls.append(("edge", u, v, {"factor": ExpFrac(F(rng.randint(1, 4), 8))}))
    return calls


def _build(cls, calls):
    g = cls()
    for call in calls:
        if call[0] == "node":
            g.add_node(call[1], **call[2])
        else:
            g.add_edge(call[1], call[2], **call[3])
    return g


@pytest.mark.parametrize("seed", range(200))
def test_a_digraph_answers_as_the_networkx_graph_built_by_the_same_calls(seed):
    calls = _random_calls(seed, acyclic=seed % 2 == 0)
    ours, theirs = _build(Digraph, calls), _build(nx.DiGraph, calls)
    for g in (ours, ours.to_networkx()):
        assert list(g.nodes) == list(theirs.nodes)
        assert list(g.edges) == list(theirs.edges)
        assert [(u, v, g.edges[u, v]) for u, v in g.edges] == list(theirs.edges(data=True))
        assert g.number_of_nodes() == theirs.number_of_nodes()
        assert g.number_of_edges() == theirs.number_of_edges()
        for u in theirs.nodes:
            assert g.nodes[u] == theirs.nodes[u]
            assert list(g.succ[u]) == list(theirs.succ[u])
            assert list(g.pred[u]) == list(theirs.pred[u])
            assert g.out_degree(u) == theirs.out_degree(u)
            for v in theirs.nodes:
                assert g.has_edge(u, v) == theirs.has_edge(u, v)
    try:
        expected = list(nx.topological_sort(theirs))
    except nx.NetworkXUnfeasible:
        expected = None
    assert ours.topological_order() == expected
    for u in theirs.nodes:
        assert ours.descendants(u) == nx.descendants(theirs, u)
    if theirs.number_of_nodes():
        start = next(iter(theirs.nodes))
        try:
            want = absorption(theirs, start)
        except ZeroDivisionError:   # a random cycle can make the system singular
            return
        got = absorption(ours, start)
        assert got == want and list(got) == list(want)
