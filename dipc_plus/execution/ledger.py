"""What a guarded run has decided so far, kept outside the process that may be killed.

Why: when `--timeout` or `--max-memory` stops a run, the guard kills the child
that did the work (see guard.py), and whatever it held in memory is gone.  A
user who waited twenty minutes deserves to know which inputs were already
decided.  So the loops that decide one input (or pair) at a time call
`record(...)`, which writes one short JSON line to a pipe the guard reads; on
expiry the guard hands the lines to the command, which prints them (text) or
puts them under ``decided_so_far`` (JSON).

Without a guard (the API, tests, `--timeout 0`) `record` does nothing, so the
loops need not know whether they run guarded.
"""
from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii

from dipc_plus.execution.std_streams import write_all

MAX_RECORDS = 10_000  # the parent keeps at most this many lines (the rest are counted)
MAX_TEXT = 200        # characters of one recorded label
IN_PROGRESS = "in progress"   # the verdict of the item being worked on: only the latest one is kept

_fd: int | None = None


def attach(fd: int | None) -> None:
    """Send records to the pipe `fd` (the guarded child calls this once); None detaches."""
    global _fd
    _fd = fd


def active() -> bool:
    """Is a guard listening?  Loops test this before formatting an item, so an unguarded
    run (the API, tests) pays nothing per pair or input."""
    return _fd is not None


def working_on(scope: str, item: str) -> None:
    """Note that `item` is being worked on (a stopped run names the last one: a long item, such as
    one cell of `prob --symbolic`, may be all the run was doing)."""
    record(scope, [(item, IN_PROGRESS)])


def record(scope: str, decided) -> None:
    """Note that each `item` (an input or pair, as printed) of `scope` ('input', 'pair', ...) got its
    `verdict`, for each (item, verdict) of `decided`, in one write.

    Why: a worker's range of inputs arrives at once, and one write per input woke the guard
    up once per input (2187 times on Sparse m=7) while the workers wanted both CPUs."""
    if _fd is None:
        return
    record_lines(lines(scope, decided))


def lines(scope: str, decided) -> str:
    """The records of `decided` as `record` writes them: made where the items were decided (a
    worker, which must not write to the pipe itself: two writers' long writes interleave), then
    written by `record_lines` in the process that owns the run."""
    quote = encode_basestring_ascii   # what json.dumps writes for a str, without its per-call set-up
    head = '{"scope": ' + quote(scope) + ', "item": '
    return "".join(f'{head}{quote(str(item)[:MAX_TEXT])}, "verdict": {quote(str(verdict)[:40])}}}\n'
                   for item, verdict in decided)


def record_lines(text: str) -> None:
    """Write records made by `lines` (nothing without a guard)."""
    if _fd is None or not text:
        return
    try:
        write_all(_fd, text.encode())
    except OSError:  # the parent is gone or stopped listening: the record is best effort
        attach(None)


class Collector:
    """The parent's side: turns the bytes read from the pipe into records."""

    def __init__(self):
        self.records: list[dict] = []
        self.dropped = 0
        self._partial = b""
        self._working = None    # index in records of the latest in-progress record

    def feed(self, data: bytes) -> None:
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        for k, raw in enumerate(lines):
            if len(self.records) >= MAX_RECORDS:   # the rest is only counted, never decoded (a grid
                self.dropped += len(lines) - k     # check sends one line per input: 531,441 at Sparse m = 12)
                return
            try:
                rec = json.loads(raw.decode())
            except ValueError:
                continue
            if not isinstance(rec, dict):
                continue
            if rec.get("verdict") == IN_PROGRESS:   # replaces the one before: never more than one
                if self._working is not None:
                    del self.records[self._working]
                self._working = len(self.records)
            self.records.append(rec)


def decided_count(records: list[dict], dropped: int = 0) -> int:
    """How many items were decided: the records kept and dropped, not the item in progress.

    >>> decided_count([{"verdict": "verified"}, {"verdict": IN_PROGRESS}], dropped=2)
    3
    """
    return sum(rec.get("verdict") != IN_PROGRESS for rec in records) + dropped


def summary(records: list[dict], dropped: int = 0) -> str:
    """One line per verdict kind: how many items, and the first few of them."""
    working = [rec for rec in records if rec.get("verdict") == IN_PROGRESS]
    records = [rec for rec in records if rec.get("verdict") != IN_PROGRESS]
    at_stop = [f"working on, when stopped: {rec.get('scope', 'item')} {rec.get('item', '?')}" for rec in working[-1:]]
    if not records:
        return "\n".join(["nothing was decided before the stop"] + at_stop)
    by_verdict: dict[str, list[str]] = {}
    for rec in records:
        key = f"{rec.get('scope', 'item')}s {rec.get('verdict', '?')}"
        by_verdict.setdefault(key, []).append(str(rec.get("item", "?")))
    lines = [f"decided before the stop ({len(records) + dropped} items):"]
    for key, items in by_verdict.items():
        shown = ", ".join(items[:5]) + (", ..." if len(items) > 5 else "")
        lines.append(f"  {len(items)} {key}: {shown}")
    if dropped:
        lines.append(f"  ({dropped} more not kept)")
    return "\n".join(lines + at_stop)
