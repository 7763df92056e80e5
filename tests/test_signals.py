"""Issue 26, rows 1-5 and 19: exit codes under any signal pattern, a watchdog that survives its
child, nothing but our JSON on stdout, validated --timeout / --max-memory, 141 on a closed pipe.

Every run is the user's command in a new session (start_new_session), so "no process of ours
outlives the command" is checked on the process table: after the command ends, no live
process may remain in its session (zombies waiting for PID 1 to reap them are dead).
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import ROOT

DIPC = [sys.executable, "-m", "dipc_plus"]
# DIPC_CLASSES=off: the per-point path, whose run lengths these timings are made for (with argmax
# orbits NoisyMax m = 6 ends in a few seconds, before a fixed-delay signal lands)
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "DIPC_CLASSES": "off"}
# NoisyMax m = 10 with two workers: seconds of work, so a signal lands mid-run
WORK = ["accuracy", "programs/noisy_max.dip", "theories/noisy_max.toml", "--set", "m=10", "--jobs", "2",
        "--no-progress", "--json"]
UNGUARDED = ["--timeout", "0", "--max-memory", "0"]
# a run that outlasts a fixed delay on an idle machine too (WORK takes about 3 s, m = 12 over 15 s;
# m = 5 and 6 took 3 s and 15 s before the argmax classes shared det and dd, now half a second)
LONG_WORK = [("m=12" if a == "m=10" else a) for a in WORK] + ["--limit", "grid_points=1000000"]


def _stat(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name: state, ppid, pgrp, session, ..."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _pids() -> list[int]:
    return [int(e) for e in os.listdir("/proc") if e.isdigit()]


def _session(sid: int) -> list[int]:
    """Live (not zombie) processes of session `sid`."""
    return [p for p in _pids() if (st := _stat(p)) and st[3] == str(sid) and st[0] != "Z"]


def _children(pid: int) -> list[int]:
    return [p for p in _pids() if (st := _stat(p)) and st[1] == str(pid) and st[0] != "Z"]


def _catches_sigterm(pid: int) -> bool:
    """Has `pid` installed a SIGTERM handler (our signal latch: main() has begun)?"""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    except OSError:
        pass
    return False


def _wait_for(cond, seconds=120.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False


class Run:
    """The command in its own session; `finish()` gives (exit, stdout, stderr, leftover pids)."""

    def __init__(self, argv, *, prefix=()):
        self.proc = subprocess.Popen([*prefix, *DIPC, *map(str, argv)], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.sid = self.proc.pid

    def ready(self) -> None:
        assert _wait_for(lambda: _catches_sigterm(self.proc.pid)), "the command never started"

    def guarded_child(self) -> int | None:
        kids = [p for p in _children(self.proc.pid) if _stat(p)[2] == str(p)]   # leads its own group
        return kids[0] if kids else None

    def finish(self, timeout=120):
        left = []
        try:
            out, err = self.proc.communicate(timeout=timeout)
            _wait_for(lambda: not _session(self.sid), 5.0)   # SIGKILLed workers take a moment to go
            left = _session(self.sid)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            for p in _session(self.sid):   # never leak into the other tests, also after a hang
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
        return self.proc.returncode, out, err, left


def _one_json_object(out: str) -> dict:
    obj = json.loads(out)           # fails on two objects, on text before it, on nothing at all
    assert isinstance(obj, dict)
    return obj


def _clean(code, out, err, left, expected, *, as_json=True):
    assert code in expected, (code, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    assert not left, f"processes of the run still alive: {left}"
    if as_json:
        obj = _one_json_object(out)
        if code != 0:
            assert obj["exit"] == code
        return obj
    return None


# -- row 1: two signals close together -----------------------------------------------------------

@pytest.mark.parametrize("signals, code", [((signal.SIGINT, signal.SIGINT), 130),
                                           ((signal.SIGTERM, signal.SIGTERM), 143),
                                           ((signal.SIGINT, signal.SIGTERM), 130)])
def test_two_signals_back_to_back(signals, code):
    run = Run(WORK)
    run.ready()
    assert _wait_for(lambda: run.guarded_child() is not None)
    for sig in signals:
        run.proc.send_signal(sig)
    obj = _clean(*run.finish(), {code})
    assert "stopped every worker" in obj["error"]["message"] and "decided_so_far" in obj


@pytest.mark.parametrize("first, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_burst_of_signals_during_cleanup(first, code):
    """The first signal decides the code; forty more, every 5 ms, land in the cleanup.  (Of two
    signals pending at once Python runs the lower-numbered handler first, so a burst mixing
    INT into a TERM could honestly end with 130: the burst repeats the first signal.)"""
    run = Run(WORK)
    run.ready()
    assert _wait_for(lambda: run.guarded_child() is not None)
    run.proc.send_signal(first)
    for k in range(40):
        if run.proc.poll() is not None:
            break
        run.proc.send_signal(first)
        time.sleep(0.005)
    _clean(*run.finish(), {code})


def test_gnu_timeout_signals_the_process_and_its_group():
    # `timeout` sends TERM to the command, then to its own process group: the command gets two
    run = Run(LONG_WORK, prefix=("timeout", "--preserve-status", "-s", "TERM", "4"))
    _clean(*run.finish(), {143})


# -- row 2: the guarded child killed -------------------------------------------------------------

def test_kill_9_of_the_guarded_child_ends_the_run_with_exit_2():
    run = Run(WORK)
    assert _wait_for(lambda: (c := run.guarded_child()) is not None and len(_children(c)) >= 2), \
        "the --jobs 2 workers never started"
    os.kill(run.guarded_child(), signal.SIGKILL)     # what the OOM killer does
    obj = _clean(*run.finish(), {2})
    assert "SIGKILL" in obj["error"]["message"] and "decided_so_far" in obj


# -- row 3: unguarded runs -----------------------------------------------------------------------

def _unguarded_workers(run) -> list[int]:
    assert _wait_for(lambda: len(_children(run.proc.pid)) >= 2), "the --jobs 2 workers never started"
    return _children(run.proc.pid)


def test_sigterm_on_an_unguarded_run_ends_its_workers():
    run = Run(WORK + UNGUARDED)
    _unguarded_workers(run)
    run.proc.send_signal(signal.SIGTERM)
    obj = _clean(*run.finish(), {143})
    assert "terminated" in obj["error"]["message"]


def test_kill_9_of_an_unguarded_run_takes_its_workers_along():
    run = Run(WORK + UNGUARDED)
    workers = _unguarded_workers(run)
    run.proc.kill()
    code, out, err, left = run.finish()
    assert code == -signal.SIGKILL and not left, left
    assert not [p for p in workers if (st := _stat(p)) and st[0] != "Z"]


# -- row 4: native-library messages never reach stdout -------------------------------------------

def test_flint_allocation_failure_is_the_memory_limit_and_stays_off_stdout(tmp_path):
    text = (ROOT / "theories/sparse.toml").read_text().replace('"../', f'"{ROOT}/')
    lines = [('beta = "((((eps+1)**200)**200)**200)"' if ln.startswith("beta") else ln) for ln in text.splitlines()]
    claim = tmp_path / "nested.toml"
    claim.write_text("\n".join(lines) + "\n")
    # the terms limit refuses this formula while reading (issue 26 row 4); raised, FLINT itself runs out
    run = Run(["accuracy", claim, "--json", "--max-memory", "512M", "--limit", "terms=1000000000000"])
    code, out, err, left = run.finish(timeout=170)
    obj = _clean(code, out, err, left, {2})                  # stdout is our one JSON object alone
    assert "memory limit of 512 MiB" in obj["error"]["message"]
    assert "allocate" in err or "memory" in err              # FLINT's own words went to stderr


def test_c_level_stdout_of_the_command_goes_to_stderr(tmp_path):
    """printf from C inside the command: stderr, while our own print reaches stdout."""
    script = tmp_path / "c_print.py"
    script.write_text(
        "import ctypes, sys\n"
        "from dipc_plus.execution.output import own_stdout\n"
        "libc = ctypes.CDLL(None)\n"
        "with own_stdout():\n"
        "    libc.printf(b'from C\\n'); libc.fflush(None)\n"
        "    print('from Python')\n"
        "    sys.stdout.flush()\n"
        "print('after')\n")
    proc = subprocess.run([sys.executable, script], env=ENV, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "from Python\nafter\n" and proc.stderr == "from C\n"


# -- row 5: --timeout and --max-memory validated -------------------------------------------------

@pytest.mark.parametrize("option, value", [("--timeout", "inf"), ("--timeout", "1e300"), ("--timeout", "nan"),
                                           ("--max-memory", "99999999999T"), ("--max-memory", "1e400"),
                                           ("--max-memory", "inf")])
def test_absurd_limits_are_refused(option, value):
    if value in ("inf", "1e400"):   # as text
        code, out, err, left = Run(["show", "programs/sparse.dip", option, value]).finish()
        _clean(code, out, err, left, {2}, as_json=False)
        assert out == "" and option in err and len(err.splitlines()) == 2
    else:
        run = Run(["accuracy", "theories/sparse.toml", "--input", "q=[0,0,0]", "--json", option, value])
        obj = _clean(*run.finish(), {2})
        assert option in obj["error"]["message"] and obj["error"]["hint"]


# -- row 19: a closed pipe is 141 ----------------------------------------------------------------

@pytest.mark.parametrize("argv", [["show", "programs/sparse.dip", "--set", "m=1000"],
                                  ["dtmc", "programs/noisy_max.dip", "--set", "m=8", "--input", "q=[0,0,0,0,0,0,0,0]",
                                   "--full"]])
def test_large_output_into_head(argv):
    cmd = " ".join([*DIPC, *argv])
    proc = subprocess.run(["bash", "-c", f"{cmd} | head -1; echo ${{PIPESTATUS[0]}} >&2"], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=120)
    assert len(proc.stdout.splitlines()) == 1
    assert proc.stderr.splitlines() == ["141"], proc.stderr


@pytest.mark.parametrize("argv", [
    ["show", "programs/sparse.dip"],
    ["simulate", "programs/laplace.dip", "--eps", "1", "-n", "100", "--input", "q=[0,0]"],
    ["prob", "programs/laplace.dip", "--input", "q=[0,0]"],
    ["dtmc", "programs/sparse.dip", "--input", "q=[-1,0,1]", "--full"],
    ["accuracy", "theories/sparse.toml", "--input", "q=[0,0,0]", "--no-progress"],
    ["accuracy", "theories/sparse.toml", "--input", "q=[0,0,0]", "--json"],
    ["sweep", "theories/sparse.toml", "--set", "c=1", "--input", "q=[-1,-1,1]"],
    ["privacy", "theories/laplace_privacy.toml"],
    ["privacy-loss", "theories/noisy_min_privacy.toml"],
    ["show", "programs/sparse.dip", "--timeout", "0", "--max-memory", "0"],
    ["--help"],
])
def test_every_command_into_a_closed_pipe(argv):
    r, w = os.pipe()
    os.close(r)  # like `dipc ... | head` after head has exited
    proc = subprocess.run([*DIPC, *argv], cwd=ROOT, env=ENV, stdout=w, stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(w)
    assert proc.returncode == 141 and proc.stderr == "", proc.stderr


# -- rows 1-3 together: random signal timings and patterns ---------------------------------------

PATTERNS = ("INT", "TERM", "INT+INT", "TERM+TERM", "INT+TERM", "GROUP-TERM", "GROUP-INT", "KILL-CHILD",
            "UNGUARDED-TERM", "UNGUARDED-INT+INT")
EXPECTED = {"INT": {130}, "TERM": {143}, "INT+INT": {130}, "TERM+TERM": {143}, "INT+TERM": {130},
            "GROUP-TERM": {143}, "GROUP-INT": {130}, "KILL-CHILD": {2}, "UNGUARDED-TERM": {143},
            "UNGUARDED-INT+INT": {130}}


def storm_plan(n: int, seed: int) -> list[tuple[str, float, tuple[float, ...]]]:
    """n (pattern, delay after main() began, gaps between the pattern's signals), drawn from seed."""
    rng = random.Random(seed)
    plan = []
    for _ in range(n):
        pattern = rng.choice(PATTERNS)
        plan.append((pattern, rng.uniform(0, 1.5), tuple(rng.choice((0, 0, 0.001, 0.01, 0.05)) for _ in range(2))))
    return plan


def _send(run: Run, pattern: str, gaps: tuple[float, ...]) -> None:
    pid = run.proc.pid
    if pattern == "KILL-CHILD":
        assert _wait_for(lambda: run.guarded_child() is not None, 30.0)
        os.kill(run.guarded_child(), signal.SIGKILL)
        return
    pattern = pattern.removeprefix("UNGUARDED-")
    group = pattern.startswith("GROUP-")
    for name, gap in zip(pattern.removeprefix("GROUP-").split("+"), gaps):
        sig = signal.Signals[f"SIG{name}"]
        os.kill(pid, sig)
        if group:          # GNU timeout: the process, then the whole group
            os.killpg(pid, sig)
        time.sleep(gap)


def signal_storm(plan) -> Counter:
    """One run of WORK per entry of `plan`, hit by its pattern after its delay; every run must end
    with its pattern's code (or 0, finished first), one JSON object, no traceback and no live
    process left in its session."""
    outcomes: Counter = Counter()
    for pattern, delay, gaps in plan:
        run = Run(WORK + (UNGUARDED if pattern.startswith("UNGUARDED") else []))
        run.ready()
        time.sleep(delay)
        _send(run, pattern, gaps)
        code, out, err, left = run.finish()
        _clean(code, out, err, left, EXPECTED[pattern] | {0})
        outcomes[(pattern, code)] += 1
    return outcomes


def test_signal_storm_fixed_seed():
    outcomes = signal_storm(storm_plan(20, seed=20261126))
    print(sorted(outcomes.items()))
    assert sum(outcomes.values()) == 20
    assert not [k for k in outcomes if k[1] in (1, 3)]


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("DIPC_LONG") != "1",
                    reason="200 timings take about 3 minutes: set DIPC_LONG=1 (the fixed-seed 20 above run always; "
                           "experiments/signal_storm.md records a full run)")
