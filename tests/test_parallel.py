"""map_inputs: same results, same order as a plain loop, with worker processes."""
from __future__ import annotations

import itertools
import os
import pickle
from fractions import Fraction as F

import pytest

from dipc_plus.claims import noise_free
from dipc_plus.api import LoadedProgram
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.execution.parallel import available_cores, map_inputs
from dipc_plus.semantics.distribution import bind, distribution_of_chain
from conftest import PROGRAMS



def test_order_and_closures():
    offset = 7
    xs = list(range(23))
    assert map_inputs(lambda x: (x, x * x + offset, os.getpid()), xs, jobs=1)[5][:2] == (5, 32)
    out = map_inputs(lambda x: (x, x * x + offset), xs, jobs=2)
    assert out == [(x, x * x + offset) for x in xs]
    assert map_inputs(lambda x: -x, xs, jobs=0) == [-x for x in xs]
    assert map_inputs(lambda x: x, [], jobs=2) == []


@pytest.mark.skipif(available_cores() < 2, reason="needs two cores to see two workers")
def test_two_workers_are_used():
    pids = {pid for pid in map_inputs(lambda x: os.getpid(), range(40), jobs=2)}
    assert os.getpid() not in pids
    assert 1 <= len(pids) <= 2


def test_worker_exception_reaches_the_caller():
    def f(x):
        if x == 3:
            raise ValueError("bad input 3")
        return x
    with pytest.raises(ValueError, match="bad input 3"):
        map_inputs(f, range(8), jobs=2)


def test_nested_calls_run_serially_in_workers():
    inner = map_inputs(lambda x: map_inputs(lambda y: x * y, range(3), jobs=2), range(4), jobs=2)
    assert inner == [[x * y for y in range(3)] for x in range(4)]


def test_exact_values_pickle():
    p = ExpFrac(ExpPoly.exp(F(-1, 3), F(2, 7)) + ExpPoly.eps(2), ExpPoly.exp(F(-1), 3) + 1)
    assert pickle.loads(pickle.dumps(p)) == p


def test_grid_of_exact_probabilities_matches_serial():
    """P[output = det(q)] over a small Sparse grid: identical closed forms either way."""
    prog = LoadedProgram.from_file(PROGRAMS / "sparse.dip", m=2, c=1, T=0)
    grid = [[F(v) for v in point] for point in itertools.product(range(-1, 2), repeat=2)]

    def correct(q):
        det = noise_free.run(prog.program, bind(prog.program, {"q": q}))
        return distribution_of_chain(prog.dtmc(q=q)).within(det, 0)

    serial = [correct(q) for q in grid]
    assert map_inputs(correct, grid, jobs=2) == serial
    assert all(isinstance(v, ExpFrac) for v in serial)
