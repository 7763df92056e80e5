"""A progress bar on stderr for the long runs of every command (one look for all of them).

Shown only on a terminal and only once a run has taken a second, so pipes, JSON
and quick runs print nothing; the commands advance it as tasks finish, in any
order, so it moves with ``--jobs`` and on a cluster too.
"""
from __future__ import annotations

import sys


def progress_bar(total: int, description: str, unit: str = "input"):
    from tqdm import tqdm
    return tqdm(total=total, desc=description, unit=unit, file=sys.stderr, delay=1.0,
                disable=not sys.stderr.isatty() or total <= 1, leave=False)
