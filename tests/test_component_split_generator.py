"""The privacy check's split into independent components (an accelerator: `--no-structure` and the
reference mode switch it off) against the whole-program check, on random small programs whose
outputs read their inputs in random patterns - shared inputs included, the shape the split once got
wrong (a pair changing an input two components read had its losses checked apart, not added, and a
false claim was VERIFIED).  Every program and budget: the same verdict both ways."""
from __future__ import annotations

import json
import os
import random

import pytest

from conftest import run_main

FLIPS = """type Bit = 0..1
distribution strong(x: Bit) over Bit { x: 4/5; 1 - x: 1/5 }
distribution weak(x: Bit) over Bit { x: 3/5; 1 - x: 2/5 }
"""
COUNT = 40 if os.environ.get("DIPC_LONG") == "1" else 10
BUDGETS = ("ln(2)", "ln(4)", "ln(15)", "ln(16)", "ln(64)")
FLAGS = ["--json", "--no-progress", "--timeout", "0", "--max-memory", "0"]


def random_program(seed: int) -> str:
    """2-3 Bit inputs, 2-3 Bit outputs, each drawn through a flip of a random input (or of a
    negated one), so outputs share inputs at random."""
    rng = random.Random(seed)
    inputs = [f"a{k}" for k in range(rng.choice((2, 3)))]
    lines = [FLIPS] + [f"input {n}: Bit" for n in inputs]
    outputs = [f"y{k}" for k in range(rng.choice((2, 3)))]
    lines += [f"output {y}: Bit" for y in outputs]
    for y in outputs:
        read = rng.choice(inputs)
        read = read if rng.random() < 0.7 else f"1 - {read}"
        lines.append(f"{y} <- choose({rng.choice(('strong', 'weak'))}({read}))")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(COUNT))
def test_the_component_split_decides_as_the_whole_program(tmp_path, seed):
    dip = tmp_path / "p.dip"
    dip.write_text(random_program(seed))
    for budget in BUDGETS:
        claim = tmp_path / "c.toml"
        claim.write_text(f'[program]\npath = "{dip}"\n[privacy]\nadjacency = "hamming"\nbudget = "eps"\n'
                         f'eps = "{budget}"\n')
        split = run_main(["privacy", claim, *FLAGS])
        whole = run_main(["privacy", claim, *FLAGS, "--no-structure"])
        assert split[0] in (0, 1) and whole[0] == split[0], (random_program(seed), budget, split, whole)
        assert json.loads(split[1])["verdict"] == json.loads(whole[1])["verdict"]
