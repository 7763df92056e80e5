"""The work the two formerly clock-bounded decision loops reach on the shipped theories.

    python experiments/decision_work.py --markdown experiments/decision_work.md

Why: the two-variable branch-and-bound (`decision.two_variable`, once also cut at 120 s) and the
exact proofs for the printed sup under the coupling bound (`privacy.dp.real_output_check`, once
cut at 60 s) are now bounded by counts of work.  Their defaults must sit above what the shipped
theories reach, so that a command decides as it did on an idle machine; this script counts it.
Each claim runs in a fresh process of this checkout (accuracy on the box accuracy claims,
privacy on the box privacy and every-value claims) with the two loops wrapped: the rectangles of
each branch-and-bound and the exact proofs (`prove_unproved` calls) of the run, with their CPU
seconds.  It works on the old (clock) code and on the new.
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import io
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def claims() -> list[tuple[str, str]]:
    """(path, command): the claims whose runs reach the two loops."""
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "theories", "*.toml"))):
        stem = os.path.basename(path)[:-5]
        text = open(path, encoding="utf-8").read()
        if stem.endswith("_box") and "[accuracy]" in text:
            out.append((path, "accuracy"))
        elif (stem.endswith("_privacy_box") or stem.endswith("_values")) and "[privacy]" in text:
            out.append((path, "privacy"))
    return out


def measure_one(path: str, command: str) -> dict:
    """Run one claim in this process with the loops wrapped; what they reached."""
    from dipc_plus import cli
    from dipc_plus.decision import two_variable
    from dipc_plus.privacy.dp import real_output_check

    record = {"rectangles": [], "proofs": 0, "proof_cpu": 0.0, "bnb_cpu": []}
    bnb = two_variable.branch_and_bound

    def counted_bnb(*args, **kwargs):
        start = time.process_time()
        found = bnb(*args, **kwargs)
        record["rectangles"].append(found.rectangles)
        record["bnb_cpu"].append(round(time.process_time() - start, 2))
        return found

    prove = real_output_check.prove_unproved

    def counted_prove(*args, **kwargs):
        start = time.process_time()
        try:
            return prove(*args, **kwargs)
        finally:
            record["proofs"] += 1
            record["proof_cpu"] += time.process_time() - start

    two_variable.branch_and_bound = counted_bnb
    real_output_check.prove_unproved = counted_prove
    start = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        status = cli.main([command, path, "--json", "--no-progress", "--timeout", "0", "--max-memory", "0"])
    record.update(status=status, cpu=round(time.process_time() - start, 1), proof_cpu=round(record["proof_cpu"], 2))
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs=2, metavar=("PATH", "COMMAND"), help=argparse.SUPPRESS)
    parser.add_argument("--markdown", metavar="FILE")
    parser.add_argument("--only", nargs="*", default=[], help="claim stems (default: all)")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(*args.one)))
        return 0
    rows = []
    for path, command in claims():
        stem = os.path.basename(path)[:-5]
        if args.only and stem not in args.only:
            continue
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", path, command],
                              capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT)
        record = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {"error": done.stderr[-300:]}
        rows.append((stem, command, record))
        print(stem, command, json.dumps(record), flush=True)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(markdown(rows))
    return 0


def markdown(rows) -> str:
    lines = ["# Work reached by the two decision loops once bounded by the clock", "",
             "Written by `experiments/decision_work.py` (a fresh process per claim; CPU seconds on a shared",
             "2-core machine).  Rectangles: of each two-variable branch-and-bound the run started",
             "(`decision.two_variable`, bound `BNB_RECTANGLES`); proofs: exact proofs of intervals not",
             "proved monotone (`real_output_loss.prove_unproved` calls; bound `COUPLED_PROOFS` applies to",
             "those run for the printed sup under the coupling bound).", "",
             "| claim | command | exit | branch-and-bounds | most rectangles | their CPU s (max) | proofs | proofs CPU s | run CPU s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for stem, command, r in rows:
        if "error" in r:
            lines.append(f"| {stem} | {command} | error | | | | | | |")
            continue
        rects, cpu = r["rectangles"], r["bnb_cpu"]
        lines.append(f"| {stem} | {command} | {r['status']} | {len(rects)} | {max(rects, default='-')} | "
                     f"{max(cpu, default='-')} | {r['proofs']} | {r['proof_cpu']} | {r['cpu']} |")
    most_r = max((max(r["rectangles"], default=0) for _, _, r in rows if "error" not in r), default=0)
    most_p = max((r["proofs"] for _, _, r in rows if "error" not in r), default=0)
    lines += ["", f"Largest: {most_r} rectangles in one branch-and-bound, {most_p} proofs in one run.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
