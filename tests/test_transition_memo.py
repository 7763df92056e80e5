"""The successor memo (semantics.transitions) builds the very chains a build without it builds.

Every program of programs/ at its default parameters, on a small grid of inputs visited in
order (as a grid check visits them, so later chains replay what earlier ones expanded): each
chain must have the same states with the same components, the same edges and factors, the
same noises and the same statistics as the chain built with no memo at all.
"""
from __future__ import annotations

from fractions import Fraction as F
from itertools import islice, product

import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import load_program
from dipc_plus.semantics import dtmc, ir, transitions
from dipc_plus.semantics.evaluate import domain_values
from conftest import PROGRAMS

GRID = 27             # inputs per program
MAX_STATES = 20_000   # programs whose chains are bigger are compared up to the limit's error


def grid(program: ir.Program) -> list[dict]:
    values = [domain_values(t) if isinstance(t, (ir.BoolT, ir.DomT)) else (-1, 0, 1)
              for _, t in program.inputs]
    names = [n for n, _ in program.inputs]
    return [dict(zip(names, (F(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in point)))
            for point in islice(product(*values), GRID)]


def signature(build) -> object:
    """Everything a chain is, or the error building it gave."""
    try:
        chain = build()
    except UserError as exc:
        return ("error", str(exc))
    g = chain.graph
    nodes = [(n, g.nodes[n]["state"], g.nodes[n]["components"]) for n in sorted(g.nodes)]
    edges = sorted((u, v, g.edges[u, v]["factor"]) for u, v in g.edges)
    stats = {k: v for k, v in vars(chain.stats).items() if k != "seconds"}
    return chain.initial, chain.exits, nodes, edges, list(chain.noises.items()), stats


@pytest.mark.parametrize("path", sorted(PROGRAMS.glob("*.dip")), ids=lambda p: p.stem)
def test_chains_built_with_the_memo_are_the_chains_built_without(path, monkeypatch):
    program = load_program(path)
    points = grid(program)
    transitions.forget_transitions()
    with_memo = [signature(lambda: dtmc.DTMC(program, u, max_states=MAX_STATES)) for u in points]
    monkeypatch.setattr(dtmc, "memo_for", lambda program, code: None)
    without = [signature(lambda: dtmc.DTMC(program, u, max_states=MAX_STATES)) for u in points]
    assert with_memo == without


def test_the_memo_keeps_at_most_its_limit(monkeypatch):
    memo = transitions.TransitionMemo(limit=3)
    for k in range(5):
        memo.add(("state", k), [("q", F(k))], f"expansion {k}")
    assert memo.size == 3
    assert memo.find(("state", 0), lambda name: F(0)) is None          # the oldest went first
    assert memo.find(("state", 4), lambda name: F(4)) == "expansion 4"
    assert memo.find(("state", 4), lambda name: F(3)) is None          # another value read: not this one
    memo.add(("state", 4), [("q", F(3))], "expansion 4'")              # a second value under one state
    assert memo.find(("state", 4), lambda name: F(3)) == "expansion 4'"
    assert memo.find(("state", 4), lambda name: F(4)) == "expansion 4"


def test_a_grid_of_sparse_replays_expansions(monkeypatch):
    """Sparse's chains share their states' successors along common prefixes of the input."""
    program = load_program(PROGRAMS / "sparse.dip", {"m": F(4)})
    replayed = []
    replay = dtmc.DTMC._replay
    monkeypatch.setattr(dtmc.DTMC, "_replay", lambda self, found: replayed.append(1) or replay(self, found))
    transitions.forget_transitions()
    names = [n for n, _ in program.inputs]
    for point in product((-1, 0, 1), repeat=len(names)):
        dtmc.DTMC(program, dict(zip(names, map(F, point))))
    memo = transitions.memo_for(program, dtmc.compiled(program.body, program.output_names())[0])
    assert len(replayed) > memo.size / 2   # 126 replays for 198 expansions
