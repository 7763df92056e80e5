"""The successors of chain states, remembered across the chains of one program at many inputs.

A grid check builds one DTMC per input, and neighbouring inputs walk through the same
states: Sparse's state after its i-th comparison depends only on q[1..i], so the 1094
chains of its c=1, m=7 claim make 8752 expansions of which 2737 differ.  Going from a
state to its successors (one random choice, then the deterministic statements up to the
next one) is a deterministic function of the state and of the real inputs it reads - and
the real inputs the program never assigns are the only part of a state that differs
between inputs without being read.  So the memo is keyed by the state without those
inputs, then by the values of the inputs the expansion read, in the order it read them (a
trie: given the same state and the same values so far, the next input read is the same).

`TransitionMemo` only stores and finds; what an expansion is, and how a remembered one is
replayed into a chain, is `dtmc.DTMC`'s business.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable

from dipc_plus.semantics.identity_cache import by_identity

_LIMIT = 1024         # remembered expansions per program (least recently used forgotten first)
_PROGRAMS = 8          # programs with a memo (all forgotten when exceeded)


class _Branch:
    """An inner trie node: the input read next, and the subtrees by its value (a leaf is the
    remembered expansion itself: anything that is not a `_Branch`)."""
    __slots__ = ("name", "by_value")

    def __init__(self, name):
        self.name = name
        self.by_value: dict = {}


class TransitionMemo:
    """state key -> trie over the values of the inputs read -> the remembered expansion.

    At most `limit` expansions are kept; the state keys least recently used go first.  A grid's
    inputs come in lexicographic order, so an input shares its first expansions with the inputs
    just before it: the recent ones are the ones worth keeping, and memory stays flat."""

    def __init__(self, limit: int = _LIMIT):
        self.limit = limit
        self.size = 0
        self._tries: OrderedDict = OrderedDict()   # key -> [trie, its number of expansions]

    def find(self, key, value_of: Callable):
        """The expansion remembered for `key` at the input values `value_of(name)`, or None."""
        entry = self._tries.get(key)
        if entry is None:
            return None
        self._tries.move_to_end(key)
        node = entry[0]
        while type(node) is _Branch:
            node = node.by_value.get(value_of(node.name))
        return node

    def add(self, key, reads: list, expansion) -> None:
        """Remember `expansion`, computed from the state of `key` reading the inputs
        `reads` = [(name, value)] in this order (each name once)."""
        entry = self._tries.get(key)
        if not reads:
            root = expansion
        else:
            root = entry[0] if entry is not None else None
            if type(root) is not _Branch or root.name != reads[0][0]:
                root = _Branch(reads[0][0])
            node = root
            for (_, value), (next_name, _) in zip(reads, reads[1:]):
                child = node.by_value.get(value)
                if type(child) is not _Branch or child.name != next_name:
                    child = node.by_value[value] = _Branch(next_name)
                node = child
            node.by_value[reads[-1][1]] = expansion
        if entry is not None and entry[0] is root:
            entry[1] += 1
        else:
            if entry is not None:
                self.size -= entry[1]
            self._tries[key] = [root, 1]
        self._tries.move_to_end(key)
        self.size += 1
        while self.size > self.limit:
            _, (_, count) = self._tries.popitem(last=False)
            self.size -= count


_MEMOS: dict = {}


def memo_for(program, code) -> TransitionMemo:
    """The memo of one program's compiled code."""
    return by_identity(_MEMOS, (program, code), TransitionMemo, limit=_PROGRAMS)


def forget_transitions() -> None:
    _MEMOS.clear()
