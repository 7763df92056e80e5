"""One run of a check's tasks: a progress bar that moves as tasks finish, a ledger of what is
decided, and a shutdown that happens however the run ends.

Why: every check (accuracy over inputs, DP and privacy loss over pairs, Pufferfish tables)
runs its tasks the same way, and each wrote the same bar, `done` callback and try/finally
around `executor.run_tasks` by hand.  Written once here:

    with TaskRun(len(points), "accuracy", "input", progress=True) as run:
        for part in run.parts(check_range, source, tasks, executor=executor, sizes=sizes):
            ...
            run.record([(item, verdict), ...])     # what a stopped run reports as decided
            if refuted:
                break                              # leaving the block stops the workers

Leaving the block - at the end, at a `break`, or by an exception - closes every task stream
the run opened (which cancels the tasks still running and shuts their workers down), then
the bar.  The bar's unit ("input", "pair") is also the ledger's scope of a decided item.
"""
from __future__ import annotations

from typing import Callable, Iterable, Iterator, Sequence

from dipc_plus.execution import ledger
from dipc_plus.execution.executor import SERIAL, Executor, Source, run_tasks
from dipc_plus.execution.progress import progress_bar


class TaskRun:
    """The bar, the ledger scope and the open task streams of one run (a context manager)."""

    def __init__(self, total: int, description: str, unit: str = "input", *, progress: bool = False):
        self.unit = unit
        self.bar = progress_bar(total, description, unit) if progress else None
        self._streams: list = []

    def parts(self, fn: Callable, source: Source, tasks: list, *, executor: Executor = SERIAL,
              sizes: Sequence[int] | None = None) -> Iterator:
        """fn(source, task) for each task, in task order (`executor.run_tasks`); the bar advances
        by sizes[i] when task i finishes, in any order (sizes None: these tasks do not move it).
        The stream is closed with the run."""
        bar = self.bar
        done = None if bar is None or sizes is None else (lambda i, _part: bar.update(sizes[i]))
        stream = run_tasks(fn, source, tasks, executor=executor, done=done)
        self._streams.append(stream)
        return stream

    def advance(self, n: int = 1) -> None:
        """Move the bar by n items decided in this process (not by a task)."""
        if self.bar is not None:
            self.bar.update(n)

    def record(self, decided: Iterable[tuple[str, str]]) -> None:
        """Note each (item as printed, verdict) in the ledger, under this run's unit, in one write."""
        ledger.record(self.unit, decided)

    def close(self) -> None:
        """Stop every task stream still open (cancelling its tasks), then the bar."""
        try:
            for stream in self._streams:
                stream.close()
        finally:
            self._streams.clear()
            if self.bar is not None:
                self.bar.close()

    def __enter__(self) -> "TaskRun":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
