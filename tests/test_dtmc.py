"""The exact DTMC semantics (dipc_plus.semantics.dtmc, dipc_plus.semantics.distribution) against independent answers.

* numerical quadrature written here (scipy.integrate.quad over Laplace densities)
  at several eps, to 1e-9;
* the paper's own closed form (Example 2, NumericSparse of Fig. 4a);
* the Monte Carlo sampler, inside 99.9% Wilson intervals (seeded, so deterministic);
* the chain built without compression / merging / dropping (the same exact answer).

Programs are hand-built IR (tests/handmade.py); the same checks run on the parsed
programs/*.dip when the front end is present.
"""
from __future__ import annotations

import math
from fractions import Fraction as F
from itertools import product

import flint
import pytest

import handmade as h
from dipc_plus.exact.linear import LinForm
from dipc_plus.semantics.dtmc import EXIT, DTMC
from dipc_plus.errors import ResourceLimit, UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.semantics.distribution import Exact, build_chain, distribution_of_chain, output_distribution
from conftest import PROGRAMS, lap_cdf, lap_pdf, quad
from wilson_inside import in_interval

EPS_POINTS = (0.3, 1.0, 2.7)
ONE = ExpFrac(1)


# --------------------------------------------------------------------------- quadrature


def noisy_max_quad(q, i, eps, rate=0.5):
    """P[argmax = i] = int f_i(x) prod_{j != i} F_j(x) dx (ties have probability 0)."""
    b = rate * eps

    def f(x):
        v = lap_pdf(x, q[i], b)
        for j in range(len(q)):
            if j != i:
                v *= lap_cdf(x, q[j], b)
        return v
    return quad(f, q)


def sparse_quad(q, outs, eps, c, *, variant=False, numeric=False, T=0.0):
    """P[Sparse-like outputs]: between two tops the threshold is fresh, so the
    probability is a product over segments of int f_T(t) prod_bot F(t) prod_top (1-F(t)) dt."""
    if numeric:
        bt, bq = 4 * eps / (9 * c), 2 * eps / (9 * c)
    else:
        bt, bq = eps / (2 * c), eps / (4 * c)

    def segment(items):
        def f(t):
            v = lap_pdf(t, T, bt)
            for i, above in items:
                F_ = lap_cdf(t, q[i], bq)
                v *= (1 - F_) if above else F_
            return v
        return quad(f, [T] + list(q))

    produced = [(i, o != "bot") for i, o in enumerate(outs) if o in ("bot", "top", "num")]
    if numeric:  # every bot is produced explicitly; entries after the c-th num stay bot
        produced = []
        tops = 0
        for i, o in enumerate(outs):
            if tops == c:
                break
            produced.append((i, o == "num"))
            tops += o == "num"
    if variant:
        return segment(produced)
    total, seg = 1.0, []
    for i, above in produced:
        seg.append((i, above))
        if above:
            total *= segment(seg)
            seg = []
    if seg:
        total *= segment(seg)
    return total


def _check(dist, expected_of, tol=1e-9):
    """Every outcome's exact probability against a float function of (outcome, eps)."""
    assert dist.sums_to_one()
    for eps in EPS_POINTS:
        total = 0.0
        for outcome, p in dist.items():
            ref = expected_of(outcome, eps)
            total += ref
            assert abs(p(eps) - ref) < tol, (outcome, eps, p(eps), ref)
        assert abs(total - 1) < 1e-9


# --------------------------------------------------------------------------- hand-built programs


@pytest.mark.parametrize("q", [[-1, 0, 0], [F(1, 2), -2, 3], [0, 0, 0], [-3, 3, -3]])
def test_noisy_max_against_quadrature(q):
    dist = output_distribution(h.noisy_max(3), {"q": q})
    qf = [float(x) for x in q]
    _check(dist, lambda o, eps: noisy_max_quad(qf, o.values[0] - 1, eps))
    assert len(dist) == 3


@pytest.mark.parametrize("m, c, variant, q", [
    (3, 1, False, [1, -1, 1]),
    (4, 2, False, [1, -1, F(1, 2), -2]),
    (3, 2, True, [-1, 1, 1]),
    (4, 2, True, [1, -1, F(1, 2), -2]),
])
def test_sparse_and_sparse_variant_against_quadrature(m, c, variant, q):
    dist = output_distribution(h.sparse(m, c, variant=variant), {"q": q})
    qf = [float(x) for x in q]
    _check(dist, lambda o, eps: sparse_quad(qf, o.values, eps, c, variant=variant))


