"""Structure for scale (dipc_plus.semantics.structure): independent components, kernel chains and
symmetric inputs must give exactly the distributions of the plain Markov chain, and
symmetry must be found only where it holds."""
from __future__ import annotations

import os
from fractions import Fraction

import pytest

import dipc_plus
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.privacy.loss.tight import privacy_loss
from dipc_plus.semantics.distribution import output_distribution
from dipc_plus.semantics.structure import KernelChain, components
from conftest import ROOT, THEORIES



def program(name, **params):
    return dipc_plus.load(os.path.join(ROOT, "programs", f"{name}.dip"), **params).program


def test_rr_clients_splits_into_one_component_per_client():
    comps = components(program("rr_clients", n=5))
    assert [c.inputs for c in comps] == [(f"x[{i}]",) for i in range(1, 6)]
    assert [c.outputs for c in comps] == [(f"y[{i}]",) for i in range(1, 6)]


def test_product_of_components_is_the_distribution():
    p = program("rr_clients", n=3)
    comps = components(p)
    env = {"x[1]": 1, "x[2]": 0, "x[3]": 1}
    whole = output_distribution(p, env).marginal()
    parts = [output_distribution(c.program, {n: env[n] for n in c.inputs}).marginal() for c in comps]
    for key, prob in whole.items():
        prod = parts[0][(key[0],)] * parts[1][(key[1],)] * parts[2][(key[2],)]
        assert prod == prob


@pytest.mark.parametrize("name", ["rr_counting", "svt_lyu_alg1", "discrete_above_threshold", "noisy_max"])
def test_programs_that_do_not_split(name):
    assert components(program(name)) is None


@pytest.mark.parametrize("name,params,inputs", [
    ("rr_counting", {"n": 5}, [[1, 0, 1, 1, 0], [0, 0, 0, 0, 1]]),
    ("discrete_above_threshold", {"m": 4}, [[1, 1, 2, 0], [2, 0, 0, 1]]),
    ("discrete_noisy_max_naive", {}, [[0, 2, 1], [1, 1, 1]]),
    ("discrete_noisy_max_improved", {}, [[2, 2, 1], [0, 1, 0]]),
    ("truncated_geometric_above_threshold", {}, [[0, 2, 1]]),
])
def test_kernel_chain_equals_the_plain_chain(name, params, inputs):
    p = program(name, **params)
    chain = KernelChain.build(p)
    assert chain is not None and len(chain.blocks) >= 3
    arr = p.input_names()
    for values in inputs:
        env = dict(zip(arr, values))
        exact = output_distribution(p, env).marginal()
        got = chain.distribution(env)
        assert set(got) == {k for k, v in exact.items() if not v.is_zero()} | set(got)
        for key, prob in exact.items():
            assert got.get(key, 0) == prob or (prob.is_zero() and key not in got)


def test_symmetry_found_for_counting_and_not_for_noisy_max():
    p = program("rr_counting", n=6)
    grid = {n: [0, 1] for n in p.input_names()}
    runs = KernelChain.build(p).symmetric_runs(grid)
    assert len(runs) == 1 and runs[0].inputs == tuple(p.input_names())
    for name in ("discrete_noisy_max_naive", "discrete_noisy_max_improved", "discrete_above_threshold"):
        q = program(name)
        g = {n: [0, 1, 2] for n in q.input_names()}
        assert KernelChain.build(q).symmetric_runs(g) == []


def test_symmetry_is_not_assumed_for_identical_blocks_that_do_not_commute(tmp_path):
    """Blocks that are the same statements up to their input but whose kernels do not commute
    (reset versus increment): no symmetry, and the distributions indeed differ."""
    src = tmp_path / "reset.dip"
    src.write_text("""
param n = 3
type Bit = 0..1
input x: Bit[n]
output s: 0..3
var y: Bit
distribution keep(b: Bit) over Bit { b: 3/4; 1 - b: 1/4 }
s <- 0
for i = 1 to n do
    y <- choose(keep(x[i]))
    if y == 1 then
        s <- 0
    else
        s <- min(s + 1, 3)
    end
end
""")
    p = dipc_plus.load(str(src)).program
    chain = KernelChain.build(p)
    assert chain is not None
    # the blocks are the same statements up to their input: only the commutation check can say no
    assert len({b.shape for b in chain.blocks[1:]}) == 1 and len(chain.blocks) == 4
    assert chain.symmetric_runs({n: [0, 1] for n in p.input_names()}) == []
    a = output_distribution(p, {"x[1]": 1, "x[2]": 0, "x[3]": 0}).marginal()
    b = output_distribution(p, {"x[1]": 0, "x[2]": 0, "x[3]": 1}).marginal()
    assert a != b


def test_symmetric_canonical_pairs_give_the_same_answer_as_exhaustive():
    path = os.path.join(THEORIES, "rr_counting_privacy.toml")
    fast = load_privacy_claim(path, {"n": 5})
    slow = load_privacy_claim(path, {"n": 5})
    r1, r2 = check_dp(fast), check_dp(slow, structure=False)
    assert r1.verified and r2.verified
    assert r1.pairs < r2.pairs and r1.evaluations < r2.evaluations
    l1, l2 = privacy_loss(fast), privacy_loss(slow, structure=False)
    assert l1.constant == l2.constant == 4


def test_components_and_exhaustive_agree_on_a_refutation():
    path = os.path.join(THEORIES, "rr_clients_privacy.toml")
    for lam in (Fraction(1, 5), Fraction(1, 10)):
        a = load_privacy_claim(path, {"n": 3, "lam": lam})
        b = load_privacy_claim(path, {"n": 3, "lam": lam})
        r1, r2 = check_dp(a), check_dp(b, structure=False)
        assert r1.verified == r2.verified == (lam == Fraction(1, 5))
        if not r1.verified:
            # the lifted counterexample's probabilities are those of the whole program
            cex = r1.counterexample
            whole = output_distribution(a.program, cex.input).marginal()
            key = tuple(cex.output[n] for n in a.program.output_names())
            assert whole[key] == cex.p
        assert privacy_loss(a).constant == privacy_loss(b, structure=False).constant == (1 - lam) / lam


def test_rr_clients_twenty_clients():
    claim = load_privacy_claim(os.path.join(THEORIES, "rr_clients_privacy.toml"), {"n": 20})
    result = check_dp(claim)
    assert result.verified and result.evaluations == 40
    assert privacy_loss(claim).constant == 4


def test_rr_counting_twenty_clients():
    claim = load_privacy_claim(os.path.join(THEORIES, "rr_counting_privacy.toml"), {"n": 20})
    result = check_dp(claim)
    assert result.verified and result.evaluations == 21


def test_components_are_not_used_for_an_explicit_list(tmp_path):
    """With lam = 1/10 each client alone is not ln 4-DP, but the listed inputs [0, 0] and
    [1, 1] are not neighbours: nothing to check, so the claim holds (vacuously)."""
    path = tmp_path / "c.toml"
    path.write_text(f"""
[program]
path = "{ROOT}/programs/rr_clients.dip"
params = {{ n = 2, lam = "1/10" }}
[privacy]
adjacency = "hamming"
budget = "ln(4)"
[privacy.inputs]
list = [ {{ x = [0, 0] }}, {{ x = [1, 1] }} ]
""")
    result = check_dp(load_privacy_claim(str(path)))
    assert result.verified and result.pairs == 0
