"""The independent components of a constraint set come in one order, whatever order the atoms come
in: a frozenset's iteration order changes with PYTHONHASHSEED, and on a symbolic cell the first
component that needs a split decides how the cell is cut, so `prob --symbolic` printed its cells
in an order that changed from run to run (noticed by the exact-engine fold of stop 44)."""
from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

from dipc_plus.exact.constraints import components
from dipc_plus.exact.linear import LinForm, atom

ROOT = Path(__file__).resolve().parent.parent


def _atoms():
    # three independent groups: noises {4, 9}, {2}, {7, 11}; input 30 links nothing when ignored
    return [atom(LinForm.make({9: 1}), ">", LinForm.make({4: 1}, 1)),
            atom(LinForm.make({2: 1}), "<", LinForm.make({30: 1})),
            atom(LinForm.make({11: 1}), ">=", LinForm.make({7: 1}, -2)),
            atom(LinForm.make({4: 1}), ">", LinForm.make({}, 0))]


def test_components_come_in_the_order_of_their_smallest_noise():
    expected = None
    for order in itertools.permutations(_atoms()):
        got = components(list(order), frozenset({30}))
        firsts = [min(i for a in g for i in a.noises() - {30}) for g in got]
        assert firsts == sorted(firsts) == [2, 4, 7]
        expected = expected or got
        assert got == expected


def test_symbolic_cells_print_the_same_under_every_hash_seed():
    outs = set()
    for seed in ("0", "1", "2", "3"):
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed)
        proc = subprocess.run([sys.executable, "-m", "dipc_plus", "prob", "programs/noisy_max.dip", "--set", "m=3",
                               "--symbolic", "--box", "q=[0,1]"], capture_output=True, text=True, cwd=ROOT,
                              env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        outs.add("\n".join(line for line in proc.stdout.splitlines() if not line.startswith("Method:")))
    assert len(outs) == 1