def test_numeric_sparse_flags_against_quadrature_and_values_within_gamma():
    m, q = 3, [1, -1, F(1, 2)]
    dist = output_distribution(h.sparse(m, 1, numeric=True), {"q": q})
    qf = [float(x) for x in q]
    _check(dist, lambda o, eps: sparse_quad(qf, o.values[:m], eps, 1, numeric=True))
    # a released value is q[i] + Lap(eps/9): P[|val - q[i]| <= g] = 1 - e^(-g eps/9), independent of the flags
    g = F(3, 2)
    for i in range(m):
        flags = ["bot"] * m
        flags[i] = "num"
        vals = [0] * m
        vals[i] = q[i]
        p_flags = dist.probability(out=flags)
        assert p_flags == dist.probability(**{f"out[{j + 1}]": flags[j] for j in range(m)})
        got = dist.within({"out": flags, "val": vals}, g)
        assert got == p_flags * (ONE - ExpFrac(ExpPoly.exp(-g / 9)))


def test_example_2_of_the_paper_numeric_sparse_fig4a():
    """p(x1, x2, xY, eps) = p1 * p2 (Barthe et al. 2021, Example 2), exactly."""
    for x1, x2, xY in [(F(-1), F(3, 2), F(2)), (F(-1, 3), F(1, 5), F(1, 2)), (F(-4), F(4), F(7))]:
        dist = output_distribution(h.fig4a(), {"q1": x1, "q2": x2})
        got = dist.within({"o1_1": 0, "o2_1": 1, "o2_2": x2}, xY)
        assert got == example2(x1, x2, xY)


def example2(x1, x2, xY) -> ExpFrac:
    E = ExpPoly.exp
    p1 = (1 - F(2, 3) * (E(F(2, 9) * x1) + E(-F(2, 9) * x2)) + F(1, 6) * (E(F(4, 9) * x1) + E(-F(4, 9) * x2))
          - F(1, 48) * (E(F(1, 9) * (6 * x1 - 2 * x2)) + E(-F(1, 9) * (6 * x2 - 2 * x1)))
          + F(1, 4) * E(F(2, 9) * (x1 - x2)))
    p2 = 1 - E(-F(1, 9) * xY)
    return ExpFrac(p1 * p2)


def test_laplace_within_is_the_product_of_tails():
    dist = output_distribution(h.laplace(2), {"q": [0, F(1, 2)]})
    assert len(dist) == 1
    (outcome,) = dist.outcomes()
    assert all(isinstance(v, LinForm) for v in outcome.values)
    for g in (F(0), F(1, 3), F(2)):
        got = output_distribution(h.laplace(2), {"q": [0, F(1, 2)]}).within({"out": [0, F(1, 2)]}, g)
        tail = ONE - ExpFrac(ExpPoly.exp(-g))
        assert got == tail * tail
    # per-output gamma and an off-centre target: P[|N - 1| <= 1] = (1 - e^(-2 eps))/2
    got = output_distribution(h.laplace(2), {"q": [0, 0]}).within({"out[1]": 1}, {"out[1]": 1})
    assert got == (ONE - ExpFrac(ExpPoly.exp(-2))) * ExpFrac(F(1, 2))


def test_exponential_mechanism_against_softmax():
    for hs in [(0, 2, 1), (1, 1, 1), (2, 0, 0)]:
        dist = output_distribution(h.exponential(), dict(zip(("h1", "h2", "h3"), hs)))

        def softmax(o, eps):
            ws = [math.exp(eps / 2 * s) for s in hs]
            return ws[o.values[0] - 1] / sum(ws)
        _check(dist, softmax, tol=1e-12)


def test_discrete_laplace_clamp_against_direct_summation():
    for x in (0, 1, 2):
        dist = output_distribution(h.dlap_clamp(2), {"x": x})

        def clamp_prob(o, eps):
            a = math.exp(-eps)
            pmf = lambda n: (1 - a) / (1 + a) * a ** abs(n)
            y = o.values[0]
            return sum(pmf(z - x) for z in range(x - 200, x + 201) if min(max(z, 0), 2) == y)
        _check(dist, clamp_prob, tol=1e-12)


