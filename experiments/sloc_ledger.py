"""Issue 37's cut as a ledger of main's history: which SLOC changes were the other issues' capabilities.

    python experiments/sloc_ledger.py                          # prints the summary
    python experiments/sloc_ledger.py --markdown experiments/sloc_ledger.md

Issue 37 asks for the SLOC of dipc_plus/ 15% below the baseline "measured before the new capabilities
of the other issues land (their additions are not counted against it)".  Those capabilities (issues 36
and 38-42) landed interleaved with issue 37's folds, often inside the baseline's modules, so no single
tree is "before them".  This script walks main's first-parent history from the baseline to HEAD and
measures radon raw's SLOC of dipc_plus/ after every step (a merge of a branch, or a direct commit).
A step is another issue's when the messages of the commits it brings in name issue 36, 38, 39, 40, 41
or 42 and never 37; every other step - issue 37's own, an unnamed fix, an unnamed capability - is
counted in issue 37's ledger.  The rule is conservative: an unnamed capability counts against the cut,
and an issue-37 fold done inside another issue's merge is not credited.  Every step is listed with its
classification so that a reader can audit it.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sloc_cut import BASELINE, ROOT, print_and_write  # noqa: E402  (the same baseline and output)

OTHER_ISSUES = {"36", "38", "39", "40", "41", "42"}
ISSUE_NUMBER = re.compile(r"[Ii]ssues? (\d\d)\b|#(\d\d)\b")


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True, check=True).stdout


def python_blobs(commit: str) -> dict[str, str]:
    """path inside dipc_plus/ -> blob id of every .py file of the package at `commit`."""
    blobs = {}
    for line in git("ls-tree", "-r", commit, "dipc_plus").splitlines():
        meta, path = line.split("\t")
        if path.endswith(".py"):
            blobs[path] = meta.split()[2]
    return blobs


def sloc_of_blobs(blob_ids: set[str]) -> dict[str, int]:
    """radon raw's SLOC of each blob, measured once per distinct blob (one radon run over all)."""
    with tempfile.TemporaryDirectory() as tmp:
        for blob in blob_ids:
            content = subprocess.run(["git", "-C", ROOT, "cat-file", "blob", blob], capture_output=True, check=True).stdout
            with open(os.path.join(tmp, blob + ".py"), "wb") as fh:
                fh.write(content)
        out = subprocess.run(["radon", "raw", "-j", tmp], capture_output=True, text=True, check=True).stdout
    return {os.path.basename(path)[:-3]: entry.get("sloc", 0) for path, entry in json.loads(out).items()}


def issues_named(commit: str) -> Counter:
    """The issue numbers named by the messages of what this first-parent step brings into main."""
    parents = git("log", "-1", "--format=%P", commit).split()
    text = git("log", "-1", "--format=%B", commit)
    if len(parents) > 1:
        text += git("log", "--format=%B", f"{parents[0]}..{parents[1]}")
    return Counter(a or b for a, b in ISSUE_NUMBER.findall(text))


def is_other_issue(named: Counter) -> bool:
    return "37" not in named and bool(set(named) & OTHER_ISSUES)


def ledger() -> tuple[int, list[dict]]:
    commits = [BASELINE] + git("rev-list", "--first-parent", "--reverse", f"{BASELINE}..HEAD").split()
    trees = {c: python_blobs(c) for c in commits}
    sloc = sloc_of_blobs({b for tree in trees.values() for b in tree.values()})
    total = {c: sum(sloc[b] for b in trees[c].values()) for c in commits}
    steps = []
    for before, commit in zip(commits, commits[1:]):
        named = issues_named(commit)
        steps.append({"commit": commit[:8], "delta": total[commit] - total[before],
                      "subject": git("log", "-1", "--format=%s", commit).strip(),
                      "issues": ", ".join(f"{n} ({k})" for n, k in sorted(named.items())),
                      "other": is_other_issue(named)})
    return total[BASELINE], steps


def report(base: int, steps: list[dict]) -> list[str]:
    other = sum(s["delta"] for s in steps if s["other"])
    own = sum(s["delta"] for s in steps if not s["other"])
    added = sum(s["delta"] for s in steps if not s["other"] and s["delta"] > 0)
    now = base + other + own
    head = git("rev-parse", "--short", "HEAD").strip()
    lines = [f"# Issue 37's ledger: SLOC of dipc_plus/ per step of main, {BASELINE} to {head}", "",
             "| | steps | SLOC | vs baseline |", "|---|---:|---:|---:|",
             f"| baseline ({BASELINE}) | | {base:,} | |",
             f"| the other issues' steps (36, 38-42 named, 37 not) | {sum(s['other'] for s in steps)} | {other:+,} | {100 * other / base:+.1f}% |",
             f"| issue 37's ledger (every other step) | {sum(not s['other'] for s in steps)} | {own:+,} | **{100 * own / base:+.1f}%** |",
             f"| of which steps that added lines | | {added:+,} | |",
             f"| now, whole package | {len(steps)} | {now:,} | {100 * (now - base) / base:+.1f}% |", "",
             f"Target of issue 37: the ledger at {-int(base * 0.15):,} (15% of the baseline).", "",
             "| step | SLOC | issues named (times) | counted as | subject |", "|---|---:|---|---|---|"]
    for s in steps:
        if s["delta"]:
            subject = s["subject"].replace("|", "/")
            subject = subject if len(subject) <= 100 else subject[:97] + "..."
            lines.append(f"| {s['commit']} | {s['delta']:+d} | {s['issues']} | "
                         f"{'other issue' if s['other'] else 'issue 37'} | {subject} |")
    lines.append("\nSteps that changed no SLOC (tests, docs, experiments) are left out of the list.")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args()
    print_and_write(report(*ledger()), args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
