"""Errors of the Python API, in Python words.

Why it exists: the deciding stages raise `dipc_plus.errors.UserError` worded for the
command line (``--set c=2``, ``--kappa 7``).  A library user passes keyword
arguments, so every API entry point re-words the message and hint of the error it
lets through (``params={'c': 2}``, ``kappa=7``) and keeps its file, line and
column; a claim or program given as text is named as the user named it, not by
the temporary file it was read from.  `StrictVerdictError` is the API's twin of
the command's exit status 4.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Iterator

from dipc_plus.errors import UserError

#: {temporary file path: the name the user gave the text} (Claim.from_text, Program.from_text)
TEXT_NAMES: dict[str, str] = {}

#: {temporary file path: the line Claim.from_text inserted there (a ``path = ...`` for program=)}: an
#: error below it is moved up one line, so it names the line of the user's own text
INSERTED_LINES: dict[str, int] = {}

# options of the commands that take a value (the others are flags: ``--paper`` -> ``paper=True``)
_VALUE_OPTIONS = ("kappa", "kappa-max", "digits", "jobs", "executor", "scheduler", "shard", "max-states", "dd-over",
                  "eps", "at", "timeout", "max-memory", "runs", "seed", "confidence", "within", "around",
                  "max-iterations", "chunk", "format", "output", "dpi", "eps-max", "plot")


_OPTIONS = "|".join(sorted(map(re.escape, _VALUE_OPTIONS), key=len, reverse=True))
# what a value looks like in a message: a number, a metavariable, an address or path, or a choice
_VALUE = r"-?\d[\w/.:]*|[A-Z][A-Z_]*|[a-z]+://[^\s,;)]+|dask|local|reals|grid|dot|prism|[\w-]*[/.][\w./-]*\w"


def _python_value(text: str) -> str:
    """A command-line value as Python source: numbers and metavariables (N, ADDRESS) as they are,
    anything else quoted."""
    if re.fullmatch(r"-?\d+(?:[./]\d+)?|[A-Z][A-Z_]*", text):
        return text
    return repr(text.strip("'\""))


_REWORDINGS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"--set (\w+)=(\S+)"), r"params={'\1': \2}"),
    (re.compile(r"--set (\w+)"), r"params['\1']"),
    (re.compile(r"--set\b"), "params"),
    (re.compile(r"run without --symbolic for the per-point path"),
     "use .distribution(input=...) for the per-point path"),
    (re.compile(r"--box (\w+)=\[(\S+),(\S+)\]"), r"box={'\1': (\2, \3)}"),
    (re.compile(r"--box (\w+)"), r"box['\1']"),
    (re.compile(r"--box\b"), "box"),
    (re.compile(r"--input (\w+)=(\S+)"), r"input={'\1': \2}"),
    (re.compile(r"--input\b"), "input"),
    (re.compile(r"--limit (\w+)=(\S+)"), r"limits={'\1': \2}"),
    (re.compile(r"--no-structure\b"), "structure=False"),
    (re.compile(r"--no-progress\b"), "progress=False"),
    (re.compile(r"--(%s)(?:=| )(%s)(?![\w/])" % (_OPTIONS, _VALUE)),
     lambda m: f"{m.group(1).replace('-', '_')}={_python_value(m.group(2))}"),  # type: ignore[list-item]
    (re.compile(r"--(%s)\b" % _OPTIONS), lambda m: m.group(1).replace("-", "_")),  # type: ignore[list-item]
    (re.compile(r"--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)"), lambda m: f"{m.group(1).replace('-', '_')}=True"),  # type: ignore[list-item]
]


def python_words(text: str) -> str:
    """A command-line message in the API's words: ``--kappa 7`` -> ``kappa=7``, ``--set c=2`` ->
    ``params={'c': 2}``, a flag ``--every-length`` -> ``every_length=True``.

    >>> python_words("--set c: 'c' is not a parameter; use e.g. --max-states 200000 or --every-length")
    "params['c']: 'c' is not a parameter; use e.g. max_states=200000 or every_length=True"
    >>> python_words("--executor dask needs --scheduler ADDRESS, e.g. --scheduler tcp://127.0.0.1:8786")
    "executor='dask' needs scheduler=ADDRESS, e.g. scheduler='tcp://127.0.0.1:8786'"
    >>> python_words("--scheduler is for --executor dask; --max-states must be positive, e.g. --max-states 10")
    "scheduler is for executor='dask'; max_states must be positive, e.g. max_states=10"
    """
    for pattern, replacement in _REWORDINGS:
        text = pattern.sub(replacement, text)
    for path, name in TEXT_NAMES.items():
        text = text.replace(path, name)
    return text


@contextmanager
def in_python_words() -> Iterator[None]:
    """Let a UserError through re-worded for Python (same class, file, line, column).

    >>> try:
    ...     with in_python_words():
    ...         raise UserError("bad value for --max-states", hint="e.g. --max-states 10")
    ... except UserError as e:
    ...     print(e.message, "|", e.hint)
    bad value for max_states | e.g. max_states=10
    """
    try:
        yield
    except UserError as exc:
        exc.message = python_words(exc.message)
        exc.hint = python_words(exc.hint) if exc.hint else exc.hint
        if exc.file is not None:
            inserted = INSERTED_LINES.get(str(exc.file))
            if inserted is not None and exc.line is not None and exc.line >= inserted:
                exc.line = exc.line - 1          # the inserted line itself: the [program] header above it
            exc.file = TEXT_NAMES.get(str(exc.file), str(exc.file))
        exc.args = (exc.message,)
        raise


class StrictVerdictError(Exception):
    """``strict=True`` and the verdict is verified but vacuous (nothing was compared) or covers real
    outputs only on named events: the command's exit status 4.  `report` is the full result.

    >>> e = StrictVerdictError("vacuous: no input where the claim applies", report=None)
    >>> str(e), e.reason
    ('strict: vacuous: no input where the claim applies', 'vacuous: no input where the claim applies')
    """

    def __init__(self, reason: str, report: object):
        super().__init__(f"strict: {reason}")
        self.reason = reason
        self.report = report

    def __reduce__(self):
        """Pickled whole (reason and report), so a guarded call's child can send it back."""
        return (StrictVerdictError, (self.reason, self.report))


__all__ = ["UserError", "StrictVerdictError", "python_words", "in_python_words"]
