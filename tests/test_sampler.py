"""The concrete sampler against independent answers: closed forms of the noise
distributions, numerical integration (scipy.integrate.quad) and geometric series.

Every statistical check is a Wilson interval at 99.9% on a seeded run, so the
tests are deterministic; a wrong sampler lands outside the interval.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction as F

import numpy as np
import pytest

from dipc_plus.semantics import ir
from dipc_plus.cli import main as dipc
from dipc_plus.errors import UserError
from dipc_plus.semantics.inputs import bind_inputs
from dipc_plus.exact.noises.dlap import draw as discrete_laplace_draw
from dipc_plus.semantics.inputs import python_value
from dipc_plus.semantics.sampler import SampleResult, Sampler, as_eps, draw_categorical, simulate
from dipc_plus.semantics.stats import wilson
from conftest import ROOT, lap_cdf, lap_pdf, quad
from wilson_inside import in_interval

CONF = 0.999
HERE = ir.Pos("hand-built", 1, 1)
R, B = ir.RealT(), ir.BoolT()


# --------------------------------------------------------------------------- IR builders


def rlin(*terms, const=0, kind="real"):
    """Lin from (coefficient, variable) pairs; a coefficient may be a number or an ir.Expr."""
    conv = lambda c: c if isinstance(c, (ir.Var, ir.Binary, ir.Const, ir.Call)) else ir.Const(F(c))  # noqa: E731
    return ir.Lin(kind, tuple((conv(c), v) for c, v in terms), conv(const))


def program(body, inputs=(), outputs=(), locals_=(), functions=(), distributions=(), arrays=None, name="Hand"):
    variables = dict(inputs) | dict(outputs) | dict(locals_)
    return ir.Program(name, "hand-built", {}, tuple(inputs), tuple(outputs), arrays or {}, variables,
                      {f.name: f for f in functions}, {d.name: d for d in distributions}, tuple(body))


def assign(target, value):
    return ir.Assign(target, value if not isinstance(value, (int, str, bool, F)) else ir.Const(value), HERE)


def noisy_max_ir(m=3):
    """NoisyMax by hand: Lap(eps/2) noise, argmax with ties to the smallest index."""
    body = [ir.Sample(f"n[{i}]", ir.NoiseSample("lap", F(1, 2), rlin((1, f"q[{i}]"))), HERE) for i in range(1, m + 1)]
    # ge[i,j] <- n[i] >= n[j] for i < j; out = first i with n[i] >= all others (strict > to earlier ones).
    locals_ = [(f"n[{i}]", R) for i in range(1, m + 1)]
    for i in range(1, m + 1):
        for j in range(i + 1, m + 1):
            body.append(ir.Compare(f"ge{i}{j}", rlin((1, f"n[{i}]")), ">=", rlin((1, f"n[{j}]")), HERE))
            locals_.append((f"ge{i}{j}", B))

    def chain(i):
        if i == m:
            return (assign("out", m),)
        conds = [ir.Var(f"ge{i}{j}") for j in range(i + 1, m + 1)]
        # n[i] > n[k] for k < i is implied by reaching this branch
        cond = conds[0]
        for c in conds[1:]:
            cond = ir.Binary("and", cond, c)
        return (ir.If(cond, (assign("out", i),), chain(i + 1), HERE),)

    body.extend(chain(1))
    dom = ir.DomT(tuple(range(1, m + 1)))
    return program(body, inputs=[(f"q[{i}]", R) for i in range(1, m + 1)], outputs=[("out", dom)],
                   locals_=locals_, arrays={"q": tuple(f"q[{i}]" for i in range(1, m + 1))}, name="NoisyMax")


# --------------------------------------------------------------------------- independent references


def noisy_max_by_integration(q, eps):
    """P[out = i] = ∫ f_i(x) Π_{j≠i} F_j(x) dx with Lap(eps/2) noise (scale 2/eps)."""
    b = eps / 2
    return {i + 1: quad(lambda x, i=i: lap_pdf(x, q[i], b) *
                        math.prod(lap_cdf(x, q[j], b) for j in range(len(q)) if j != i), q)
            for i in range(len(q))}


def sparse_by_integration(q, eps, c, threshold=0.0):
    """Exact output distribution of Sparse (Fig. 2a) as products of 1-D integrals.

    Each top re-samples the threshold, so the run splits into independent segments:
    a segment from i that ends with a top at j has probability
    ∫ f_T(t) Π_{i<=l<j} P[r_l < t] · P[r_j >= t] dt; a final segment without a top
    ∫ f_T(t) Π_{l>=i} P[r_l < t] dt.
    """
    m = len(q)
    bt, bq = eps / (2 * c), eps / (4 * c)  # rates
    centres = list(q) + [threshold]

    def segment(i, j):  # 0-based: bots at i..j-1, top at j (j = None: bots to the end)
        below = range(i, m if j is None else j)

        def f(t):
            value = lap_pdf(t, threshold, bt) * math.prod(lap_cdf(t, q[l], bq) for l in below)
            return value if j is None else value * (1 - lap_cdf(t, q[j], bq))
        return quad(f, centres)

    dist = {}

    def walk(i, tops, prefix, p):
        if i == m:
            dist[tuple(prefix)] = dist.get(tuple(prefix), 0) + p
            return
        tail = segment(i, None)
        walk(m, tops, prefix + ["bot"] * (m - i), p * tail)
        for j in range(i, m):
            seq = prefix + ["bot"] * (j - i) + ["top"]
            pj = p * segment(i, j)
            if tops + 1 == c:
                out = seq + ["none"] * (m - j - 1)
                dist[tuple(out)] = dist.get(tuple(out), 0) + pj
            else:
                walk(j + 1, tops + 1, seq, pj)
    walk(0, 0, [], 1.0)
    return dist


def assert_matches(counts: dict, exact: dict, n: int, confidence=CONF):
    """Every outcome's exact probability lies in the Wilson interval of its frequency."""
    assert set(counts) <= set(exact), f"impossible outcomes observed: {set(counts) - set(exact)}"
    assert sum(counts.values()) == n
    for outcome, p in exact.items():
        interval = wilson(counts.get(outcome, 0), n, confidence)
        assert in_interval(interval, p), f"{outcome}: exact {p} outside {interval} ({counts.get(outcome, 0)}/{n})"


