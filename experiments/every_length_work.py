"""Which count of work tracks the time of the every-length search's exact checks.

    python experiments/every_length_work.py [--max-m 6] [--cap 60] [--rows ROWS.jsonl] [--only STEM ...]

`dipc privacy --every-length` bounds its checks past the claim's lengths by a limit on work
(`length_work`), not on wall-clock time, so that its answer does not depend on the machine's load.
This script runs, for every shipped every-length claim (theories/ with `length = "every"`) and
m = 1..--max-m, the checks the search runs (the exact tight loss and the eps-DP check on the
claim's inputs at m <= 3 and on the two-block inputs past it; the pattern's family inputs past
m = 3 for a "no constant" claim), in this process, and records each check's CPU seconds (the
process's own time: on a loaded machine wall-clock time measures the load) beside the candidate
counts of work.  A kind of check stops once one of its checks took more than --cap CPU seconds.
Each check is appended to the JSON-lines file --rows as it finishes (a claim already there is not run
again, so runs in parallel or after a stop add up); experiments/every_length_work.md gets one row per check and, per candidate, the spread of seconds per unit of work
(the largest over the smallest, checks over 0.2 s): the candidate with the smallest spread is the
one whose growth predicts the time best.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from dipc_plus.claims.privacy_reader import load_privacy_claim  # noqa: E402
from dipc_plus.privacy.dp.check import check_dp  # noqa: E402
from dipc_plus.privacy.loss.tight import privacy_loss  # noqa: E402
from dipc_plus.privacy.online.every_length import check_work, claim_at_length, classify  # noqa: E402

CANDIDATES = ("pairs", "comparisons", "distinct", "tables", "work")   # work: what length_work counts


def every_length_claims() -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(ROOT, "theories", "*.toml"))
                  if 'length = "every"' in open(p, encoding="utf-8").read())


def counts(what: str, result) -> dict:
    """The candidate counts of one finished check, read from its result."""
    if what == "loss":
        tables = sum(len(u.source.used) for u in result.plan.units)
        return {"pairs": result.pairs, "comparisons": result.candidates, "distinct": result.distinct, "tables": tables}
    return {"pairs": result.pairs, "comparisons": result.obligations, "distinct": result.decisions,
            "tables": result.evaluations}


def work_of(row: dict) -> int:
    """What `check_work` counts for the check of a row (computed when the table is written, so rows
    measured once serve any definition)."""
    if row["check"] == "loss":
        return check_work(types.SimpleNamespace(distinct=row["distinct"]))
    return check_work(types.SimpleNamespace(obligations=row["comparisons"]))


def measure(path: str, max_m: int, cap: float, rows_file: str) -> list[dict]:
    claim = load_privacy_claim(path)
    auto = classify(claim.program, set(claim.given_params))[0]
    mname, array = auto.size_param, auto.input_name
    kinds = ["loss", "dp"] + (["family"] if auto.input_name and claim.grid is not None else [])
    rows, stopped = [], set()
    for m in range(1, max_m + 1):
        overrides = tuple({mname: m}.items())
        for what in kinds:
            if what in stopped or (what == "family" and m <= 3):
                continue
            build = "family" if what == "family" else "dp"
            c, _ = claim_at_length(build, os.path.abspath(path), overrides, m, None if m <= 3 else array)
            cpu0, wall0 = time.process_time(), time.perf_counter()
            result = privacy_loss(c) if what == "loss" else check_dp(c)
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            rows.append({"claim": os.path.basename(path)[:-5], "m": m, "check": what, "cpu": cpu, "wall": wall,
                         **counts(what, result)})
            with open(rows_file, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(rows[-1]) + "\n")
            if cpu > cap:
                stopped.add(what)
    return rows


def read_rows(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def spread(rows: list[dict], name: str) -> float:
    """The largest over the smallest CPU seconds per unit of `name`, over the checks past 0.2 s."""
    per = sorted(r["cpu"] / r[name] for r in rows if r["cpu"] > 0.2 and r[name] > 0)
    return max(per) / min(per) if per else float("nan")


def median_ms(rows: list[dict], name: str) -> float:
    per = sorted(r["cpu"] / r[name] for r in rows if r["cpu"] > 0.2 and r[name] > 0)
    return 1000 * per[len(per) // 2] if per else float("nan")


def markdown(rows: list[dict], args) -> str:
    rows = [{**r, "work": work_of(r)} for r in rows]
    lines = ["# Work of the every-length search's checks against their time", "",
             "Written by `python experiments/every_length_work.py` from the checks recorded in "
             "`experiments/every_length_work_rows.jsonl` (serial, in one process; each claim measured by one run "
             "up to m = --max-m, 6 or 5, a kind of check left out past --cap CPU seconds). cpu: the check's CPU "
             "seconds (what an idle machine's wall-clock would be); wall: its wall-clock seconds on the shared "
             "2-core machine it ran on (loaded: 8 to 15 runnable processes, so wall is 3 to 10 times cpu and "
             "says more about the load than about the check). pairs: neighbouring input pairs; comparisons: "
             "(pair, output) comparisons (the DP check's obligations, the loss's ratios); distinct: the DP "
             "check's certified decisions, the loss's distinct ratios; tables: output tables computed; work: "
             "`every_length.check_work`, what the limit `length_work` counts (comparisons for a DP check, "
             "8 per distinct ratio for a loss). m <= 3: the claim's own inputs; m > 3: the two-block inputs "
             "(loss, dp) and the pattern's family inputs (family), as the search uses them.",
             "", "| claim | m | check | cpu (s) | wall (s) | " + " | ".join(CANDIDATES) + " | cpu ms per work |",
             "|---|---|---|---|---|" + "---|" * len(CANDIDATES) + "---|"]
    for r in rows:
        per = f"{1000 * r['cpu'] / r['work']:.3f}" if r["work"] else "-"
        lines.append(f"| {r['claim']} | {r['m']} | {r['check']} | {r['cpu']:.2f} | {r['wall']:.2f} | "
                     + " | ".join(str(r[c]) for c in CANDIDATES) + f" | {per} |")
    lines += ["", "Spread of CPU seconds per unit (largest / smallest over the checks above 0.2 s; smaller tracks "
              "time better), the median CPU milliseconds per unit, and the same for each kind of check:", "",
              "| unit | spread | median ms per unit | loss: spread, median | dp and family: spread, median |",
              "|---|---|---|---|---|"]
    loss = [r for r in rows if r["check"] == "loss"]
    dp = [r for r in rows if r["check"] != "loss"]
    lines += [f"| {c} | {spread(rows, c):.1f} | {median_ms(rows, c):.2f} | {spread(loss, c):.1f}, "
              f"{median_ms(loss, c):.2f} | {spread(dp, c):.1f}, {median_ms(dp, c):.2f} |" for c in CANDIDATES]
    per = sorted(r["cpu"] / r["work"] for r in rows if r["cpu"] > 0.2)
    lines += ["", f"work: from {1000 * per[0]:.2f} to {1000 * per[-1]:.2f} ms per unit over the checks above 0.2 s "
              f"(median {median_ms(rows, 'work'):.2f}). The loss's ratios and the DP check's comparisons alone track "
              "each kind well but not both (a loss ratio is placed on the upper envelope by certified decisions, "
              "a comparison is one decision or a shortcut), hence the weight 8 per ratio (the ratio of the two "
              "medians). At that median, the 300 s that the limit `length_seconds` gave an idle machine are about "
              "570,000 units: `length_work` is 600,000."]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-m", type=int, default=6)
    parser.add_argument("--cap", type=float, default=60.0, help="CPU seconds after which a kind of check stops")
    parser.add_argument("--only", nargs="*", default=[], help="claim stems (default: every every-length claim)")
    parser.add_argument("--rows", default=os.path.join(ROOT, "experiments", "every_length_work_rows.jsonl"))
    parser.add_argument("--out", default=os.path.join(ROOT, "experiments", "every_length_work.md"))
    args = parser.parse_args()
    for path in every_length_claims():
        stem = os.path.basename(path)[:-5]
        if (args.only and stem not in args.only) or stem in {r["claim"] for r in read_rows(args.rows)}:
            continue
        measure(path, args.max_m, args.cap, args.rows)
    rows = read_rows(args.rows)
    with open(args.out, "w", encoding="utf-8") as handle:
        handle.write(markdown(rows, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
