"""Issue 36, items 1 and 3: a `--jobs` worker killed with SIGKILL ends the run with exit 2 naming
it, within seconds (it hung a guarded run until --timeout), and a signal that the kernel hands to a
thread other than the main one still stops an unguarded run at once (it waited for the next task).

Every wait is bounded: a run that hangs fails its test by a timeout instead of hanging the suite.
`kill_storm` is the worker-kill part of the signal storm campaign (experiments/signal_storm.py).
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter

import pytest
from conftest import ROOT
from test_signals import ENV, UNGUARDED, WORK, Run, _children, _clean, _stat, _wait_for

KILLED = "a worker process died before finishing its part (process {} was killed by SIGKILL)"


def _live(pid: int) -> bool:
    return (st := _stat(pid)) is not None and st[0] != "Z"


def _workers(run: Run, guarded: bool, seconds: float = 60.0) -> list[int]:
    """The --jobs workers of the run: children of the guarded child, or of the command itself."""
    def owner():
        return run.guarded_child() if guarded else run.proc.pid
    assert _wait_for(lambda: (o := owner()) is not None and len([p for p in _children(o) if _live(p)]) >= 2,
                     seconds), "the --jobs 2 workers never started"
    return [p for p in _children(owner()) if _live(p)]


def _kill_one_worker(argv, guarded: bool, *, as_json: bool = False):
    run = Run(argv + ([] if guarded else UNGUARDED))
    run.ready()
    victim = _workers(run, guarded)[0]
    os.kill(victim, signal.SIGKILL)
    code, out, err, left = run.finish(timeout=60)   # before the fix: a guarded run hung to --timeout
    _clean(code, out, err, left, {2}, as_json=as_json)
    return victim, out, err


# -- item 1: a killed worker, through the command -------------------------------------------------

SPARSE_ACCURACY = ["accuracy", "theories/sparse.toml", "--set", "m=7", "--set", "c=1", "--summary", "--jobs", "2",
                   "--no-progress"]
SPARSE_SWEEP = ["sweep", "theories/sparse.toml", "--set", "m=7", "--set", "c=1", "--jobs", "2", "--no-progress"]
# about a minute of work on two workers: the kill lands long before it ends
SPARSE_PRIVACY = ["privacy", "theories/sparse_privacy.toml", "--set", "m=7", "--set", "c=2", "--jobs", "2",
                  "--no-progress"]


@pytest.mark.parametrize("argv", [SPARSE_ACCURACY, SPARSE_SWEEP, SPARSE_PRIVACY], ids=["accuracy", "sweep", "privacy"])
def test_a_killed_worker_ends_a_guarded_run_with_exit_2_naming_it(argv):
    victim, out, err = _kill_one_worker(argv, guarded=True)
    assert KILLED.format(victim) in err, err[-2000:]


def test_a_killed_worker_ends_an_unguarded_run_with_exit_2_naming_it():
    victim, out, err = _kill_one_worker(SPARSE_ACCURACY, guarded=False)
    assert KILLED.format(victim) in err, err[-2000:]


def test_a_killed_worker_in_a_json_run_is_one_json_error():
    victim, out, err = _kill_one_worker(SPARSE_ACCURACY + ["--json"], guarded=True, as_json=True)
    assert KILLED.format(victim) in out


# -- item 1 in one process: a worker dies while the other is busy ---------------------------------

def _script(body: str) -> subprocess.CompletedProcess:
    """`body` in a fresh interpreter, bounded: a hang is a TimeoutExpired (the test fails)."""
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(body)], cwd=ROOT, env=ENV, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)   # the session: the script and any worker left
        except OSError:
            pass
        proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_run_tasks_after_a_worker_died_does_not_wait_for_the_survivor():
    """Task 0 kills its worker; the other worker sleeps a minute (SIGTERM, which the pool sends
    the survivors of a broken pool, is ignored by our workers): the run must end at once."""
    got = _script("""
        import os, signal, time
        from dipc_plus.errors import UserError
        from dipc_plus.execution.executor import Executor, Source, run_tasks

        def task(source, k):
            if k == 0:
                time.sleep(0.5)   # the other worker has taken its task by now
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(60)
            return k

        try:
            list(run_tasks(task, Source(None), [0, 1], executor=Executor.local(2)))
        except UserError as exc:
            print(exc.message)
    """)
    assert got.returncode == 0 and "Traceback" not in got.stderr, got.stderr
    assert got.stdout.startswith(KILLED.split("(")[0] + "(process ") and "was killed by SIGKILL)" in got.stdout, \
        got.stdout


# -- item 3: a signal delivered to another thread of an unguarded run -----------------------------

def test_a_signal_taken_by_another_thread_stops_an_unguarded_run_at_once():
    """The kernel hands a process-directed signal to any thread that does not block it (the
    second of two back-to-back signals often goes to the pool's manager thread).  Python runs
    the handler in the main thread only, which sat on a lock until the next task finished (here a
    minute); pthread_kill sends INT and TERM to a helper thread, which is that case made certain."""
    got = _script("""
        import os, signal, sys, threading, time
        from dipc_plus.execution import guard
        from dipc_plus.execution.executor import Executor, Source, run_tasks

        def task(source, k):
            time.sleep(60)
            return k

        def from_another_thread():
            time.sleep(1.5)   # the workers are busy and the main thread waits on them
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.pthread_kill(threading.get_ident(), sig)
            time.sleep(60)

        def on_stop(stopped):
            print(stopped.message, flush=True)
            return stopped.exit

        threading.Thread(target=from_another_thread, daemon=True).start()
        work = lambda: len(list(run_tasks(task, Source(None), [0, 1, 2], executor=Executor.local(2))))
        sys.exit(guard.run_guarded(work, timeout=0, max_memory=0, on_stop=on_stop))
    """)
    assert got.returncode == 130, (got.returncode, got.stderr[-2000:])
    assert got.stdout.startswith("interrupted: stopped every worker") and "Traceback" not in got.stderr


# -- the campaign: SIGKILL of one worker at a random moment ---------------------------------------

KILL_PATTERNS = ("KILL-WORKER", "UNGUARDED-KILL-WORKER")


def kill_plan(n: int, seed: int) -> list[tuple[str, float]]:
    """n (pattern, delay after both workers started), drawn from seed."""
    rng = random.Random(seed)
    return [(rng.choice(KILL_PATTERNS), rng.uniform(0, 2.0)) for _ in range(n)]


def kill_storm(plan) -> Counter:
    """WORK (NoisyMax m = 10, --jobs 2, --json) per entry of `plan`, one worker SIGKILLed after its
    delay: every run must end with exit 2 naming that worker (or 0, finished first; or the
    worker was gone already), one JSON object, no traceback, no live process in its session."""
    outcomes: Counter = Counter()
    for pattern, delay in plan:
        guarded = not pattern.startswith("UNGUARDED")
        run = Run(WORK + ([] if guarded else UNGUARDED))
        run.ready()
        victim = _workers(run, guarded)[0]
        time.sleep(delay)
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass
        code, out, err, left = run.finish(timeout=60)
        obj = _clean(code, out, err, left, {0, 2})
        if code == 2:
            assert KILLED.format(victim) in obj["error"]["message"], obj["error"]
        outcomes[(pattern, code)] += 1
    return outcomes


def test_kill_storm_fixed_seed():
    outcomes = kill_storm(kill_plan(4, seed=36))
    assert sum(outcomes.values()) == 4 and not [k for k in outcomes if k[1] in (1, 3)]
