"""Process-level parallelism over the inputs of a grid (opt-in: ``jobs``).

    from dipc_plus.execution.parallel import map_inputs
    values = map_inputs(lambda q: program.within(det(q), q=q), grid, jobs=2)

`map_inputs(fn, inputs, jobs)` is ``[fn(x) for x in inputs]``, in input order,
computed by `jobs` worker processes.  Exact computations are CPU-bound pure
Python, so threads would not help; processes do.  Why it is safe and cheap:

* workers are forked, so `fn` may be any callable (a lambda, a closure over a
  loaded program); it is never pickled, and every worker starts with the
  parent's warm caches (engine, constraint and compiled-program caches);
* the inputs are cut into contiguous chunks, so neighbouring grid points, which
  share constraint sets and therefore cache entries, land in the same worker;
* results come back pickled: exact values (`ExpPoly`, `ExpFrac`, python-flint
  fmpq_poly inside) are picklable once this module is imported;
* `jobs=1` (the default) runs in the calling process, with no pool; a call
  from inside a worker also runs serially (no nested pools); `jobs <= 0` means
  one worker per available core.  An exception raised by `fn` is re-raised in
  the caller.

Where the "fork" start method does not exist (Windows), ``jobs > 1`` falls back
to running serially rather than requiring picklable functions.
"""
from __future__ import annotations

import copyreg
import multiprocessing
import os
from typing import Callable, Iterable, TypeVar

from flint import fmpq_poly

__all__ = ["map_inputs", "available_cores"]

T = TypeVar("T")
R = TypeVar("R")


def _rebuild_fmpq_poly(coeffs):
    return fmpq_poly(list(coeffs))


def _reduce_fmpq_poly(p):
    return _rebuild_fmpq_poly, (tuple(p.coeffs()),)


copyreg.pickle(fmpq_poly, _reduce_fmpq_poly)

_FN = None            # the function of the current pool, inherited by forked workers
_IN_WORKER = False


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _worker_init():
    global _IN_WORKER
    _IN_WORKER = True


def _call_chunk(chunk):
    return [_FN(x) for x in chunk]


def map_inputs(fn: Callable[[T], R], inputs: Iterable[T], jobs: int | None = 1) -> list[R]:
    """[fn(x) for x in inputs] in order, over `jobs` processes (see the module docstring)."""
    global _FN
    items = list(inputs)
    if jobs is None:
        jobs = 1
    if jobs <= 0:
        jobs = available_cores()
    jobs = min(jobs, len(items))
    if jobs <= 1 or _IN_WORKER or "fork" not in multiprocessing.get_all_start_methods():
        return [fn(x) for x in items]
    # a few chunks per worker: contiguous (cache locality) yet balanced
    nchunks = min(len(items), 4 * jobs)
    size = -(-len(items) // nchunks)
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    previous = _FN
    _FN = fn
    try:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(jobs, initializer=_worker_init) as pool:
            parts = pool.map(_call_chunk, chunks, chunksize=1)
    finally:
        _FN = previous
    return [r for part in parts for r in part]
