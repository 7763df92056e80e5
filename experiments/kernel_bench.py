"""Before/after timings of the exact pipeline (issue: a faster exact kernel), written to kernel_table.md.

    python experiments/kernel_bench.py --before /tmp/kbase [--repeat 2]

Each workload runs in a fresh process (cold caches, one core) against the code
under a given checkout: `--before` (e.g. a `git worktree add` of the base
commit) and this checkout.  Only the computation is timed (imports and claim
loading are not), best of `--repeat`.  Seconds only; this is a benchmark, not a
test, and nothing asserts on time.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SETUP = "import sys, time; sys.path.insert(0, '.')\n"
WORKLOADS = {
    "Sparse c=1, m=6 grid (729 inputs), accuracy": """
from dipc_plus.accuracy.check import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
checker = AccuracyChecker(load_claim("theories/sparse.toml", {"m": 6, "c": 1}))
t = time.perf_counter(); checker.run(); print(time.perf_counter() - t)
""",
    "Sparse c=1, m=7 grid (2187 inputs), accuracy": """
from dipc_plus.accuracy.check import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
checker = AccuracyChecker(load_claim("theories/sparse.toml", {"m": 7, "c": 1}))
t = time.perf_counter(); checker.run(); print(time.perf_counter() - t)
""",
    "NoisyMax m=3 grid [-3,3]^3 of bench_exact (343 inputs)": """
import itertools
from fractions import Fraction
from dipc_plus.api import LoadedProgram
from dipc_plus.claims import noise_free
from dipc_plus.semantics.distribution import bind, distribution_of_chain
program = LoadedProgram.from_file("programs/noisy_max.dip", m=3)
t = time.perf_counter()
for point in itertools.product(range(-3, 4), repeat=3):
    q = [Fraction(v) for v in point]
    det = noise_free.run(program.program, bind(program.program, {"q": q}))
    distribution_of_chain(program.dtmc(q=q)).within(det, 0)
print(time.perf_counter() - t)
""",
    "SVT (Lyu alg. 1) privacy, m=3 grid (27 inputs)": """
import contextlib, io
from dipc_plus.cli import main
t = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(["privacy", "theories/svt_lyu_alg1_privacy.toml", "--jobs", "1"])
    except SystemExit:
        pass
print(time.perf_counter() - t)
""",
}


def time_one(root: Path, code: str, repeat: int) -> float:
    best = None
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", SETUP + code], cwd=root, capture_output=True, text=True,
                             env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, check=True)
        seconds = float(out.stdout.strip().splitlines()[-1])
        best = seconds if best is None else min(best, seconds)
    return best


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="checkout of the base commit")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    before = Path(args.before).resolve()
    base = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=before, capture_output=True,
                          text=True).stdout.strip()
    rows = []
    for name, code in WORKLOADS.items():
        b = time_one(before, code, args.repeat)
        a = time_one(ROOT, code, args.repeat)
        rows.append(f"| {name} | {b:.2f} | {a:.2f} | {b / a:.2f}x |")
        print(rows[-1], flush=True)
    table = ("# Exact kernel: before and after\n\n"
             f"Written by `python experiments/kernel_bench.py --before <checkout of {base}>`: seconds of "
             f"computation (imports and claim loading excluded), one process, cold caches, best of "
             f"{args.repeat}; before = {base}, after = this branch.\n\n"
             "| workload | before (s) | after (s) | speed-up |\n|---|---|---|---|\n" + "\n".join(rows) + "\n")
    out = ROOT / "experiments" / "kernel_table.md"
    old = out.read_text() if out.exists() else ""
    marker = "\n## Profile"
    keep = old[old.index(marker):] if marker in old else ""
    out.write_text(table + keep)


if __name__ == "__main__":
    main()
