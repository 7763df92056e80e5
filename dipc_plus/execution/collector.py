"""How often Python's cyclic garbage collector runs while dipc computes.

Why: exact checks allocate millions of short-lived, acyclic objects (Fractions, tuples,
flint numbers).  With CPython's default first-generation threshold (700) the collector
ran so often that it took ~15% of a Sparse m=7 check, and once a check's caches fill
the heap, each full collection walks all of them: a 2187-input `--jobs 1` run spent
0.2 s collecting while it only described its scope after the check.  While dipc
computes, it collects 70x less often; reference counting still frees every acyclic
object at once, so memory is not held longer.
"""
from __future__ import annotations

import contextlib
import gc

BULK_THRESHOLD = 50_000


@contextlib.contextmanager
def bulk_gc():
    """Raise the collector's first threshold for the duration (restored after; never lowered)."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], BULK_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)