# --------------------------------------------------------------------------- primitive noise


@pytest.mark.parametrize("rate", [0.3, 1.0, 2.5])
def test_discrete_laplace_pmf(rate):
    """DLap as a difference of geometrics has pmf (1-p)/(1+p) p^|k|, p = e^-rate."""
    n = 200_000
    rng = np.random.default_rng(7)
    k = discrete_laplace_draw(rng, rate, n)
    assert k.dtype == np.int64
    p = math.exp(-rate)
    pmf = lambda j: (1 - p) / (1 + p) * p ** abs(j)  # noqa: E731
    assert math.isclose(sum(pmf(j) for j in range(-2000, 2001)), 1.0, rel_tol=1e-12)
    values, counts = np.unique(k, return_counts=True)
    observed = dict(zip(values.tolist(), counts.tolist()))
    for j in range(-6, 7):
        assert in_interval(wilson(observed.get(j, 0), n, CONF), pmf(j)), j
    # and the symmetric tail beyond 6 as one event
    tail = sum(v for j, v in observed.items() if abs(j) > 6)
    assert in_interval(wilson(tail, n, CONF), 2 * p ** 7 / (1 + p))


def test_discrete_laplace_through_a_program():
    """z <- DLap(2 eps, k) with a DOM input k; b <- z == k has probability (1-p)/(1+p)."""
    k_dom = ir.DomT((0, 1, 2, 3))
    body = [ir.Sample("z", ir.NoiseSample("dlap", F(2), rlin(const=ir.Var("k"), kind="int")), HERE),
            ir.Compare("b", rlin((1, "z"), kind="int"), "==", rlin(const=ir.Var("k"), kind="int"), HERE)]
    prog = program(body, inputs=[("k", k_dom)], outputs=[("z", ir.IntT()), ("b", B)])
    eps = F(1, 3)
    n = 200_000
    res = simulate(prog, {"k": 2}, eps, n, seed=3)
    p = math.exp(-2 * float(eps))
    dist = res.distribution(["z"])
    for j in range(-3, 8):
        assert in_interval(wilson(dist.get((j,), 0), n, CONF), (1 - p) / (1 + p) * p ** abs(j - 2)), j
    assert in_interval(res.probability(lambda c: c["b"]).interval(CONF), (1 - p) / (1 + p))
    assert np.array_equal(res.column("b"), res.column("z") == 2)


