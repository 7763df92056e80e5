"""Shared test constants and independent numerical oracles.

Paths: the repository root and its `programs/` and `theories/` folders, so no
test computes them itself.

Laplace oracles: the density, distribution and survival functions of
Lap(rate, mu) (density rate/2 * exp(-rate |x - mu|)) written from the textbook
formula, and a scipy quadrature over the real line split at the kinks of the
densities.  They share no code with dipc_plus: they are the independent side of
the closed-form cross-checks.  Tests import them with `from conftest import ...`
(pytest puts this folder on sys.path, as for `handmade.py`).

The `long` marker: a test marked so runs only with DIPC_LONG=1 (see the hooks at the end).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "programs"
THEORIES = ROOT / "theories"


def noisy_max_det_table(second_output: str = "out = 2", more_rows: str = "") -> str:
    """A claim on noisy_max (m = 2) whose det is a table of rows q = [0, 0] -> out = 1 and q = [0, 2] ->
    `second_output`, then `more_rows` (TOML text): the det-table claim several tests vary."""
    return f"""\
[program]
path = "{PROGRAMS.as_posix()}/noisy_max.dip"
params = {{ m = 2 }}

[accuracy]
det = "table"
input_distance = "linf"
output_distance = "zero-one"
alpha = "dd"
gamma = 0
beta = "m*exp(-alpha*eps/2)"

[[accuracy.table]]
input = {{ q = [0, 0] }}
output = {{ out = 1 }}

[[accuracy.table]]
input = {{ q = [0, 2] }}
output = {{ {second_output} }}
{more_rows}"""


def lap_pdf(x: float, mu: float, rate: float) -> float:
    """Density of mu + Lap(rate): rate/2 * exp(-rate |x - mu|)."""
    return 0.5 * rate * math.exp(-rate * abs(x - mu))


def lap_cdf(x: float, mu: float, rate: float) -> float:
    """P[mu + Lap(rate) <= x]."""
    z = x - mu
    return 0.5 * math.exp(rate * z) if z < 0 else 1 - 0.5 * math.exp(-rate * z)


def lap_sf(x: float, mu: float, rate: float) -> float:
    """P[mu + Lap(rate) > x], without the cancellation of 1 - cdf in the upper tail."""
    z = x - mu
    return 1 - 0.5 * math.exp(rate * z) if z < 0 else 0.5 * math.exp(-rate * z)


def quad(f, kinks, lo: float = -math.inf, hi: float = math.inf,
         epsabs: float = 1e-15, epsrel: float = 1e-13) -> float:
    """The integral of f over (lo, hi), split at the kinks inside it so scipy sees smooth pieces."""
    from scipy import integrate
    points = sorted({float(k) for k in kinks if lo < k < hi})
    edges = [lo] + points + [hi]
    total = 0.0
    for a, b in zip(edges, edges[1:]):
        if a == b:
            continue
        value, _ = integrate.quad(f, a, b, epsabs=epsabs, epsrel=epsrel, limit=200)
        total += value
    return total


def ledger_of(fn):
    """fn(w) with the guard's ledger attached to the write end w of a pipe: (what fn returned, a
    ledger.Collector of every line it recorded)."""
    from dipc_plus.execution import ledger
    r, w = os.pipe()
    ledger.attach(w)
    try:
        result = fn(w)
    finally:
        ledger.attach(None)
        os.close(w)
    collector = ledger.Collector()
    with os.fdopen(r, "rb") as f:
        collector.feed(f.read())
    return result, collector


def count_ledger_writes(monkeypatch, w: int, writes: list) -> None:
    """From now on (until monkeypatch.undo()), each write of the ledger to fd w appends its number
    of lines to `writes`: a test sees whether records go out one by one or a part at once."""
    real_write = os.write

    def counting_write(fd, data):
        if fd == w:
            writes.append(bytes(data).count(b"\n"))
        return real_write(fd, data)
    monkeypatch.setattr(os, "write", counting_write)   # the one os.write every module (ledger's write_all) calls


def run_main(argv):
    """`dipc ARGV` through the CLI's main in this process: (exit, stdout, stderr)."""
    import contextlib
    import io

    from dipc_plus import cli
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


# -- the long runs ------------------------------------------------------------------------------

def pytest_configure(config):
    config.addinivalue_line("markers", "long: a larger size of a check the suite also runs at a smaller size; "
                                       "runs only with DIPC_LONG=1 (CONTRIBUTING, Tests)")


def pytest_collection_modifyitems(config, items):
    """Skip the tests marked `long` unless DIPC_LONG=1: they repeat a check at a size that adds
    time, not a case, so the default run keeps the suite inside its ten minutes on two cores."""
    if os.environ.get("DIPC_LONG") == "1":
        return
    skip = pytest.mark.skip(reason="a larger size of a check run smaller by default: set DIPC_LONG=1")
    for item in items:
        if item.get_closest_marker("long") is not None:
            item.add_marker(skip)