# --------------------------------------------------------------------------- chain structure


def _atoms(chain: DTMC) -> int:
    return sum(len(chain.graph.nodes[u]["state"].constraints) for u in chain.graph.nodes)


def test_merging_and_dropping_shrink_noisy_max_and_keep_the_answer():
    inputs = {"q": [0, 1, 2, 3]}
    full = build_chain(h.noisy_max(4), inputs)
    no_merge = build_chain(h.noisy_max(4), inputs, merge=False)
    no_drop = build_chain(h.noisy_max(4), inputs, drop=False)
    assert full.stats.merged > 0 and full.stats.dropped_components > 0
    assert full.stats.states < no_merge.stats.states
    assert full.stats.states < no_drop.stats.states
    d = distribution_of_chain(full)
    assert d.marginal() == distribution_of_chain(no_merge).marginal() == distribution_of_chain(no_drop).marginal()


def test_sparse_m4_c2_drops_dead_threshold_components():
    """In Sparse each path is told apart by its outputs, so merging cannot shrink
    the chain; dropping removes the dead thresholds' constraints from the states."""
    inputs = {"q": [1, -1, F(1, 2), -2]}
    chains = {kw: build_chain(h.sparse(4, 2), inputs, **dict([kw]) if kw else {})
              for kw in [None, ("drop", False), ("merge", False)]}
    full, no_drop, no_merge = chains[None], chains[("drop", False)], chains[("merge", False)]
    print({k: (c.stats.states, _atoms(c)) for k, c in chains.items()})
    assert full.stats.dropped_components > 0
    assert _atoms(full) < _atoms(no_drop)
    assert max(len(full.graph.nodes[e]["state"].constraints) for e in full.exits) == 0
    assert full.stats.states == no_merge.stats.states  # a tree anyway
    d = distribution_of_chain(full)
    assert d.marginal() == distribution_of_chain(no_drop).marginal() == distribution_of_chain(no_merge).marginal()


def test_paper_chain_without_compression_has_the_same_answer_and_fig4b_states():
    inputs = {"q1": F(-1), "q2": F(1)}
    small = build_chain(h.fig4a(), inputs)
    full = build_chain(h.fig4a(), inputs, compress=False)
    assert full.stats.states > small.stats.states
    assert distribution_of_chain(small).marginal() == distribution_of_chain(full).marginal()
    # Fig. 4b: the state before line 11 holds rT, r2 symbolically and the constraint r1 < rT
    found = False
    for u in full.graph.nodes:
        st = full.graph.nodes[u]["state"]
        if st.pc != EXIT and full.code[st.pc].op == "compare" and full.code[st.pc].stmt.pos.line == 11:
            reals = dict(st.reals)
            assert {"rT", "r2"} <= set(reals)
            assert len(st.constraints) == 1
            text = full.describe(u)
            assert "r2 = N" in text and "rT = N" in text
            found = True
            succ = list(full.graph.succ[u])
            assert len(succ) == 2
            assert sum((full.edge_probability(u, v) for v in succ), ExpFrac(0)) == ONE
    assert found


def test_sampling_is_deterministic_and_noise_ids_are_per_statement():
    chain = build_chain(h.sparse(3, 2), {"q": [0, 0, 0]}, compress=False)
    for u in chain.graph.nodes:
        st = chain.graph.nodes[u]["state"]
        if st.pc != EXIT and chain.code[st.pc].op == "sample":
            assert chain.graph.out_degree(u) == 1
    # rT is sampled by 1 + 3 statements (initial and after each top); r by 3: 7 noises at most
    assert len(chain.noises) <= 7


# --------------------------------------------------------------------------- errors


def test_a_loop_that_never_ends_is_a_clear_error():
    with pytest.raises(UserError) as info:
        build_chain(h.loop_forever_certain(), {})
    assert "never terminates" in str(info.value)
    assert info.value.line == 2


@pytest.mark.parametrize("compress", [True, False])
def test_a_loop_that_may_not_end_is_a_clear_error(compress):
    with pytest.raises(UserError) as info:
        build_chain(h.loop_forever_sometimes(), {}, compress=compress)
    assert "may not terminate" in str(info.value)
    assert info.value.line == 3
    assert info.value.hint


