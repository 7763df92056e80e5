"""Values remembered per object identity, for the objects a grid check asks the same question of
thousands of times (a program, its body, an IR node) and that hash by value slowly or not at all.

An entry holds its objects, so their ids cannot pass to new objects while it exists; a store
that reaches its limit is emptied at once (a check's objects are the recent ones).
"""
from __future__ import annotations

from typing import Callable


def by_identity(store: dict, objects: tuple, make: Callable, limit: int, extra=()):
    """make(), computed once per identity of `objects` (and value of the hashable `extra`)."""
    key = (*map(id, objects), extra)
    found = store.get(key)
    if found is not None and all(held is given for held, given in zip(found[0], objects)):
        return found[1]
    value = make()
    if len(store) >= limit:
        store.clear()
    store[key] = (objects, value)
    return value
