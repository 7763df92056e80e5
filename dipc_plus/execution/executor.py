"""Where the tasks of a check run: this process, worker processes, or a Dask cluster.

Why it exists: a grid or privacy check is a list of independent tasks (a range of
inputs, a range of pairs) followed by an ordered reduction (AND of verdicts, the
first counterexample in input order).  This module is the one seam between the
two, so every command gets ``--jobs`` and ``--executor dask`` from one mechanism:

    source = Source(build_checker, (claim_path, params, ...), files=(claim_path, program_path))
    for part in run_tasks(check_range, source, ranges, executor=Executor.local(2)):
        ...   # parts arrive in task order; stop early by leaving the loop

* a task is ``fn(source, task)`` with `fn` a module-level function and `task`
  small picklable data, so it can travel to another machine;
* `Source` says how a worker rebuilds what the client loaded (the claim, its plan,
  the checker): a module-level builder and its arguments, built once per worker
  process and cached.  The client seeds the cache with its own object, so forked
  local workers never rebuild it.  A Dask worker rebuilds it from the files,
  which must be the same as the client's: their SHA-256 digests travel with the
  source and a worker that reads different bytes refuses the task (a shared file
  system or the same checkout on every machine);
* results come back in task order whichever worker finished first; leaving the
  loop cancels what is still running; a worker that dies (killed, out of memory)
  is an error with exit 2, never a missing part of a verdict.

Executors: ``serial`` (this process), ``local`` (forked processes of this
machine) and ``dask`` (a ``dask.distributed`` scheduler at an address).  None of
them changes a result: the reduction is the caller's and runs in task order.
"""
from __future__ import annotations

import copyreg
import gc
import hashlib
import multiprocessing
import os
import signal
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from flint import arb, fmpq_poly, fmpz

from dipc_plus.errors import UserError
from dipc_plus.execution.collector import bulk_gc
from dipc_plus.execution.lifetime import EXIT_SIGNAL, die_with_parent

__all__ = ["Source", "Executor", "run_tasks", "run_dealt", "available_cores", "chunks", "shrinking_ranges",
           "in_worker"]


# exact values carry python-flint polynomials: make them picklable for every executor
def _rebuild_fmpq_poly(coeffs):
    return fmpq_poly(list(coeffs))


def _reduce_fmpq_poly(p):
    return _rebuild_fmpq_poly, (tuple(p.coeffs()),)


copyreg.pickle(fmpq_poly, _reduce_fmpq_poly)


# certified balls (a decision's roots and witness values) travel as exact dyadic midpoint and
# radius; the rebuilt ball contains the original (arb may round the radius up, never down)
def _rebuild_arb(mid_man, mid_exp, rad_man, rad_exp):
    mid = arb(fmpz(mid_man)) * arb(2) ** mid_exp
    return arb(mid, arb(fmpz(rad_man)) * arb(2) ** rad_exp) if rad_man else mid


def _reduce_arb(x):
    if not x.is_finite():
        raise ValueError("an infinite or NaN ball cannot be sent to a worker")
    mid_man, mid_exp = x.mid().man_exp()
    rad_man, rad_exp = x.rad().man_exp()
    return _rebuild_arb, (int(mid_man), int(mid_exp), int(rad_man), int(rad_exp))


copyreg.pickle(arb, _reduce_arb)


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


_IN_WORKER = False
_BUILT: dict = {}


def in_worker() -> bool:
    """True inside a worker process of this module (a nested run stays serial)."""
    return _IN_WORKER