def test_laplace_mean_variance_and_within():
    """r <- Lap(a eps, q): mean q, variance 2/(a eps)^2, P(|r-q| <= g) = 1 - e^{-a eps g}."""
    body = [ir.Sample("r", ir.NoiseSample("lap", F(3, 2), rlin((1, "q"))), HERE)]
    prog = program(body, inputs=[("q", R)], outputs=[("r", R)])
    eps, q, n = F(2, 5), F(-7, 3), 400_000
    res = simulate(prog, {"q": q}, eps, n, seed=11)
    b = 1 / (1.5 * 0.4)
    col = res.column("r")
    z = 4.9  # two-sided 1e-6
    assert abs(col.mean() - float(q)) < z * math.sqrt(2) * b / math.sqrt(n)
    assert abs(((col - float(q)) ** 2).mean() - 2 * b * b) < z * math.sqrt(20) * b * b / math.sqrt(n)
    s = res.summary("r")
    assert s.count == n and abs(s.quantiles[0.5] - float(q)) < 0.05
    gamma = F(1)
    freq = res.probability(res.within(gamma, {"r": q}))
    assert in_interval(freq.interval(CONF), 1 - math.exp(-1.5 * 0.4 * 1))


def test_categorical_never_draws_a_zero_weight():
    rng = np.random.default_rng(0)
    probs = np.array([[0.0, 0.5, 0.0, 0.5, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0]])
    inverse = rng.integers(0, 2, 100_000)
    out = draw_categorical(rng, probs, inverse)
    assert set(out[inverse == 0].tolist()) == {1, 3}
    assert set(out[inverse == 1].tolist()) == {0}


# --------------------------------------------------------------------------- NoisyMax


NM_Q = [-1, 0, 0]
NM_EPS = F(27, 82)


def test_noisy_max_hand_built_ir_vs_integration():
    exact = noisy_max_by_integration(NM_Q, float(NM_EPS))
    assert math.isclose(sum(exact.values()), 1.0, abs_tol=1e-9)
    n = 200_000
    res = simulate(noisy_max_ir(3), {f"q[{i + 1}]": F(v) for i, v in enumerate(NM_Q)}, NM_EPS, n, seed=1)
    assert_matches({k[0]: v for k, v in res.distribution().items()}, exact, n)


def test_noisy_max_other_eps_and_input():
    q, eps = [1, -1, 2, 0], F(3, 2)
    exact = noisy_max_by_integration(q, float(eps))
    n = 200_000
    res = simulate(noisy_max_ir(4), {f"q[{i + 1}]": F(v) for i, v in enumerate(q)}, eps, n, seed=2, chunk=30_000)
    assert_matches({k[0]: v for k, v in res.distribution().items()}, exact, n)


def test_seeded_runs_are_reproducible():
    prog, env = noisy_max_ir(3), {f"q[{i + 1}]": F(v) for i, v in enumerate(NM_Q)}
    a = simulate(prog, env, NM_EPS, 5000, seed=5)
    b = simulate(prog, env, NM_EPS, 5000, seed=5)
    c = simulate(prog, env, NM_EPS, 5000, seed=6)
    assert np.array_equal(a.columns["out"], b.columns["out"])
    assert not np.array_equal(a.columns["out"], c.columns["out"])
    assert a.run(0) == (a.column("out")[0],)


# --------------------------------------------------------------------------- exponential mechanism, choose, while


def score_function():
    count, item = ir.DomT((0, 1, 2)), ir.DomT((1, 2, 3))
    body = ir.Cond(ir.Binary("==", ir.Var("v"), ir.Const(1)), ir.Var("h1"),
                   ir.Cond(ir.Binary("==", ir.Var("v"), ir.Const(2)), ir.Var("h2"), ir.Var("h3")))
    return ir.Function("score", (("h1", count), ("h2", count), ("h3", count), ("v", item)), ir.RatT(), body, HERE)


