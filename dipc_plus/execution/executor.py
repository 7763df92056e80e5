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
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from flint import arb, fmpq_poly, fmpz

from dipc_plus.errors import UserError
from dipc_plus.execution.collector import bulk_gc
from dipc_plus.execution.lifetime import EXIT_SIGNAL, die_with_parent, signal_name

__all__ = ["Source", "Executor", "run_tasks", "run_dealt", "available_cores", "chunks", "shrinking_ranges",
           "in_worker"]


# exact values carry python-flint polynomials: make them picklable for every executor (rebuilt from
# their coefficients by the class itself)
copyreg.pickle(fmpq_poly, lambda p: (fmpq_poly, (p.coeffs(),)))


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
            raise cannot_rebuild("a worker")
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


def cannot_rebuild(worker: str) -> UserError:
    """The error of a run whose check a `worker` would have to rebuild, though no builder came with it."""
    return UserError(f"this check was not loaded from files, so {worker} cannot rebuild it",
                     hint="use --executor local (or run it from the command line)")


DASK_SCHEDULERS = ("tcp", "tls", "ws", "wss", "ucx")   # the protocols a scheduler elsewhere listens on
_ADDRESS_HINT = "write the address `dask scheduler` prints, e.g. tcp://10.0.0.5:8786 (docs/cluster.md)"


def scheduler_address(text: str, origin: str = "--scheduler") -> str:
    """A Dask scheduler address, checked here so a typo is a located message, not Dask's ValueError:
    PROTOCOL://HOST:PORT (or HOST:PORT for tcp), HOST a name, an IPv4 or a [bracketed] IPv6 address."""
    import ipaddress
    import re
    raw = str(text).strip()
    shown = f"{origin} {raw[:80]!r}" if len(raw) <= 80 else f"{origin} '{raw[:60]}...'"

    def refused(why: str, hint: str = _ADDRESS_HINT) -> UserError:
        return UserError(f"{shown}: {why}", hint=hint)
    if not raw or len(raw) > 300:
        raise refused("not a scheduler address")
    scheme, sep, rest = raw.partition("://")
    scheme, rest = (scheme.lower(), rest) if sep else ("tcp", raw)
    if scheme == "inproc":
        raise refused("an in-process address, which only a scheduler inside this process has")
    if scheme not in DASK_SCHEDULERS:
        raise refused(f"unknown protocol '{scheme[:20]}' (Dask's are {', '.join(DASK_SCHEDULERS)})")
    if not rest:
        raise refused(f"no host and port after {scheme}://")
    if rest.startswith("["):
        host, bracket, after = rest[1:].partition("]")
        v6_hint = "e.g. tcp://[::1]:8786"
        if not bracket:
            raise refused("the IPv6 address has no closing ']'", v6_hint)
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise refused(f"'{host[:40]}' is not an IPv6 address", v6_hint) from None
        if not after.startswith(":"):
            raise refused("no port after the address", v6_hint)
        host, port = f"[{host}]", after[1:]
    else:
        host, colon, port = rest.rpartition(":")
        if not colon:
            raise refused("no port")
        if not re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,252})", host or "-"):
            raise refused(f"'{host[:40]}' is not a host name or address" if host else "no host")
    if not port.isdigit() or not 1 <= int(port[:6]) <= 65535 or len(port) > 5:
        raise refused(f"the port '{port[:20]}' is not a number from 1 to 65535")
    return f"{scheme}://{host}:{int(port)}"


@dataclass(frozen=True)
class Executor:
    """Where tasks run: kind 'serial', 'local' (jobs processes) or 'dask' (scheduler address, and
    where it came from: --scheduler or the DASK_SCHEDULER_ADDRESS variable Dask users set)."""
    kind: str = "serial"
    jobs: int = 1
    scheduler: str | None = None
    origin: str = field(default="--scheduler", compare=False)

    @classmethod
    def local(cls, jobs: int) -> "Executor":
        if jobs <= 0:
            jobs = available_cores()
        return cls("serial") if jobs <= 1 else cls("local", jobs)

    @property
    def parallel(self) -> bool:
        return self.kind != "serial" and not _IN_WORKER

    def scheduler_text(self) -> str:
        """The scheduler's address, and where it came from when the user did not type it."""
        return f"{self.scheduler}" + (f" (from {self.origin})" if self.origin != "--scheduler" else "")


SERIAL = Executor()


def shard_chunk(total: int, shard: tuple[int, int] | None) -> tuple[int, int]:
    """[start, stop) of the items part `shard` = (i, n) of a sharded run covers (all of them without one):
    the run writes it in its part and `dipc merge` checks a part's items against it."""
    if shard is None:
        return 0, total
    return chunks(total, shard[1])[shard[0] - 1] if shard[0] <= total else (total, total)


