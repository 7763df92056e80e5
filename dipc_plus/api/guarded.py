"""An API call under `timeout=` and `max_memory=`: run in a guarded child process, its result sent back.

Why a child: a limit must hold inside one long FLINT call, which no Python timer can interrupt,
and a memory limit (RLIMIT_AS) set on the caller's own process would stay on a notebook kernel.
So the call runs in the child `execution.guard.run_guarded` forks for the command's ``--timeout``
and ``--max-memory`` (its own process group, killed whole at the limit).  The child pickles its
report, or the error it raised, into an unnamed temporary file the parent made; the parent
unpickles only what its own child wrote, never user data.  A limit reached raises
`ResourceLimit` (a `UserError`) with the command's message in Python words; Ctrl-C or SIGTERM
during the call kills the child and raises KeyboardInterrupt.  Without either limit (the
default) the call runs in this process, as before.
"""
from __future__ import annotations

import pickle
import tempfile
from typing import Callable, TypeVar

from dipc_plus.api.errors import python_words
from dipc_plus.errors import ResourceLimit
from dipc_plus.execution.guard import EXIT_LIMIT, Stopped, run_guarded
from dipc_plus.execution.options import RunOptions

T = TypeVar("T")


def guarded(options: RunOptions, call: Callable[[], T]) -> T:
    """call() under the options' timeout and max_memory (in a child process), or here without them.

    >>> from dipc_plus.execution.options import DEFAULT_OPTIONS
    >>> guarded(DEFAULT_OPTIONS, lambda: 6 * 7)          # no limits: called here
    42
    """
    if not (options.timeout or options.max_memory):
        return call()
    with tempfile.TemporaryFile() as sent:
        def in_child() -> int:
            try:
                outcome: tuple = ("value", call())
            except MemoryError:
                return -1       # the guard's word for "stopped at the memory limit"
            except Exception as exc:   # the caller raises it again: a UserError, a StrictVerdictError, a bug
                outcome = ("raise", exc)
            try:
                pickle.dump(outcome, sent, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:   # an exception or result that does not pickle: say what it was
                sent.seek(0)
                sent.truncate()
                pickle.dump(("raise", RuntimeError(f"{type(exc).__name__}: {exc}")), sent)
            sent.flush()
            return 0

        stops: list[Stopped] = []

        def on_stop(stop: Stopped) -> int:
            stops.append(stop)
            return stop.exit
        code = run_guarded(in_child, timeout=options.timeout, max_memory=options.max_memory, on_stop=on_stop)
        if stops:
            raise _stopped(stops[0])
        sent.seek(0)
        try:
            kind, value = pickle.load(sent)
        except (EOFError, pickle.UnpicklingError):
            raise RuntimeError(f"the guarded call ended with status {code} and sent no result") from None
    if kind == "raise":
        raise value
    return value


def _stopped(stop: Stopped) -> BaseException:
    """The exception for a stopped call: ResourceLimit at a limit, KeyboardInterrupt for a signal."""
    if stop.exit == EXIT_LIMIT:
        return ResourceLimit(python_words(stop.message), hint=python_words(stop.hint) if stop.hint else None)
    if stop.exit in (130, 143):
        return KeyboardInterrupt(stop.message)
    return RuntimeError(stop.message)
