"""The stage a box privacy decision is in: a progress bar on stderr and the ledger's "working on"
line (issue 38, part 7).

Why: a box claim runs its methods one after another (coupling bound and its cross-check,
density-ratio bound, worst neighbour, the searches), and one of them may take minutes.  The bar
(the project's `progress_bar`: a terminal only, after a second) names the method running; the
ledger line makes a run stopped by --timeout name the method and the region it was deciding.
"""
from __future__ import annotations

from dipc_plus.execution import ledger
from dipc_plus.execution.progress import progress_bar

STAGES = 7     # coupling, its cross-check, density ratio, worst neighbour (+ cross-check), lattices, cells


class BoxProgress:
    """One box decision's stages (a context manager: the bar is closed however the run ends)."""

    def __init__(self, region: str, show: bool):
        self.region = region
        self.bar = progress_bar(STAGES, "box privacy") if show else None
        self.current = ""

    def stage(self, method: str, region: str | None = None) -> None:
        """Start `method` on `region` (the whole box when None)."""
        self.current = f"{method} on {region or self.region}"
        ledger.working_on("method", self.current)
        if self.bar is not None:
            self.bar.set_description_str(f"box privacy: {method}", refresh=False)
            self.bar.update(1)

    def __enter__(self) -> "BoxProgress":
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
