"""The column of one item of a TOML array written on one line, for errors that point at a value.

Why: tomllib gives no positions, and the claim reader's locator finds a key's line and the
column where its value starts.  A mistake in one bound of `grid = { q = [0, 0.5] }` should point
at `0.5`, not at the `{`: this scans the line from the value's column for the array of a named
key (or the array that starts there) and skips its items one by one.
"""
from __future__ import annotations

import re

_ITEM = r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^,\]]*'   # a quoted string, or up to the next , or ]
# blanks, then `index` items each followed by a comma; an item is atomic (read as the first of _ITEM's
# forms that matches, never re-split to make the count)
_ITEMS_BEFORE = r"[ \t]*+(?:(?>%s)[ \t]*+,[ \t]*+){%d}"


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
    before = re.compile(_ITEMS_BEFORE % (_ITEM, index)).match(line, at + 1)
    if before is None or before.end() >= len(line) or line[before.end()] in ",]":
        return None
    return before.end() + 1
