"""Counts of the box-accuracy generator (tests/test_box_accuracy_generator.py) on a sample of its
long-run seeds, with the reason of every UNDECIDED box: the before/after table of the certified
branch-and-bound (issue 39, item 3).

Usage: python experiments/box_bnb_generator_sample.py START COUNT OUT.tsv
(seeds SUITE + START ... SUITE + START + COUNT - 1 of the generator; one line per seed).
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import test_box_accuracy_generator as gen  # noqa: E402


def main() -> None:
    start, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    with open(out, "w") as sink, tempfile.TemporaryDirectory() as folder:
        for k in range(start, start + count):
            seed = gen.SEED + gen.SUITE + k
            t = time.perf_counter()
            try:
                outcome = gen.decide_case(seed, Path(folder))
            except AssertionError as exc:
                outcome = "CONTRADICTION " + str(exc).splitlines()[0]
            sink.write(f"{gen.SUITE + k}\t{outcome}\t{time.perf_counter() - t:.1f}\n")
            sink.flush()


if __name__ == "__main__":
    main()
