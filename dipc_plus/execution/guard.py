"""Run one command under a time and memory guard that holds even inside C code.

Why a child process: a Python signal handler or timer runs only between
bytecodes, so it cannot stop one long FLINT or SymPy call.  `run_guarded` forks
the command into a child process in its own process group, with
``RLIMIT_AS`` set to the memory limit (an allocation past it fails inside C
too), and watches it from the parent.  When the time limit passes, or the user
presses Ctrl-C or sends SIGTERM, the parent kills the whole group (the child
and any ``--jobs`` workers) with SIGKILL, which no code can delay, reaps it and
prints one line.  Exit status: 2 for a limit, 130 for SIGINT, 143 for SIGTERM.

The parent also watches the child itself: a child killed by a signal (kill -9,
the OOM killer, an abort inside FLINT) ends the run with exit 2 and what was
decided so far, and its workers are killed with it (they hold copies of the
result pipe, so waiting for its end alone would wait forever).  Signals reach
the parent through `lifetime.SignalLatch`, which never raises: a second signal
during cleanup changes nothing.

The run is three parts: `_child` (the forked process: limits, then the command),
`_watch` (the parent's loop until the result, a limit, a signal or the child's
death) and `_outcome` (the exit status and the message).

The child's stdout and stderr are the parent's, so what it printed before the
limit (what was decided so far) stays on screen.  When they are not real file
descriptors (tests capturing ``sys.stdout``), or stdout must carry exactly one
JSON object whatever happens (``buffer_stdout``), the child writes its text to a
temporary file and the parent copies it out, or prints the stop message instead.
"""
from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable

from dipc_plus.execution import ledger
from dipc_plus.execution.lifetime import (EXIT_SIGNAL, SignalLatch, die_with_parent, kill_group, signal_name,
                                          stop_message)
from dipc_plus.execution.std_streams import descriptor, flush_quietly, write_all

DEFAULT_TIMEOUT = 1800.0          # seconds
DEFAULT_MAX_MEMORY = 8 << 30      # bytes of address space per process
MAX_TIMEOUT = 10_000_000.0        # seconds (about 115 days): past it a deadline means nothing
MAX_MEMORY = 1 << 50              # bytes (1024T): past it RLIMIT_AS means nothing

EXIT_LIMIT = 2
MEMORY_HINT = "raise it with --max-memory SIZE (e.g. 16G; 0: no limit)"
_DRAIN_SECONDS = 2.0              # reading what is left in the pipes once every writer is dead


@dataclass
class Stopped:
    """Why a guarded run did not finish: a message for the user and the exit status."""
    message: str
    hint: str | None
    exit: int
    decided: list = field(default_factory=list)   # ledger records: what the child decided before
    dropped: int = 0                              # records past ledger.MAX_RECORDS, counted only

    @classmethod
    def by_signal(cls, signum: int) -> "Stopped":
        """The stop of a SIGINT (exit 130) or SIGTERM (143)."""
        return cls(stop_message(signum), None, EXIT_SIGNAL[signum])


