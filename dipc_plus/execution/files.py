"""Reading untrusted input files and writing outputs without ever destroying an input.

Why: ``path = "/dev/zero"`` in a claim once read until 9 GB were resident,
``/proc/self/mem`` as a program failed with EIO (exit 3), ``dipc dtmc x.dip -o x.dip``
replaced the program by its chain, and ``-o`` naming a device or a symlink to
``/proc/self/fd/1`` replaced it by a regular file.  Inputs must be regular files
of a real file system (not /proc, /sys or another pseudo-file system) under the
`file_bytes` limit; outputs are refused when they name an input or an existing
path that is not a regular file, and are written to a temporary file in the same
folder with the mode a plain ``open(path, "w")`` would give (the umask honoured),
then renamed over the target (`os.replace`), so a crash never leaves half a file.
"""
from __future__ import annotations

import contextlib
import functools
import os
import stat
import tempfile

from dipc_plus.errors import UserError
from dipc_plus.execution import limits

_INPUTS: set[str] = set()

FIGURE_EXTENSIONS = (".png", ".pdf", ".svg")   # what every figure option writes (matplotlib's formats we name)

# file systems whose "files" are views of the kernel, not data: never read as input, never written
PSEUDO_FILE_SYSTEMS = frozenset({"proc", "sysfs", "debugfs", "tracefs", "securityfs", "cgroup", "cgroup2",
                                 "configfs", "pstore", "bpf", "efivarfs", "fusectl", "binfmt_misc", "devpts",
                                 "mqueue", "hugetlbfs", "autofs", "rpc_pipefs", "nsfs"})
_PSEUDO_PREFIXES = ("/proc/", "/sys/")


@functools.cache
def pseudo_devices() -> frozenset:
    """The st_dev numbers of the pseudo file systems mounted here, read once (from /proc/self/mountinfo;
    empty where it cannot be read: the path prefixes still apply)."""
    found = set()
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                fields = line.split()
                if "-" not in fields:
                    continue
                fstype = fields[fields.index("-") + 1]
                major, _, minor = fields[2].partition(":")
                if fstype in PSEUDO_FILE_SYSTEMS and major.isdigit() and minor.isdigit():
                    found.add(os.makedev(int(major), int(minor)))
    except OSError:
        pass
    return frozenset(found)


def is_pseudo_file(path: str, info: os.stat_result | None = None) -> bool:
    """True for a file of /proc, /sys or another kernel file system (its size and contents
    are not those of data: /proc/self/mem reads EIO, /proc/self/environ the environment)."""
    real = os.path.realpath(path)
    if real in ("/proc", "/sys") or real.startswith(_PSEUDO_PREFIXES):
        return True
    return info is not None and info.st_dev in pseudo_devices()


