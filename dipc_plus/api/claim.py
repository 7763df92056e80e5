"""A claim from a file or from text, and where the bundled examples are.

Why it exists: the deciding stages read a claim from a file (its [program] path is
relative to that file, and worker processes rebuild the check from the files), so a
claim written in a notebook cell is kept as a private temporary file for as long as
its `Claim` lives, with its program path resolved the way the user meant it
(relative to `base_dir`, or the `Program` given).  `example` finds the programs
and claims shipped with dipc-plus from the package itself, so a notebook runs the
same from any working directory.
"""
from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import tempfile
import tomllib
import weakref
from pathlib import Path
from typing import Any

from dipc_plus.api.errors import INSERTED_LINES, TEXT_NAMES, in_python_words
from dipc_plus.claims.written_numbers import load_toml
from dipc_plus.errors import UserError
from dipc_plus.execution.files import read_user_file, user_text


def repository_root() -> Path:
    """The folder that holds `programs/` and `theories/` next to the package (a source checkout).

    >>> (repository_root() / "theories").is_dir(), (repository_root() / "programs").is_dir()
    (True, True)
    """
    return Path(__file__).resolve().parent.parent.parent


def example(name: str) -> Path:
    """The path of a program or claim shipped with dipc-plus, whatever the working directory.

    Parameters
    ----------
    name : str
        ``"programs/NAME.dip"`` or ``"theories/NAME.toml"`` (a bare ``NAME.dip`` or ``NAME.toml``
        is looked for in the right folder).

    Examples
    --------
    >>> import dipc_plus
    >>> dipc_plus.example("theories/sparse.toml").name
    'sparse.toml'
    >>> dipc_plus.example("noisy_max.dip").parent.name
    'programs'
    """
    root = repository_root()
    rel = Path(name)
    if len(rel.parts) == 1:
        rel = Path("programs" if rel.suffix == ".dip" else "theories") / rel
    path = root / rel
    if rel.is_absolute() or ".." in rel.parts or not path.is_file():
        known = sorted(p.name for folder in ("programs", "theories") for p in (root / folder).glob("*.*")) \
            if (root / "theories").is_dir() else []
        import difflib
        close = difflib.get_close_matches(rel.name, known, n=1)
        raise UserError(f"example({name!r}): no such bundled example",
                        hint=(f"did you mean '{close[0]}'? " if close else "") +
                        ("the examples are programs/*.dip and theories/*.toml of the dipc-plus source tree"
                         if known else "the examples ship with the source tree (git clone), not with the wheel"))
    return path