@pytest.mark.parametrize("eps,h", [(F(1, 2), (0, 2, 1)), (F(3), (2, 2, 0))])
def test_exponential_mechanism_vs_weights(eps, h):
    count, item = ir.DomT((0, 1, 2)), ir.DomT((1, 2, 3))
    body = [ir.Sample("out", ir.ExpMech(F(1, 2), "score", (ir.Var("h1"), ir.Var("h2"), ir.Var("h3"))), HERE)]
    prog = program(body, inputs=[("h1", count), ("h2", count), ("h3", count)], outputs=[("out", item)],
                   functions=[score_function()])
    weights = [math.exp(float(eps) / 2 * hv) for hv in h]
    exact = {(v,): w / sum(weights) for v, w in zip((1, 2, 3), weights)}
    n = 200_000
    res = simulate(prog, {"h1": h[0], "h2": h[1], "h3": h[2]}, eps, n, seed=4)
    assert_matches(res.distribution(), exact, n)


def test_exponential_mechanism_with_scores_beyond_float_range():
    """a eps F = 2000: the weights e^2000 do not fit a float; the shift by the top score keeps it exact."""
    count, item = ir.DomT((0, 1, 2)), ir.DomT((1, 2, 3))
    body = [ir.Sample("out", ir.ExpMech(F(1, 2), "score", (ir.Var("h1"), ir.Var("h2"), ir.Var("h3"))), HERE)]
    prog = program(body, inputs=[("h1", count), ("h2", count), ("h3", count)], outputs=[("out", item)],
                   functions=[score_function()])
    res = simulate(prog, {"h1": 2, "h2": 2, "h3": 0}, F(2000), 100_000, seed=4)
    assert_matches(res.distribution(), {(1,): 0.5, (2,): 0.5, (3,): 0.0}, 100_000)


def retry_program():
    """x <- choose(eps, d()) until x != 0; tries counts attempts, saturating at 3.
    d over {0,1,2} with weights 1, e^rate, 2."""
    d = ir.DistDef("d", (), ir.DomT((0, 1, 2)),
                   ((ir.Const(0), ir.Const(F(1))), (ir.Const(1), ir.ExpOf(ir.Rate())), (ir.Const(2), ir.Const(F(2)))),
                   HERE)
    tries = ir.DomT((0, 1, 2, 3))
    body = [assign("x", 0), assign("tries", 0),
            ir.While(ir.Binary("==", ir.Var("x"), ir.Const(0)), (
                ir.Sample("x", ir.Choose(F(1), "d", ()), HERE),
                assign("tries", ir.Call("min", (ir.Binary("+", ir.Var("tries"), ir.Const(1)), ir.Const(3)))),
            ), HERE)]
    return program(body, outputs=[("x", ir.DomT((0, 1, 2))), ("tries", tries)], distributions=[d])


@pytest.mark.parametrize("eps", [F(1, 4), F(2)])
def test_while_retry_vs_geometric_series(eps):
    w = [1.0, math.exp(float(eps)), 2.0]
    p0, p1, p2 = (x / sum(w) for x in w)
    exact = {}
    for v, pv in ((1, p1), (2, p2)):
        exact[(v, 1)] = pv
        exact[(v, 2)] = p0 * pv
        exact[(v, 3)] = p0 ** 2 * pv / (1 - p0)  # sum over k >= 2 of p0^k pv
    n = 200_000
    res = simulate(retry_program(), {}, eps, n, seed=8)
    assert_matches(res.distribution(), exact, n)


def test_choose_with_huge_weights_uses_unbounded_exponents():
    """Weights exp(1000 rate) overflow floats; the sampler must still get 1/(1+e) right."""
    d = ir.DistDef("big", (), B, ((ir.Const(True), ir.ExpOf(ir.Binary("*", ir.Const(F(1000)), ir.Rate()))),
                                 (ir.Const(False), ir.ExpOf(ir.Binary("*", ir.Const(F(999)), ir.Rate())))), HERE)
    prog = program([ir.Sample("y", ir.Choose(F(1), "big", ()), HERE)], outputs=[("y", B)], distributions=[d])
    n = 100_000
    res = simulate(prog, {}, F(1), n, seed=9)
    assert_matches(res.distribution(), {(True,): math.e / (1 + math.e), (False,): 1 / (1 + math.e)}, n)


