"""Issue 37's measure: radon's SLOC of dipc_plus/ now against the commit the issue was filed on.

    python experiments/sloc_cut.py                      # prints the table
    python experiments/sloc_cut.py --markdown experiments/sloc_cut.md

SLOC is radon raw's source-lines count (docstrings and comments do not count, so moving a
narration into docs/ changes nothing).  Four numbers are reported: the whole package at the
baseline, the whole package now, and the modules that existed at the baseline as they are now
(the issue measures the cut "before the new capabilities of the other issues land": modules
added since carry those capabilities, so they are shown apart), and the baseline's modules together
with the modules issue 37's own folds created (FOLDED_OUT): code moved into a new module is not cut.  The baseline is read with
`git show`, so the working tree is never touched.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = "4008d73"  # main when issue 37 was filed

# Modules added since the baseline that hold code folded OUT of the baseline's modules by issue 37's
# own redesigns (one walker, one result type, one options object, ...), not a capability of another
# issue.  Counting them with the baseline's modules is the honest measure of the cut: moving code into
# a new module must not look like a cut.
FOLDED_OUT = {
    "accuracy/box_reduction.py", "accuracy/decide.py", "accuracy/sweep_result.py",
    "api/keywords.py", "commands/parts/claim.py", "commands/parts/schema.py",
    "decision/bisection.py", "decision/box_enclosure.py", "decision/first_order.py",
    "exact/binding_bounds.py", "exact/memo.py", "exact/sparse.py",
    "execution/accelerators.py", "execution/options.py",
    "privacy/decide.py", "privacy/result.py", "semantics/identity_cache.py", "semantics/walk.py",
}


def sloc_of_tree(folder: str) -> dict[str, int]:
    """radon raw's SLOC per file of a package folder, keyed by the path inside dipc_plus/."""
    out = subprocess.run(["radon", "raw", "-s", "-j", folder], capture_output=True, text=True, check=True)
    return {os.path.relpath(path, folder): entry["sloc"] for path, entry in json.loads(out.stdout).items()
            if "sloc" in entry}


def baseline_tree(commit: str, into: str) -> str:
    """Write dipc_plus/ as it was at `commit` into a temporary folder (git archive, no checkout)."""
    archive = subprocess.run(["git", "-C", ROOT, "archive", commit, "dipc_plus"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", into], input=archive.stdout, check=True)
    return os.path.join(into, "dipc_plus")


def folder_of(path: str) -> str:
    return os.path.dirname(path).split(os.sep)[0] or "(top)"


def table(base: dict[str, int], now: dict[str, int]) -> list[str]:
    old_now = {p: s for p, s in now.items() if p in base}
    new = {p: s for p, s in now.items() if p not in base}
    folded = {p: s for p, s in now.items() if p in base or p in FOLDED_OUT}
    rows = ["| | modules | SLOC | vs baseline |", "|---|---:|---:|---:|"]
    b = sum(base.values())

    def row(name, d):
        total = sum(d.values())
        rows.append(f"| {name} | {len(d)} | {total:,} | {100 * (total - b) / b:+.1f}% |")
    row(f"baseline ({BASELINE})", base)
    row("now, whole package", now)
    row("now, modules of the baseline", old_now)
    row("now, modules of the baseline and the modules issue 37's folds created (counts the other issues' additions inside these modules; experiments/sloc_ledger.py separates them)", folded)
    rows.append(f"| now, modules added since | {len(new)} | {sum(new.values()):,} | |")
    rows.append(f"\nTarget of issue 37 (15% below the baseline): {int(b * 0.85):,} SLOC.\n")
    rows += ["| folder | baseline | now (baseline's modules) | now (all) |", "|---|---:|---:|---:|"]
    per = defaultdict(lambda: [0, 0, 0])
    for p, s in base.items():
        per[folder_of(p)][0] += s
    for p, s in now.items():
        per[folder_of(p)][2] += s
        if p in base:
            per[folder_of(p)][1] += s
    for name in sorted(per):
        a, o, n = per[name]
        rows.append(f"| {name} | {a:,} | {o:,} | {n:,} |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = sloc_of_tree(baseline_tree(BASELINE, tmp))
    now = sloc_of_tree(os.path.join(ROOT, "dipc_plus"))
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [f"# Issue 37: SLOC of dipc_plus/ (radon raw), {head} against {BASELINE}", ""] + table(base, now)
    print_and_write(lines, args.markdown)
    return 0


def print_and_write(lines: list[str], markdown: str | None) -> None:
    """The table on stdout, and into the file `markdown` when one is given."""
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if markdown:
        with open(markdown, "w", encoding="utf-8") as fh:
            fh.write(text)


if __name__ == "__main__":
    sys.exit(main())
