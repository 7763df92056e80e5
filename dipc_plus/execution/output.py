"""Only our own text reaches stdout, every byte of it or a BrokenPipeError.

Why: native libraries print on the C-level stdout (FLINT writes "Unable to allocate memory"
to file descriptor 1 before it aborts), which put text before the JSON object of `--json`.
`own_stdout()` points descriptor 1 at stderr for the whole command, so whatever C code
prints lands there, and gives `sys.stdout` a private duplicate of the real stdout.

Why a writer of our own underneath: Python's buffered writer drops the rest of a large write
when the pipe's reader goes away in the middle of it (`dipc show BIG | head -1` ended with
exit 0); `_WholeWrites` writes until every byte is out, so the next write after a closed
pipe raises BrokenPipeError and the command ends with 141.

Why `StdoutFailed`: any other write that fails (a closed descriptor, a full device) is not a bug
of ours but the end of the report, so it must end with exit 2 and one line on stderr, never
with a verdict's code or exit 3.  The writer raises it in place of the OSError and remembers
the first failure (`OwnStdout.failure`), also one that a library caught and dropped (argparse
swallows OSError when it prints --help).
"""
from __future__ import annotations

import contextlib
import io
import os
import sys

from dipc_plus.execution.std_streams import WholeWrites, descriptor


class StdoutFailed(OSError):
    """A write to stdout failed for a reason other than a closed pipe (EBADF, ENOSPC, EIO, ...)."""


class OwnStdout:
    """What `own_stdout` did: `failure` is the first failed write to stdout (BrokenPipeError or
    StdoutFailed), None while every write went out."""

    def __init__(self):
        self.failure: OSError | None = None


class _StdoutWrites(WholeWrites):
    """Whole writes to the real stdout; the first failure is recorded and raised, later writes dropped."""

    def __init__(self, fd: int, state: OwnStdout):
        super().__init__(fd)
        self._state = state

    def write(self, data) -> int:
        return memoryview(data).nbytes if self._state.failure is not None else super().write(data)

    def failed(self, exc: OSError) -> None:
        if isinstance(exc, BrokenPipeError):
            self._state.failure = exc
            raise exc
        self._state.failure = StdoutFailed(exc.errno, exc.strerror)
        raise self._state.failure from None

    def close(self) -> None:
        if not self.closed:
            try:
                os.close(self._fd)
            except OSError:
                pass
        super().close()


@contextlib.contextmanager
def own_stdout():
    """Descriptor 1 goes to stderr, `sys.stdout` to the real stdout in whole writes, until exit.
    Yields an `OwnStdout` that records a failed write.

    Does nothing when sys.stdout is not descriptor 1 (a test capturing it) or stderr is closed."""
    state = OwnStdout()
    if descriptor(sys.stdout) != 1:
        yield state
        return
    try:
        sys.stdout.flush()
        real = os.dup(1)
        os.dup2(2, 1)
    except OSError:
        yield state
        return
    old = sys.stdout
    line_buffering = old.line_buffering or os.isatty(real)
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_StdoutWrites(real, state)), encoding=old.encoding,
                                  errors=old.errors, line_buffering=line_buffering, write_through=False)
    try:
        yield state
    finally:
        ours, sys.stdout = sys.stdout, old
        try:
            os.dup2(ours.fileno(), 1)   # the real stdout (or /dev/null after a closed pipe) back on 1
        except (OSError, ValueError):
            pass
        try:
            ours.close()                # flushed before: see flush_stdout
        except (OSError, ValueError):
            pass

