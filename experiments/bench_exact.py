"""Benchmark of the exact engine (issue 3): P[output = det(u)] for every input of a grid.

    python experiments/bench_exact.py            # all four tables
    python experiments/bench_exact.py noisy_max  # one of them
    python experiments/bench_exact.py --jobs 2   # inputs spread over 2 worker processes
    python experiments/bench_exact.py --tracemalloc   # also trace Python allocations

Times are of the computation alone; memory is the peak resident set of the
process (resource.getrusage).  --tracemalloc adds the peak of traced Python
allocations per table, but tracing makes this allocation-heavy pure-Python
computation about 4x slower, so its times are not comparable.  With --jobs the
workers' allocations are not traced.

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

from dipc_plus.claims import noise_free  # noqa: E402
from dipc_plus.api import LoadedProgram  # noqa: E402
from dipc_plus.execution.executor import Executor, Source, chunks, run_tasks  # noqa: E402
from dipc_plus.semantics.distribution import bind, distribution_of_chain  # noqa: E402

# name, program, params, grid range, gamma, the paper's time for the row (s)
TABLES = [
    ("noisy_max", "noisy_max.dip", {"m": 3}, 3, 0, 2583),
    ("sparse", "sparse.dip", {"m": 4, "c": 4, "T": 0}, 1, 0, 195),
    ("sparse_variant", "sparse_variant.dip", {"m": 4, "c": 4, "T": 0}, 1, 0, 1467),
    ("numeric_sparse", "numeric_sparse.dip", {"m": 4, "c": 1, "T": 0}, 2, 1, 6065),
]


def _points(source, points):
    """One task: the function of the table (inherited by forked workers) at a range of points."""
    one = source.get()
    return [one(p) for p in points]


def run_table(name, file, params, bound, gamma, paper_seconds, jobs=1, trace=True):
    program = LoadedProgram.from_file(ROOT / "programs" / file, **params)
    m = params["m"]
    grid = list(itertools.product(range(-bound, bound + 1), repeat=m))

    def one(point):
        q = [Fraction(v) for v in point]
        det = noise_free.run(program.program, bind(program.program, {"q": q}))
        chain = program.dtmc(q=q)
        p = distribution_of_chain(chain).within(det, gamma)
        return float(p(1.0)), chain.graph.number_of_nodes()

    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    executor = Executor.local(jobs)
    source = Source(None, (), (), key=f"bench-{name}")
    source.seed(one)
    ranges = chunks(len(grid), 4 * executor.jobs)
    results = [r for part in run_tasks(_points, source, [grid[a:b] for a, b in ranges], executor=executor)
               for r in part]
    elapsed = time.perf_counter() - start
    states = sum(n for _, n in results)
    worst = min(((value, point) for (value, _), point in zip(results, grid)), key=lambda vp: vp[0])
    if trace:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        memory = f"peak traced memory {peak / 2**20:.1f} MiB" + (" (parent only)" if jobs != 1 else "")
    else:
        memory = "peak RSS so far " + f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    print(f"{name:15s} m={m} grid [-{bound},{bound}]^{m} ({len(grid)} inputs): "
          f"{elapsed:7.2f} s, {states} chain states in all, {memory}; "
          f"paper: {paper_seconds} s; lowest P[correct] at eps=1: {worst[0]:.4f} at q={list(worst[1])}",
          flush=True)
    return elapsed


def main(argv):
    args = argv[1:]
    jobs = 1
    if "--jobs" in args:
        at = args.index("--jobs")
        jobs = int(args[at + 1])
        del args[at:at + 2]
    trace = "--tracemalloc" in args
    wanted = {a for a in args if not a.startswith("--")}
    total = 0.0
    for row in TABLES:
        if not wanted or row[0] in wanted:
            total += run_table(*row, jobs=jobs, trace=trace)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"total {total:.2f} s; peak resident set {rss:.0f} MiB")


if __name__ == "__main__":
    main(sys.argv)
