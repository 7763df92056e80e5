"""Run one command under a time and memory guard that holds even inside C code.

Why a child process: a Python signal handler or timer runs only between
bytecodes, so it cannot stop one long FLINT or SymPy call.  `run_guarded` forks
the command into a child process in its own process group, with
``RLIMIT_AS`` set to the memory limit (an allocation past it fails inside C
too), and waits for it in the parent.  When the time limit passes, or the user
presses Ctrl-C or sends SIGTERM, the parent kills the whole group (the child
and any ``--jobs`` workers) with SIGKILL, which no code can delay, reaps it and
prints one line.  Exit status: 2 for a limit, 130 for SIGINT, 143 for SIGTERM.

The child's stdout and stderr are the parent's, so what it printed before the
limit (what was decided so far) stays on screen.  When they are not real file
descriptors (tests capturing ``sys.stdout``), the child buffers its text and
the parent prints it.
"""
from __future__ import annotations

import ctypes
import gc
import io
import json
import os
import resource
import select
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

from dipc_plus.execution import ledger

DEFAULT_TIMEOUT = 1800.0          # seconds
DEFAULT_MAX_MEMORY = 8 << 30      # bytes of address space per process

EXIT_LIMIT = 2
EXIT_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}


@dataclass
class Stopped:
    """Why a guarded run did not finish: a message for the user and the exit status."""
    message: str
    hint: str | None
    exit: int
    decided: list = field(default_factory=list)   # ledger records: what the child decided before
    dropped: int = 0                              # records past ledger.MAX_RECORDS, counted only


class _Signalled(Exception):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def parse_size(text: str) -> int:
    """'4G', '512M', '100000K', '0' (no limit) -> bytes; ValueError when unreadable.

    >>> parse_size("4G"), parse_size("512M"), parse_size("0")
    (4294967296, 536870912, 0)
    """
    t = str(text).strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    factor = 1
    if t and t[-1] in scale:
        factor, t = scale[t[-1]], t[:-1]
    if not t or len(t) > 15:
        raise ValueError(text)
    value = float(t)
    if value < 0 or value != value:
        raise ValueError(text)
    return int(value * factor)


def _real_fd(stream) -> bool:
    try:
        stream.fileno()
        return True
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


def _die_with_parent() -> None:
    """Linux: the child is killed when the parent dies, so a SIGKILLed parent leaves nothing behind."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _kill_group(pid: int) -> None:
    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except (ProcessLookupError, PermissionError):
            pass


def run_guarded(fn: Callable[[], int], *, timeout: float | None, max_memory: int | None,
                on_stop: Callable[[Stopped], int]) -> int:
    """fn() in a guarded child process; its exit code, or on_stop(...)'s when it was stopped.

    `timeout` (seconds) and `max_memory` (bytes) of 0 / None mean no limit; with
    neither, or where fork does not exist, fn runs in this process.
    """
    if not (timeout or max_memory) or not hasattr(os, "fork"):
        return fn()
    streaming = _real_fd(sys.stdout) and _real_fd(sys.stderr)
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except (OSError, ValueError):
            pass
    r, w = os.pipe()
    lr, lw = os.pipe()   # the ledger: what was decided so far, one JSON line per item
    gc.freeze()  # the child's collector then leaves the parent's objects alone: no copy-on-write storm
    pid = os.fork()
    if pid:
        gc.unfreeze()
    if pid == 0:  # the child: never returns
        code, out, err = 3, "", ""
        try:
            os.close(r)
            os.close(lr)
            ledger.attach(lw)
            os.setpgid(0, 0)
            _die_with_parent()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            if max_memory:
                resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))
            if timeout:  # belt and braces should the parent vanish: the kernel stops a CPU hog
                cpu = int(timeout) + 30
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            if not streaming:
                sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
            try:
                code = fn()
            except MemoryError:
                code = -1
            if not streaming:
                out, err = sys.stdout.getvalue(), sys.stderr.getvalue()
            for s in (sys.stdout, sys.stderr):
                try:
                    s.flush()
                except (OSError, ValueError):
                    pass
        except BaseException:  # pragma: no cover - fn handles its own errors
            code = 3
        try:
            payload = json.dumps({"exit": code, "out": out, "err": err}).encode()
            view = memoryview(payload)
            while view:
                view = view[os.write(w, view):]
        finally:
            os._exit(0)
    # the parent
    os.close(w)
    os.close(lw)
    decided = ledger.Collector()
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    old = {}

    def handler(signum, frame):
        raise _Signalled(signum)
    for sig in EXIT_SIGNAL:
        try:
            old[sig] = signal.signal(sig, handler)
        except ValueError:  # not the main thread: signals stay as they are
            pass
    deadline = time.monotonic() + timeout if timeout else None
    chunks, stop = [], None
    watched = [r, lr]
    try:
        while True:
            wait = 0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic()))
            ready, _, _ = select.select(watched, [], [], wait)
            if lr in ready:
                data = os.read(lr, 1 << 16)
                if data:
                    decided.feed(data)
                else:
                    watched.remove(lr)
            if r in ready:
                data = os.read(r, 1 << 16)
                if not data:
                    break
                chunks.append(data)
            if deadline is not None and time.monotonic() >= deadline:
                stop = Stopped(f"stopped after the time limit of {timeout:g} s", "raise it with --timeout SECONDS (0: no limit)", EXIT_LIMIT)
                break
    except _Signalled as sig:
        name = "interrupted" if sig.signum == signal.SIGINT else "terminated"
        stop = Stopped(f"{name}: stopped every worker", None, EXIT_SIGNAL[sig.signum])
    finally:
        if stop is not None:
            _kill_group(pid)
        _, status = os.waitpid(pid, 0)
        _kill_group(pid)  # workers the child left behind, if any
        os.close(r)
        os.close(lr)
        for sig, h in old.items():
            signal.signal(sig, h)

    def stopped(how: Stopped) -> int:
        how.decided, how.dropped = decided.records, decided.dropped
        return on_stop(how)
    if stop is not None:
        return stopped(stop)
    try:
        result = json.loads(b"".join(chunks).decode())
    except ValueError:
        result = None
    if result is None:
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"status {os.WEXITSTATUS(status)}"
        if max_memory and os.WIFSIGNALED(status):
            return stopped(Stopped(f"the run ended abnormally ({how}), most likely at the memory limit of "
                                   f"{max_memory >> 20} MiB", "raise it with --max-memory SIZE (e.g. 16G; 0: no "
                                   "limit)", EXIT_LIMIT))
        return stopped(Stopped(f"the run ended abnormally ({how})", "please report it", 3))
    if result["out"]:
        sys.stdout.write(result["out"])
    if result["err"]:
        sys.stderr.write(result["err"])
    if result["exit"] == -1:
        return stopped(Stopped(f"stopped at the memory limit of {max_memory >> 20} MiB",
                               "raise it with --max-memory SIZE (e.g. 16G; 0: no limit)", EXIT_LIMIT))
    return int(result["exit"])
