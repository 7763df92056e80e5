"""RunOptions: what one run is configured by, carried as one object from the CLI or the API.

Why: limits, where the work runs, progress, strictness and the reference mode were keyword
lists repeated in every layer (commands, API, checks).  Both front ends build one frozen
RunOptions (`commands.common.run_options`, `api.checks.run_options`) and the checks read it.
`timeout` and `max_memory` are carried for whoever enforces them (the CLI's guard today).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from dipc_plus.errors import UserError
from dipc_plus.execution.accelerators import accelerator


@dataclass(frozen=True)
class RunOptions:
    max_states: int | None = None                 # None: semantics.dtmc.DEFAULT_MAX_STATES
    limits: tuple[tuple[str, int], ...] = ()      # (name, value) of --limit NAME=N / limits={...}
    timeout: float | None = None                  # seconds of wall-clock time; None or 0: none
    max_memory: int | None = None                 # bytes; None or 0: none
    jobs: int = 1
    executor: str = "local"
    scheduler: str | None = None
    shard: tuple[int, int] | None = None          # (i, n): the i-th of n parts
    progress: bool = False
    strict: bool = False
    reference: bool = False                       # the general provers only (execution.accelerators)

    def allows(self, name: str) -> bool:
        """May the run use accelerator `name` (registered in execution.accelerators)?"""
        accelerator(name)
        return not self.reference

    def run_on(self):
        """The execution.executor.Executor of jobs/executor/scheduler; a Dask run's scheduler comes from
        `scheduler` or else the DASK_SCHEDULER_ADDRESS variable Dask users set."""
        from dipc_plus.execution.executor import Executor, available_cores, scheduler_address
        jobs, scheduler = self.jobs if self.jobs > 0 else available_cores(), self.scheduler   # 0: one per core
        if self.executor == "dask":
            origin = "--scheduler"
            if not scheduler and os.environ.get("DASK_SCHEDULER_ADDRESS", "").strip():
                scheduler, origin = os.environ["DASK_SCHEDULER_ADDRESS"], "DASK_SCHEDULER_ADDRESS"
            if not scheduler:
                raise UserError("--executor dask needs --scheduler ADDRESS (or DASK_SCHEDULER_ADDRESS set)",
                                hint="start one with `dask scheduler` and give its address, e.g. "
                                     "--scheduler tcp://127.0.0.1:8786 (docs/cluster.md)")
            return Executor("dask", max(jobs, 1), scheduler_address(scheduler, origin), origin)
        if scheduler:
            raise UserError("--scheduler is for --executor dask", hint="add --executor dask")
        return Executor.local(jobs)

    @contextmanager
    def limits_applied(self) -> Iterator[None]:
        """The size limits of this run set while it runs; the previous ones restored after."""
        from dipc_plus.execution import limits
        saved = {name: limits.get(name) for name in limits.LIMITS}
        try:
            for name, value in self.limits:
                limits.set_limit(name, value)
            yield
        finally:
            for name, value in saved.items():
                limits.set_limit(name, value)

    def mode_json(self) -> dict:
        """{"mode": "reference"} for a reference run; nothing for a default one (its JSON is unchanged)."""
        return {"mode": "reference"} if self.reference else {}


DEFAULT_OPTIONS = RunOptions()
