"""Several stored variables in the every-length class (issue 41): whitelist, bound, patterns.

The programs of the CCS 2023 examples (programs/range.dip, k_range.dip, min_max.dip,
k_min_max.dip) are recognised with two stored variables; their bound d comes from the game over
one mode per variable; what the class does not cover is refused at its line; the game's size is
reported and limited; the symmetry proof of the grid check refuses what it does not cover.  The
exact cross-check (BoundContradiction) runs at m = 1, 2 on a small grid here (the table in
experiments/every_length_table.md runs m = 1..3).
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from conftest import PROGRAMS

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.frontend.load import load_program
from dipc_plus.privacy.online import bound as bound_module
from dipc_plus.privacy.online.bound import Pending, canonical, coupling_bound
from dipc_plus.privacy.online.every_length import classify, decide_every_length
from dipc_plus.privacy.online.symmetry import Exchangeability


def _classify(path, params=None):
    params = params or {}
    return classify(load_program(path, {k: F(v) for k, v in params.items()} or None), set(params))


def test_mode_vectors_are_canonical():
    assert canonical(("Q3", "U", "Q3", "Q")) == ("Q", "U", "Q", "Q2")
    late = (Pending(5, F(1, 4), True), "Q2", Pending(2, F(1, 8), False), Pending(5, F(1, 4), True))
    assert canonical(late) == (Pending(0, F(1, 4), True), "Q", Pending(1, F(1, 8), False), Pending(0, F(1, 4), True))


@pytest.mark.parametrize("name, params, d", [
    ("range", {}, F(3, 2)),                  # 1/2 + 1/2 for the modes (D, U), 2*(1/4) for the one exit
    ("k_range", {"k": 1}, F(3, 2)),
    ("k_range", {"k": 2}, F(2)),             # one more step outside the range: 2*(1/4)
    ("k_min_max", {"k": 1}, F(3, 2)),
    ("k_min_max", {"k": 2}, F(2)),
])
def test_two_stored_variables_have_a_finite_bound(name, params, d):
    auto, bound, pats, _ = _classify(str(PROGRAMS / f"{name}.dip"), params)
    assert auto.variables in (("lo", "hi"), ("mn", "mx"))
    assert bound.d == d and not pats
    assert len(auto.states()) <= len(bound.values) <= bound_module.MAX_COUPLING_STATES   # reachable positions


HEAD = """param m = 3
type Ans = {bot, mid, top}
input  q: real[m]
output out: Ans[m]
lo <- Lap(eps/2, 0)
hi <- Lap(eps/2, 2)
for i = 1 to m do
    r <- Lap(eps/4, q[i])
"""
TAIL = """        out[i] <- top
    else
        out[i] <- bot
    end
end
"""

BREAKS = {
    "two stored variables compared": ("    if lo < hi then\n" + TAIL, 9, "two stored variables are never compared"),
    "one variable compared twice": ("    if r >= lo then\n        if r > lo then\n            out[i] <- top\n"
                                    "        end\n" + TAIL, 10, "second comparison with the stored variable 'lo'"),
    "compared after its store": ("    if r >= lo then\n        hi <- r\n        if r >= hi then\n"
                                 "            out[i] <- mid\n        end\n" + TAIL, 11, "'hi' is compared after"),
    "a variable started twice": ("    if r >= lo then\n" + TAIL, 6, "given a value twice before the loop"),
}


@pytest.mark.parametrize("case", list(BREAKS))
def test_outside_the_class_names_its_line(tmp_path, case):
    body, line, words = BREAKS[case]
    head = HEAD.replace("hi <- Lap(eps/2, 2)", "lo <- Lap(eps/2, 2)") if case == "a variable started twice" else HEAD
    path = tmp_path / "p.dip"
    path.write_text(head + body)
    with pytest.raises(UserError, match=words) as err:
        _classify(str(path))
    assert err.value.line == line


def test_a_game_past_its_limit_is_refused_with_its_size(monkeypatch):
    auto, *_ = _classify(str(PROGRAMS / "k_range.dip"), {"k": 2})
    monkeypatch.setattr(bound_module, "MAX_COUPLING_STATES", 20)   # it has 25 reachable positions
    with pytest.raises(UserError, match="more than 20 positions .* MAX_COUPLING_STATES = 20") as err:
        coupling_bound(auto)
    assert err.value.line == 26   # the loop body's first statement


def test_one_variable_keeps_part_one_bounds():
    for name, d in (("svt_assign", F(5, 4)), ("above_threshold", F(1)), ("svt_lyu_alg4", F(7, 4))):
        assert _classify(str(PROGRAMS / f"{name}.dip"))[1].d == d


@pytest.mark.parametrize("name", ["k_range", "svt_assign"])
def test_symmetry_proof_refuses_stores_and_several_variables(name):
    # a stored read sets the later steps' threshold, so two bots of one segment count are not exchangeable
    with pytest.raises(UserError, match="no symmetry proved"):
        Exchangeability(load_program(str(PROGRAMS / f"{name}.dip"), {"m": F(3)}))


def _claim(tmp_path, name, budget, params):
    text = (f'[program]\npath = "{(PROGRAMS / f"{name}.dip").as_posix()}"\nparams = {{ {params} }}\n'
            f'[privacy]\nadjacency = "linf"\nbudget = "{budget}"\n[privacy.inputs]\ngrid = {{ q = [0, 1] }}\n')
    p = tmp_path / f"{name}.toml"
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("name, params, budget, verdict", [
    ("range", "m = 2", "3/2*eps", "verified"),
    ("k_min_max", "m = 2, k = 1", "3/2*eps", "verified"),
])
def test_verified_after_the_exact_losses_at_small_m(tmp_path, name, params, budget, verdict):
    path = _claim(tmp_path, name, budget, params)
    res = decide_every_length(load_privacy_claim(path, {}), path, {}, lengths=(1, 2), longer=())
    assert res.verdict == verdict and [m for m, *_ in res.losses] == [1, 2]
    # "verified" is returned only after each exact loss is certified at most d (else BoundContradiction)
    assert all(v is None or v <= res.d for _, _, v, _ in res.losses)
