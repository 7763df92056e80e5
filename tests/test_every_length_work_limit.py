"""The every-length search is bounded by a count of work (`length_work`), not by wall-clock time.

With a limit in seconds, the two "forever" theories printed a counterexample on an idle machine and
"stopped at the limit" on a busy one.  The work of a check is counted from its result
(`every_length.check_work`), so the same command stops at the same m whatever the load or the clock;
`length_seconds` is refused with a hint to the new limit (exit 2, never a traceback).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import types

import pytest

from conftest import PROGRAMS, ROOT, THEORIES, run_main

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.commands.merge import without_timing
from dipc_plus.privacy.online import every_length
from dipc_plus.privacy.online.every_length import decide_every_length

FOREVER = ["above_threshold_forever_privacy.toml", "svt_resample_forever_privacy.toml"]


def _dipc(args: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "dipc_plus", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)


def _verdict(theory: str, work: int) -> tuple[int, dict]:
    run = _dipc(["privacy", str(THEORIES / theory), "--json", "--no-progress", "--limit", f"length_work={work}"])
    assert run.returncode in (0, 1), run.stderr
    return run.returncode, without_timing(json.loads(run.stdout))


@pytest.mark.parametrize("theory, work, last", [(FOREVER[0], 15_000, 4), (FOREVER[1], 1_000, 3)])
def test_the_verdict_is_the_same_on_a_busy_machine(theory, work, last):
    # limits that stop the search before m = last + 1 (its work guessed from the growth of the last two
    # m), so the predictor decides the stop: past the claim's lengths for the first, at their end for
    # the second (which keeps the run short); two busy loops take both cores meanwhile
    idle = _verdict(theory, work)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        loaded = _verdict(theory, work)
    finally:
        for proc in busy:
            proc.kill()
            proc.wait(timeout=30)
    assert loaded == idle
    code, record = idle
    assert code == 1 and record["verdict"] == "not private for any constant"
    assert f"up to m = {last} (limit): the checks at m = {last + 1}" in record["pattern_counterexample"]
    assert "--limit length_work=N" in record["pattern_counterexample"]


def test_the_work_is_the_same_with_worker_processes():
    # the work is counted from the checks' results, which do not depend on which process ran the pairs:
    # the guess for m = 4 (from the work at m = 2, 3) is the same number with two workers
    def record(jobs: str) -> dict:
        run = _dipc(["privacy", str(THEORIES / FOREVER[1]), "--json", "--no-progress", "--jobs", jobs,
                     "--limit", "length_work=1000"])
        assert run.returncode == 1, run.stderr
        return without_timing(json.loads(run.stdout))
    serial, workers = record("1"), record("2")
    assert serial == workers
    assert "the checks at m = 4 were predicted to do about" in serial["pattern_counterexample"]


def _forever_claim(tmp_path, budget: str) -> str:
    p = tmp_path / "forever.toml"
    p.write_text(f'[program]\npath = "{(PROGRAMS / "above_threshold_forever.dip").as_posix()}"\n'
                 f'params = {{ m = 3 }}\n[privacy]\nadjacency = "linf"\nbudget = "{budget}"\n'
                 '[privacy.inputs]\ngrid = { q = [-1, 1] }\n')
    return str(p)


def test_a_slow_clock_changes_nothing(tmp_path, monkeypatch):
    # AboveThreshold that keeps going, claimed 3/4*eps: the exact loss at m = 4 is eps, so the search
    # past m = 1, 2 refutes it at m = 4.  A clock on which every check seems to take 10^6 s (a very
    # busy machine) gave "stopped at the limit" under the limit in seconds; the count of work does not
    # read it.
    path = _forever_claim(tmp_path, "3/4*eps")

    def decide():
        return decide_every_length(load_privacy_claim(path), path, {}, lengths=(1, 2), longer=(3, 4), family_limit=4)
    plain = decide()
    ticks = iter(range(0, 10 ** 12, 10 ** 6))
    monkeypatch.setattr(every_length, "time", types.SimpleNamespace(perf_counter=lambda: float(next(ticks))))
    slow = decide()
    assert plain.verdict == slow.verdict == "not private for any constant"
    assert plain.counterexample[0] == slow.counterexample[0] == 4
    assert plain.report().splitlines()[1:] == slow.report().splitlines()[1:]   # line 0 has the class check's ms


def test_a_tiny_limit_stops_before_the_next_m_and_names_it():
    code, out, err = run_main(["privacy", str(THEORIES / FOREVER[0]), "--no-progress", "--limit", "length_work=1000"])
    assert code == 1, err
    assert [line.split(":")[0].strip() for line in out.splitlines() if line.startswith("  m = ")] == \
        ["m = 1", "m = 2", "m = 3"]
    assert ("no counterexample to the claimed 1*eps found up to m = 3 (limit): the checks at m = 4 were predicted "
            "to do about") in out
    assert "past the limit of 1000 on the checks beyond the claim's lengths (--limit length_work=N" in out


@pytest.mark.parametrize("value, message", [
    ("0", "limit length_work must be positive"),
    ("-5", "--limit takes NAME=N"),
    ("1.5", "--limit takes NAME=N"),
    ("lots", "--limit takes NAME=N"),
    ("1" * 19, "--limit takes NAME=N"),
])
def test_bad_values_exit_2(value, message):
    code, out, err = run_main(["privacy", str(THEORIES / FOREVER[0]), "--limit", f"length_work={value}"])
    assert code == 2 and message in err and "Traceback" not in err


def test_the_limit_in_seconds_is_refused_with_a_hint_to_the_new_one():
    run = _dipc(["privacy", str(THEORIES / FOREVER[0]), "--limit", "length_seconds=300"])
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "limit length_seconds was replaced by length_work" in run.stderr
    assert "does not depend on the machine's load" in run.stderr and "--limit length_work=N" in run.stderr
