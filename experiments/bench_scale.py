"""How the grid checks scale with the number of queries m: classes on beside classes off.

Writes experiments/bench_scale.md.  Per family and per m, the same `dipc` command runs twice,
interleaved in the same run: with classes (accuracy.classes: argmax orbits, decisions shared
by exact key, the closed-form argmax dd) and with DIPC_CLASSES=off (the per-point path of
before).  Each run is a fresh child process; its wall time and peak memory (ru_maxrss of the
whole process tree, from resource.getrusage(RUSAGE_CHILDREN) in a wrapper process) are
recorded, with the number of output distributions and decisions the run's JSON reports, and
whether the two JSONs (timings and "work" removed) are identical.  A path stops at its first
row past LIMIT seconds (the run is stopped there); a family stops when both paths have.
`--budget` bounds the whole run: a row that would start past it is not run, and says so.
`--append` adds the run as a new section at the end of the table file (its own commit, date
and load) instead of rewriting the file; `--ms` picks the m's; `--limit`/`--off-limit` set the
stop of each path.  The CPU column is the user + system seconds of the process tree: on a
shared machine it moves less with the load than the wall seconds.

Run:  PYTHONPATH=. python experiments/bench_scale.py [--budget SECONDS] [--families a,b]
      PYTHONPATH=. python experiments/bench_scale.py --families sparse --ms 10,11,12 --append --limit 900
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dipc_plus.commands.merge import without_timing  # noqa: E402

LIMIT = 300          # seconds: a path stops at its first row past this
OUT = ROOT / "experiments" / "bench_scale.md"

# name -> (title, argv with {m}, the m's, whether classes can apply)
FAMILIES = {
    # m = 12 has 531,441 inputs, past the default limit on grid points (200,000): raised here
    "sparse": ("Sparse c = 1, accuracy grid [-1,1]^m",
               ["accuracy", "theories/sparse.toml", "--set", "c=1", "--set", "m={m}",
                "--limit", "grid_points=1000000"], range(4, 13), True),
    "sparse-jobs2": ("Sparse c = 1, accuracy grid [-1,1]^m, --jobs 2 (two worker processes)",
                     ["accuracy", "theories/sparse.toml", "--set", "c=1", "--set", "m={m}",
                      "--limit", "grid_points=1000000", "--jobs", "2"], range(10, 13), True),
    # --summary: counted by report class (accuracy.grid_classes), 3^20 inputs at m = 20
    "sparse-summary": ("Sparse c = 1, accuracy grid [-1,1]^m, --summary",
                       ["accuracy", "theories/sparse.toml", "--set", "c=1", "--set", "m={m}", "--summary",
                        "--limit", "grid_points=4000000000"], (8, 12, 16, 20), True),
    "noisymax": ("NoisyMax, accuracy grid [-1,1]^m",
                 ["accuracy", "theories/noisy_max.toml", "--set", "m={m}",
                  "--limit", "grid_points=100000000"], range(4, 11), True),
    # --summary: counted by orbit (accuracy.argmax_orbit_classes), 3^14 inputs at m = 14
    "noisymax-summary": ("NoisyMax, accuracy grid [-1,1]^m, --summary",
                         ["accuracy", "theories/noisy_max.toml", "--set", "m={m}", "--summary",
                          "--limit", "grid_points=100000000"], (8, 12, 14), True),
    "numericsparse": ("NumericSparse c = 1, accuracy grid [-1,1]^m",
                      ["accuracy", "theories/numeric_sparse.toml", "--set", "c=1", "--set", "m={m}"],
                      range(4, 12), True),
    "svtpriv": ("SVT Lyu Alg. 1 privacy grid {-1,0,1}^m (L-inf neighbours, eps-DP)",
                ["privacy", "theories/svt_lyu_alg1_privacy.toml", "--set", "m={m}",
                 "--limit", "grid_points=100000000"], range(5, 11), True),
    "prob": ("`dipc prob` NoisyMax at one input q = (1, ..., m)",
             ["prob", "programs/noisy_max.dip", "--set", "m={m}", "--input", "q={q}"], (4, 8, 12, 16, 20), False),
}

_WRAPPER = ("import json, resource, subprocess, sys, time\n"
            "t = time.perf_counter()\n"
            "done = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], 'w'), stderr=subprocess.DEVNULL)\n"
            "seconds = time.perf_counter() - t\n"
            "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print(json.dumps([done.returncode, seconds, use.ru_maxrss, use.ru_utime + use.ru_stime]))\n")


def measure(argv: list, classes: bool, limit: float = LIMIT) -> dict:
    """One command in a child process: exit status, seconds, peak MB, CPU seconds, its JSON (or None)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if classes:
        env.pop("DIPC_CLASSES", None)
    else:
        env["DIPC_CLASSES"] = "off"
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        cmd = [sys.executable, "-c", _WRAPPER, out.name, sys.executable, "-m", "dipc_plus", *argv,
               "--json", "--timeout", str(limit)]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
        try:
            status, seconds, peak_kb, cpu = json.loads(done.stdout)
        except ValueError:   # the wrapper itself was stopped
            return {"status": "stopped", "seconds": 0.0, "mb": 0.0, "cpu": 0.0, "json": None, "limit": limit}
        try:
            data = json.load(out)
        except ValueError:
            data = None
    return {"status": status, "seconds": seconds, "mb": peak_kb / 1024, "cpu": cpu, "json": data, "limit": limit}


