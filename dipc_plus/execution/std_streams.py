"""The three standard descriptors are always open, and a failing stderr never changes the outcome.

Why reserve them: a command started with stdout or stderr closed (`dipc ... >&-`, `2>&-`)
has no descriptor 1 or 2, so the next file or pipe we open takes that number (the signal
latch's pipe became "stdout"), and Python sets `sys.stdout` / `sys.stderr` to None, where
`print` writes nothing at all.  `reserve_standard_descriptors` puts /dev/null on each closed
one: read-only on 0 and 1, so that every write to a closed stdout still fails (EBADF, and
the command ends with exit 2, execution.output), write-only on 2, so that messages go nowhere.

Why a quiet stderr: a message is a courtesy, never a result.  With stderr on a full device
(`2>/dev/full`) the first message raised OSError and a bad input ended with exit 3;
`quiet_stderr` gives `sys.stderr` a writer that drops what it cannot write, so stdout's
content and the exit code are what they would have been.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys

_MODES = {0: os.O_RDONLY, 1: os.O_RDONLY, 2: os.O_WRONLY}


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
        return False
    except OSError:
        return True


def reserve_standard_descriptors() -> None:
    """/dev/null on each of descriptors 0, 1, 2 that is closed, and a `sys` stream for it."""
    for fd, mode in _MODES.items():
        if not _closed(fd):
            continue
        try:
            got = os.open(os.devnull, mode)
        except OSError:
            continue
        if got != fd:   # a lower one was taken meanwhile: put it where it belongs
            os.dup2(got, fd)
            os.close(got)
    if sys.stdout is None and not _closed(1):
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
    if sys.stderr is None and not _closed(2):
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True,
                                      errors="backslashreplace")


def descriptor(stream) -> int | None:
    """The descriptor under `stream`; None when it has none (a test capturing it, a closed stream)."""
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def write_all(fd: int, data) -> None:
    """Every byte of `data` to descriptor `fd` (os.write may take only part of it); OSError as os.write raises it."""
    view = memoryview(data).cast("B")
    while view:
        view = view[os.write(fd, view):]


def flush_quietly(*streams) -> None:
    for stream in streams:
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


class WholeWrites(io.RawIOBase):
    """A raw writer on a descriptor that returns only once every byte is written; what the
    descriptor refuses is dropped silently unless `failed` (a subclass's) raises.  The descriptor
    is not closed here (stderr's own)."""

    def __init__(self, fd: int):
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        try:
            return os.isatty(self._fd)
        except OSError:
            return False

    def write(self, data) -> int:
        try:
            write_all(self._fd, data)
        except OSError as exc:
            self.failed(exc)
        return memoryview(data).nbytes

    def failed(self, exc: OSError) -> None:
        """A write failed: dropped (stderr)."""


@contextlib.contextmanager
def quiet_stderr():
    """`sys.stderr` writes to descriptor 2 and never raises, until exit.  Does nothing when
    sys.stderr is not descriptor 2 (a test capturing it)."""
    fd = descriptor(sys.stderr)
    if fd != 2:
        yield
        return
    old = sys.stderr
    flush_quietly(old)
    sys.stderr = io.TextIOWrapper(io.BufferedWriter(WholeWrites(fd)), encoding=old.encoding,
                                  errors="backslashreplace", line_buffering=True, write_through=True)
    try:
        yield
    finally:
        ours, sys.stderr = sys.stderr, old
        flush_quietly(ours)
