"""Reading untrusted input files and writing outputs without ever destroying an input.

Why: ``path = "/dev/zero"`` in a claim once read until 9 GB were resident, and
``dipc dtmc x.dip -o x.dip`` replaced the program by its chain.  Inputs must be
regular files under the `file_bytes` limit; outputs are refused when they name
an input, and are written to a temporary file in the same folder, then renamed
over the target (`os.replace`), so a crash never leaves half a file.
"""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from dipc_plus.errors import UserError
from dipc_plus.execution import limits

_INPUTS: set[str] = set()


def read_user_file(path, what: str = "file", hint: str | None = None) -> bytes:
    """The bytes of a regular file of at most `file_bytes` bytes, read without following it further."""
    path = str(path)
    shown = limits.clip(path, 80)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UserError(f"cannot read the {what} '{shown}': no such file", hint=hint or "check the path", file=path) from None
    except IsADirectoryError:
        raise UserError(f"cannot read the {what} '{shown}': it is a directory", hint=hint or "give a file", file=path) from None
    except OSError as err:
        raise UserError(f"cannot read the {what} '{shown}': {err.strerror or err}",
                        hint=hint or "check the path and permissions", file=path) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UserError(f"cannot read the {what} '{shown}': it is a directory", hint=hint or "give a file", file=path)
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"cannot read the {what} '{shown}': not a regular file (a device, FIFO or socket)",
                            hint=hint or "give the path of an ordinary file", file=path)
        limit = limits.get("file_bytes")
        if info.st_size > limit:
            raise UserError(f"the {what} '{shown}' has {info.st_size} bytes, over the limit of {limit}",
                            hint=limits.hint("file_bytes"), file=path)
        with os.fdopen(fd, "rb", closefd=True) as fh:
            fd = None
            data = fh.read(limit + 1)
        if len(data) > limit:  # grew while we read it
            raise UserError(f"the {what} '{shown}' has more than {limit} bytes", hint=limits.hint("file_bytes"), file=path)
        note_input(path)
        return data
    finally:
        if fd is not None:
            os.close(fd)


def note_input(path) -> None:
    """Remember `path` as an input of this run: no output may replace it."""
    _INPUTS.add(os.path.realpath(str(path)))


def forget_inputs() -> None:
    _INPUTS.clear()


def _same(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output(path, inputs=()) -> None:
    """Refuse an output path that is an input of this run (given, or read so far)."""
    path = str(path)
    for inp in list(inputs) + sorted(_INPUTS):
        if inp and _same(path, str(inp)):
            raise UserError(f"refusing to write '{limits.clip(path, 80)}': it is an input of this run "
                            f"({limits.clip(inp, 80)})", hint="choose another output file name")


@contextlib.contextmanager
def atomic_path(path, inputs=()):
    """Yield a temporary path beside `path` (same extension); on success rename it over `path`."""
    path = str(path)
    check_output(path, inputs)
    folder = os.path.dirname(os.path.abspath(path))
    base, ext = os.path.splitext(os.path.basename(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=f".tmp{ext}", dir=folder)
    except OSError as err:
        raise UserError(f"cannot write '{limits.clip(path, 80)}': {err.strerror or err}",
                        hint="check that the folder exists and is writable") from None
    os.close(fd)
    try:
        yield tmp
        check_output(path, inputs)
        os.replace(tmp, path)
    except OSError as err:
        raise UserError(f"cannot write '{limits.clip(path, 80)}': {err.strerror or err}",
                        hint="check that the folder exists and is writable") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text(path, text: str, inputs=()) -> None:
    """Write `text` to `path` atomically, never over an input."""
    with atomic_path(path, inputs) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