def _argv(template: list, m: int) -> list:
    q = "[" + ",".join(str(i) for i in range(1, m + 1)) + "]"
    return [a.format(m=m, q=q) for a in template]


def _cell(run: dict | None, why: str = "") -> tuple[str, str, str]:
    """(wall seconds, MB, CPU seconds) as the table prints them."""
    if run is None:
        return why or "not run", "", ""
    cpu = f"{run['cpu']:.1f}"
    if run["json"] is None or run["status"] not in (0, 1):
        limit = run["limit"]
        return (f"> {limit:.0f} s (stopped)" if run["seconds"] >= limit - 1 else f"exit {run['status']}",
                f"{run['mb']:.0f}", cpu)
    return f"{run['seconds']:.1f}", f"{run['mb']:.0f}", cpu


def _work(run: dict | None) -> str:
    data = (run or {}).get("json") or {}
    work = data.get("work") if isinstance(data, dict) else None
    if not work:
        return ""
    if data.get("kind") == "dp":   # privacy: inputs and output tables from the JSON, decisions run from "work"
        return f"{data.get('inputs', '')} / {data.get('distributions', '')} / {work.get('decided', '-')}"
    parts = [str(work.get("inputs", ""))]
    parts.append(str(work.get("distributions", "")))
    parts.append("-" if work.get("decisions") is None else str(work["decisions"]))
    return " / ".join(parts)


def _same(a: dict | None, b: dict | None) -> str:
    if a is None or b is None or a["json"] is None or b["json"] is None:
        return ""
    if a["status"] not in (0, 1) or b["status"] not in (0, 1):   # a stopped run prints what it had
        return ""
    return "identical" if without_timing(a["json"]) == without_timing(b["json"]) else "DIFFERENT"


