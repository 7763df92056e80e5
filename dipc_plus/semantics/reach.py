"""Exact reachability in a finite parametric DTMC, cycles included.

`absorption(graph, initial, attr)` returns, for every node u, the solution
w(u) of the linear system

    w = e_initial + w M        (M[u][v] = the edge attribute `attr`)

i.e. for an absorbing node the probability of ending there, for a transient
node the expected number of visits.  The strongly connected components are
handled one at a time in topological order of the condensation: a trivial
component just collects its inflow; a non-trivial one (a loop: randomized
response with retries, `while` over DOM variables) is solved by exact Gaussian
elimination over ExpFrac.

The DTMC builder passes the edge *factors* instead of the transition
probabilities: with D = diag(P[C_u]) the factor matrix is D M D^-1, so the
same system gives w(u) = reach(u) / P[C_u] without any quotient (see dtmc.py).
"""
from __future__ import annotations

from collections import defaultdict

from dipc_plus.execution.lazy import lazy_import

nx = lazy_import("networkx")

from dipc_plus.exact.expoly import FRAC_ONE as ONE, FRAC_ZERO as ZERO
from dipc_plus.exact.sparse import accumulate
from dipc_plus.semantics.digraph import Digraph


def absorption(graph, initial, attr: str = "factor") -> dict:
    """w(u) for every node reachable from `initial` (see the module docstring); `graph` a
    networkx.DiGraph or a chain's `digraph.Digraph` (networkx only for a cyclic one), holding
    `initial`."""
    if isinstance(graph, Digraph):
        order = graph.topological_order()
        if order is not None:
            return _propagate(graph, initial, attr, [(u,) for u in order], graph.descendants(initial))
        graph = graph.to_networkx()
    try:
        groups = [(u,) for u in nx.topological_sort(graph)]
    except nx.NetworkXUnfeasible:
        cond = nx.condensation(graph)
        groups = [tuple(sorted(cond.nodes[c]["members"])) for c in nx.topological_sort(cond)]
    return _propagate(graph, initial, attr, groups, nx.descendants(graph, initial))


def _propagate(graph, initial, attr: str, groups: list, reachable: set) -> dict:
    """Push the inflow from `initial` through the strongly connected `groups` in topological order
    (`reachable`: the descendants of `initial`): a node on no loop passes its inflow on, a loop is
    solved exactly (`solve_component`)."""
    reachable.add(initial)
    inflow: dict = {initial: ONE}
    result: dict = {}
    succ = graph.succ
    for members in groups:
        if members[0] not in reachable:
            continue
        if len(members) == 1 and members[0] not in succ[members[0]]:
            values = {members[0]: inflow.pop(members[0], ZERO)}
        else:
            values = solve_component(graph, list(members), inflow, attr)
        result.update(values)
        for u, w in values.items():
            if not w.is_zero():
                for v, data in succ[u].items():
                    if v not in members:
                        accumulate(inflow, v, w * data[attr])
    return result


def solve_component(graph: nx.DiGraph, members: list, inflow: dict, attr: str) -> dict:
    """Solve w_j - sum_i w_i M[i][j] = inflow_j over the nodes of one SCC."""
    inside = set(members)
    rows: dict = {}
    rhs: dict = {}
    for j in members:
        row: dict = {j: ONE}
        for i, data in graph.pred[j].items():
            if i in inside:
                row[i] = row.get(i, ZERO) - data[attr]
        rows[j] = {k: v for k, v in row.items() if not v.is_zero()}
        rhs[j] = inflow.pop(j, ZERO)
    return gaussian_solve(rows, rhs, members)


def gaussian_solve(rows: dict, rhs: dict, unknowns: list) -> dict:
    """Exact sparse Gaussian elimination: rows[r] = {unknown: coefficient}, rows[r] . x = rhs[r].

    The system must be non-singular (as rational functions of eps).  Pivots
    are chosen among the remaining rows with the fewest entries, to limit
    fill-in.
    """
    rows = {r: dict(row) for r, row in rows.items()}
    rhs = dict(rhs)
    remaining = set(rows)
    pivots: list = []  # (unknown, row)
    col_rows: dict = defaultdict(set)
    for r, row in rows.items():
        for k in row:
            col_rows[k].add(r)
    for k in unknowns:
        candidates = [r for r in col_rows[k] if r in remaining]
        if not candidates:
            raise ZeroDivisionError("singular system in reachability (a state with no way out?)")
        r = min(candidates, key=lambda x: (len(rows[x]), str(x)))
        remaining.discard(r)
        pivots.append((k, r))
        prow = rows[r]
        pval = prow[k]
        for other in list(col_rows[k]):
            if other == r or other not in remaining:
                continue
            orow = rows[other]
            coef = orow.get(k)
            if coef is None or coef.is_zero():
                continue
            ratio = coef / pval
            for kk, v in prow.items():   # orow -= ratio * prow, keeping col_rows the rows that hold each unknown
                new = ZERO if kk == k else orow.get(kk, ZERO) - ratio * v
                if new.is_zero():
                    orow.pop(kk, None)
                    col_rows[kk].discard(other)
                else:
                    orow[kk] = new
                    col_rows[kk].add(other)
            if not rhs[r].is_zero():
                rhs[other] = rhs[other] - ratio * rhs[r]
    x: dict = {}
    for k, r in reversed(pivots):
        row = rows[r]
        total = rhs[r]
        for kk, v in row.items():
            if kk != k:
                total = total - v * x[kk]
        x[k] = total / row[k]
    return x

