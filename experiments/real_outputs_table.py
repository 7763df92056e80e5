"""Write experiments/real_outputs_table.md: privacy claims on every value of a real output.

For each claim of theories/*_privacy_values.toml (no events: decided on densities) run `dipc privacy
--json` in a fresh process and record the verdict, sup L/eps and the CPU time of the run.
Usage: python experiments/real_outputs_table.py [NAME ...]   (default: every *_privacy_values.toml, the
quick ones first).  The table is rewritten after each claim; a claim over TIMEOUT CPU-free
wall seconds is recorded as "timeout".
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 900
ORDER = ["bad_gap_sparse_vector_m3_privacy_values", "svt_lyu_alg3_c1_m3_privacy_values", "bad_gap_sparse_vector_m5_privacy_values",
         "svt_lyu_alg3_c2_m3_privacy_values", "svt_lyu_alg3_c2_m5_privacy_values", "numeric_sparse_m3_privacy_values",
         "gap_above_threshold_m3_privacy_values", "bad_gap_sparse_vector_m4_privacy_values", "numeric_sparse_m5_privacy_values",
         "gap_above_threshold_m5_privacy_values"]


def run(claim: Path) -> dict:
    text = claim.read_text()
    program = next(line.split('"')[1] for line in text.splitlines() if line.startswith("path"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run([sys.executable, "-m", "dipc_plus.cli", "privacy", str((claim.parent / program).resolve()),
                               str(claim), "--json"], capture_output=True, text=True, cwd=ROOT, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc = None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if proc is None:
        out = {"verdict": f"timeout ({TIMEOUT} s wall)"}
    else:
        try:
            out = json.loads(proc.stdout)
        except json.JSONDecodeError:
            out = {"verdict": "error: " + " ".join(proc.stderr.strip().splitlines()[-1:])}
    expected = next((line.split("Expected (issue 28):")[1].strip() for line in text.splitlines()
                     if "Expected (issue 28):" in line), "")
    return {"claim": claim.name, "verdict": out.get("verdict", out.get("error", {}).get("message", "error")),
            "sup": out.get("sup_loss_over_eps", ""), "pairs": out.get("pairs", ""),
            "undecided": len(out.get("undecided", [])), "cpu": cpu, "exit": "-" if proc is None else proc.returncode,
            "expected": expected}


def main(names: list) -> None:
    claims = sorted((ROOT / "theories").glob("*_privacy_values.toml"),
                    key=lambda c: (ORDER.index(c.stem) if c.stem in ORDER else len(ORDER), c.stem))
    if names:
        claims = [c for c in claims if c.stem in names]
    rows = []
    for c in claims:
        row = run(c)
        print(row, flush=True)
        rows.append(row)
        write(rows)


def write(rows: list) -> None:
    lines = ["# Privacy on every value of a real output", "",
             "Written by `experiments/real_outputs_table.py` (one fresh `dipc privacy --json` per claim; CPU "
             "seconds of that process on a shared 2-core machine). Claims: `theories/*_privacy_values.toml`, eps-DP with "
             "L-inf neighbours on the grid q in {0, 1}^m, no events: decided on densities for every output value.", "",
             "| claim | verdict | exit | sup L/eps | ordered pairs | undecided intervals | CPU s | expected (issue 28) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cpu = "-" if r["exit"] == "-" else f"{r['cpu']:.1f}"     # a killed run's CPU time is not reported to us
        lines.append(f"| {r['claim']} | {r['verdict']} | {r['exit']} | {r['sup']} | {r['pairs']} | {r['undecided']} | "
                     f"{cpu} | {r['expected']} |")
    (ROOT / "experiments" / "real_outputs_table.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