def test_too_large_a_chain_is_a_clear_error():
    with pytest.raises(ResourceLimit) as info:
        build_chain(h.sparse(4, 2), {"q": [0, 0, 0, 0]}, max_states=5)
    assert "more than 5 states" in str(info.value)
    assert "--max-states" in info.value.hint


def test_bad_inputs_are_user_errors():
    with pytest.raises(UserError):
        output_distribution(h.noisy_max(3), {"q": [0, 0]})
    with pytest.raises(UserError):
        output_distribution(h.noisy_max(3), {"p": [0, 0, 0]})
    with pytest.raises(UserError):
        output_distribution(h.laplace(2), {"q": [0, 0]}).within({"out": [0, 0]}, -1)


def test_printing_and_evaluation():
    dist = output_distribution(h.fig4a(), {"q1": -1, "q2": 1})
    text = str(dist)
    assert "o2_2=N" in text and "Lap(eps/9, 0)" in text
    balls = dist.at(F(27, 82))
    total = sum(balls.values())
    assert total.contains(1)
    assert "\\begin{array}" in dist.latex()
    exact = Exact(dist.probability(o1_1=1))
    narrow = exact.at(F(1, 2))
    assert narrow.rad() < 1e-30 and exact.value.arb_value(F(1, 2), 53).contains(narrow)
    assert "e^{" in exact.latex()


# --------------------------------------------------------------------------- against the sampler


@pytest.mark.parametrize("prog, inputs, eps", [
    (h.sparse(3, 2), {"q": [1, -1, 0]}, F(1)),
    (h.sparse(3, 2, variant=True), {"q": [1, -1, 0]}, F(3, 2)),
    (h.noisy_max(3), {"q": [-1, 0, 0]}, F(27, 82)),
])
def test_sampler_lands_in_wilson_intervals(prog, inputs, eps):
    from dipc_plus.semantics.inputs import bind_inputs
    from dipc_plus.semantics.sampler import simulate
    from dipc_plus.semantics.stats import wilson
    dist = output_distribution(prog, inputs)
    env = bind_inputs(prog, {k: ([F(x) for x in v] if isinstance(v, list) else v) for k, v in inputs.items()})
    result = simulate(prog, env, eps, 200_000, seed=5)
    counts = result.distribution()
    for outcome, p in dist.items():
        hits = counts.get(tuple(outcome.values), 0)
        assert in_interval(wilson(hits, result.n, 0.999), p.arb_value(eps)), (outcome, hits, p(float(eps)))


def test_sampler_within_gamma_for_numeric_sparse_fig4a():
    from dipc_plus.semantics.sampler import simulate
    from dipc_plus.semantics.stats import wilson
    prog = h.fig4a()
    env = {"q1": F(-1), "q2": F(1)}
    eps, g = F(2), F(3)
    exact = output_distribution(prog, env).within({"o1_1": 0, "o2_1": 1, "o2_2": 1}, g)
    result = simulate(prog, env, eps, 200_000, seed=3)
    cols = result.view()
    hits = int(((cols["o1_1"] == 0) & (cols["o2_1"] == 1) & (abs(cols["o2_2"] - 1.0) <= float(g))).sum())
    assert in_interval(wilson(hits, result.n, 0.999), exact.arb_value(eps))


# --------------------------------------------------------------------------- the real programs


def _frontend():
    from dipc_plus.frontend import load
    return load


def _load(name, **params):
    fe = _frontend()
    return fe.load_program(str(PROGRAMS / f"{name}.dip"), {k: F(v) for k, v in params.items()})


@pytest.mark.parametrize("name, params, inputs", [
    ("noisy_max", {"m": 3}, {"q": [-1, 0, 0]}),
    ("sparse", {"m": 4, "c": 2}, {"q": [1, -1, 0, 1]}),
    ("sparse_variant", {"m": 3, "c": 2}, {"q": [1, -1, 0]}),
    ("numeric_sparse", {"m": 3, "c": 1}, {"q": [1, -1, 0]}),
    ("laplace", {}, {"q": [0, 1]}),
    ("randomized_response_retry", {}, {"x": True}),
    ("exponential", {}, {"h1": 0, "h2": 2, "h3": 1}),
    ("numeric_sparse_fig4a", {}, {"q1": -1, "q2": 1}),
])
def test_real_programs_match_their_hand_built_twins(name, params, inputs):
    twins = {
        "noisy_max": lambda: h.noisy_max(3),
        "sparse": lambda: h.sparse(4, 2),
        "sparse_variant": lambda: h.sparse(3, 2, variant=True),
        "numeric_sparse": lambda: h.sparse(3, 1, numeric=True),
        "laplace": lambda: h.laplace(2),
        "randomized_response_retry": lambda: h.rr_retry(),
        "exponential": lambda: h.exponential(),
        "numeric_sparse_fig4a": lambda: h.fig4a(),
    }
    real = output_distribution(_load(name, **params), inputs)
    twin = output_distribution(twins[name](), inputs)
    assert real.sums_to_one()
    assert real.names == twin.names
    assert real.marginal() == twin.marginal()


