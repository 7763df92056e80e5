"""Behaviour-unchanged check for refactorings: the `--json` output of every shipped claim.

    python experiments/json_identity.py --write /tmp/base.json      # on the start point
    python experiments/json_identity.py --compare /tmp/base.json    # after the change
    python experiments/json_identity.py --compare /tmp/base.json --markdown experiments/json_identity.md

Each theories/*.toml runs through the command its kind names (an [accuracy] table:
`dipc accuracy`; a [privacy] table: `dipc privacy` and `dipc privacy-loss`) with `--json`,
in a fresh process of this checkout.  Timing fields (commands.merge.without_timing) are
removed and the checkout's folder is written "$ROOT"; the exit status and the JSON (or, for a refused run, the error text) are what is
compared.  Claims that take over about a minute run at the smaller parameters of SMALLER,
and the record says so.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from dipc_plus.commands.merge import without_timing  # noqa: E402

THEORIES = os.path.join(ROOT, "theories")
TIMEOUT = 900  # seconds per run (wall clock on a shared machine); a run past it is recorded as "timeout", never as identical

# (claim stem, command) -> --set overrides for runs that take over ~60 s at the shipped size.
SMALLER: dict[tuple[str, str], list[str]] = {}


def claim_commands(path: str) -> list[str]:
    """The commands a claim file's kind calls for: its top-level tables say it."""
    text = open(path, encoding="utf-8").read()
    tables = {line.strip() for line in text.splitlines() if line.startswith("[")}
    commands = []
    if "[accuracy]" in tables:
        commands.append("accuracy")
    if "[privacy]" in tables:
        commands += ["privacy", "privacy-loss"]
    return commands


def without_root(value, root: str = ROOT):
    """`value` with this checkout's path written "$ROOT", so that checkouts in different
    folders (the baseline's and this one) print the same text."""
    if isinstance(value, str):
        return value.replace(root, "$ROOT")
    if isinstance(value, dict):
        return {k: without_root(v, root) for k, v in value.items()}
    if isinstance(value, list):
        return [without_root(v, root) for v in value]
    return value


def run_one(path: str, command: str) -> dict:
    """One claim through one command in a fresh process: exit status and timing-free output."""
    stem = os.path.splitext(os.path.basename(path))[0]
    sets = SMALLER.get((stem, command), [])
    argv = [sys.executable, "-m", "dipc_plus", command, path, "--json", "--no-progress"]
    for item in sets:
        argv += ["--set", item]
    env = dict(os.environ, PYTHONPATH=ROOT)
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=TIMEOUT, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"set": sets, "status": "timeout", "output": None, "seconds": TIMEOUT}
    seconds = round(time.perf_counter() - start, 1)
    try:
        output = without_timing(json.loads(done.stdout))
    except ValueError:
        output = {"stdout": done.stdout, "stderr": done.stderr.strip().splitlines()[-3:]}
    return {"set": sets, "status": done.returncode, "output": without_root(output), "seconds": seconds}


def run_all(only: list[str]) -> dict:
    """Every (claim, command) of theories/, keyed "stem command"."""
    results = {}
    for path in sorted(glob.glob(os.path.join(THEORIES, "*.toml"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        if only and stem not in only:
            continue
        for command in claim_commands(path):
            record = run_one(path, command)
            results[f"{stem} {command}"] = record
            print(f"{stem:50s} {command:13s} status {record['status']}  {record['seconds']} s", flush=True)
    return results


def same(a: dict, b: dict) -> bool:
    """Identical when neither timed out and status, overrides and output all agree."""
    if a["status"] == "timeout" or b["status"] == "timeout":
        return False
    return (a["status"], a["set"], a["output"]) == (b["status"], b["set"], b["output"])


def compare(base: dict, now: dict) -> list[tuple[str, str, str]]:
    """(key, verdict, note) for every key of either run."""
    rows = []
    for key in sorted(set(base) | set(now)):
        if key not in base or key not in now:
            rows.append((key, "different", "missing from " + ("baseline" if key not in base else "this run")))
            continue
        a, b = base[key], now[key]
        note = f"--set {' '.join(a['set'])}" if a["set"] else ""
        if a["status"] == "timeout" or b["status"] == "timeout":
            note = (note + " timeout").strip()
        rows.append((key, "identical" if same(a, b) else "different", note))
    return rows


def markdown(rows, base_path: str) -> str:
    """The comparison as a committed table."""
    lines = [
        "# JSON identity: every shipped claim before and after a refactoring",
        "",
        f"Written by `python experiments/json_identity.py --compare {base_path} --markdown ...`:",
        "the baseline ran on the branch's start point, this run on its last commit.",
        "Timing fields removed; exit status and JSON compared exactly.",
        "",
        "| claim | command | result | note |",
        "| --- | --- | --- | --- |",
    ]
    for key, verdict, note in rows:
        stem, command = key.split(" ")
        lines.append(f"| {stem} | {command} | {verdict} | {note} |")
    count = sum(1 for _k, v, _n in rows if v == "identical")
    lines += ["", f"{count} of {len(rows)} identical.", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE", help="write the baseline JSON here")
    group.add_argument("--compare", metavar="FILE", help="compare against this baseline")
    parser.add_argument("--markdown", metavar="FILE", help="with --compare: write the table here")
    parser.add_argument("--only", nargs="*", default=[], help="claim stems to run (default: all)")
    args = parser.parse_args()
    now = run_all(args.only)
    if args.write:
        if args.only and os.path.exists(args.write):  # refresh some claims of a baseline
            with open(args.write, encoding="utf-8") as handle:
                now = {**json.load(handle), **now}
        with open(args.write, "w", encoding="utf-8") as handle:
            json.dump(now, handle, indent=1, sort_keys=True)
        return 0
    with open(args.compare, encoding="utf-8") as handle:
        base = json.load(handle)
    if args.only:
        base = {k: v for k, v in base.items() if k.split(" ")[0] in args.only}
    rows = compare(base, now)
    for key, verdict, note in rows:
        print(f"{key:64s} {verdict} {note}")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(markdown(rows, args.compare))
    return 0 if all(v == "identical" for _k, v, _n in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