class Claim:
    """A claim file (theories/*.toml): the program it is about and its [accuracy] and/or [privacy] tables.

    The check functions take a `Claim` or a path.  Make one with `Claim.from_file` or
    `Claim.from_text` (the format is docs/claims.md).

    Examples
    --------
    >>> import dipc_plus
    >>> dipc_plus.Claim.from_file(dipc_plus.example("theories/sparse.toml"))
    <Claim sparse.toml: accuracy of sparse.dip>
    """

    @in_python_words()
    def __init__(self, path: str | os.PathLike[str], *, name: str | None = None, text: str | None = None):
        self.path = os.path.abspath(path)
        self.name = name or os.path.basename(self.path)
        if text is None:
            if not os.path.isfile(self.path):
                raise UserError(f"cannot read the claim file: no file {path}",
                                hint="claims live in theories/*.toml (dipc_plus.example('theories/NAME.toml'))")
            text = read_user_file(self.path, "claim file").decode("utf-8", errors="replace")
        self.text = text
        self.data = load_toml(text, self.name)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> "Claim":
        """The claim file at `path` (its [program] path is relative to the file)."""
        return cls(path)

    @classmethod
    def from_text(cls, text: str, *, program: Any = None, base_dir: str | os.PathLike[str] | None = None,
                  name: str = "<claim>") -> "Claim":
        """A claim written as text, e.g. in a notebook cell.

        Parameters
        ----------
        text : str
            The claim in the claim-file format (docs/claims.md).
        program : Program or path, optional
            The program the claim is about.  The text's ``[program]`` table may then be absent or
            hold only ``params``; a ``[program] path`` it still names must be that same program
            (the same file or the same text), else a `UserError` says they differ.
        base_dir : path, optional
            The folder a relative ``[program] path`` is read from (default: the working directory).
        name : str
            How errors and reports name the text (default ``"<claim>"``).

        Examples
        --------
        >>> import dipc_plus
        >>> lap = dipc_plus.example("programs/laplace.dip")
        >>> claim = dipc_plus.Claim.from_text('''
        ... [program]
        ... path = "laplace.dip"
        ... params = { k = 1 }
        ...
        ... [privacy]
        ... adjacency = "linf"
        ... bound = 1
        ... budget = "eps"
        ... events = { out = ["(-inf, 0]", "(0, inf)"] }
        ...
        ... [privacy.inputs]
        ... grid = { q = [0, 1] }
        ... ''', base_dir=lap.parent, name="my_claim")
        >>> claim
        <Claim my_claim: privacy of laplace.dip>
        >>> dipc_plus.check_privacy(claim).verdict
        'verified'
        >>> dipc_plus.check_privacy(claim, params={"sens": 0.5}).verdict   # rate 2 eps: twice the budget
        'refuted'
        """
        folder = tempfile.mkdtemp(prefix="dipc-claim-")
        path = os.path.join(folder, "claim.toml")
        try:
            with in_python_words():
                TEXT_NAMES[path] = name
                text = user_text(text, "claim", name)
                data = load_toml(text, name)
                if program is not None:
                    target = os.path.abspath(program_file(program, folder))
                    written, inserted = _naming_the_program(text, data, target, name, base_dir)
                    if inserted is not None:
                        INSERTED_LINES[path] = inserted
                else:
                    old = _named_program_path(data)
                    written = text if old is None or os.path.isabs(old) else _with_program_path(
                        text, old, _from_base_dir(base_dir, old), name, missing_in=base_dir or os.getcwd())
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(written)
            claim = cls(path, name=name, text=written)     # __init__ words its errors for Python
        except BaseException:
            _remove(folder, path)
            raise
        weakref.finalize(claim, _remove, folder, path)
        return claim

    @property
    def tables(self) -> list[str]:
        """Which claims it states: ``['accuracy']``, ``['privacy']`` or both."""
        return [t for t in ("accuracy", "privacy") if t in self.data]

    @property
    def program_path(self) -> str | None:
        named = _named_program_path(self.data)
        return None if named is None else os.path.normpath(os.path.join(os.path.dirname(self.path), named))

    def __fspath__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        prog = self.program_path
        what = " and ".join(self.tables) or "no claim"
        return f"<Claim {self.name}: {what} of {os.path.basename(prog) if prog else '(no program)'}>"


def claim_path(claim: "Claim | str | os.PathLike[str]") -> str:
    """The file the deciding stages read for `claim` (a Claim stays alive while the check's caller holds it).

    >>> claim_path("theories/sparse.toml")
    'theories/sparse.toml'
    >>> claim = Claim.from_file(example("theories/sparse.toml"))
    >>> claim_path(claim) == claim.path
    True
    """
    if isinstance(claim, Claim):
        return claim.path
    if not isinstance(claim, (str, os.PathLike)):
        raise UserError(f"a claim is a path or a dipc_plus.Claim, not {type(claim).__name__}",
                        hint="e.g. dipc_plus.example('theories/sparse.toml'), or Claim.from_text(text)")
    return os.fspath(claim)


def _remove(folder: str, path: str) -> None:
    TEXT_NAMES.pop(path, None)
    INSERTED_LINES.pop(path, None)
    shutil.rmtree(folder, ignore_errors=True)


def program_file(program: Any, folder: str | None = None) -> str:
    """The file that holds `program=` (a path, or a Program read from a file): the checks compare it with
    the claim's.  With `folder` (Claim.from_text), a Program made from text is written there to be named.

    >>> program_file("programs/laplace.dip")
    'programs/laplace.dip'
    >>> import dipc_plus
    >>> program_file(dipc_plus.load(example("programs/laplace.dip"))) == str(example("programs/laplace.dip"))
    True
    """
    if isinstance(program, (str, os.PathLike)):
        return os.fspath(program)
    if not (hasattr(program, "path") and hasattr(program, "text")):     # not a Program at all
        raise UserError(f"program must be a dipc_plus.Program or the path of a .dip file, not {type(program).__name__}",
                        hint="e.g. program=dipc_plus.load('noisy_max.dip', params={'m': 3})")
    path, text = program.path, program.text
    if path is None and text is not None and folder is not None:     # a Program made from text: give it a file
        path = os.path.join(folder, f"{program.name}.dip")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    if path is None and folder is None:
        raise UserError("program= names the claim's program file; this Program was made from text",
                        hint="leave program= out (the claim names its program), or use "
                             "Claim.from_text(text, program=...) to check a claim against it")
    if path is None:
        raise UserError(f"program must be a dipc_plus.Program or the path of a .dip file, not {type(program).__name__}",
                        hint="e.g. program=dipc_plus.load('noisy_max.dip', params={'m': 3})")
    return str(path)


