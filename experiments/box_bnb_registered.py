"""Box privacy verdicts on the generator's 100 suite programs (tests/test_box_privacy_generator.py),
before and after the pair branch-and-bound joined the portfolio (issue 38, method 3).

Run from a checkout: `PYTHONPATH=$PWD python experiments/box_bnb_registered.py [label]`; prints one
markdown row (the verdict counts, the seeds left undecided and the CPU seconds of the box decisions;
the suite's own test adds the dense-pair oracle, so contradictions are counted there).
"""
from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_box_privacy_generator import ORACLE_SLOW, SEED, SUITE, write_case  # noqa: E402

from dipc_plus.claims.privacy_reader import load_privacy_claim  # noqa: E402
from dipc_plus.privacy.dp.box import decide_box_privacy  # noqa: E402


def main(label: str) -> None:
    seen, open_seeds, methods = Counter(), [], Counter()
    t0 = time.process_time()
    for seed in range(SUITE):
        if seed in ORACLE_SLOW:
            continue
        folder = Path(tempfile.mkdtemp())
        res = decide_box_privacy(load_privacy_claim(write_case(SEED + seed, folder)))
        seen[res.verdict] += 1
        if res.verdict == "undecided":
            open_seeds.append(seed)
        if "branch-and-bound" in res.method:
            methods[res.verdict] += 1
    cpu = time.process_time() - t0
    print(f"| {label} | {seen['verified']} | {seen['refuted']} | {seen['undecided']} | "
          f"{', '.join(map(str, open_seeds)) or '-'} | {dict(methods) or '-'} | {cpu:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "this checkout")
