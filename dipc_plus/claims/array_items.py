"""The column of one item of a TOML array written on one line, for errors that point at a value.

Why: tomllib gives no positions, and the claim reader's locator finds a key's line and the
column where its value starts.  A mistake in one bound of `grid = { q = [0, 0.5] }` should point
at `0.5`, not at the `{`: this scans the line from the value's column for the array of a named
key (or the array that starts there) and skips its items one by one.
"""
from __future__ import annotations

import re

_ITEM = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^,\]]*')   # a quoted string, or up to the next , or ]


def item_column(line: str, start: int, name: str, index: int) -> int | None:
    """The 1-based column of item `index` of the array `name = [...]` on `line` at or after the
    1-based column `start`, or of the array that starts at `start`; None when it is not found there.

    >>> item_column('grid = { q = [0, 0.5] }', 8, "q", 1)
    18
    >>> item_column('q = [ "-1/2" , 3 ]', 5, "q", 1)
    16
    >>> item_column('grid = { "q[1]" = [0, 1] }', 8, "q[1]", 0), item_column('x = 1', 5, "q", 0)
    (20, None)
    """
    at = start - 1
    if not line.startswith("[", at):
        key = re.escape(name)
        found = re.compile(r'(?:^|[{,\s])(?:"%s"|\'%s\'|%s)\s*=\s*\[' % (key, key, key)).search(line, at)
        if found is None:
            return None
        at = found.end() - 1
    at += 1
    for k in range(index + 1):
        at = _skip_blanks(line, at)
        if k == index:
            return at + 1 if at < len(line) and line[at] not in ",]" else None
        at = _skip_blanks(line, _ITEM.match(line, at).end())
        if not line.startswith(",", at):
            return None
        at += 1
    return None


def _skip_blanks(line: str, at: int) -> int:
    while at < len(line) and line[at] in " \t":
        at += 1
    return at
