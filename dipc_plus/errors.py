"""User-facing errors: every mistake a user can make ends here, never in a traceback.

A `UserError` carries where (file, line, column), what is wrong and how to fix
it; the CLI prints it and exits with code 2.  Echoed values are clipped, so a
hostile file cannot flood the terminal through an error message.
"""
from __future__ import annotations

import re

_ECHO = 60  # at most this many characters of one offending value are echoed


def _shorten(text: str) -> str:
    """Clip every run of more than _ECHO non-blank characters (a 5,000-digit number, a 3,000-deep
    expression echoed back from a user file) to its first few dozen characters."""
    return re.sub(r"\S{%d,}" % (_ECHO + 1),
                  lambda m: f"{m.group()[:_ECHO - 20]}...[{len(m.group())} characters]", str(text))


class UserError(Exception):
    """A mistake in the user's program, claim, command line or input."""

    exit_code = 2

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 column: int | None = None, hint: str | None = None):
        message = _shorten(message)
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.hint = _shorten(hint) if hint else hint

    @classmethod
    def at(cls, pos, message: str, hint: str | None = None) -> "UserError":
        """Build an error at an `ir.Pos` (or anything with file/line/column)."""
        return cls(message, file=getattr(pos, "file", None), line=getattr(pos, "line", None),
                   column=getattr(pos, "column", None), hint=hint)

    @classmethod
    def at_offset(cls, text: str, offset: int, message: str, *, file: str | None, hint: str | None = None
                  ) -> "UserError":
        """Build an error at the character `offset` of `text` (1-based line and column): the one place
        a scanned file's offset becomes a location."""
        return cls(message, file=file, line=text.count("\n", 0, offset) + 1,
                   column=offset - (text.rfind("\n", 0, offset) + 1) + 1, hint=hint)

    def location(self) -> str:
        parts = [p for p in (self.file, self.line, self.column) if p is not None]
        return ":".join(str(p) for p in parts)

    def __str__(self) -> str:
        loc = self.location()
        text = f"{loc}: error: {self.message}" if loc else f"error: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class ResourceLimit(UserError):
    """A computation exceeded a user-set limit (chain size, time); exit code 2."""