def parse_size(text: str) -> int:
    """'4G', '512M', '100000K', '0' (no limit) -> bytes; ValueError when unreadable or over MAX_MEMORY.

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
    if not 0 <= value * factor <= MAX_MEMORY:   # also NaN and infinity
        raise ValueError(text)
    return int(value * factor)


def checked_limits(timeout: object, max_memory: object) -> tuple[float, int]:
    """`--timeout` and `--max-memory` (the API's `timeout=` and `max_memory=`) checked, as (seconds,
    bytes) with 0 for no limit; a UserError in the command's words otherwise.

    >>> checked_limits(600, "4G"), checked_limits(None, None)
    ((600.0, 4294967296), (0.0, 0))
    """
    from dipc_plus.errors import UserError
    from dipc_plus.execution.limits import clip
    try:
        seconds = float(timeout or 0)        # type: ignore[arg-type]
        if isinstance(timeout, bool) or not 0 <= seconds <= MAX_TIMEOUT:   # also NaN, inf, negative
            raise ValueError(timeout)
    except (TypeError, ValueError, OverflowError):
        raise UserError(f"--timeout must be 0 (no limit) or a number of seconds up to {MAX_TIMEOUT:.0f}, "
                        f"not {clip(timeout)}", hint="e.g. --timeout 600, or 0 for no limit") from None
    try:
        if isinstance(max_memory, bool):
            raise ValueError(max_memory)
        size = parse_size("0" if max_memory is None else str(max_memory))
    except (TypeError, ValueError, RecursionError):     # str() of a deep list
        raise UserError(f"--max-memory takes a size like 4G or 512M, at most {MAX_MEMORY >> 40}T, "
                        f"not '{clip(max_memory)}'", hint="0 means no limit") from None
    if size and size < (256 << 20):
        raise UserError("--max-memory must be at least 256M (Python and FLINT alone need about that much)",
                        hint="e.g. --max-memory 2G, or 0 for no limit")
    return seconds, size


def run_guarded(fn: Callable[[], int], *, timeout: float | None, max_memory: int | None,
                on_stop: Callable[[Stopped], int], buffer_stdout: bool = False,
                latch: SignalLatch | None = None) -> int:
    """fn() in a guarded child process; its exit code, or on_stop(...)'s when it was stopped.

    `timeout` (seconds) and `max_memory` (bytes) of 0 / None mean no limit; with
    neither, or where fork does not exist, fn runs in this process, and the first
    SIGINT / SIGTERM prints on_stop's text and leaves the process (`os._exit`).  `buffer_stdout`: fn's stdout is printed only when it
    finished, so a stopped run prints on_stop's text alone.  `latch`: the caller's,
    already entered (signals before the run count); by default one for this call.
    """
    with (contextlib.nullcontext(latch) if latch is not None else SignalLatch()) as latch:
        if not (timeout or max_memory) or not hasattr(os, "fork"):
            return _run_here(fn, on_stop, buffer_stdout, latch)
        if latch.first is not None:   # a signal came before the run began: start nothing
            return on_stop(Stopped.by_signal(latch.first))
        buffer_out = buffer_stdout or descriptor(sys.stdout) is None
        buffer_err = descriptor(sys.stderr) is None
        flush_quietly(sys.stdout, sys.stderr)
        r, w = os.pipe()
        lr, lw = os.pipe()   # the ledger: what was decided so far, one JSON line per item
        parent = os.getpid()
        with _stdout_spool(buffer_out) as spool:   # the child's stdout, shown once it finished
            gc.freeze()  # the child's collector then leaves the parent's objects alone: no copy-on-write storm
            pid = os.fork()
            if pid == 0:
                _child(fn, parent, (r, w, lr, lw), latch, timeout, max_memory, spool, buffer_err)
            gc.unfreeze()
            os.close(w)
            os.close(lw)
            try:
                os.setpgid(pid, pid)
            except OSError:
                pass
            return _outcome(_watch(pid, r, lr, latch, timeout), max_memory, on_stop, spool)


def _stdout_spool(wanted: bool):
    """A temporary file that stands for stdout until the command finished (closed when the context
    ends), or None when not `wanted`.  Why not a string: a grid check's JSON is large (170 MB at
    Sparse m = 12), and as a string it was held several times over (the text, its JSON-escaped copy
    through the result pipe, the parent's copies)."""
    return tempfile.TemporaryFile(mode="w+", encoding="utf-8") if wanted else contextlib.nullcontext()


def _copy_spool(spool, out) -> None:
    """What the command wrote to the spool, onto `out`."""
    spool.flush()
    spool.seek(0)
    shutil.copyfileobj(spool, out, 1 << 20)


def _run_here(fn, on_stop, buffer_stdout, latch) -> int:
    """No limits: fn in this process.  The first signal prints the stop (fn's buffered stdout
    dropped) and leaves the process at once; its workers die with it (parent-death signal)."""
    real = sys.stdout

    def end(signum: int) -> None:
        code = EXIT_SIGNAL[signum]
        try:
            sys.stdout = real
            code = on_stop(Stopped.by_signal(signum))
            flush_quietly(sys.stdout, sys.stderr)
        finally:
            os._exit(code)
    with _stdout_spool(buffer_stdout) as spool:
        try:   # stdout is the real one again before on_stop speaks
            with contextlib.redirect_stdout(spool if spool is not None else real), latch.ending(end):
                code = fn()
        except MemoryError:
            return on_stop(Stopped("ran out of memory", "set a limit with --max-memory SIZE to stop cleanly",
                                   EXIT_LIMIT))
        if spool is not None:
            _copy_spool(spool, sys.stdout)
    return code


def _child(fn, parent, fds, latch, timeout, max_memory, spool, buffer_err) -> None:
    """The forked child: its own process group and limits, then fn; sends the result and never returns."""
    r, w, lr, lw = fds
    code, err = 3, ""
    try:
        os.close(r)
        os.close(lr)
        latch.close_in_child()
        ledger.attach(lw)
        os.setpgid(0, 0)
        die_with_parent(parent)
        if max_memory:
            resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))
        if timeout:  # belt and braces should the parent vanish: the kernel stops a CPU hog
            cpu = int(timeout) + 30
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        if spool is not None:
            sys.stdout = spool
        if buffer_err:
            sys.stderr = io.StringIO()
        try:
            code = fn()
        except MemoryError:
            code = -1
        err = sys.stderr.getvalue() if buffer_err else ""
        flush_quietly(sys.stdout, sys.stderr)
    except BaseException:  # pragma: no cover - fn handles its own errors
        code = 3
    try:
        write_all(w, json.dumps({"exit": code, "err": err}).encode())
    finally:
        os._exit(0)


