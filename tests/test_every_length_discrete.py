"""Discrete Laplace draws in the every-length class (issue 40, item 5): admitted because the noise
registry states a two-sided shift cost for integer shifts (docs/design/every_length.md, "Discrete
Laplace draws"); one-sided exponential draws refused with their line."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from flint import arb, fmpq

from conftest import PROGRAMS

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.exact.noises.registry import all_noises
from dipc_plus.frontend.load import load_program
from dipc_plus.privacy.loss.tight import privacy_loss
from dipc_plus.privacy.online.every_length import classify, decide_every_length


def _claim(tmp_path, program, m=3, budget="eps", grid="[0, 1]", bound=None):
    text = (f'[program]\npath = "{program.as_posix()}"\nparams = {{ m = {m} }}\n'
            f'[privacy]\nadjacency = "linf"\nbudget = "{budget}"\n'
            + (f"bound = {bound}\n" if bound is not None else "")
            + f'[privacy.inputs]\ngrid = {{ q = {grid} }}\n')
    p = tmp_path / f"{program.stem}_{m}_{budget.replace('/', '_').replace('*', '')}.toml"
    p.write_text(text)
    return str(p)


def test_the_registry_states_the_shift_costs():
    costs = {n.kind: n.shift_cost for n in all_noises()}
    assert costs["lap"] == costs["dlap"] == "two-sided" and costs["exp"] == "one-sided"


def test_discrete_above_threshold_is_verified_for_every_m_and_agrees_with_the_exact_losses(tmp_path):
    # threshold DLap(eps/2), reads DLap(eps/4), exit at the first top: mode U pays 1/2 + 2*1/4 = 1
    path = _claim(tmp_path, PROGRAMS / "discrete_svt.dip", budget="eps", grid="[-1, 1]")
    res = decide_every_length(load_privacy_claim(path), path, {}, lengths=(1, 2, 3), longer=())
    assert res.verdict == "verified" and res.d == 1
    assert res.automaton.integer_draw.endswith("discrete_svt.dip:20")
    # the exact tight sup L/eps of the unrolled program, computed here independently of the command
    for m in (1, 2, 3):
        sup = privacy_loss(load_privacy_claim(_claim(tmp_path, PROGRAMS / "discrete_svt.dip", m=m,
                                                     grid="[-1, 1]"))).sup
        assert not sup.infinite and sup.upper() <= res.d
        assert sup.value == F(m, 4)        # min(m/4, 1): mode Z pays 1/4 per step
    assert [v for _, _, v, _ in res.losses] == [F(1, 4), F(1, 2), F(3, 4)]


def test_a_non_integer_bound_is_refused_at_its_line(tmp_path):
    path = _claim(tmp_path, PROGRAMS / "discrete_svt.dip", bound="1.5")
    with pytest.raises(UserError) as err:
        decide_every_length(load_privacy_claim(path), path, {})
    assert err.value.line == 7 and "integer" in err.value.message and "3/2" in err.value.message


def test_a_non_private_discrete_variant_is_refuted_with_a_rechecked_counterexample(tmp_path):
    # no exit after a top: a leaking pair on one discrete threshold
    path = _claim(tmp_path, PROGRAMS / "discrete_svt_forever.dip", budget="1/2*eps")
    res = decide_every_length(load_privacy_claim(path), path, {}, lengths=(1, 2, 3), longer=())
    assert res.verdict == "not private for any constant" and res.d is None
    assert res.patterns and res.patterns[0].startswith("leaking pair")
    m, r = res.counterexample
    assert m == 3 and not r.verified
    cex = r.counterexample      # its certified ratio at its eps exceeds e^(eps/2)
    assert cex.ratio_at > arb(fmpq(cex.eps.numerator, 2 * cex.eps.denominator)).exp()


EXP_READ = """param m = 3
type Ans = {none, bot, top}
input  q: real[m]
output out: Ans[m]
for i = 1 to m do
    out[i] <- none
end
x <- Lap(eps/2, 0)
for i = 1 to m do
    r <- ExpNoise(eps/4, q[i])
    if r >= x then
        out[i] <- top
        exit
    else
        out[i] <- bot
    end
end
"""


@pytest.mark.parametrize("first, read, line", [
    ("Lap", "ExpNoise", 10),      # the read
    ("ExpNoise", "Lap", 8),       # the threshold before the loop
])
def test_an_exponential_draw_is_refused_with_its_line(tmp_path, first, read, line):
    src = tmp_path / "exp_svt.dip"
    src.write_text(EXP_READ.replace("x <- Lap", f"x <- {first}").replace("r <- ExpNoise", f"r <- {read}"))
    with pytest.raises(UserError) as err:
        classify(load_program(str(src), None))
    assert err.value.line == line
    assert "one-sided" in err.value.message and "no one-sided shift game is proved" in err.value.message
