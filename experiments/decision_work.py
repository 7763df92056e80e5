"""The work the two formerly clock-bounded decision loops reach on the shipped theories.

    python experiments/decision_work.py --markdown experiments/decision_work.md

Why: the two-variable branch-and-bound (`decision.two_variable`, once also cut at 120 s) and the
exact proofs for the printed sup under the coupling bound (`privacy.dp.real_output_check`, once
cut at 60 s) are now bounded by counts of work.  Their defaults must sit above what the shipped
theories reach, so that a command decides as it did on an idle machine; this script counts it.
Each claim runs in a fresh process of this checkout (accuracy on the box accuracy claims,
privacy on the box privacy and every-value claims, and `dipc sweep` on every accuracy claim, grid
and box, since the box sweep reaches the branch-and-bound too) with the two loops wrapped: the
rectangles of each branch-and-bound (and how many ended undecided) and the exact proofs
(`prove_unproved` calls) of the run, with their CPU seconds.  A run past `--run-timeout` seconds
(default 120) is killed and keeps the rectangles it had reached.  It works on the old (clock) code
and on the new.
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
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_TIMEOUT = 120.0      # seconds of wall clock per run
PARTIAL = "bnb "         # the prefix of the line a child writes to stderr after each branch-and-bound


def claims() -> list[tuple[str, str]]:
    """(path, command): the claims whose runs reach the two loops, then `dipc sweep` on every accuracy claim."""
    out, sweeps = [], []
    for path in sorted(glob.glob(os.path.join(ROOT, "theories", "*.toml"))):
        stem = os.path.basename(path)[:-5]
        text = open(path, encoding="utf-8").read()
        if stem.endswith("_box") and "[accuracy]" in text:
            out.append((path, "accuracy"))
        elif (stem.endswith("_privacy_box") or stem.endswith("_values")) and "[privacy]" in text:
            out.append((path, "privacy"))
        if "[accuracy]" in text:
            sweeps.append((path, "sweep"))
    return out + sweeps


def measure_one(path: str, command: str) -> dict:
    """Run one claim in this process with the loops wrapped; what they reached."""
    from dipc_plus import cli
    from dipc_plus.decision import two_variable
    from dipc_plus.privacy.dp import real_output_check

    record = {"rectangles": [], "undecided": 0, "proofs": 0, "proof_cpu": 0.0, "bnb_cpu": []}
    bnb = two_variable.branch_and_bound

    def counted_bnb(*args, **kwargs):
        start = time.process_time()
        found = bnb(*args, **kwargs)
        record["rectangles"].append(found.rectangles)
        record["undecided"] += found.verdict == two_variable.UNDECIDED
        record["bnb_cpu"].append(round(time.process_time() - start, 2))
        print(PARTIAL + json.dumps([found.rectangles, found.verdict]), file=sys.stderr, flush=True)
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
    parser.add_argument("--commands", nargs="*", default=[], choices=("accuracy", "privacy", "sweep"),
                        help="the commands to run (default: all)")
    parser.add_argument("--run-timeout", type=float, default=RUN_TIMEOUT, metavar="SECONDS",
                        help=f"kill a run after SECONDS of wall clock (default {RUN_TIMEOUT:g})")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(*args.one)))
        return 0
    rows = []
    for path, command in claims():
        stem = os.path.basename(path)[:-5]
        if args.only and stem not in args.only:
            continue
        if args.commands and command not in args.commands:
            continue
        record = run_one(path, command, args.run_timeout)
        rows.append((stem, command, record))
        print(stem, command, json.dumps(record), flush=True)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(markdown(rows))
    return 0


def run_one(path: str, command: str, timeout: float) -> dict:
    """One claim in a fresh process of this checkout; on a timeout, the branch-and-bounds it had finished."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--one", path, command], stdout=out,
                                 stderr=err, text=True, env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT,
                                 start_new_session=True)
        try:
            code = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, 9)    # the child's own session: it and any workers it started
            child.wait()
            code = None
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if code == 0:
        return json.loads(stdout.strip().splitlines()[-1])
    if code is not None:
        return {"error": stderr[-300:]}
    finished = [json.loads(line[len(PARTIAL):]) for line in stderr.splitlines() if line.startswith(PARTIAL)]
    return {"status": f"killed at {timeout:g} s", "rectangles": [n for n, _ in finished],
            "undecided": sum(v == "undecided" for _, v in finished), "bnb_cpu": [], "proofs": "-",
            "proof_cpu": "-", "cpu": "-"}


def markdown(rows) -> str:
    lines = ["# Work reached by the two decision loops once bounded by the clock", "",
             "Written by `experiments/decision_work.py` (a fresh process per claim and command; CPU seconds on a",
             "shared 2-core machine; a run killed after its wall-clock timeout keeps the branch-and-bounds it",
             "finished).  Rectangles: of each two-variable branch-and-bound the run started",
             "(`decision.two_variable`, bound `BNB_RECTANGLES`); undecided: how many of them ended undecided;",
             "proofs: exact proofs of intervals not proved monotone (`real_output_loss.prove_unproved` calls;",
             "bound `COUPLED_PROOFS` applies to those run for the printed sup under the coupling bound).", "",
             "| claim | command | exit | branch-and-bounds | most rectangles | undecided | their CPU s (max) | proofs | proofs CPU s | run CPU s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for stem, command, r in rows:
        if "error" in r:
            lines.append(f"| {stem} | {command} | error | | | | | | | |")
            continue
        rects, cpu = r["rectangles"], r["bnb_cpu"]
        lines.append(f"| {stem} | {command} | {r['status']} | {len(rects)} | {max(rects, default='-')} | "
                     f"{r.get('undecided', '-')} | {max(cpu, default='-')} | {r['proofs']} | {r['proof_cpu']} | {r['cpu']} |")
    lines.append("")
    for label, chosen in (("accuracy and privacy", ("accuracy", "privacy")), ("dipc sweep", ("sweep",))):
        done = [r for _, command, r in rows if command in chosen and "error" not in r]
        if not done:
            continue
        most_r = max((max(r["rectangles"], default=0) for r in done), default=0)
        most_p = max((r["proofs"] for r in done if isinstance(r["proofs"], int)), default=0)
        undecided = sum(r.get("undecided", 0) for r in done)
        lines.append(f"Largest ({label}): {most_r} rectangles in one branch-and-bound ({undecided} undecided), "
                     f"{most_p} proofs in one run.")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
