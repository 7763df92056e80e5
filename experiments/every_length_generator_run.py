"""Summarise the every-length generator's long run (tests/test_every_length_generator.py) from its ledger.

Why: the long run (DIPC_LONG_GENERATOR=1) judges thousands of generated online programs in chunks
(DIPC_EL_START / DIPC_EL_COUNT) and records each in a JSON-lines ledger (DIPC_EL_LEDGER); this script
turns one or more ledgers into the committed table: programs judged, outcomes, outcomes per
issue-40 construct (counted outputs, DLap draws), wrong verdicts (each one listed in full), and the
rate where the ledger has timings.

    python experiments/every_length_generator_run.py LEDGER.jsonl [...] [--out experiments/every_length_generator_run.md]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from online_programs import random_spec  # noqa: E402  (the generator the long run draws from)

SEED = 2025   # tests/test_every_length_generator.py: program i is random_spec(Random(f"{SEED}:{i}"))

OUTCOMES = ("verified", "refuted", "no constant", "undecided", "refused", "time limit", "broken")


def read_rows(paths: list[Path]) -> dict:
    rows = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                rows[row["index"]] = row
    return rows


def table(rows: dict, note: str) -> str:
    ordered = [rows[i] for i in sorted(rows)]
    lengths = sorted({r["lengths"] for r in ordered})
    by = Counter((r["constructs"], r["outcome"]) for r in ordered)
    kinds = sorted({r["constructs"] for r in ordered})
    wrong = [r for r in ordered if r["problems"]]
    timed = [r["seconds"] for r in ordered if "seconds" in r]
    out = ["# Every-length generator: the long run", "",
           f"Programs {ordered[0]['index']}..{ordered[-1]['index']} of the seed-2025 stream "
           f"({len(ordered)} judged), plain checks at m = 1..{'/'.join(map(str, lengths))}; "
           f"written by `experiments/every_length_generator_run.py` from the run's ledger.", ""]
    if note:
        out += [note, ""]
    out += ["| constructs | " + " | ".join(OUTCOMES) + " | all |", "|---" * (len(OUTCOMES) + 2) + "|"]
    for k in kinds + ["all"]:
        cells = [sum(v for (c, o), v in by.items() if o == oc and k in (c, "all")) for oc in OUTCOMES]
        out.append(f"| {k} | " + " | ".join(map(str, cells)) + f" | {sum(cells)} |")
    short = Counter(r["unchecked_from"] for r in ordered if r.get("unchecked_from"))
    out += ["", f"Wrong verdicts: **{len(wrong)}**."]
    if short:
        out.append("Verified programs whose plain check stopped at its time limit (judged below that m only): "
                   + ", ".join(f"from m = {m}: {n}" for m, n in sorted(short.items())) + ".")
    if timed:
        out.append(f"Rate: {len(timed) / sum(timed) * 60:.1f} programs per minute over {len(timed)} timed programs "
                   "(wall clock of the judge, on a shared two-core machine).")
    out += ["", *construct_table(ordered)]
    for r in wrong:
        out += ["", f"## #{r['index']}", "", "```", *r["problems"], "```"]
    return "\n".join(out) + "\n"


def drawn(index: int) -> list[str]:
    """The constructs of issues 40 and 41 that program `index` draws (regenerated from the seeded
    stream, so the ledger need not record them)."""
    s = random_spec(random.Random(f"{SEED}:{index}"))
    return [name for name, on in (("second stored variable (issue 41)", s.second),
                                  ("stored from a read", s.store), ("shifted mean", s.mean_shift),
                                  ("counted output", s.counted), ("DLap draws", s.dlap)) if on]


def construct_table(ordered: list) -> list[str]:
    """Outcomes per construct, a program counted under each construct it draws."""
    by = Counter()
    for r in ordered:
        for name in drawn(r["index"]) or ["none of these"]:
            by[(name, r["outcome"])] += 1
    names = sorted({n for n, _ in by})
    lines = ["Per construct drawn (a program counts under each construct it draws):", "",
             "| construct | " + " | ".join(OUTCOMES) + " | all |", "|---" * (len(OUTCOMES) + 2) + "|"]
    for n in names:
        cells = [by[(n, oc)] for oc in OUTCOMES]
        lines.append(f"| {n} | " + " | ".join(map(str, cells)) + f" | {sum(cells)} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ledgers", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("every_length_generator_run.md"))
    parser.add_argument("--note", default="", help="a sentence for the table's head (e.g. how the run was timed)")
    args = parser.parse_args()
    args.out.write_text(table(read_rows(args.ledgers), args.note))
    print(args.out.read_text())


if __name__ == "__main__":
    main()
