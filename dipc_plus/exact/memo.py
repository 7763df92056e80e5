"""Bounded memos: a dict of computed exact values, emptied whole when it outgrows its limit.

The engines memoise regions, breakpoints, leaf integrals and cell components; results never
depend on a memo, the limit only bounds memory.  One helper, so that the rule is written once.
"""
from __future__ import annotations

__all__ = ["remember"]


def remember(memo: dict, limit: int, key, value):
    """memo[key] = value, the memo emptied first when it holds more than `limit`; returns value.

    >>> memo = {}
    >>> remember(memo, 1, "a", 1), remember(memo, 1, "b", 2), remember(memo, 1, "c", 3), memo
    (1, 2, 3, {'c': 3})
    """
    if len(memo) > limit:
        memo.clear()
    memo[key] = value
    return value
