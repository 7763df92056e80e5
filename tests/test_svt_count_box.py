"""StatDP's SVT that releases the number of bots (programs/svt_count.dip) on a box (issue 38): the
issue met UNDECIDED; it is verified by the coupling bound (counted outputs are in the online class,
issue 40) and, with that accelerator off (reference mode), by the density-ratio bound, cross-checked
exactly on a lattice."""
from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.dp.box import VERIFIED, decide_box_privacy, lattice_claim
from dipc_plus.execution.options import RunOptions
from dipc_plus.privacy.dp.check import check_dp

CLAIM = str(Path(__file__).resolve().parent.parent / "theories" / "svt_count_privacy_box.toml")


@pytest.mark.parametrize("m,k", [(3, F(3, 4)), (4, F(1))])
def test_svt_count_verified_on_the_box(m, k):
    claim = load_privacy_claim(CLAIM, {"m": F(m)})
    res = decide_box_privacy(claim)
    assert res.verdict == VERIFIED and res.method.startswith("coupling bound")
    res = decide_box_privacy(claim, options=RunOptions(reference=True))
    assert res.verdict == VERIFIED and res.method.startswith("density-ratio bound")
    assert res.density.k == k


def test_no_lattice_pair_above_the_bound():
    c = load_privacy_claim(CLAIM)
    assert check_dp(lattice_claim(c, F(1, 2))).verified     # 125 points, every adjacent pair exact