def chunks(n: int, parts: int) -> list[tuple[int, int]]:
    """[start, stop) ranges cutting range(n) into `parts` contiguous, nearly equal pieces (none empty)."""
    parts = max(1, min(parts, n))
    size, extra = divmod(n, parts)   # the first `extra` pieces hold one item more
    return [(k * size + min(k, extra), (k + 1) * size + min(k + 1, extra)) for k in range(parts)] if n else []


_SMALLEST_SHARE = 64   # the smallest range of shrinking_ranges is n / (this * workers)


def shrinking_ranges(n: int, workers: int, largest: int | None = None) -> list[tuple[int, int]]:
    """Contiguous [start, stop) ranges of range(n) for `workers` processes, large first, then
    shrinking (guided self-scheduling).

    Why: neighbouring inputs share cache entries, so a range should be long; but the cost of
    an input varies tenfold along a grid, and with equal ranges one worker was left computing
    the last long range while the other waited (1.3 s of an 8 s Sparse m=7 run).  Each range
    takes 1/(2 workers) of what is left, down to 1/(64 workers) of the whole: the last range
    to finish is what the other workers wait for (with 1/(16 workers), 68 of Sparse m=7's
    2187 inputs, 0.15 s, left one worker idle for up to 0.1 s of a 1.9 s check).  `largest`
    caps a range: what one task sends back is then bounded, whatever the grid's size."""
    if n <= 0:
        return []
    workers = max(1, workers)
    cap = n if largest is None else max(1, largest)
    smallest = min(cap, max(1, n // (_SMALLEST_SHARE * workers)))
    out, start = [], 0
    while start < n:
        size = min(cap, max(smallest, -(-(n - start) // (2 * workers))))
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
    unguarded run's main process), and leaves SIGINT / SIGTERM to its owner, which kills it
    (`_call` marks it a worker)."""
    die_with_parent(parent)
    for sig in EXIT_SIGNAL:
        signal.signal(sig, signal.SIG_IGN)


def run_tasks(fn: Callable, source: Source, tasks: list, *, executor: Executor = SERIAL,
              done: Callable[[int, object], None] | None = None) -> Iterator:
    """Yield fn(source, task) for each task, in task order, computed by `executor`.

    `done(i, result)` is called as each task finishes (in any order: a progress bar);
    closing the generator early cancels the tasks still running."""
    with bulk_gc():
        if executor.parallel and len(tasks) > 1:
            yield from (_run_dask if executor.kind == "dask" else _run_local)(fn, source, tasks, executor, done)
            return
        for i, task in enumerate(tasks):
            out = fn(source, task)
            if done is not None:
                done(i, out)
            yield out


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


_IN_FLIGHT = 4   # tasks submitted ahead per worker of a local run (their results wait in the client)
# seconds the client waits on its workers at a time.  Why not for ever: Python runs a signal's handler
# in the main thread only, and a signal that the kernel hands to another thread of ours (the pool's
# manager thread; the usual case for the second of two back-to-back signals) does not wake a main
# thread blocked on a lock: an unguarded run heard INT+TERM only when the next task finished (7-11 s)
_SIGNAL_POLL = 0.1


def _run_local(fn, source, tasks, executor, done):
    """The tasks on forked workers, at most _IN_FLIGHT per worker submitted and not yet yielded:
    the client holds the results of those only (all of them at once held a whole grid's)."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool
    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - not POSIX
        yield from run_tasks(fn, source, tasks, executor=SERIAL, done=done)
        return
    pool = ProcessPoolExecutor(min(executor.jobs, len(tasks)), mp_context=multiprocessing.get_context("fork"),
                               initializer=_worker_init, initargs=(os.getpid(),))
    window = _IN_FLIGHT * executor.jobs
    pending: dict = {}   # task index -> its future, for the tasks submitted and not yet yielded
    unheard: dict = {}   # the same for the tasks whose end `done` has not heard of yet

    def submit(j: int) -> None:
        if j < len(tasks):
            pending[j] = unheard[j] = pool.submit(_call, fn, source, tasks[j])

    def hear_ended() -> None:
        for j in [j for j, f in unheard.items() if f.done()]:
            f = unheard.pop(j)
            if done is not None and f.exception() is None:
                done(j, f.result())

    # the workers are forked at the first submit: frozen, the client's objects are never walked by
    # a worker's collector, so their pages stay shared instead of being copied into every worker
    gc.freeze()
    try:
        for j in range(window):
            submit(j)
    finally:
        gc.unfreeze()
    try:
        for i in range(len(tasks)):   # pending holds tasks i .. i + window - 1
            while not pending[i].done():
                wait([f for f in pending.values() if not f.done()], timeout=_SIGNAL_POLL, return_when=FIRST_COMPLETED)
                hear_ended()
            hear_ended()
            try:
                result = pending[i].result()
                del pending[i]
                submit(i + window)
            except BrokenProcessPool:
                raise UserError(f"a worker process died before finishing its part ({_dead_workers(pool)})",
                                hint="run again with fewer --jobs or a larger --max-memory") from None
            yield result
            del result
    finally:
        # left early (a refutation, an error, a dead worker): kill the workers, then let the pool's
        # manager thread fail the pending futures itself - cancelling them first makes Python 3.11's
        # manager thread crash with a traceback on stderr.  After a worker died, the manager thread
        # only SIGTERMs the survivors (which ignore it) and joins them: without the kill, a guarded
        # run waited there for its time limit
        if pending:
            for proc in _workers(pool):
                if proc.is_alive():
                    proc.kill()
        pool.shutdown(wait=True)


def _workers(pool) -> list:
    """The pool's worker processes (a private attribute of ProcessPoolExecutor: none if it moved)."""
    return list((getattr(pool, "_processes", None) or {}).values())


def _dead_workers(pool) -> str:
    """Which worker died and how, in words: 'process 4242 was killed by SIGKILL'.  A dead
    worker's sentinel is readable a moment before it can be reaped: its status is waited for
    (bounded; the survivors are still running)."""
    from multiprocessing.connection import wait as wait_any
    procs = _workers(pool)
    ended = set(wait_any([p.sentinel for p in procs], timeout=1.0)) if procs else set()
    return death_words([(p.pid, _exit_status(p)) for p in procs if p.sentinel in ended or p.exitcode is not None])


def death_words(dead: list) -> str:
    """(pid, exit code) of the dead workers in words.  After one worker dies, the pool's manager thread
    SIGTERMs the survivors: a worker ended by SIGTERM (or exit status 143, a worker forked a moment
    before that had not yet set its own handling) beside one that ended otherwise is that shutdown, not
    a cause, and is left out.

    >>> death_words([(7, -9), (8, -15)])
    'process 7 was killed by SIGKILL'
    """
    dead = [d for d in dead if d[1] not in (-signal.SIGTERM, EXIT_SIGNAL[signal.SIGTERM])] or dead
    if not dead:
        return "killed, or out of memory"
    return " and ".join(f"process {pid} ended (its status was taken by another thread)" if code is None else
                        f"process {pid} was killed by {signal_name(-code)}" if code < 0 else
                        f"process {pid} exited with status {code}" for pid, code in dead)


def _exit_status(proc, patience: float = 2.0):
    """The exit code of a worker whose sentinel is readable.  The pool's manager thread may be inside
    waitpid on the same pid: our own waitpid then fails (the child is reaped) and reads None until
    that thread stores the code in the shared Popen object, so poll a moment for it."""
    deadline = time.monotonic() + patience
    proc.join(min(1.0, patience))
    while proc.exitcode is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return proc.exitcode


def quiet_dask_logs() -> None:
    """Dask's own loggers on our client only at CRITICAL: a lost scheduler or worker is our one-line
    message (naming what died), not Dask's reconnect errors and tracebacks on stderr.  Not restored
    afterwards: the client's event-loop thread still logs while it closes (the scheduler's and the
    workers' own logs are untouched)."""
    import logging
    try:
        import distributed  # noqa: F401  (its import sets its loggers' levels: after it, ours stay)
    except ImportError:
        return
    names = [n for n in list(logging.root.manager.loggerDict) if n.split(".")[0] in ("distributed", "tornado")]
    for n in {"distributed", "tornado", *names}:
        logging.getLogger(n).setLevel(logging.CRITICAL)


def _dask_client(executor: "Executor"):
    try:
        from distributed import Client
    except ImportError:
        raise UserError("--executor dask needs the dask.distributed package",
                        hint='pip install "dask[distributed]" (or pip install -e ".[cluster]")') from None
    from dipc_plus.execution.dask_protocols import check_protocol
    check_protocol(executor.scheduler, f"{executor.origin} {executor.scheduler!r}", DASK_SCHEDULERS)
    try:
        return Client(executor.scheduler, timeout="5s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UserError(f"cannot reach the Dask scheduler at {executor.scheduler_text()}: {_one_line(exc)}",
                        hint="start it with `dask scheduler` and workers with `dask worker ADDRESS` "
                             "(docs/cluster.md)") from None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:200] + "..."


# Dask's exceptions by name (told apart without importing Dask) -> what failed
DASK_FAILURES = {"CommClosedError": "connection", "StreamClosedError": "connection", "KilledWorker": "worker",
                 "CancelledError": "cancelled", "FutureCancelledError": "cancelled"}


def is_dask_failure(exc: BaseException, fut=None) -> bool:
    """True when Dask itself failed (a worker killed, the scheduler lost, a part cancelled), False
    for an exception the task raised."""
    return type(exc).__name__ in DASK_FAILURES or getattr(fut, "status", None) in ("cancelled", "lost")


def _run_dask(fn, source, tasks, executor, done):
    """The tasks on a Dask cluster's workers, which rebuild the source from its files."""
    if source.build is None:
        raise cannot_rebuild("a Dask worker")
    grace = _no_worker_wait()   # a bad DIPC_DASK_WORKER_WAIT is refused before any work
    quiet_dask_logs()
    from distributed import as_completed
    client = _dask_client(executor)
    try:
        futures = client.map(_call, [fn] * len(tasks), [source] * len(tasks), tasks, pure=False)
    except Exception as exc:
        client.close()
        if not (is_dask_failure(exc) or isinstance(exc, (OSError, TimeoutError))):
            raise
        raise _dask_failure(exc, executor) from None
    index = {f.key: i for i, f in enumerate(futures)}
    results: dict = {}
    try:
        queue = as_completed(futures, loop=client.loop)
        for want in range(len(futures)):
            while want not in results:
                fut = _next_finished(queue, client, executor, grace)
                i = index[fut.key]
                try:
                    results[i] = fut.result()
                except Exception as exc:
                    if not is_dask_failure(exc, fut):
                        raise   # the task's own error (a UserError, or a bug of ours): not a lost scheduler or worker
                    raise _dask_failure(exc, executor) from None
                if done is not None:
                    done(i, results[i])
            yield results.pop(want)
    finally:
        try:
            client.cancel(futures)
            client.close()
        except Exception:   # the scheduler is gone: nothing left to cancel
            pass


NO_WORKER_WAIT = 60.0   # seconds a run waits for a Dask worker before it ends (DIPC_DASK_WORKER_WAIT)


def _no_worker_wait() -> float:
    """The seconds of DIPC_DASK_WORKER_WAIT (60 when unset): a positive, finite number below 10^7, or a
    UserError - a 0, negative, nan or inf wait is a mistake to report, not a reason to wait 60 s silently."""
    text = os.environ.get("DIPC_DASK_WORKER_WAIT", "").strip()
    if not text:
        return NO_WORKER_WAIT
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 10**7:   # also false for nan
        raise UserError(f"DIPC_DASK_WORKER_WAIT={text[:40]!r} is not a number of seconds from above 0 to below 10^7",
                        hint="unset it (60 s) or set e.g. DIPC_DASK_WORKER_WAIT=120")
    return value


def _next_finished(queue, client, executor: "Executor", grace: float):
    """The next finished future; ends the run when the scheduler has had no worker for `grace`
    seconds (every worker died and none came back, or none was ever started): Dask itself would keep
    the parts waiting forever, and every run must end."""
    alone_since = None
    last_look = 0.0
    while not queue.has_ready():
        if queue.is_empty():
            raise _dask_failure(None, executor)
        now = time.monotonic()
        if now - last_look >= 1.0:
            last_look = now
            try:
                workers = client.scheduler_info(n_workers=1).get("workers", {})
            except Exception as exc:   # the scheduler is gone
                raise _dask_failure(exc if is_dask_failure(exc) else None, executor) from None
            if workers or alone_since is None:   # a worker is back, or the first look without one
                alone_since = None if workers else now
            elif now - alone_since >= grace:
                raise UserError(f"no Dask worker has been connected to the scheduler at "
                                f"{executor.scheduler_text()} for {grace:g} s, with parts of the run still waiting",
                                hint="start workers with `dask worker ADDRESS` (or set DIPC_DASK_WORKER_WAIT to "
                                     "wait longer), then run the check again")
        time.sleep(0.02)
    return next(queue)


def _dask_failure(exc: BaseException | None, executor: "Executor") -> UserError:
    """What died, in one line: the scheduler (the connection lost, or `exc` None) or a worker (killed, out of memory)."""
    text, where, failed = str(exc), executor.scheduler_text(), DASK_FAILURES.get(type(exc).__name__)
    if exc is None or "scheduler-connection-lost" in text or "lost the connection to the scheduler" in text or \
            failed == "connection" or isinstance(exc, (OSError, TimeoutError)):
        return UserError(f"the Dask scheduler at {where} stopped answering before the run finished (it was "
                         f"stopped, or the network failed)",
                         hint="restart the scheduler and its workers, then run the check again")
    if failed == "worker":
        return UserError(f"a Dask worker died while running a part, on every retry ({_one_line(exc)})",
                         hint="check the workers' memory limits and logs")
    if failed == "cancelled":
        return UserError(f"the Dask scheduler at {where} cancelled a part: {_one_line(exc)}",
                         hint="check the scheduler's log, then run the check again")
    return UserError(f"the Dask run failed: {type(exc).__name__}: {_one_line(exc)}",
                     hint="check the scheduler's and workers' logs")