def _named_program_path(data: dict) -> str | None:
    """The ``[program] path`` a claim's TOML data names, if it names one."""
    prog = data.get("program")
    return prog["path"] if isinstance(prog, dict) and isinstance(prog.get("path"), str) else None


def _from_base_dir(base_dir: Any, path: str) -> str:
    """The absolute path of a claim text's program `path`, read from base_dir (default: the working directory)."""
    return os.path.abspath(os.path.join(base_dir if base_dir is not None else os.getcwd(), path))


def _same_file_or_text(named: str, target: str) -> bool:
    """Does the path a claim names hold the program given as program= (the same file, or the same text)?"""
    if not (os.path.isfile(named) and os.path.isfile(target)):
        return False
    return os.path.samefile(named, target) or filecmp.cmp(named, target, shallow=False)


_PROGRAM_HEADER = re.compile(r"^[ \t]*\[[ \t]*program[ \t]*\][ \t]*(?:#[^\r\n]*)?\r?$", re.MULTILINE)


def _naming_the_program(text: str, data: dict, target: str, name: str, base_dir: Any) -> tuple[str, int | None]:
    """The claim text naming `target` as its program (program=), and the line inserted for it, if any.

    No [program] table: one is appended after the user's text (no line moves).  A [program] table with
    only params: ``path = ...`` goes on the line after its header (`in_python_words` moves the errors
    below it back to the user's lines).  A path the text names must be the given program."""
    prog = data.get("program")
    if prog is None:
        ending = "" if text.endswith("\n") or not text else "\n"
        return text + ending + f"\n[program]\npath = {json.dumps(target)}\n", None
    old = _named_program_path(data)
    if old is not None:
        if not _same_file_or_text(_from_base_dir(base_dir, old), target):
            raise UserError.at_offset(text, _path_value_span(text, old, name)[0],
                                      f"program.path names '{old}' but program= gives another program "
                                      f"({os.path.basename(target)})", file=name,
                                      hint="drop the [program] path (program= gives the program; params may "
                                           "stay), or pass the program the path names")
        return _with_program_path(text, old, target, name), None
    header = _PROGRAM_HEADER.search(text)
    if not isinstance(prog, dict) or "path" in prog or header is None:
        raise UserError("the claim text's [program] table is not one program= can complete", file=name,
                        hint='write it as a table, [program] on its own line, with at most params = {...} '
                             '(program= gives the path)')
    line = text.count("\n", 0, header.start()) + 2
    if header.end() < len(text):      # the header's newline follows: the path goes on the next line
        at, insert = header.end() + 1, f"path = {json.dumps(target)}\n"
    else:
        at, insert = len(text), f"\npath = {json.dumps(target)}\n"
    return text[:at] + insert + text[at:], line


def _path_value_span(text: str, old: str, name: str) -> tuple[int, int]:
    """Where the value of the text's ``path = "..."`` (equal to `old`) is: (start, end) of the string."""
    for m in re.finditer(r"""\bpath\s*=\s*("(?:[^"\\\n]|\\.)*"|'[^'\n]*')""", text):
        try:
            value = tomllib.loads(f"v = {m.group(1)}")["v"]
        except tomllib.TOMLDecodeError:
            continue
        if value == old:
            return m.start(1), m.end(1)
    raise UserError("cannot find the [program] path to replace in the claim text", file=name,
                    hint='write it on one line, as path = "NAME.dip"')


def _with_program_path(text: str, old: str, target: str, name: str, missing_in: Any = None) -> str:
    """The text with its [program] path's value `old` replaced by `target` (only that string changes, so
    every other line and column an error names stays the user's).  With `missing_in` (the folder the
    text's own relative path was read from), a missing program is reported here, at the path."""
    start, end = _path_value_span(text, old, name)
    if missing_in is not None and not os.path.isfile(target):
        raise UserError.at_offset(text, start, f"program.path: no program '{old}' in {os.path.abspath(missing_in)}",
                                  file=name, hint="a relative path is read from base_dir (default: the working "
                                                  "directory); give base_dir=, an absolute path, or program=")
    return text[:start] + json.dumps(target) + text[end:]