def test_example_2_through_the_real_program():
    prog = _load("numeric_sparse_fig4a")
    for x1, x2, xY in [(F(-1), F(3, 2), F(2)), (F(-1, 3), F(1, 5), F(1, 2))]:
        got = output_distribution(prog, {"q1": x1, "q2": x2}).within({"o1_1": 0, "o2_1": 1, "o2_2": x2}, xY)
        assert got == example2(x1, x2, xY)


def test_real_noisy_max_worst_inputs_sum_to_one():
    prog = _load("noisy_max", m=3)
    for q in product((-3, 0, 3), repeat=3):
        assert output_distribution(prog, {"q": list(q)}).sums_to_one()


def test_two_writings_of_the_truncated_geometric_mechanism_agree_exactly():
    """A clamped DLap sample (comparisons of integer noise) and a user distribution."""
    clamp = _load("truncated_geometric")
    table = _load("truncated_geometric_choose")
    for x in (0, 1, 2):
        a = output_distribution(clamp, {"x": x})
        b = output_distribution(table, {"x": x})
        assert a.marginal() == b.marginal()
        # FAIER Fig. 1a: at eps = ln 2 and x = 0 the outputs have probabilities 2/3, 1/6, 1/6
        if x == 0:
            at = {k[0]: p for k, p in a.marginal().items()}
            for y, expected in ((0, F(2, 3)), (1, F(1, 6)), (2, F(1, 6))):
                ball = at[y].arb_value(flint.arb(2).log())  # certified, with ln 2 as a ball
                assert (ball - flint.arb(expected.numerator) / expected.denominator).contains(0)
                assert not (ball - flint.arb(expected.numerator + 1) / expected.denominator).contains(0)


@pytest.mark.parametrize("name, params, inputs, eps", [
    ("discrete_noisy_max_naive", {}, {"v": [0, 2, 1]}, F(1, 2)),
    ("above_threshold", {}, {"q": [-1, 1, 0]}, F(1)),
])
def test_real_programs_against_the_sampler(name, params, inputs, eps):
    from dipc_plus.semantics.inputs import bind_inputs
    from dipc_plus.semantics.sampler import simulate
    from dipc_plus.semantics.stats import wilson
    prog = _load(name, **params)
    dist = output_distribution(prog, inputs)
    env = bind_inputs(prog, {k: [F(x) for x in v] for k, v in inputs.items()})
    result = simulate(prog, env, eps, 200_000, seed=7)
    counts = result.distribution()
    for key, p in dist.marginal().items():
        assert in_interval(wilson(counts.get(key, 0), result.n, 0.999), p.arb_value(eps)), (key, p)


def test_smart_sum_within_against_the_sampler():
    """Real outputs that are sums of several noises: within() against Monte Carlo."""
    from dipc_plus.semantics.sampler import simulate
    from dipc_plus.semantics.stats import wilson
    prog = _load("smart_sum", m=4, b=2)
    x = [F(1), F(0), F(2), F(-1)]
    prefix = [sum(x[:i + 1]) for i in range(4)]
    eps, g = F(1), F(3)
    exact = output_distribution(prog, {"x": x}).within({"out": prefix}, g)
    result = simulate(prog, {f"x[{i + 1}]": x[i] for i in range(4)}, eps, 200_000, seed=13)
    cols = result.view()
    ok = None
    for i in range(4):
        hit = abs(cols[f"out[{i + 1}]"] - float(prefix[i])) <= float(g)
        ok = hit if ok is None else ok & hit
    assert in_interval(wilson(int(ok.sum()), result.n, 0.999), exact.arb_value(eps))