def test_signal_storm_200():
    outcomes = signal_storm(storm_plan(200, seed=26))
    print(sorted(outcomes.items()))
    assert sum(outcomes.values()) == 200
    assert not [k for k in outcomes if k[1] in (1, 3)]


# -- the latch itself, in this process -----------------------------------------------------------

def test_the_latch_keeps_the_first_signal_and_counts_the_rest():
    from dipc_plus.execution.lifetime import SignalLatch
    before = signal.getsignal(signal.SIGTERM)
    with SignalLatch() as latch:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
            os.kill(os.getpid(), sig)
            time.sleep(0.01)     # each handler runs before the next signal is sent
        assert latch.first == signal.SIGTERM and latch.count == 3
        assert os.read(latch.fd, 16)               # the watchdog's select() was woken
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_second_signal_nested_in_the_first_handler_does_not_win():
    """SIGINT then SIGTERM close together: TERM's Python handler can run nested inside INT's
    before INT's records anything (seen once in the storm: INT+TERM, gap 0, exit 143)."""
    from dipc_plus.execution.lifetime import SignalLatch

    class NestingLatch(SignalLatch):
        """Sends SIGTERM from inside the first handler, before `first` is recorded."""
        @property
        def count(self):
            return self._n

        @count.setter
        def count(self, value):
            self._n = value
            if value == 1:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.01)    # TERM's handler runs here, nested

    with NestingLatch() as latch:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        assert latch.count == 2
        assert latch.first == signal.SIGINT


def test_a_signal_before_the_guarded_run_starts_nothing(tmp_path):
    from dipc_plus.execution import guard
    from dipc_plus.execution.lifetime import SignalLatch
    marker = tmp_path / "ran"
    stops = []
    with SignalLatch() as latch:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)
        code = guard.run_guarded(lambda: marker.write_text("x") and 0, timeout=30, max_memory=0,
                                 on_stop=lambda s: stops.append(s) or s.exit, latch=latch)
    assert code == 130 and stops[0].message.startswith("interrupted") and not marker.exists()
