"""Benchmark of the exact engine (issue 3): P[output = det(u)] for every input of a grid.

    python experiments/bench_exact.py            # all four tables
    python experiments/bench_exact.py noisy_max  # one of them

For each table it builds the parametric Markov chain at every input of the grid,
computes the exact closed form of P[P(u) = det(u)] (for NumericSparse: every flag
equal and every real output within gamma of det(u)), and prints wall time and
peak memory.  The paper's Mathematica-based tool needed 2583 s, 195 s, 1467 s and
6065 s for the whole checks of these rows (Tables 2b, 2a, 2a, 3a).  This is a
benchmark, not a test: nothing here asserts on time.
"""
from __future__ import annotations

import itertools
import resource
import sys
import time
import tracemalloc
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dipc_plus import noise_free  # noqa: E402
from dipc_plus.api import LoadedProgram  # noqa: E402
from dipc_plus.semantics import bind  # noqa: E402

# name, program, params, grid range, gamma, the paper's time for the row (s)
TABLES = [
    ("noisy_max", "noisy_max.dip", {"m": 3}, 3, 0, 2583),
    ("sparse", "sparse.dip", {"m": 4, "c": 4, "T": 0}, 1, 0, 195),
    ("sparse_variant", "sparse_variant.dip", {"m": 4, "c": 4, "T": 0}, 1, 0, 1467),
    ("numeric_sparse", "numeric_sparse.dip", {"m": 4, "c": 1, "T": 0}, 2, 1, 6065),
]


def run_table(name, file, params, bound, gamma, paper_seconds):
    program = LoadedProgram.from_file(ROOT / "programs" / file, **params)
    m = params["m"]
    grid = list(itertools.product(range(-bound, bound + 1), repeat=m))
    tracemalloc.start()
    start = time.perf_counter()
    states = 0
    worst = None
    for point in grid:
        q = [Fraction(v) for v in point]
        det = noise_free.run(program.program, bind(program.program, {"q": q}))
        chain = program.dtmc(q=q)
        states += chain.graph.number_of_nodes()
        from dipc_plus.semantics import distribution_of_chain
        p = distribution_of_chain(chain).within(det, gamma)
        value = float(p(1.0))
        if worst is None or value < worst[0]:
            worst = (value, point)
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{name:15s} m={m} grid [-{bound},{bound}]^{m} ({len(grid)} inputs): "
          f"{elapsed:7.2f} s, {states} chain states in all, peak traced memory {peak / 2**20:.1f} MiB; "
          f"paper: {paper_seconds} s; lowest P[correct] at eps=1: {worst[0]:.4f} at q={list(worst[1])}",
          flush=True)
    return elapsed


def main(argv):
    wanted = set(argv[1:])
    total = 0.0
    for row in TABLES:
        if not wanted or row[0] in wanted:
            total += run_table(*row)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"total {total:.2f} s; peak resident set {rss:.0f} MiB")


if __name__ == "__main__":
    main(sys.argv)