def test_dom_dependent_coefficients_are_grouped():
    """b <- x*r >= 1 with x uniform on {1,2}: P(b, x) = 1/2 · 1/2 e^{-eps/x}."""
    coin = ir.DistDef("u", (), ir.DomT((1, 2)), ((ir.Const(1), ir.Const(F(1))), (ir.Const(2), ir.Const(F(1)))), HERE)
    body = [ir.Sample("x", ir.Choose(None, "u", ()), HERE),
            ir.Sample("r", ir.NoiseSample("lap", F(1), rlin()), HERE),
            ir.Compare("b", rlin((ir.Var("x"), "r")), ">=", rlin(const=1), HERE)]
    prog = program(body, outputs=[("x", ir.DomT((1, 2))), ("b", B)], locals_=[("r", R)], distributions=[coin])
    eps = F(4, 5)
    n = 200_000
    res = simulate(prog, {}, eps, n, seed=10)
    exact = {}
    for x in (1, 2):
        p = 0.5 * math.exp(-float(eps) / x)
        exact[(x, True)] = 0.5 * p
        exact[(x, False)] = 0.5 * (1 - p)
    assert_matches(res.distribution(), exact, n)


def test_comparisons_of_inputs_are_exact():
    """Deterministic comparisons (no noise) are decided with exact rationals: 1/10 + 2/10 == 3/10."""
    body = [ir.Compare("b", rlin((1, "a"), (1, "c")), "==", rlin((1, "s")), HERE)]
    prog = program(body, inputs=[("a", R), ("c", R), ("s", R)], outputs=[("b", B)])
    res = simulate(prog, {"a": F(1, 10), "c": F(2, 10), "s": F(3, 10)}, F(1), 10, seed=0)
    assert res.distribution() == {(True,): 10}


def test_exit_inside_while_and_if_retires_runs():
    """Runs that `exit` inside a loop never execute what follows the loop."""
    coin = ir.DistDef("coin", (), B, ((ir.Const(True), ir.Const(F(1))), (ir.Const(False), ir.Const(F(3)))), HERE)
    tries = ir.DomT((0, 1, 2, 3))
    body = [assign("z", 0), assign("tries", 0),
            ir.While(ir.Const(True), (
                assign("tries", ir.Call("min", (ir.Binary("+", ir.Var("tries"), ir.Const(1)), ir.Const(3)))),
                ir.Sample("c", ir.Choose(None, "coin", ()), HERE),
                ir.If(ir.Var("c"), (ir.Exit(HERE),), (), HERE),
            ), HERE),
            assign("z", 1)]
    prog = program(body, outputs=[("z", ir.DomT((0, 1))), ("tries", tries)], locals_=[("c", B)],
                   distributions=[coin])
    n = 100_000
    res = simulate(prog, {}, F(1), n, seed=12)
    exact = {(0, 1): 1 / 4, (0, 2): 3 / 16, (0, 3): 9 / 16}
    assert_matches(res.distribution(), exact, n)


# --------------------------------------------------------------------------- user errors in the API


def test_endless_loop_hits_the_iteration_guard():
    loop = ir.While(ir.Const(True), (assign("x", 1),), ir.Pos("loop.dip", 4, 1))
    prog = program([loop], outputs=[("x", ir.DomT((0, 1)))])
    with pytest.raises(UserError) as err:
        simulate(prog, {}, F(1), 100, seed=0, max_iterations=50)
    assert "50 iterations" in err.value.message and err.value.line == 4