def file_digest(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


@dataclass(frozen=True)
class Source:
    """How a worker gets the loaded object its tasks need (see the module docstring).

    `build(*args)` rebuilds it; `files` are (path, sha256) of every file it reads.
    `build` None: only workers forked from the client can have it (no Dask)."""
    build: Callable | None
    args: tuple = ()
    files: tuple = ()
    key: str = field(default="", compare=False)

    @classmethod
    def of(cls, build: Callable | None, args: tuple, paths: Iterable[str]) -> "Source":
        files = tuple((os.path.abspath(p), file_digest(p)) for p in paths if p)
        name = "" if build is None else f"{build.__module__}.{build.__qualname__}"
        return cls(build, tuple(args), files, key=f"{name}{args!r}{files!r}")

    def seed(self, obj) -> None:
        """The client's own object: forked workers inherit it, nothing is rebuilt."""
        _BUILT[self.key] = obj

    def forget(self) -> None:
        """Drop this process's object (a run of several checks in turn need not hold them all)."""
        _BUILT.pop(self.key, None)

    def get(self):
        obj = _BUILT.get(self.key)
        if obj is not None:
            return obj
        if self.build is None:
            raise UserError("this check was not loaded from files, so a worker cannot rebuild it",
                            hint="use --executor local (or run it from the command line)")
        for path, digest in self.files:
            try:
                seen = file_digest(path)
            except OSError:
                raise UserError(f"a worker cannot read {path}",
                                hint="every worker needs the claim and program at the same path "
                                     "(a shared file system or the same checkout)") from None
            if seen != digest:
                raise UserError(f"a worker reads a different {path} than the client",
                                hint="give every worker the same checkout of the claim and program files")
        obj = self.build(*self.args)
        _BUILT[self.key] = obj
        return obj


@dataclass(frozen=True)
class Executor:
    """Where tasks run: kind 'serial', 'local' (jobs processes) or 'dask' (scheduler address)."""
    kind: str = "serial"
    jobs: int = 1
    scheduler: str | None = None

    @classmethod
    def local(cls, jobs: int) -> "Executor":
        if jobs <= 0:
            jobs = available_cores()
        return cls("serial") if jobs <= 1 else cls("local", jobs)

    @classmethod
    def from_options(cls, jobs: int = 1, executor: str = "local", scheduler: str | None = None) -> "Executor":
        if executor == "dask":
            if not scheduler:
                raise UserError("--executor dask needs --scheduler ADDRESS",
                                hint="start one with `dask scheduler` and give its address, e.g. "
                                     "--scheduler tcp://127.0.0.1:8786 (docs/cluster.md)")
            return cls("dask", max(jobs, 1), scheduler)
        if scheduler:
            raise UserError("--scheduler is for --executor dask", hint="add --executor dask")
        return cls.local(jobs)

    @property
    def parallel(self) -> bool:
        return self.kind != "serial" and not _IN_WORKER

    def describe(self) -> str:
        if self.kind == "dask":
            return f"dask scheduler {self.scheduler}"
        return f"{self.jobs} local processes" if self.kind == "local" else "this process"


SERIAL = Executor()


def chunks(n: int, parts: int) -> list[tuple[int, int]]:
    """[start, stop) ranges cutting range(n) into `parts` contiguous, nearly equal pieces (none empty)."""
    parts = max(1, min(parts, n))
    if n == 0:
        return []
    size, extra = divmod(n, parts)
    out, start = [], 0
    for k in range(parts):
        stop = start + size + (1 if k < extra else 0)
        out.append((start, stop))
        start = stop
    return out


_SMALLEST_SHARE = 64   # the smallest range of shrinking_ranges is n / (this * workers)


def shrinking_ranges(n: int, workers: int) -> list[tuple[int, int]]:
    """Contiguous [start, stop) ranges of range(n) for `workers` processes, large first, then
    shrinking (guided self-scheduling).

    Why: neighbouring inputs share cache entries, so a range should be long; but the cost of
    an input varies tenfold along a grid, and with equal ranges one worker was left computing
    the last long range while the other waited (1.3 s of an 8 s Sparse m=7 run).  Each range
    takes 1/(2 workers) of what is left, down to 1/(64 workers) of the whole: the last range
    to finish is what the other workers wait for (with 1/(16 workers), 68 of Sparse m=7's
    2187 inputs, 0.15 s, left one worker idle for up to 0.1 s of a 1.9 s check)."""
    if n <= 0:
        return []
    workers = max(1, workers)
    smallest = max(1, n // (_SMALLEST_SHARE * workers))
    out, start = [], 0
    while start < n:
        size = max(smallest, -(-(n - start) // (2 * workers)))
        out.append((start, min(n, start + size)))
        start += size
    return out


def _call(fn, source, task):
    """A task in a worker (local or Dask): nested runs there stay serial."""
    global _IN_WORKER
    _IN_WORKER = True
    with bulk_gc():   # Dask workers are not forked from a process that set it
        return fn(source, task)


def _worker_init(parent: int):
    """A local worker: dies with the process that forked it (kill -9, the OOM killer, an
    unguarded run's main process), and leaves SIGINT / SIGTERM to its owner, which kills it."""
    global _IN_WORKER
    _IN_WORKER = True
    die_with_parent(parent)
    for sig in EXIT_SIGNAL:
        signal.signal(sig, signal.SIG_IGN)


def run_tasks(fn: Callable, source: Source, tasks: list, *, executor: Executor = SERIAL,
              done: Callable[[int, object], None] | None = None) -> Iterator:
    """Yield fn(source, task) for each task, in task order, computed by `executor`.

    `done(i, result)` is called as each task finishes (in any order: a progress bar);
    closing the generator early cancels the tasks still running."""
    with bulk_gc():
        yield from _run_tasks(fn, source, tasks, executor, done)


def run_dealt(fn: Callable, source: Source, items: list, *, executor: Executor = SERIAL, context=None,
              per_worker: int = 16) -> list:
    """fn(source, (context, hand)) -> one result per item of the hand, over `items` dealt out
    round-robin into small hands (`per_worker` per worker); the results come back in item order.

    Why dealt, not cut into ranges: costly items come in runs (the obligations of an eps-DP
    check's first tables), and a range holding a run left the other worker idle for seconds;
    small hands keep the last one to finish short."""
    if not items:
        return []
    hands = min(per_worker * executor.jobs, len(items))
    out: list = [None] * len(items)
    tasks = [(context, items[j::hands]) for j in range(hands)]
    for j, got in enumerate(run_tasks(fn, source, tasks, executor=executor)):
        out[j::hands] = got
    return out


def _run_tasks(fn, source, tasks, executor, done):
    if not executor.parallel or len(tasks) <= 1:
        for i, task in enumerate(tasks):
            out = fn(source, task)
            if done is not None:
                done(i, out)
            yield out
        return
    if executor.kind == "dask":
        yield from _run_dask(fn, source, tasks, executor, done)
    else:
        yield from _run_local(fn, source, tasks, executor, done)


def _run_local(fn, source, tasks, executor, done):
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool
    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - not POSIX
        yield from run_tasks(fn, source, tasks, executor=SERIAL, done=done)
        return
    pool = ProcessPoolExecutor(min(executor.jobs, len(tasks)), mp_context=multiprocessing.get_context("fork"),
                               initializer=_worker_init, initargs=(os.getpid(),))
    # the workers are forked at the first submit: frozen, the client's objects are never walked by
    # a worker's collector, so their pages stay shared instead of being copied into every worker
    gc.freeze()
    try:
        futures = [pool.submit(_call, fn, source, t) for t in tasks]
    finally:
        gc.unfreeze()
    reported: set = set()

    def report(f):
        if done is not None and f not in reported and f.exception() is None:
            reported.add(f)
            done(futures.index(f), f.result())

    try:
        for fut in futures:
            while not fut.done():
                finished, _ = wait([f for f in futures if not f.done()], return_when=FIRST_COMPLETED)
                for f in finished:
                    if not isinstance(f.exception(), BrokenProcessPool):
                        report(f)
            try:
                report(fut)
                yield fut.result()
            except BrokenProcessPool:
                raise UserError("a worker process died before finishing its part (killed, or out of memory)",
                                hint="run again with fewer --jobs or a larger --max-memory") from None
    finally:
        # left early (a refutation, an error): kill the workers, then let the pool's manager
        # thread fail the pending futures itself - cancelling them first makes Python 3.11's
        # manager thread crash with a traceback on stderr
        if any(not f.done() for f in futures):
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                if proc.is_alive():
                    proc.kill()
        pool.shutdown(wait=True)


def _dask_client(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise UserError("--executor dask needs the dask.distributed package",
                        hint='pip install "dask[distributed]" (or pip install -e ".[cluster]")') from None
    try:
        return Client(address, timeout="5s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise UserError(f"cannot reach the Dask scheduler at {address}: {exc}",
                        hint="start it with `dask scheduler` and workers with `dask worker ADDRESS` "
                             "(docs/cluster.md)") from None


def _run_dask(fn, source, tasks, executor, done):
    if source.build is None:
        raise UserError("this check was not loaded from files, so a Dask worker cannot rebuild it",
                        hint="use --executor local (or run it from the command line)")
    from distributed import as_completed
    client = _dask_client(executor.scheduler)
    futures = client.map(_call, [fn] * len(tasks), [source] * len(tasks), tasks, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    results: dict = {}
    try:
        queue = as_completed(futures, loop=client.loop)
        for want in range(len(futures)):
            while want not in results:
                fut = next(queue)
                i = index[fut.key]
                results[i] = _dask_result(fut)
                if done is not None:
                    done(i, results[i])
            yield results.pop(want)
    finally:
        client.cancel(futures)
        client.close()


def _dask_result(fut):
    from distributed.client import FutureCancelledError
    try:
        from distributed.scheduler import KilledWorker
    except ImportError:  # pragma: no cover
        KilledWorker = RuntimeError
    try:
        return fut.result()
    except UserError:
        raise
    except (KilledWorker, FutureCancelledError) as exc:
        raise UserError(f"a Dask worker died before finishing its part: {exc}",
                        hint="check the workers' memory limits and logs") from None
