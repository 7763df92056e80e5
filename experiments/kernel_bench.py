"""Before/after timings of the exact pipeline (issue: a faster exact kernel), written to kernel_table.md.

    python experiments/kernel_bench.py --before /tmp/kbase [--repeat 3]

Each workload runs in a fresh process (cold caches, one core) against the code
under a given checkout: `--before` (e.g. a clone of the base commit) and this
checkout, alternately, so that both see the same load on a shared machine.  Only
the computation is timed (imports and claim loading are not); the table gives
the best of `--repeat` and the range.  Workloads that print a digest of their
closed forms are also compared before/after.  Seconds only; this is a
benchmark, not a test, and nothing asserts on time.
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
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
checker = AccuracyChecker(load_claim("theories/sparse.toml", {"m": 6, "c": 1}))
t = time.perf_counter(); checker.run(); print(time.perf_counter() - t)
""",
    "Sparse c=1, m=7 grid (2187 inputs), accuracy": """
from dipc_plus.accuracy.checker import AccuracyChecker
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
import hashlib
program = LoadedProgram.from_file("programs/noisy_max.dip", m=3)
t = time.perf_counter()
forms = []
for point in itertools.product(range(-3, 4), repeat=3):
    q = [Fraction(v) for v in point]
    det = noise_free.run(program.program, bind(program.program, {"q": q}))
    forms.append(distribution_of_chain(program.dtmc(q=q)).within(det, 0))
seconds = time.perf_counter() - t
print(seconds, hashlib.sha256("\\n".join(map(str, forms)).encode()).hexdigest()[:12])
""",
    **{f"NoisyMax m={m}, comparison chain (shortcuts=False), q={label}": f"""
import hashlib
from fractions import Fraction
from dipc_plus.api import LoadedProgram
from dipc_plus.semantics.distribution import output_distribution
program = LoadedProgram.from_file("programs/noisy_max.dip", m={m}).program
q = [Fraction(v) for v in {q}]
t = time.perf_counter()
dist = output_distribution(program, {{"q": q}}, shortcuts=False)
seconds = time.perf_counter() - t
text = "\\n".join(sorted(f"{{o.values}} {{p}}" for o, p in dist.items()))
print(seconds, hashlib.sha256(text.encode()).hexdigest()[:12])
""" for m in (8, 10) for label, q in (("1..m", list(range(1, m + 1))), ("all equal", [0] * m))},
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


def time_one(root: Path, code: str) -> tuple:
    """(seconds, digest or None) of one fresh run of a workload under `root`."""
    out = subprocess.run([sys.executable, "-c", SETUP + code], cwd=root, capture_output=True, text=True,
                         env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, check=True)
    fields = out.stdout.strip().splitlines()[-1].split()
    return float(fields[0]), (fields[1] if len(fields) > 1 else None)


def span(times: list) -> str:
    return f"{min(times):.2f} ({min(times):.2f}-{max(times):.2f})"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="checkout of the base commit")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    before = Path(args.before).resolve()
    base = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=before, capture_output=True,
                          text=True).stdout.strip()
    rows = []
    for name, code in WORKLOADS.items():
        b_times, a_times, digests = [], [], set()
        for _ in range(args.repeat):       # alternate, so both sides see the same load
            for root, times in ((before, b_times), (ROOT, a_times)):
                seconds, digest = time_one(root, code)
                times.append(seconds)
                digests.add((root == ROOT, digest))
        same = "-" if None in {d for _, d in digests} else ("yes" if len({d for _, d in digests}) == 1 else "NO")
        rows.append(f"| {name} | {span(b_times)} | {span(a_times)} | {min(b_times) / min(a_times):.2f}x | {same} |")
        print(rows[-1], flush=True)
    table = ("# Exact kernel: before and after\n\n"
             f"Written by `python experiments/kernel_bench.py --before <checkout of {base}>`: seconds of "
             f"computation (imports and claim loading excluded), one process per run, cold caches, before "
             f"and after alternating, best of {args.repeat} with the range in brackets; before = {base}, "
             "after = this branch.  'same' compares a digest of every closed form of the run where the "
             "workload prints one.\n\n"
             "| workload | before (s) | after (s) | speed-up (best) | same |\n|---|---|---|---|---|\n"
             + "\n".join(rows) + "\n")
    out = ROOT / "experiments" / "kernel_table.md"
    old = out.read_text() if out.exists() else ""
    marker = "\n## Profile"
    keep = old[old.index(marker):] if marker in old else ""
    out.write_text(table + keep)


if __name__ == "__main__":
    main()