def test_value_outside_domain_and_bad_eps():
    prog = program([ir.Assign("out", ir.Const(4), ir.Pos("p.dip", 2, 5))], outputs=[("out", ir.DomT((1, 2, 3)))])
    with pytest.raises(UserError) as err:
        simulate(prog, {}, F(1), 10, seed=0)
    assert "outside the domain" in err.value.message and err.value.column == 5
    for bad in ("0", "-1/2", "abc", "1/0", float("inf"), True):
        with pytest.raises(UserError):
            as_eps(bad)
    assert as_eps("27/82") == F(27, 82) and as_eps(0.5) == F(1, 2)
    # a float is the decimal it prints, as the API's python_value and the command line read it
    assert as_eps(0.1) == F(1, 10) == python_value(0.1, "--eps")
    with pytest.raises(UserError, match="missing input"):
        Sampler(noisy_max_ir(3), {"q[1]": F(0)}, F(1))
    with pytest.raises(UserError):
        simulate(noisy_max_ir(3), {f"q[{i}]": F(0) for i in (1, 2, 3)}, F(1), 0)


def test_result_helpers():
    res = simulate(retry_program(), {}, F(1), 1000, seed=1)
    assert sum(res.distribution().values()) == 1000
    assert list(res.distribution(["x"]))[0][0] in (1, 2)
    with pytest.raises(UserError):
        res.column("nope")
    freq = res.probability(lambda c: c["x"] == 1)
    assert freq.trials == 1000 and 0 < freq.successes < 1000
    both = SampleResult.concat([res, res])
    assert both.n == 2000 and both.distribution()[list(res.distribution())[0]] == 2 * list(res.distribution().values())[0]


# --------------------------------------------------------------------------- through the parser and the CLI


def _load(name, params=None):
    from dipc_plus.frontend.load import load_program
    return load_program(f"programs/{name}.dip", {k: F(v) for k, v in (params or {}).items()})


