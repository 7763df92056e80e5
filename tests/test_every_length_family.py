"""A "private for no constant" verdict carries a concrete counterexample (issue 40, item 6): the
first m at which the pattern's inputs (q = 0 against q' moving the pumped reads) fail the claimed
budget, looked for where the growth of the exact losses predicts it, checked exactly at that m
and re-checked; the limit on m is reported when reached."""
from __future__ import annotations

from fractions import Fraction as F

from flint import arb, fmpq

from conftest import PROGRAMS

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.online.every_length import decide_every_length, family_inputs, predicted_length


def _claim(tmp_path, budget):
    text = (f'[program]\npath = "{(PROGRAMS / "above_threshold_forever.dip").as_posix()}"\n'
            'params = { m = 3 }\n[privacy]\nadjacency = "linf"\n'
            f'budget = "{budget}"\n[privacy.inputs]\ngrid = {{ q = [-1, 1] }}\n')
    p = tmp_path / "forever.toml"
    p.write_text(text)
    return str(p)


def test_family_inputs_are_adjacent_to_zero():
    pts = family_inputs(5, F(2), "q")
    zero = pts[0]
    assert all(v == 0 for v in zero.values()) and len(pts) == 7
    assert [pts[1][f"q[{i}]"] for i in range(1, 6)] == [2, 2, 2, -2, -2]
    assert all(max(abs(p[k] - zero[k]) for k in zero) == 2 for p in pts[1:])


def test_predicted_length_follows_the_growth():
    losses = [(1, "", F(1, 4), ""), (2, "", F(1, 2), ""), (3, "", F(3, 4), "")]
    assert predicted_length(losses, F(2)) == 9          # 9/4 > 2 >= 8/4
    assert predicted_length(losses, F(3, 2)) == 7
    assert predicted_length(losses[:1], F(2)) is None   # no growth seen


def test_no_constant_carries_the_first_failing_m(tmp_path):
    # AboveThreshold that keeps going loses m/4*eps: a claim of 3/2*eps holds at m <= 6 and the
    # pattern's inputs first fail it at m = 7 (predicted from 1/2, 3/4 at m = 2, 3).
    path = _claim(tmp_path, "3/2*eps")
    claim = load_privacy_claim(path)
    res = decide_every_length(claim, path, {}, lengths=(1, 2, 3), longer=())
    assert res.verdict == "not private for any constant"
    m, r = res.counterexample
    assert m == 7 and not r.verified
    cex = r.counterexample
    assert claim.adjacency.adjacent(cex.input, cex.neighbour) and len(cex.input) == 7
    assert cex.ratio_at > arb(fmpq(3 * cex.eps.numerator, 2 * cex.eps.denominator)).exp()
    assert "first fail the claimed 3/2*eps at m = 7" in res.report() and "m = 6 holds" in res.report()
    assert res.to_json()["counterexample_m"] == 7


def test_the_limit_on_m_is_reported(tmp_path):
    path = _claim(tmp_path, "3*eps")        # first fails at m = 13, past the limit 8
    res = decide_every_length(load_privacy_claim(path), path, {}, lengths=(1, 2, 3), longer=(), family_limit=8)
    assert res.verdict == "not private for any constant" and res.counterexample is None
    assert "up to the limit m = 8" in res.report()
