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

Run:  PYTHONPATH=. python experiments/bench_scale.py [--budget SECONDS] [--families a,b] [--update]
(--update rewrites only the sections of the families run, each with its own date and load.)
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
    "sparse": ("Sparse c = 1, accuracy grid [-1,1]^m",
               ["accuracy", "theories/sparse.toml", "--set", "c=1", "--set", "m={m}"], range(4, 13), True),
    "noisymax": ("NoisyMax, accuracy grid [-1,1]^m",
                 ["accuracy", "theories/noisy_max.toml", "--set", "m={m}"], range(4, 11), True),
    "numericsparse": ("NumericSparse c = 1, accuracy grid [-1,1]^m",
                      ["accuracy", "theories/numeric_sparse.toml", "--set", "c=1", "--set", "m={m}"],
                      range(4, 10), True),
    "svtpriv": ("SVT Lyu Alg. 1 privacy grid {-1,0,1}^m (L-inf neighbours, eps-DP)",
                ["privacy", "theories/svt_lyu_alg1_privacy.toml", "--set", "m={m}"], range(5, 11), True),
    "prob": ("`dipc prob` NoisyMax at one input q = (1, ..., m)",
             ["prob", "programs/noisy_max.dip", "--set", "m={m}", "--input", "q={q}"], (4, 8, 12, 16, 20), False),
}

_WRAPPER = ("import json, resource, subprocess, sys, time\n"
            "t = time.perf_counter()\n"
            "done = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], 'w'), stderr=subprocess.DEVNULL)\n"
            "seconds = time.perf_counter() - t\n"
            "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
            "print(json.dumps([done.returncode, seconds, peak]))\n")


def measure(argv: list, classes: bool) -> dict:
    """One command in a child process: exit status, seconds, peak MB, its JSON (or None)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if classes:
        env.pop("DIPC_CLASSES", None)
    else:
        env["DIPC_CLASSES"] = "off"
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        cmd = [sys.executable, "-c", _WRAPPER, out.name, sys.executable, "-m", "dipc_plus", *argv,
               "--json", "--timeout", str(LIMIT)]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
        try:
            status, seconds, peak_kb = json.loads(done.stdout)
        except ValueError:   # the wrapper itself was stopped
            return {"status": "stopped", "seconds": 0.0, "mb": 0.0, "json": None}
        try:
            data = json.load(out)
        except ValueError:
            data = None
    return {"status": status, "seconds": seconds, "mb": peak_kb / 1024, "json": data}


def _argv(template: list, m: int) -> list:
    q = "[" + ",".join(str(i) for i in range(1, m + 1)) + "]"
    return [a.format(m=m, q=q) for a in template]


def _cell(run: dict | None, why: str = "") -> tuple[str, str]:
    if run is None:
        return why or "not run", ""
    if run["json"] is None or run["status"] not in (0, 1):
        return f"> {LIMIT} s (stopped)" if run["seconds"] >= LIMIT - 1 else f"exit {run['status']}", f"{run['mb']:.0f}"
    return f"{run['seconds']:.1f}", f"{run['mb']:.0f}"


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


def run_family(key: str, deadline: float, log) -> list[str]:
    title, template, ms, can_class = FAMILIES[key]
    lines = [f"### {title}", "",
             "| m | classes: s | MB | inputs / distributions / decisions | classes off: s | MB "
             "| distributions | JSON | load (1 min) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    stopped = {True: "", False: ""}     # why a path stopped ("" while it runs)
    last = {True: 0.0, False: 0.0}
    for m in ms:
        if stopped[True] and stopped[False]:
            break
        runs = {}
        for classes in (True, False) if can_class else (True,):
            why = stopped[classes]
            if not why and time.time() + min(LIMIT, max(last[classes], 1.0) * 3) > deadline:
                why = stopped[classes] = "not run (time budget of this run)"
            if why:
                runs[classes] = (None, why)
                continue
            run = measure(_argv(template, m), classes)
            runs[classes] = (run, "")
            last[classes] = run["seconds"]
            if run["seconds"] >= LIMIT - 1 or run["json"] is None:
                stopped[classes] = "not run (past the limit at a smaller m)"
            print(f"{key} m={m} classes={classes}: {run['seconds']:.1f} s {run['mb']:.0f} MB "
                  f"status {run['status']}", file=log, flush=True)
        new, new_why = runs[True]
        old, old_why = runs.get(False, (None, "same command (no grid: classes do not apply)"))
        s_new, mb_new = _cell(new, new_why)
        s_old, mb_old = _cell(old, old_why)
        load = f"{os.getloadavg()[0]:.1f}"
        lines.append(f"| {m} | {s_new} | {mb_new} | {_work(new)} | {s_old} | {mb_old} | "
                     f"{_work(old).split(' / ')[1] if _work(old) else ''} | {_same(new, old)} | {load} |")
    return lines + [""]


def update_sections(text: str, sections: dict) -> str:
    """`text` with each "### title" section of `sections` replaced (or appended when new)."""
    blocks, current = [], []
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("### ") and current:
            blocks.append(current)
            current = []
        current.append(line)
    blocks.append(current)
    done = set()
    for i, block in enumerate(blocks):
        if block and block[0] in sections:
            blocks[i] = sections[block[0]]
            done.add(block[0])
    blocks += [lines for title, lines in sections.items() if title not in done]
    blocks = [block if block and block[-1] == "" else block + [""] for block in blocks]   # a blank line between
    return "\n".join(line for block in blocks for line in block).rstrip("\n") + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=3600.0, help="seconds for the whole run (default 3600)")
    parser.add_argument("--families", default=",".join(FAMILIES), help="which families, comma-separated")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--commit", default="", help="the commit measured (default: git rev-parse HEAD here)")
    parser.add_argument("--update", action="store_true",
                        help="replace only the sections of these families in --out (each says when and under "
                             "which load it ran), keeping the others")
    args = parser.parse_args()
    start = time.time()
    deadline = start + args.budget
    commit = args.commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                           text=True, cwd=ROOT).stdout.strip()
    load_before = os.getloadavg()
    body = []
    sections = {}
    for key in args.families.split(","):
        before = os.getloadavg()
        lines = run_family(key, deadline, sys.stderr)
        after = os.getloadavg()
        lines[2:2] = [f"Measured on {datetime.date.today()}, commit {commit}; load (1/5/15 min) "
                      f"{', '.join(f'{x:.1f}' for x in before)} before, {', '.join(f'{x:.1f}' for x in after)} "
                      "after.", ""]
        sections[lines[0]] = lines
        body += lines
    load_after = os.getloadavg()
    if args.update and Path(args.out).exists():
        text = update_sections(Path(args.out).read_text(), sections)
        Path(args.out).write_text(text)
        print(text)
        return 0
    head = [
        "# Scaling with m: classes on beside classes off",
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
        f"and \"work\" removed.  A path stops at its first row past {LIMIT} s (a stopped run's JSON is partial and "
        "is not compared).",
        "",
    ]
    text = "\n".join(head + body) + "\n"
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
