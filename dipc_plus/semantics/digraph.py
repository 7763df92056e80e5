"""A directed graph on plain dicts with what a DTMC's users read of networkx.DiGraph.

Why: a grid check builds one chain per input, and networkx cost every process that built one
~0.15 s to import (each `--jobs` worker pays it again, at the same time as the others, so it
does not shrink with more workers: about a tenth of a two-worker Sparse m=7 check) and ~5% of
the check in its graph methods.  A chain only needs nodes and edges with attributes, and for
an acyclic chain (most of them) a topological order and the nodes reachable from one node.

`Digraph` keeps the names and behaviour of the networkx.DiGraph methods its users call
(``nodes``, ``succ``, ``pred``, ``edges``, ``has_edge``, ``out_degree``, ...), iterating in
insertion order as networkx does; `topological_order` is networkx's order; everything else
(cycles: condensation, strongly connected components) goes through `to_networkx()`, which
rebuilds the same graph, node, successor and predecessor orders included.
"""
from __future__ import annotations

__all__ = ["Digraph"]


class _EdgeView:
    """``graph.edges``: (u, v) pairs in networkx's order, ``edges[u, v]`` the attribute dict."""

    __slots__ = ("_succ",)

    def __init__(self, succ: dict):
        self._succ = succ

    def __iter__(self):
        for u, targets in self._succ.items():
            for v in targets:
                yield u, v

    def __getitem__(self, edge) -> dict:
        u, v = edge
        return self._succ[u][v]


class Digraph:
    """Nodes with attribute dicts, directed edges with attribute dicts (no multi-edges)."""

    __slots__ = ("nodes", "succ", "pred", "edges", "_edge_order")

    def __init__(self):
        self.nodes: dict = {}      # node -> its attribute dict
        self.succ: dict = {}       # u -> {v: the edge's attribute dict}
        self.pred: dict = {}       # v -> {u: the same dict}
        self.edges = _EdgeView(self.succ)
        self._edge_order: list = []   # (u, v) as added: to_networkx() gives networkx's orders

    def add_node(self, node, **attrs) -> None:
        if node in self.nodes:
            self.nodes[node].update(attrs)
            return
        self.nodes[node] = attrs
        self.succ[node] = {}
        self.pred[node] = {}

    def add_edge(self, u, v, **attrs) -> None:
        for node in (u, v):
            if node not in self.nodes:
                self.add_node(node)
        found = self.succ[u].get(v)
        if found is not None:
            found.update(attrs)
            return
        self.succ[u][v] = self.pred[v][u] = attrs
        self._edge_order.append((u, v))

    def has_edge(self, u, v) -> bool:
        return v in self.succ.get(u, ())

    def out_degree(self, node) -> int:
        return len(self.succ[node])

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def number_of_edges(self) -> int:
        return len(self._edge_order)

    def __iter__(self):
        return iter(self.nodes)

    def topological_order(self) -> list | None:
        """networkx.topological_sort's order (generation by generation of in-degree zero), or
        None when the graph has a cycle."""
        indegree = {v: len(sources) for v, sources in self.pred.items() if sources}
        generation = [v for v, sources in self.pred.items() if not sources]
        order: list = []
        while generation:
            order += generation
            following = []
            for u in generation:
                for v in self.succ[u]:
                    indegree[v] -= 1
                    if not indegree[v]:
                        following.append(v)
                        del indegree[v]
            generation = following
        return None if indegree else order

    def descendants(self, source) -> set:
        """The nodes reachable from `source` by at least one edge, `source` left out even on a
        cycle (networkx.descendants)."""
        seen: set = set()
        stack = [source]
        while stack:
            for v in self.succ[stack.pop()]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        seen.discard(source)
        return seen

    def to_networkx(self):
        """The same graph as a networkx.DiGraph (attribute dicts copied), with the node order and
        every node's successor and predecessor order of a DiGraph built by the same calls."""
        import networkx as nx
        graph = nx.DiGraph()
        graph.add_nodes_from(self.nodes.items())
        graph.add_edges_from((u, v, self.succ[u][v]) for u, v in self._edge_order)
        return graph