@dataclass
class _Watched:
    """What the parent saw: the result bytes, the child's wait status, why it stopped it, the ledger."""
    chunks: list
    status: int | None
    stop: Stopped | None
    decided: ledger.Collector


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when `pid` exits (Linux 5.3+), else None (then polled)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _exited(pid: int) -> bool:
    """Has the child ended?  Asked without reaping it: until it is reaped its pid (and so its
    process group's id) cannot name another process, so killing the group stays safe."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _reap(pid: int) -> int:
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0


def _watch(pid: int, r: int, lr: int, latch: SignalLatch, timeout: float | None) -> _Watched:
    """The parent's loop: read the result and the ledger until the result is complete, the time
    limit passes, a signal comes or the child dies; then kill the group, reap and drain."""
    seen = _Watched([], None, None, ledger.Collector())
    deadline = time.monotonic() + timeout if timeout else None
    pidfd = _pidfd(pid)
    watched = {fd for fd in (r, lr, latch.fd, pidfd) if fd is not None and fd >= 0}
    while True:
        if latch.first is not None:
            seen.stop = Stopped.by_signal(latch.first)
            break
        wait = 0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic()))
        ready, _, _ = select.select(sorted(watched), [], [], wait)
        if latch.fd in ready:
            latch.drain()
        if lr in ready and not _read_into(lr, seen.decided.feed):
            watched.discard(lr)
        if r in ready and not _read_into(r, seen.chunks.append):
            break   # the result is complete: a signal from now on changes nothing
        if _exited(pid):
            if latch.first is not None:   # the user's word wins over how the child ended
                seen.stop = Stopped.by_signal(latch.first)
            break   # what it wrote is read below
        if deadline is not None and time.monotonic() >= deadline:
            seen.stop = Stopped(f"stopped after the time limit of {timeout:g} s",
                                "raise it with --timeout SECONDS (0: no limit)", EXIT_LIMIT)
            break
    kill_group(pid)   # the child (if still running) and every worker: they hold the pipes open
    seen.status = _reap(pid)
    _drain(lr, seen.decided.feed)
    _drain(r, seen.chunks.append)
    for fd in (r, lr, pidfd):
        if fd is not None:
            os.close(fd)
    return seen


def _read_into(fd: int, put) -> bool:
    """One read of `fd` handed to `put`; False at end of file."""
    data = os.read(fd, 1 << 16)
    if data:
        put(data)
    return bool(data)


def _drain(fd: int, put) -> None:
    """Whatever is left in a pipe whose writers are dead (bounded, should one have escaped the group)."""
    end = time.monotonic() + _DRAIN_SECONDS
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        if not ready or not _read_into(fd, put):
            return


def _outcome(seen: _Watched, max_memory: int | None, on_stop: Callable[[Stopped], int], spool=None) -> int:
    """The exit status of a watched run: the child's own, or on_stop's for a stop or an abnormal end."""
    def stopped(how: Stopped) -> int:
        how.decided, how.dropped = seen.decided.records, seen.decided.dropped
        return on_stop(how)
    if seen.stop is not None:
        return stopped(seen.stop)
    try:
        result = json.loads(b"".join(seen.chunks).decode())
    except ValueError:
        result = None
    if not isinstance(result, dict):
        return stopped(_abnormal_end(seen.status or 0, max_memory))
    if spool is not None:
        _copy_spool(spool, sys.stdout)
    if result["err"]:
        sys.stderr.write(result["err"])
    if result["exit"] == -1:
        return stopped(Stopped(f"stopped at the memory limit of {max_memory >> 20} MiB", MEMORY_HINT, EXIT_LIMIT))
    return int(result["exit"])


def _abnormal_end(status: int, max_memory: int | None) -> Stopped:
    """A child that died without sending its result: killed by a signal (exit 2, or 130/143 for
    SIGINT/SIGTERM sent to it directly), or a bug of ours (exit 3)."""
    if not os.WIFSIGNALED(status):
        return Stopped(f"the run ended abnormally (status {os.waitstatus_to_exitcode(status)})",
                       "this is a bug in dipc, please report it", 3)
    sig = os.WTERMSIG(status)
    if sig in EXIT_SIGNAL:
        return Stopped.by_signal(sig)
    name = signal_name(sig)
    if sig == signal.SIGKILL:
        return Stopped("the run was killed (SIGKILL: the out-of-memory killer or another process)",
                       "if memory ran out, lower --jobs or --max-memory (e.g. --max-memory 4G)", EXIT_LIMIT)
    if max_memory:
        return Stopped(f"the run ended abnormally ({name}), most likely at the memory limit of {max_memory >> 20} MiB",
                       MEMORY_HINT, EXIT_LIMIT)
    return Stopped(f"the run ended abnormally ({name}), most likely out of memory",
                   "set --max-memory SIZE to stop at a limit (e.g. 16G)", EXIT_LIMIT)
