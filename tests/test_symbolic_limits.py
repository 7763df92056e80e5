"""`prob --symbolic` ends (issue 36, item 6): a box that needs more cells than the `cells` limit is
refused before any cell is computed, `--timeout` stops a long run naming the cell it was on, and
a long run shows its progress on a terminal.  Every wait here is bounded (small --timeout)."""
from __future__ import annotations

import fcntl
import json
import os
import select
import struct
import subprocess
import sys
import termios
import time
from fractions import Fraction as F

import pytest

from conftest import PROGRAMS
from dipc_plus.errors import ResourceLimit
from dipc_plus.execution import ledger
from dipc_plus.frontend.load import load_program
from dipc_plus.semantics.symbolic_distribution import symbolic_distribution
from dipc_plus.semantics.symbolic_size import cells_at_least

SPARSE = str(PROGRAMS / "sparse.dip")


def _dipc(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "dipc_plus", *args], capture_output=True, text=True,
                          timeout=timeout)


def _sparse(m: int, *more):
    return ("prob", "--symbolic", SPARSE, "--set", f"m={m}", "--set", "c=1", "--box", "q=[-1,1]", *more)


@pytest.mark.parametrize("path, params", [
    ("sparse.dip", {"m": 2}), ("sparse.dip", {"m": 3}), ("sparse.dip", {"m": 3, "c": 2}),
    ("above_threshold.dip", {"m": 3}), ("svt_lyu_alg5.dip", {"m": 3}), ("noisy_max.dip", {"m": 3}),
])
def test_the_bound_is_below_the_cells_made_and_exact_for_sparse(path, params):
    """The bound never exceeds the cells the splitting makes (a refusal is never wrong); on
    Sparse it is the (m+1)! the splitting makes for its outputs of m comparisons."""
    program = load_program(str(PROGRAMS / path), {k: F(v) for k, v in params.items()})
    sd = symbolic_distribution(program, {"q": (F(-1), F(1))})
    least = cells_at_least(sd.paths, sd.bounds)
    made = {o: len(sd.pieces(o)) for o in sd.outputs()}
    assert all(least[o].count <= made[o] for o in made), (least, made)
    if path == "sparse.dip":
        m = params["m"]
        assert max(b.count for b in least.values()) == max(made.values()) == [1, 2, 6, 24][m]


def test_a_box_narrower_than_the_spread_of_the_breakpoints_gives_a_smaller_bound():
    """On q in [1, 2] the threshold's kink (0) lies below every q[i]: 3!, not 4!, for m = 3."""
    program = load_program(SPARSE, {"m": F(3)})
    sd = symbolic_distribution(program, {"q": (F(1), F(2))})
    least = cells_at_least(sd.paths, sd.bounds)
    assert max(b.count for b in least.values()) == 6
    assert all(least[o].count <= len(sd.pieces(o)) for o in sd.outputs())


def test_sparse_m7_is_refused_at_once_naming_the_limit_and_the_count():
    # before: the splitting ran for minutes toward 10,000 cells (here it would hit --timeout 20)
    proc = _dipc(*_sparse(7, "--timeout", "20"))
    assert proc.returncode == 2, proc.stderr
    assert "at least 40,320 cells" in proc.stderr and "8! orders" in proc.stderr
    assert "--limit cells=N" in proc.stderr and "stopped after the time limit" not in proc.stderr


def test_a_small_cells_limit_refuses_m5_at_once_in_json():
    proc = _dipc(*_sparse(5, "--limit", "cells=500", "--timeout", "20", "--json"))
    assert proc.returncode == 2
    error = json.loads(proc.stdout)["error"]["message"]
    assert "at least 720 cells" in error and "limit of 500 cells" in error


def test_the_api_refuses_before_splitting():
    program = load_program(SPARSE, {"m": F(7), "c": F(1)})
    with pytest.raises(ResourceLimit) as err:
        symbolic_distribution(program, {"q": (F(-1), F(1))})
    assert "at least 40,320 cells" in err.value.message


def test_timeout_stops_a_long_symbolic_run_naming_the_cell_it_was_on():
    # Sparse m = 5 needs 1,591 cells, many seconds; 2 s stop it inside the big output
    proc = _dipc(*_sparse(5, "--timeout", "2"))
    assert proc.returncode == 2
    assert "stopped after the time limit of 2 s" in proc.stderr
    assert "working on, when stopped: cell out=[" in proc.stderr and "of at least" in proc.stderr


def test_the_count_after_ctrl_c_leaves_out_the_item_in_progress():
    # the one line after Ctrl-C said "(1 items were decided before the stop)" with one cell in progress
    c = ledger.Collector()
    c.feed(ledger.lines("cell", [("cell 1", ledger.IN_PROGRESS)]).encode())
    assert ledger.decided_count(c.records) == 0
    c.feed(ledger.lines("input", [("q=[1]", "verified")]).encode())
    assert ledger.decided_count(c.records, dropped=4) == 5


def test_only_the_latest_item_in_progress_is_kept_and_shown():
    c = ledger.Collector()
    lines = ledger.lines("input", [("q=[1]", "verified")]) + "".join(
        ledger.lines("cell", [(f"cell {k}", ledger.IN_PROGRESS)]) for k in range(3))
    c.feed(lines.encode())
    assert [r["item"] for r in c.records] == ["q=[1]", "cell 2"]
    text = ledger.summary(c.records)
    assert "(1 items)" in text and "working on, when stopped: cell cell 2" in text


def test_a_long_symbolic_run_shows_its_progress_on_a_terminal():
    main, sub = os.openpty()
    fcntl.ioctl(sub, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))   # tqdm needs a width
    proc = subprocess.Popen([sys.executable, "-m", "dipc_plus", *_sparse(5, "--timeout", "3")],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sub)
    os.close(sub)
    seen, end = b"", time.monotonic() + 60
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([main], [], [], 1.0)
            if ready:
                try:
                    data = os.read(main, 1 << 16)
                except OSError:   # the other side closed
                    break
                if not data:
                    break
                seen += data
            elif proc.poll() is not None:
                break
    finally:
        proc.kill()
        proc.wait()
        os.close(main)
    text = seen.decode(errors="replace")
    assert "prob --symbolic (at least)" in text and "/1591" in text and "cell/s" in text
