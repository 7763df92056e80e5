"""Only our own text reaches stdout, every byte of it or a BrokenPipeError.

Why: native libraries print on the C-level stdout (FLINT writes "Unable to allocate memory"
to file descriptor 1 before it aborts), which put text before the JSON object of `--json`.
`own_stdout()` points descriptor 1 at stderr for the whole command, so whatever C code
prints lands there, and gives `sys.stdout` a private duplicate of the real stdout.

Why a writer of our own underneath: Python's buffered writer drops the rest of a large write
when the pipe's reader goes away in the middle of it (`dipc show BIG | head -1` ended with
exit 0); `_WholeWrites` writes until every byte is out, so the next write after a closed
pipe raises BrokenPipeError and the command ends with 141.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys


class _WholeWrites(io.RawIOBase):
    """A raw writer on a descriptor that returns only once every byte is written."""

    def __init__(self, fd: int):
        self._fd = fd
        self._broken = False   # after the first BrokenPipeError, later writes are dropped quietly

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        total = len(view)
        if self._broken:
            return total
        try:
            while view:
                view = view[os.write(self._fd, view):]
        except BrokenPipeError:
            self._broken = True
            raise
        return total

    def close(self) -> None:
        if not self.closed:
            try:
                os.close(self._fd)
            except OSError:
                pass
        super().close()


def _stdout_is_fd1() -> bool:
    try:
        return sys.stdout.fileno() == 1
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


@contextlib.contextmanager
def own_stdout():
    """Descriptor 1 goes to stderr, `sys.stdout` to the real stdout in whole writes, until exit.

    Does nothing when sys.stdout is not descriptor 1 (a test capturing it) or stderr is closed."""
    if not _stdout_is_fd1():
        yield
        return
    try:
        sys.stdout.flush()
        real = os.dup(1)
        os.dup2(2, 1)
    except OSError:
        yield
        return
    old = sys.stdout
    line_buffering = old.line_buffering or os.isatty(real)
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_WholeWrites(real)), encoding=old.encoding,
                                  errors=old.errors, line_buffering=line_buffering, write_through=False)
    try:
        yield
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

