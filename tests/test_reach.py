"""Exact reachability (dipc_plus.semantics.reach) on hand-made chains with cycles, and the
quotient-free factor formulation against the true transition probabilities.

Independent answers: closed forms of textbook chains (gambler's ruin, geometric
retries), Fraction linear algebra (sympy), and the sampler for a program with a
while loop.
"""
from __future__ import annotations

import random
from fractions import Fraction as F

import networkx as nx
import pytest
import sympy

import handmade as h
from wilson_inside import in_interval
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.semantics.reach import absorption, gaussian_solve
from dipc_plus.semantics.distribution import build_chain, distribution_of_chain, exit_weights

ONE = ExpFrac(1)
EPS = ExpPoly.eps()


def E(q) -> ExpFrac:
    return ExpFrac(ExpPoly.exp(q))


# --------------------------------------------------------------------------- linear algebra


def test_gaussian_solve_matches_sympy_on_random_rational_systems():
    rng = random.Random(7)
    for trial in range(20):
        n = rng.randint(1, 6)
        dense = [[F(rng.randint(-4, 4), rng.randint(1, 3)) if rng.random() < 0.6 else F(0) for _ in range(n)]
                 for _ in range(n)]
        for i in range(n):
            dense[i][i] += 10  # diagonally dominant: non-singular
        b = [F(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(n)]
        rows = {i: {j: ExpFrac(dense[i][j]) for j in range(n) if dense[i][j] != 0} for i in range(n)}
        x = gaussian_solve(rows, {i: ExpFrac(b[i]) for i in range(n)}, list(range(n)))
        expected = sympy.Matrix(dense).LUsolve(sympy.Matrix(b))
        for i in range(n):
            assert x[i] == ExpFrac(F(int(expected[i].p), int(expected[i].q)))


def test_gaussian_solve_with_eps_dependent_coefficients_satisfies_the_system():
    # a 3x3 system whose entries are exponential polynomials in eps
    a = [[ONE + E(-1), E(F(-1, 2)), ExpFrac(0)],
         [ExpFrac(F(1, 3)), ONE * 2, E(-2) * ExpFrac(EPS)],
         [E(F(1, 3)), ExpFrac(0), ONE + ExpFrac(EPS)]]
    b = [ONE, E(-1), ExpFrac(F(2, 7))]
    rows = {i: {j: a[i][j] for j in range(3) if not a[i][j].is_zero()} for i in range(3)}
    x = gaussian_solve(rows, dict(enumerate(b)), [0, 1, 2])
    for i in range(3):
        lhs = ExpFrac(0)
        for j in range(3):
            lhs = lhs + a[i][j] * x[j]
        assert lhs == b[i]


# --------------------------------------------------------------------------- chains with cycles


def _chain(edges, attr="prob"):
    g = nx.DiGraph()
    for u, v, p in edges:
        g.add_edge(u, v, **{attr: p})
    return g


def reach_probabilities(graph: nx.DiGraph, initial) -> dict:
    """The probability of ending in each absorbing node, from the true transition probabilities
    (edge attribute ``prob``): `absorption`'s weights at the nodes with no way out."""
    w = absorption(graph, initial, "prob")
    return {u: p for u, p in w.items() if graph.out_degree(u) == 0}


def test_gamblers_ruin_closed_form():
    # states 0..4, absorbing at 0 and 4, up with p = e^-eps/(1+e^-eps), down with 1-p
    p = E(-1) / (ONE + E(-1))
    qd = ONE - p
    edges = []
    for i in range(1, 4):
        edges.append((i, i + 1, p))
        edges.append((i, i - 1, qd))
    g = _chain(edges)
    reach = reach_probabilities(g, 2)
    # P[hit 4 from 2] = (1 - r^2) / (1 - r^4), r = q/p = e^eps
    r = E(1)
    expected = (ONE - r * r) / (ONE - r * r * r * r)
    assert reach[4] == expected
    assert reach[0] == ONE - expected
    assert set(reach) == {0, 4}


def test_self_loop_retry_is_geometric():
    # s0 --(1/3)--> s0 ; s0 --(2/3 * e^-eps)--> a ; s0 --(2/3 (1 - e^-eps))--> b
    stay = ExpFrac(F(1, 3))
    g = _chain([(0, 0, stay), (0, "a", ExpFrac(F(2, 3)) * E(-1)), (0, "b", ExpFrac(F(2, 3)) * (ONE - E(-1)))])
    reach = reach_probabilities(g, 0)
    assert reach["a"] == E(-1)
    assert reach["b"] == ONE - E(-1)
    w = absorption(g, 0, "prob")
    assert w[0] == ExpFrac(F(3, 2))  # expected visits of the retry state


def test_two_cycles_in_sequence_and_a_transient_tail():
    half = ExpFrac(F(1, 2))
    g = _chain([("s", "a", ONE), ("a", "b", half), ("a", "x", half), ("b", "a", E(-1)), ("b", "c", ONE - E(-1)),
                ("c", "d", half), ("d", "c", half), ("c", "y", half), ("d", "z", half)])
    reach = reach_probabilities(g, "s")
    total = sum(reach.values(), ExpFrac(0))
    assert total == ONE
    # closed forms: from a, P[x] = (1/2) / (1 - (1/2) e^-eps)
    px = half / (ONE - half * E(-1))
    assert reach["x"] == px
    # from c: P[y] = (1/2) / (1 - 1/4) = 2/3, P[z] = 1/3
    assert reach["y"] == (ONE - px) * ExpFrac(F(2, 3))
    assert reach["z"] == (ONE - px) * ExpFrac(F(1, 3))


# --------------------------------------------------------------------------- factors vs probabilities


@pytest.mark.parametrize("prog, inputs", [
    (h.noisy_max(3), {"q": [-1, 0, F(1, 2)]}),
    (h.sparse(3, 2), {"q": [1, -1, 1]}),
    (h.rr_retry(), {"x": True}),
    (h.loop_retest(), {"q": F(-1, 3)}),
    (h.dlap_clamp(), {"x": 1}),
])
def test_factor_solution_times_constraint_probability_is_the_reach_probability(prog, inputs):
    chain = build_chain(prog, inputs)
    true = reach_probabilities(_chain((u, v, chain.edge_probability(u, v)) for u, v in chain.graph.edges),
                               chain.initial)
    w = exit_weights(chain)
    for e in chain.exits:
        assert w[e] * chain.constraint_probability(e) == true[e]
    # every state's outgoing probabilities add up to 1 identically
    for u in chain.graph.nodes:
        if chain.graph.out_degree(u):
            assert sum((chain.edge_probability(u, v) for v in chain.graph.succ[u]), ExpFrac(0)) == ONE


def test_randomized_response_with_retries_has_one_round_distribution():
    for retry in (F(1, 2), F(9, 10), F(0)):
        for x in (True, False):
            dist = distribution_of_chain(build_chain(h.rr_retry(retry), {"x": x}))
            assert dist[x] == E(1) / (ONE + E(1))
            assert dist[not x] == ONE / (ONE + E(1))
            assert dist.sums_to_one()


def test_retest_loop_keeps_the_chain_finite_and_matches_the_laplace_cdf():
    # y = [n > 0] with n ~ Lap(eps, q): P[y] = 1 - e^(-eps q)/2 for q >= 0
    for q in (F(0), F(1, 2), F(2)):
        chain = build_chain(h.loop_retest(), {"q": q})
        assert chain.stats.states <= 5
        dist = distribution_of_chain(chain)
        assert dist[True] == ONE - E(-q) * ExpFrac(F(1, 2))
        assert any(chain.graph.has_edge(u, u) for u in chain.graph.nodes)  # the loop is a cycle


def test_sampler_agrees_on_the_retry_loop():
    from dipc_plus.semantics import sampler
    from dipc_plus.semantics.stats import wilson
    prog = h.rr_retry(F(2, 3))
    eps = F(7, 10)
    dist = distribution_of_chain(build_chain(prog, {"x": True}))
    result = sampler.simulate(prog, {"x": True}, eps, 200_000, seed=11)
    counts = result.distribution()
    n = result.n
    for value in (True, False):
        hits = sum(c for k, c in counts.items() if k == (value,))
        assert in_interval(wilson(hits, n, 0.999), dist[value].arb_value(eps))


def test_random_walk_program_matches_gamblers_ruin():
    """while 0 < x < 4 do up <- choose(eps, step()); x <- x +/- 1 end: an SCC of three states."""
    from dipc_plus.semantics import ir
    B, D = ir.BoolT(), ir.DomT((0, 1, 2, 3, 4))
    step = ir.DistDef("step", (), B, ((ir.Const(True), ir.ExpOf(ir.Unary("-", ir.Rate()))),
                                      (ir.Const(False), ir.Const(F(1)))), h.pos(1))
    x = ir.Var("x")
    body = [ir.Assign("x", ir.Const(2), h.pos(2)),
            ir.While(ir.Binary("and", ir.Binary("<", ir.Const(0), x), ir.Binary("<", x, ir.Const(4))), (
                ir.Sample("up", ir.Choose(F(1), "step", ()), h.pos(4)),
                ir.If(ir.Var("up"), (ir.Assign("x", ir.Binary("+", x, ir.Const(1)), h.pos(5)),),
                      (ir.Assign("x", ir.Binary("-", x, ir.Const(1)), h.pos(6)),), h.pos(5)),
            ), h.pos(3))]
    prog = h.program("walk", [], [("x", D)], {"x": D, "up": B}, body, distributions={"step": step})
    chain = build_chain(prog, {})
    dist = distribution_of_chain(chain)
    r = E(1)
    assert dist[4] == (ONE - r * r) / (ONE - r * r * r * r)
    assert dist[0] == ONE - dist[4]
    assert len(dist) == 2 and dist.sums_to_one()
    full = distribution_of_chain(build_chain(prog, {}, compress=False))
    assert full.marginal() == dist.marginal()