def read_user_file(path, what: str = "file", hint: str | None = None) -> bytes:
    """The bytes of a regular file of at most `file_bytes` bytes, read without following it further."""
    path = str(path)
    shown = limits.clip(path, 80)

    def refused(reason: str, default_hint: str) -> UserError:
        return UserError(f"cannot read the {what} '{shown}': {reason}", hint=hint or default_hint, file=path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise refused("no such file", "check the path") from None
    except OSError as err:   # a folder opens read-only (EISDIR is for writing): refused below by its mode
        raise refused(err.strerror or str(err), "check the path and permissions") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise refused("it is a directory", "give a file")
        if not stat.S_ISREG(info.st_mode):
            raise refused("not a regular file (a device, FIFO or socket)", "give the path of an ordinary file")
        if is_pseudo_file(path, info):
            raise refused("a file of the kernel (/proc, /sys), not data", "give the path of an ordinary file")
        limit = limits.get("file_bytes")
        if info.st_size > limit:
            raise UserError(f"the {what} '{shown}' has {info.st_size} bytes, over the limit of {limit}",
                            hint=limits.hint("file_bytes"), file=path)
        try:
            with os.fdopen(fd, "rb", closefd=True) as fh:
                fd = None
                data = fh.read(limit + 1)
        except OSError as err:
            raise refused(err.strerror or str(err), "give the path of an ordinary file") from None
        if len(data) > limit:  # grew while we read it
            raise UserError(f"the {what} '{shown}' has more than {limit} bytes", hint=limits.hint("file_bytes"), file=path)
        _INPUTS.add(os.path.realpath(path))   # an input of this run: no output may replace it
        return data
    finally:
        if fd is not None:
            os.close(fd)


def utf8_text(data: bytes, what: str, name: str) -> str:
    """The bytes of a user file or text as UTF-8, or a UserError at the first bad byte's line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[:err.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", errors="replace")) + 1
        raise UserError(f"the {what} is not UTF-8 text: byte 0x{data[err.start]:02x} ({err.reason})",
                        file=name, line=line, column=column, hint=f"save the {what} as UTF-8 text") from None


def user_text(text: object, what: str, name: str) -> str:
    """Text given in place of a file (the API's `from_text`): a str, or bytes in UTF-8, under the same
    `file_bytes` limit as a file; anything else is a UserError, never a TypeError.

    >>> user_text(b"x <- 1", "program", "p")
    'x <- 1'
    >>> user_text(None, "program", "p")
    Traceback (most recent call last):
    ...
    dipc_plus.errors.UserError: p: error: the program text is a str (or UTF-8 bytes), not NoneType
      hint: read a file with from_file(path)
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise UserError(f"the {what} text is a str (or UTF-8 bytes), not {type(text).__name__}", file=name,
                        hint="read a file with from_file(path)")
    limit = limits.get("file_bytes")
    # a str has at least as many UTF-8 bytes as characters: only a short one needs encoding to be measured
    if len(text) > limit or (isinstance(text, str) and len(text.encode("utf-8", "surrogatepass")) > limit):
        raise UserError(f"the {what} text has more than {limit} bytes", hint=limits.hint("file_bytes"), file=name)
    return text if isinstance(text, str) else utf8_text(bytes(text), what, name)


def forget_inputs() -> None:
    _INPUTS.clear()


def _same(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output(path, inputs=(), extensions: tuple[str, ...] | None = None, option: str = "the output") -> None:
    """Refuse, before any work, an output path that is an input of this run (given, or read so far),
    an existing path that is not a regular file (a device, FIFO, socket, symlink or folder: writing
    there would send the output somewhere else, or replace the special file by a regular one), a
    file of a kernel file system, a missing folder, or (with `extensions`, checked last so that the
    worse mistake is the one said) another extension."""
    path = str(path)
    shown = limits.clip(path, 80)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise UserError(f"cannot write {option} to '{shown}': {err.strerror or err}",
                        hint="choose another output file name") from None
    if info is not None:
        kind = ("a symbolic link" if stat.S_ISLNK(info.st_mode) else "a folder" if stat.S_ISDIR(info.st_mode)
                else "a device, FIFO or socket" if not stat.S_ISREG(info.st_mode)
                else "a file of the kernel (/proc, /sys)" if is_pseudo_file(path, info) else None)
        if kind is not None:
            raise UserError(f"refusing to write {option} to '{shown}': it exists and is {kind}, not a regular file",
                            hint="choose the name of a new or ordinary file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(f"cannot write {option} to '{shown}': the folder {limits.clip(folder, 80)} does not exist",
                        hint="create it or choose another output path")
    if is_pseudo_file(folder):
        raise UserError(f"refusing to write {option} to '{shown}': a folder of the kernel (/proc, /sys)",
                        hint="choose a folder of an ordinary file system")
    for inp in list(inputs) + sorted(_INPUTS):
        if inp and _same(path, str(inp)):
            raise UserError(f"refusing to write '{shown}': it is an input of this run "
                            f"({limits.clip(inp, 80)})", hint="choose another output file name")
    if extensions is not None and os.path.splitext(path)[1].lower() not in extensions:
        raise UserError(f"cannot write {option} to '{shown}': the name must end in {', '.join(extensions)}",
                        hint=f"use e.g. {os.path.splitext(os.path.basename(path))[0] or 'figure'}{extensions[0]}")


def new_file_mode(path: str) -> int:
    """The mode `open(path, "w")` would leave: an existing file's own, else 0666 less the umask
    (mkstemp makes 0600 files; outputs are meant to be read by others where the umask says so)."""
    try:
        info = os.stat(path)
        if stat.S_ISREG(info.st_mode):
            return stat.S_IMODE(info.st_mode)
    except OSError:
        pass
    return 0o666 & ~current_umask()


def current_umask() -> int:
    """This process's umask, read without changing it where Linux says it (/proc/self/status)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)   # the only portable way to read it: set and put back at once
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path, inputs=(), extensions: tuple[str, ...] | None = None):
    """Yield a temporary path beside `path` (same extension); on success give it the mode a new
    file would have and rename it over `path`."""
    path = str(path)
    check_output(path, inputs, extensions)
    folder = os.path.dirname(os.path.abspath(path))
    base, ext = os.path.splitext(os.path.basename(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=f".tmp{ext}", dir=folder)
        os.close(fd)
        yield tmp
        check_output(path, inputs, extensions)
        os.chmod(tmp, new_file_mode(path))
        os.replace(tmp, path)
    except OSError as err:
        raise UserError(f"cannot write '{limits.clip(path, 80)}': {err.strerror or err}",
                        hint="check that the folder exists and is writable") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def write_figure(path, figure, inputs=(), dpi: int = 150) -> None:
    """Write the matplotlib Figure `figure()` makes to `path` atomically (PNG, PDF or SVG by its
    extension), never over an input, with the Agg canvas (headless; pyplot's backend is left alone).

    >>> import tempfile
    >>> from matplotlib.figure import Figure
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.png")
    >>> write_figure(path, Figure); os.path.getsize(path) > 0
    True
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    with atomic_path(path, inputs, FIGURE_EXTENSIONS) as tmp:
        fig = figure()
        FigureCanvasAgg(fig)
        fig.savefig(tmp, dpi=dpi)


def write_text(path, text: str, inputs=()) -> None:
    """Write `text` to `path` atomically, never over an input."""
    with atomic_path(path, inputs) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