def run_family(key: str, deadline: float, log, ms=None, limits=None) -> list[str]:
    title, template, default_ms, can_class = FAMILIES[key]
    ms = default_ms if ms is None else ms
    limits = limits or {True: LIMIT, False: LIMIT}
    lines = [f"### {title}", "",
             "| m | classes: s | CPU s | MB | inputs / distributions / decisions | classes off: s | CPU s | MB "
             "| distributions | JSON | load (1 min) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    stopped = {True: "", False: ""}     # why a path stopped ("" while it runs)
    last = {True: 0.0, False: 0.0}
    for m in ms:
        if stopped[True] and stopped[False]:
            break
        runs = {}
        for classes in (True, False) if can_class else (True,):
            why = stopped[classes]
            if not why and time.time() + min(limits[classes], max(last[classes], 1.0) * 3) > deadline:
                why = stopped[classes] = "not run (time budget of this run)"
            if why:
                runs[classes] = (None, why)
                continue
            run = measure(_argv(template, m), classes, limits[classes])
            runs[classes] = (run, "")
            last[classes] = run["seconds"]
            if run["seconds"] >= limits[classes] - 1 or run["json"] is None:
                stopped[classes] = "not run (past the limit at a smaller m)"
            print(f"{key} m={m} classes={classes}: {run['seconds']:.1f} s {run['mb']:.0f} MB "
                  f"status {run['status']}", file=log, flush=True)
        new, new_why = runs[True]
        old, old_why = runs.get(False, (None, "same command (no grid: classes do not apply)"))
        s_new, mb_new, cpu_new = _cell(new, new_why)
        s_old, mb_old, cpu_old = _cell(old, old_why)
        load = f"{os.getloadavg()[0]:.1f}"
        lines.append(f"| {m} | {s_new} | {cpu_new} | {mb_new} | {_work(new)} | {s_old} | {cpu_old} | {mb_old} | "
                     f"{_work(old).split(' / ')[1] if _work(old) else ''} | {_same(new, old)} | {load} |")
    return lines + [""]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=3600.0, help="seconds for the whole run (default 3600)")
    parser.add_argument("--families", default=",".join(FAMILIES), help="which families, comma-separated")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--commit", default="", help="the commit measured (default: git rev-parse HEAD here)")
    parser.add_argument("--ms", default="", help="the m's to run, comma-separated (default: each family's)")
    parser.add_argument("--limit", type=float, default=LIMIT, help=f"seconds: the class path stops at its "
                        f"first row past this (default {LIMIT})")
    parser.add_argument("--off-limit", type=float, default=LIMIT, help=f"the same for classes off (default {LIMIT})")
    parser.add_argument("--append", action="store_true", help="add a section at the end of --out, keep the rest")
    args = parser.parse_args()
    ms = [int(x) for x in args.ms.split(",")] if args.ms else None
    limits = {True: args.limit, False: args.off_limit}
    start = time.time()
    deadline = start + args.budget
    commit = args.commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                           text=True, cwd=ROOT).stdout.strip()
    load_before = os.getloadavg()
    body = []
    sections = {}
    for key in args.families.split(","):
        body += run_family(key, deadline, sys.stderr, ms, limits)
    load_after = os.getloadavg()
    title = (f"## Added run: {', '.join(args.families.split(','))}, m = {args.ms or 'default'}" if args.append
             else "# Scaling with m: classes on beside classes off")
    head = [
        title,
        "",
        f"Written by `python experiments/bench_scale.py` on {datetime.date.today()}, commit {commit}, "
        f"{os.cpu_count()} cores.",
        f"Machine load (1/5/15-minute load averages): {', '.join(f'{x:.1f}' for x in load_before)} at the start, "
        f"{', '.join(f'{x:.1f}' for x in load_after)} at the end; the machine was shared with other "
        "jobs, so the seconds are upper bounds of an idle machine's and the two columns of a row ran "
        "back to back under the same load (last column: the 1-minute load after the row).",
        "",
        "Each cell is one fresh `python -m dipc_plus ... --json` process: wall seconds and peak resident "
        "memory of its process tree (MB).  'classes off' is the same command with DIPC_CLASSES=off: the "
        "per-point path of before (one argmax integral per input, the dd LP, decisions cached only by "
        "recent sentence).  inputs / distributions / decisions: the run's \"work\" record (decisions: "
        "certified decisions run; '-' where not counted).  JSON: the two outputs compared with timings "
        f"and \"work\" removed.  A path stops at its first row past {limits[True]:.0f} s (classes) / "
        f"{limits[False]:.0f} s (classes off) (a stopped run's JSON is partial and is not compared).  CPU s: user + "
        "system seconds of the process tree.",
        "",
    ]
    text = "\n".join(head + body) + "\n"
    if args.append and Path(args.out).exists():
        text = Path(args.out).read_text().rstrip("\n") + "\n\n" + text
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
