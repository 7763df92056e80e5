"""Time per cell of the Laplace engine over symbolic inputs (issue 27), Sparse c = 1.

Per output of Sparse c = 1 (T = 0; threshold Lap(2/eps), queries Lap(4/eps)) with m
queries - the first k-1 queries below the noisy threshold and the k-th at or above it,
or all m below - the region's probability is computed as a piecewise closed form over
the box [-1, 1]^m (`piecewise.piecewise` over `laplace_engine.probability_on_cell`), with cold caches.  Beside it,
in the same run, the per-point path computes the same region at every point of the
grid {-1, -1/2, 0, 1/2, 1}^m.  CPU seconds (time.process_time), one process.

A second table measures whole programs as `dipc prob --symbolic PROGRAM --box q=[-1,1]`
computes them (`semantics.symbolic_distribution`: the program's paths, then every output's
cells): Sparse c = 1 m = 3, 4, 5 and NoisyMax m = 3, 4, CPU seconds with cold caches, beside
the per-point `dipc prob` (the chain; NoisyMax also its argmax integral) at every point of
{-1, 0, 1}^m, in the same run.

    PYTHONPATH=. python experiments/bench_cells.py [m ...]   # m = 3 4 5; writes cells_table.md
"""
from __future__ import annotations

import sys
import time
from fractions import Fraction as F
from itertools import product
from pathlib import Path

from dipc_plus.exact import constraints
from dipc_plus.exact import laplace_engine as le
from dipc_plus.exact.cells import box
from dipc_plus.exact.linear import LinForm, Noise, atom
from dipc_plus.exact.piecewise import piecewise

OUT = Path(__file__).with_name("cells_table.md")


def region(m: int, k: int) -> tuple:
    """Queries 1..k-1 below the threshold, query k at or above it (k = m + 1: all below).
    Noise 0 is the threshold's, noise i query i's; input id m + i is q_i."""
    atoms = []
    for i in range(1, min(k, m) + 1):
        lhs, rhs = LinForm.make({i: 1, m + i: 1}), LinForm.make({0: 1})
        atoms.append(atom(lhs, ">=" if i == k else "<", rhs))
    return tuple(atoms)


def noises(m: int) -> tuple:
    return (Noise("lap", F(1, 2)),) + (Noise("lap", F(1, 4)),) * m


def at_point(atoms: tuple, n: int, q) -> tuple:
    fixed = []
    for a in atoms:
        coeffs, const = {}, a.form.const
        for i, c in a.form.coeffs:
            if i < n:
                coeffs[i] = c
            else:
                const += c * q[i - n]
        fixed.append(atom(LinForm.make(coeffs, const), a.op, LinForm.constant(0)))
    return tuple(fixed)


def measure(m: int, k: int) -> dict:
    atoms, nz = region(m, k), noises(m)
    constraints.clear_probability_caches()
    t0 = time.process_time()
    pieces = piecewise(lambda cell: le.probability_on_cell(atoms, nz, cell), box(m))
    t_cells = time.process_time() - t0
    grid = list(product([F(-1), F(-1, 2), F(0), F(1, 2), F(1)], repeat=m))
    constraints.clear_probability_caches()
    t0 = time.process_time()
    for q in grid:
        le.probability(at_point(atoms, len(nz), q), nz)
    t_grid = time.process_time() - t0
    return {"m": m, "k": k, "cells": len(pieces), "time": t_cells,
            "per_cell": t_cells / len(pieces), "largest": max(len(pc.form) for pc in pieces),
            "grid_points": len(grid), "grid_time": t_grid}


PROGRAM_CASES = (("sparse", 3), ("sparse", 4), ("sparse", 5), ("noisy_max", 3), ("noisy_max", 4))


def measure_program(name: str, m: int) -> dict:
    """`prob --symbolic` on the box [-1, 1]^m beside the per-point distribution on {-1, 0, 1}^m."""
    from dipc_plus.frontend.load import load_program
    from dipc_plus.semantics.distribution import output_distribution
    from dipc_plus.semantics.symbolic_distribution import symbolic_distribution
    program = load_program(str(Path(__file__).resolve().parent.parent / "programs" / f"{name}.dip"), {"m": F(m)})
    le.clear_caches()
    constraints.clear_probability_caches()
    t0 = time.process_time()
    cells = symbolic_distribution(program, {"q": (-1, 1)}).cells()
    t_symbolic = time.process_time() - t0
    grid = list(product([F(-1), F(0), F(1)], repeat=m))
    le.clear_caches()
    constraints.clear_probability_caches()
    t0 = time.process_time()
    for q in grid:
        output_distribution(program, {"q": list(q)}, shortcuts=False)
    t_chain = time.process_time() - t0
    t_argmax = None
    if name == "noisy_max":
        t0 = time.process_time()
        for q in grid:
            output_distribution(program, {"q": list(q)})   # the argmax integral
        t_argmax = time.process_time() - t0
    return {"program": name, "m": m, "outputs": len(cells), "pairs": sum(len(v) for v in cells.values()),
            "largest": max(len(pc.form) for v in cells.values() for pc in v), "time": t_symbolic,
            "grid_points": len(grid), "chain_time": t_chain, "argmax_time": t_argmax}


def program_lines(rows: list) -> list:
    lines = [
        "",
        "## Whole programs: `dipc prob --symbolic PROGRAM --box q=[-1,1]`",
        "",
        "CPU seconds of `symbolic_distribution(...).cells()` (every output's cells, cold caches);",
        "`pairs`: (output, cell) pairs over all outputs; `terms`: the largest closed form.  Beside",
        "it, in the same run, the per-point `dipc prob` at each point of {-1, 0, 1}^m (the chain;",
        "for NoisyMax also the argmax integral, which `dipc prob` takes by default).",
        "",
        "| program | m | outputs | pairs | terms | symbolic, whole box (s) | per point: points | chain (s) | argmax (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        argmax = "" if r["argmax_time"] is None else f"{r['argmax_time']:.2f}"
        lines.append(f"| {r['program']} | {r['m']} | {r['outputs']} | {r['pairs']} | {r['largest']} | "
                     f"{r['time']:.2f} | {r['grid_points']} | {r['chain_time']:.2f} | {argmax} |")
    return lines


def main(ms=(3, 4, 5)) -> None:
    rows = []
    for m in ms:
        for k in range(1, m + 2):
            r = measure(m, k)
            rows.append(r)
            print(r, flush=True)
    program_rows = []
    for name, m in PROGRAM_CASES:
        r = measure_program(name, m)
        program_rows.append(r)
        print(r, flush=True)
    lines = [
        "# Symbolic inputs: time per cell (Sparse c = 1, T = 0, box [-1, 1]^m)",
        "",
        "Written by `experiments/bench_cells.py`; CPU seconds in one process, cold caches,",
        "on the shared 2-core machine.  Output k: queries 1..k-1 below the noisy threshold and",
        "query k at or above it (k = m+1: all below).  `cells`: pieces of the box (open cells",
        "with their faces); `terms`: the largest closed form.  Per point: the same region by",
        "today's per-point path at every point of {-1, -1/2, 0, 1/2, 1}^m.",
        "",
        "| m | output k | cells | all cells (s) | ms/cell | terms | per point: points | per point (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['m']} | {r['k'] if r['k'] <= r['m'] else 'none'} | {r['cells']} | "
                     f"{r['time']:.2f} | {1000 * r['per_cell']:.1f} | {r['largest']} | "
                     f"{r['grid_points']} | {r['grid_time']:.2f} |")
    lines += program_lines(program_rows)
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or (3, 4, 5))