@pytest.fixture(autouse=False)
def at_repo(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_noisy_max_program_vs_integration(at_repo):
    prog = _load("noisy_max", {"m": 3})
    env = bind_inputs(prog, {"q": [F(v) for v in NM_Q]})
    n = 200_000
    res = simulate(prog, env, NM_EPS, n, seed=1)
    exact = noisy_max_by_integration(NM_Q, float(NM_EPS))
    assert_matches({k[0]: v for k, v in res.distribution().items()}, exact, n)


def test_noisy_max_cli_vs_integration(at_repo, capsys):
    n = 200_000
    code = dipc(["simulate", "programs/noisy_max.dip", "--set", "m=3", "--input", "q=[-1,0,0]",
                 "--eps", "27/82", "-n", str(n), "--seed", "3", "--confidence", str(CONF), "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    exact = noisy_max_by_integration(NM_Q, float(NM_EPS))
    assert report["runs"] == n and report["eps"] == "27/82"
    assert {e["values"]["out"] for e in report["outcomes"]} == {1, 2, 3}
    for entry in report["outcomes"]:
        low, high = entry["interval"]
        assert low <= exact[entry["values"]["out"]] <= high


def test_noisy_max_cli_table(at_repo, capsys):
    code = dipc(["simulate", "programs/noisy_max.dip", "--input", "q=[-1,0,0]", "--eps", "27/82",
                 "-n", "20000", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "out=1" in out and "out=2" in out and "out=3" in out and "99% interval" in out


def test_sparse_program_vs_integration(at_repo):
    """Sparse m=4 c=2 (exit after the second top, threshold re-sampled) against segment integrals."""
    q, eps = [-1, 1, 0, 1], F(3, 2)
    prog = _load("sparse", {"m": 4, "c": 2})
    env = bind_inputs(prog, {"q": [F(v) for v in q]})
    n = 200_000
    res = simulate(prog, env, eps, n, seed=13)
    exact = sparse_by_integration(q, float(eps), 2)
    assert math.isclose(sum(exact.values()), 1.0, abs_tol=1e-8)
    assert_matches(res.distribution(), exact, n)


def test_exponential_program_vs_weights(at_repo):
    prog = _load("exponential")
    eps, h = F(2), (2, 0, 1)
    env = bind_inputs(prog, {"h1": F(h[0]), "h2": F(h[1]), "h3": F(h[2])})
    n = 200_000
    res = simulate(prog, env, eps, n, seed=14)
    weights = [math.exp(float(eps) / 2 * hv) for hv in h]
    assert_matches(res.distribution(), {(v,): w / sum(weights) for v, w in zip((1, 2, 3), weights)}, n)


def test_retry_program_vs_one_round(at_repo):
    """randomized_response_retry.dip: the published y is one round of randomized response."""
    prog = _load("randomized_response_retry")
    eps = F(1, 2)
    n = 200_000
    res = simulate(prog, bind_inputs(prog, {"x": True}), eps, n, seed=15)
    p = math.exp(0.5) / (1 + math.exp(0.5))
    assert_matches(res.distribution(), {(True,): p, (False,): 1 - p}, n)


@pytest.mark.parametrize("argv,needle", [
    (["--eps", "-1"], "positive"),
    (["--eps", "0"], "positive"),
    (["--eps", "abc"], "not a rational"),
    (["--eps", "1/2", "--input", "q=[1,2]"], "3 elements"),
    (["--eps", "1/2"], "missing input"),
    (["--eps", "1/2", "--input", "q=[1,2,x]"], "is real"),
    (["--eps", "1/2", "--input", "q=[0,0,0]", "-n", "0"], "positive"),
    (["--eps", "1/2", "--input", "q=[0,0,0]", "--confidence", "2"], "confidence"),
    (["--eps", "1/2", "--input", "q=[0,0,0]", "--within", "1"], "no real outputs"),
    (["--eps", "1/2", "--input", "q=[0,0,0]", "--set", "m=x"], "parameter"),
])
def test_cli_bad_inputs_exit_2(at_repo, capsys, argv, needle):
    code = dipc(["simulate", "programs/noisy_max.dip", "-n", "100", *argv])
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err and "Traceback" not in err


def test_cli_within_for_real_outputs(at_repo, capsys):
    """numeric_sparse.dip, m=2, c=1: per-outcome frequencies of 'every val within gamma of its centre'
    against integrals (segment probability x independent Laplace release)."""
    q, eps, gamma, centre = [-2, 2], 1.0, 3.0, [0, 2]
    n = 200_000
    code = dipc(["simulate", "programs/numeric_sparse.dip", "--set", "m=2", "--input", "q=[-2,2]",
                 "--eps", "1", "-n", str(n), "--seed", "2", "--within", "3",
                 "--around", "val=[0,2]", "--confidence", str(CONF), "--json"])
    assert code == 0, capsys.readouterr().err
    report = json.loads(capsys.readouterr().out)
    bt, bq, br = 4 / 9, 2 / 9, 1 / 9  # rates: threshold Lap(4eps/9), query Lap(2eps/9), release Lap(eps/9)
    seg = lambda f: quad(lambda t: lap_pdf(t, 0, bt) * f(t), q + [0])  # noqa: E731
    F1, F2 = (lambda t: lap_cdf(t, q[0], bq)), (lambda t: lap_cdf(t, q[1], bq))
    release_within = lambda mu, c: lap_cdf(c + gamma, mu, br) - lap_cdf(c - gamma, mu, br)  # noqa: E731
    p_nb = seg(lambda t: 1 - F1(t))
    p_bn = seg(lambda t: F1(t) * (1 - F2(t)))
    p_bb = seg(lambda t: F1(t) * F2(t))
    exact = {("num", "bot"): (p_nb, p_nb * release_within(q[0], centre[0])),
             ("bot", "num"): (p_bn, p_bn * release_within(q[1], centre[1])),
             ("bot", "bot"): (p_bb, p_bb)}  # vals stay 0: |0 - 0| and |0 - 2| are <= 3
    assert math.isclose(p_nb + p_bn + p_bb, 1.0, abs_tol=1e-9)
    assert report["runs"] == n and sum(e["count"] for e in report["outcomes"]) == n
    seen = set()
    for entry in report["outcomes"]:
        key = tuple(entry["values"]["out"])
        seen.add(key)
        p_out, p_within = exact[key]
        assert entry["interval"][0] <= p_out <= entry["interval"][1], key
        assert entry["within"]["interval"][0] <= p_within <= entry["within"]["interval"][1], key
    assert seen == set(exact)
    total = sum(w for _, w in exact.values())
    assert report["within"]["interval"][0] <= total <= report["within"]["interval"][1]
