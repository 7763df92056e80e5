"""`--every-length` under l1 and one-position adjacency (issue 40, item 4): verified through
linf with the same bound (each such pair is an linf pair), refuted only by a counterexample
under the claim's own adjacency (else undecided: the linf proofs of "no constant" move many
positions at once), and `hamming` refused at the line of its key."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from conftest import PROGRAMS, run_main

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.privacy.online.every_length import decide_every_length


def _claim(tmp_path, name, params, adjacency, budget, grid="[-1, 1]", events=None, bound=None):
    text = (f'[program]\npath = "{(PROGRAMS / (name + ".dip")).as_posix()}"\n'
            f'params = {{ {", ".join(f"{k} = {v}" for k, v in params.items())} }}\n'
            f'[privacy]\nadjacency = "{adjacency}"\n'
            + (f"bound = {bound}\n" if bound is not None else "")
            + f'budget = "{budget}"\n'
            + (f'events = {{ {events} = ["(-inf, 0]", "(0, inf)"] }}\n' if events else "")
            + f'[privacy.inputs]\ngrid = {{ q = {grid} }}\n')
    p = tmp_path / f"{name}_{adjacency}.toml"
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("adjacency", ["l1", "one-position"])
def test_sparse_is_verified_through_linf(tmp_path, adjacency):
    path = _claim(tmp_path, "sparse", {"m": 3, "c": 1}, adjacency, "2*eps", bound=2, grid="[0, 2]")
    res = decide_every_length(load_privacy_claim(path), path, {}, lengths=(1, 2))
    assert res.verdict == "verified" and res.d == F(2)        # d = 1 per unit of linf bound, bound 2
    assert res.adjacency == adjacency and "through linf" in res.report()
    assert all(v is not None and v <= 2 for _, _, v, _ in res.losses)


def test_a_linf_pattern_is_no_refutation_under_l1(tmp_path):
    # The Laplace mechanism releases Lap(eps, q[i]) at every i: under linf it is private for no
    # constant (a disclosing cycle), under l1 with bound 1 it is eps-DP for every m.  So the
    # pattern must not refute an l1 claim of eps: without a counterexample it is undecided.
    path = _claim(tmp_path, "laplace", {"k": 2}, "l1", "eps", grid="[0, 1]", events="out")
    res = decide_every_length(load_privacy_claim(path), path, {}, lengths=(1, 2), longer=(3,))
    assert res.verdict == "undecided" and res.counterexample is None and res.d is None
    assert res.patterns and "UNDECIDED" in res.report()


def test_an_l1_refutation_is_a_counterexample_under_l1(tmp_path):
    path = _claim(tmp_path, "laplace", {"k": 2}, "l1", "eps/2", grid="[0, 1]", events="out")
    claim = load_privacy_claim(path)
    res = decide_every_length(claim, path, {}, lengths=(1, 2), longer=())
    assert res.verdict == "refuted"
    m, r = res.counterexample
    assert m == 1 and not r.verified
    cex = r.counterexample
    assert claim.adjacency.adjacent(cex.input, cex.neighbour)


def test_one_position_refutation_pair_differs_in_one_position(tmp_path):
    # Alg. 4 (c = 1): d = 7/4 > 1; its linf counterexample at m = 2 swaps two positions, which
    # one-position does not allow, so whatever refutes the claim here changes one position only.
    path = _claim(tmp_path, "svt_lyu_alg4", {"m": 2, "c": 1}, "one-position", "eps/2", bound=1)
    claim = load_privacy_claim(path)
    res = decide_every_length(claim, path, {}, lengths=(1, 2), longer=())
    assert res.verdict == "refuted"
    cex = res.counterexample[1].counterexample
    diff = [k for k in cex.input if cex.input[k] != cex.neighbour[k]]
    assert len(diff) == 1 and claim.adjacency.adjacent(cex.input, cex.neighbour)


def test_hamming_is_refused_at_its_line(tmp_path):
    path = _claim(tmp_path, "sparse", {"m": 3, "c": 1}, "hamming", "eps")
    with pytest.raises(UserError) as err:
        decide_every_length(load_privacy_claim(path), path, {})
    assert err.value.line == 5 and "hamming" in err.value.message
    rc, _, err_text = run_main(["privacy", path, "--every-length"])
    assert rc == 2 and ":5:" in err_text and "Traceback" not in err_text
