"""Run the 200-run signal storm of tests/test_signals.py in slices, and the worker-kill
storm of tests/test_worker_kill.py, and write their counts.

Why slices: the machine is shared, and one command should stay under a few minutes; the plan
(pattern, delay, gaps per run) is drawn from a fixed seed, so slices run apart add up to the
one storm `test_signal_storm_200` runs.  Each slice's counts go to signal_storm_counts.json;
signal_storm.md is rewritten from every slice recorded there.

    PYTHONPATH=. python experiments/signal_storm.py 0 50     # runs 0..49, then the table
    PYTHONPATH=. python experiments/signal_storm.py kill 0 20   # worker kills 0..19 (guarded and not)

The worker kills (issue 36): one --jobs worker SIGKILLed at a random moment (0-2 s after both
workers started) of the same NoisyMax run, guarded and unguarded; recorded under "kill" slices.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from test_signals import signal_storm, storm_plan  # noqa: E402
from test_worker_kill import kill_plan, kill_storm  # noqa: E402

RUNS, SEED = 200, 26
KILL_RUNS, KILL_SEED = 200, 36
COUNTS = HERE / "signal_storm_counts.json"
TABLE = HERE / "signal_storm.md"


def main(start: int, stop: int, kills: bool = False) -> None:
    done = json.loads(COUNTS.read_text()) if COUNTS.exists() else {}
    if kills:   # asserts every run is clean
        outcomes = kill_storm(kill_plan(KILL_RUNS, KILL_SEED)[start:stop])
    else:
        outcomes = signal_storm(storm_plan(RUNS, SEED)[start:stop])
    done[f"{'kill ' if kills else ''}{start}:{stop}"] = {f"{p} -> {c}": n for (p, c), n in sorted(outcomes.items())}
    COUNTS.write_text(json.dumps(done, indent=1, sort_keys=True) + "\n")
    TABLE.write_text(_table(done, "") + "\n" + _table(done, "kill "))
    print(TABLE.read_text())


def _table(done: dict, prefix: str) -> str:
    """The counts of every slice whose name starts with `prefix` ("" signals, "kill " worker kills)."""
    slices = {k: v for k, v in done.items() if k.startswith(prefix) and not k[len(prefix)].isalpha()}
    total: Counter = Counter()
    for part in slices.values():
        total.update(part)
    runs = sum(total.values())
    names = ", ".join(sorted((k.removeprefix(prefix) for k in slices), key=lambda s: int(s.split(":")[0])))
    rows = "\n".join(f"| {k.split(' -> ')[0]} | {k.split(' -> ')[1]} | {n} |" for k, n in sorted(total.items()))
    bad = sum(n for k, n in total.items() if k.split(" -> ")[1] in ("1", "3"))
    if prefix:
        head = (f"## Worker kills (tests/test_worker_kill.py, seed {KILL_SEED})\n\n"
                f"{runs} of {KILL_RUNS} runs recorded (slices {names or 'none'}). Each run: NoisyMax m = 5, "
                f"--jobs 2, --json, guarded or unguarded (--timeout 0 --max-memory 0); one worker SIGKILLed "
                f"0-2 s after both workers started. Every run ended with exit 2 naming the killed worker (or 0: "
                f"the run finished first), one JSON object, no traceback and no live process in its session.")
    else:
        head = (f"# Signal storm (tests/test_signals.py, seed {SEED})\n\n"
                f"{runs} of {RUNS} runs recorded (slices {names}). "
                f"Each run: NoisyMax m = 5, --jobs 2, --json, one signal pattern 0-1.5 s after main() began. "
                f"Every run ended with its pattern's code (or 0), one JSON object, no traceback and no live "
                f"process in its session (the script stops at the first that does not).")
    return f"{head}\n\nExit 1 or 3: {bad}.\n\n| pattern | exit | runs |\n| --- | --- | --- |\n{rows}\n"


if __name__ == "__main__":
    if sys.argv[1] == "kill":
        main(int(sys.argv[2]), int(sys.argv[3]), kills=True)
    else:
        main(int(sys.argv[1]), int(sys.argv[2]))
