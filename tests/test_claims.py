"""Claim files: every shipped theory loads, beta formulas convert exactly, mistakes
are reported clearly, obligations follow Definition 2, and the ball probabilities
agree with simulation.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from dipc_plus.claims import noise_free as nf
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.disagreement import INF
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.claims.formula import Where, parse
from conftest import PROGRAMS, ROOT, noisy_max_det_table
from wilson_inside import in_interval

# accuracy claims only: privacy/Pufferfish claim files have their own tests
THEORIES = sorted(p for p in (ROOT / "theories").glob("*.toml") if "[accuracy]" in p.read_text())


# --------------------------------------------------------------------------- shipped theories


def test_theories_exist():
    names = {p.stem for p in THEORIES}
    for expected in ("laplace", "noisy_max", "noisy_max_barthe2016", "above_threshold", "sparse",
                     "sparse_variant", "numeric_sparse", "numeric_sparse_cor7", "exponential"):
        assert expected in names


@pytest.mark.parametrize("path", THEORIES, ids=lambda p: p.stem)
def test_every_theory_loads(path):
    claim = load_claim(str(path))
    acc = claim.accuracy
    assert acc is not None and acc.points
    header = path.read_text().split("[program]")[0]
    # the source is named: the paper's section, or the issue a mechanism was written for
    assert ("POPL 2021" in header and "section 3." in header) or "Written for issue" in header
    # beta converts at every alpha the obligations can use
    gammas = acc.gamma_values(F(1)) if acc.gammas == "alpha" else acc.gammas
    for g in gammas:
        alpha = F(1) if acc.alpha == "dd" else acc.alpha
        value = acc.beta_at(alpha, g)
        assert isinstance(value, (ExpPoly, ExpFrac))


def m_exp(coeff, q):
    return ExpPoly.exp(F(q), coeff)


def test_beta_formulas_convert_exactly():
    sparse = load_claim(str(ROOT / "theories" / "sparse.toml")).accuracy  # m = 3, c = 2
    assert sparse.beta_at(F(1), F(0)) == m_exp(12, F(-1, 16))
    assert sparse.beta_at(F(1, 2), F(0)) == m_exp(12, F(-1, 32))
    assert sparse.beta_at(INF, F(0)) == ExpPoly.ZERO
    ns = load_claim(str(ROOT / "theories" / "numeric_sparse.toml")).accuracy  # m = 3, c = 1
    assert ns.beta_at(F(1), F(2)) == m_exp(6, F(-1, 9)) + m_exp(1, F(-2, 9))
    assert ns.beta_at(INF, F(2)) == m_exp(1, F(-2, 9))  # the limit as alpha -> infinity
    cor7 = load_claim(str(ROOT / "theories" / "numeric_sparse_cor7.toml")).accuracy
    assert cor7.gamma_values(F(1)) == [F(1)] and cor7.beta_at(F(1), F(1)) == m_exp(7, F(-1, 9))
    lap = load_claim(str(ROOT / "theories" / "laplace.toml")).accuracy  # k = 2
    assert lap.beta_at(F(0), F(3)) == m_exp(2, -3)
    nm = load_claim(str(ROOT / "theories" / "noisy_max_barthe2016.toml")).accuracy
    assert nm.beta_at(F(0), F(2)) == m_exp(3, F(-1, 2))
    ex = load_claim(str(ROOT / "theories" / "exponential.toml")).accuracy
    assert ex.beta_at(F(0), F(2)) == m_exp(3, -1)


@pytest.mark.parametrize("text,values", [
    ("2*m*c*exp(-alpha*eps/(8*c)) + c*e^(-gamma*eps/(9*c))", {"m": 3, "c": 2, "alpha": F(3, 2), "gamma": 1}),
    ("eps/(1 + exp(-eps))**2 - 1/3", {}),
    ("(1 - exp(-alpha*eps))^3 * eps^2", {"alpha": F(2, 7)}),
    ("0.25*exp(-eps*gamma) / (2 - exp(-eps))", {"gamma": 4}),
])
def test_formula_values_match_mpmath(text, values):
    """The exact closed form evaluates (certified) to what mpmath gets from the text."""
    f = parse(text, ["m", "c", "alpha", "gamma"], Where())
    exact = f.exact(values)
    for eps in (F(1, 10), F(1), F(7, 2), F(20)):
        env = {k: mpmath.mpf(v.numerator) / v.denominator if isinstance(v, F) else mpmath.mpf(v)
               for k, v in values.items()}
        env.update(eps=mpmath.mpf(eps.numerator) / eps.denominator, exp=mpmath.exp, e=mpmath.e)
        ref = eval(text.replace("^", "**"), {"__builtins__": {}}, env)
        ball = exact.arb_value(eps, 200)
        assert abs(float(ball.mid()) - float(ref)) <= 1e-12 * max(1.0, abs(float(ref)))


@pytest.mark.parametrize("text,fragment", [
    ("log(2)*exp(-eps)", "logarithm"),
    ("exp(1 - eps)", "not rational"),
    ("2^eps", "non-integer exponent"),
    ("exp(-eps^2)", "not linear in eps"),
    ("sqrt(eps)", "square root"),
    ("2 m", "cannot read"),
    ("foo*eps", "unknown name"),
])
def test_formulas_without_exact_form_are_rejected(text, fragment):
    with pytest.raises(UserError) as info:
        parse(text, ["m", "alpha"], Where("f.toml", 3, 10, "accuracy.beta")).exact({"m": 1, "alpha": 1})
    err = info.value
    assert fragment in err.message and err.file == "f.toml" and err.line == 3 and err.column >= 10


# --------------------------------------------------------------------------- mistakes


BASE = """\
[program]
path = "{programs}/sparse.dip"
params = {{ m = 3, c = 1 }}

[accuracy]
input_distance = "linf"
output_distance = "zero-one"
alpha = "dd"
gamma = 0
beta = "2*m*c*exp(-alpha*eps/(8*c))"

[accuracy.inputs]
grid = {{ q = [-1, 1] }}
"""


def write(tmp_path, text):
    path = tmp_path / "claim.toml"
    path.write_text(text)
    return str(path)


def base():
    return BASE.format(programs=PROGRAMS.as_posix())


def test_base_claim_loads(tmp_path):
    claim = load_claim(write(tmp_path, base()))
    assert len(claim.accuracy.points) == 27 and claim.accuracy.dd_over == "reals"


BAD = [
    # (old, new, line, fragment)
    ('beta = "2*m*c*exp(-alpha*eps/(8*c))"', 'beta = "2*m*c*exp(-alpha*eps/(8*c)) + log(2)"', 10, "logarithm"),
    ('beta = "2*m*c*exp(-alpha*eps/(8*c))"', 'beta = "2*mm*exp(-alpha*eps)"', 10, "unknown name 'mm'"),
    ('beta = "2*m*c*exp(-alpha*eps/(8*c))"', 'beta = "exp(alpha*eps)"', 10, "increases with alpha"),
    ('beta = "2*m*c*exp(-alpha*eps/(8*c))"', 'beta = "1 - alpha"', 10, "no finite limit"),
    ('beta = "2*m*c*exp(-alpha*eps/(8*c))"', "beta = 2", 10, "formula in a string"),
    ("[accuracy]\n", "[acuracy]\n", 5, "unknown key 'acuracy'"),
    ("c = 1 }", "cc = 1 }", 3, "not a parameter"),
    ('"linf"', '"l-inf"', 6, "'l-inf' is not allowed"),
    ('alpha = "dd"', 'alpha = "foo"', 8, "not a number"),
    ("gamma = 0", 'gamma = "alpha"', 9, "needs a numeric alpha"),
    ("gamma = 0", "gamma = -1", 9, "negative"),
    ("gamma = 0", 'gamma = 0\neps = "[0, 1]"', 10, "not inside (0, inf)"),
    ("grid = { q = [-1, 1] }", "grid = { }", 13, "no values for the real input"),
    ("grid = { q = [-1, 1] }", "grid = { qq = [-1, 1] }", 13, "'qq' is not an input"),
    ("grid = { q = [-1, 1] }", "grid = { q = [1, -1] }", 13, "is empty"),
    ("grid = { q = [-1, 1] }", "grid = { q = [-1, 1] }\nlist = [{q=[1,2,3]}]", 12, "exactly one of"),
    ("grid = { q = [-1, 1] }", "list = [{q=[1,2]}]", 13, "3 elements, 2 given"),
    ('output_distance = "zero-one"', 'output_distance = "noisy-max"', 7, "index output"),
    ('output_distance = "zero-one"', 'output_distance = "score"', 7, "exponential-mechanism"),
    ('"linf"', '"numeric-sparse"\nthreshold = "TT"', 7, "'TT' is neither"),
    ("gamma = 0", 'gamma = 0\ndet = "table"', 10, "needs [[accuracy.table]]"),
    ("gamma = 0", 'gamma = 0\nbeta = "1"', 11, "not valid TOML"),
    ("sparse.dip", "nothere.dip", 2, "does not exist"),
    ("[accuracy.inputs]\ngrid = { q = [-1, 1] }\n", "", 5, "no inputs"),
    ('alpha = "dd"\n', "", 5, "has no 'alpha'"),
    ('input_distance = "linf"', 'input_distance = "linf"\nbeta_typo = 1', 7, "unknown key 'beta_typo'"),
]


@pytest.mark.parametrize("old,new,line,fragment", BAD, ids=[b[3] for b in BAD])
def test_bad_claims_give_clear_errors(tmp_path, old, new, line, fragment):
    text = base()
    assert old in text
    path = write(tmp_path, text.replace(old, new, 1))
    with pytest.raises(UserError) as info:
        load_claim(path)
    err = info.value
    assert fragment in str(err), str(err)
    assert err.file == path and err.line == line, str(err)
    assert err.hint, str(err)


def test_missing_program_table(tmp_path):
    with pytest.raises(UserError) as info:
        load_claim(write(tmp_path, "[accuracy]\nalpha = 0\n"))
    assert "[program]" in info.value.message and info.value.hint


def test_unreadable_claim_file(tmp_path):
    with pytest.raises(UserError) as info:
        load_claim(str(tmp_path / "none.toml"))
    assert info.value.file.endswith("none.toml")


def test_set_override_of_unknown_parameter(tmp_path):
    with pytest.raises(UserError) as info:
        load_claim(write(tmp_path, base()), overrides={"z": F(1)})
    assert "--set z" in info.value.message


# --------------------------------------------------------------------------- det tables


def table_claim(third: int) -> str:
    """The noisy_max det table with a third row q = [3, 0] -> out = `third`."""
    return noisy_max_det_table(more_rows=f"""
[[accuracy.table]]
input = {{ q = [3, 0] }}
output = {{ out = {third} }}
""")




def test_det_table(tmp_path):
    claim = load_claim(write(tmp_path, table_claim(1)))
    acc = claim.accuracy
    assert acc.dd_over == "grid" and len(acc.points) == 3
    obs = {tuple(o.input.values()): o for o in _obligations(acc)}
    # (0,0) -> 1 disagrees with (0,2) -> 2 at distance 2: dd = 2, beta at alpha = 2
    assert obs[(0, 0)].dd.value == 2 and obs[(0, 0)].beta == m_exp(2, -1)
    # (3,0) -> 1: nearest disagreeing table input is (0,2), at distance 3
    assert obs[(3, 0)].dd.value == 3
    # the table's det disagrees with the noise-free one nowhere here
    for o in obs.values():
        assert o.det == nf.run(acc.program, o.input)


def test_det_table_bad_value(tmp_path):
    with pytest.raises(UserError) as info:
        load_claim(write(tmp_path, table_claim(7)))
    assert "row 3" in info.value.message and info.value.line is not None


def test_table_must_cover_the_inputs(tmp_path):
    text = table_claim(1).replace(
        '[[accuracy.table]]\ninput = { q = [0, 0] }', '[accuracy.inputs]\nlist = [ { q = [1, 1] } ]\n\n'
        '[[accuracy.table]]\ninput = { q = [0, 0] }', 1)
    with pytest.raises(UserError) as info:
        load_claim(write(tmp_path, text))
    assert "no row for the input" in info.value.message


# --------------------------------------------------------------------------- obligations


def _obligations(acc, points=None):
    """Per input and gamma, what the checker decides there: the statement's parts read off
    `AccuracyChecker` (the route `dipc accuracy` takes), beta only where the claim applies."""
    from types import SimpleNamespace
    from dipc_plus.accuracy.checker import AccuracyChecker
    checker = AccuracyChecker(acc)
    for u in (acc.points if points is None else points):
        for alpha, gamma, applies in checker.obligations(u):
            yield SimpleNamespace(input=dict(u), det=checker.det(u), dd=checker.dd(u), alpha=alpha, gamma=gamma,
                                  beta=checker.beta(alpha, gamma) if applies else None, applies=applies)


def test_obligations_follow_definition_2():
    at = load_claim(str(ROOT / "theories" / "above_threshold.toml")).accuracy
    for o in _obligations(at):
        assert o.applies == (o.dd.value > 0)
        if o.applies:
            assert o.alpha == o.dd.value and o.beta == at.beta_at(o.dd.value, F(0))
    cor7 = load_claim(str(ROOT / "theories" / "numeric_sparse_cor7.toml")).accuracy
    some = [u for u in cor7.points if all(v in (-2, 2) for v in u.values())]
    for o in _obligations(cor7, some):
        assert o.applies == (o.dd.value > 1) and o.alpha == 1 and o.gamma == 1
    # q = (-2, -2, -2): every query must rise to 0 to change anything: dd = 2 > 1
    assert any(o.applies for o in _obligations(cor7, [{"q[1]": F(-2), "q[2]": F(-2), "q[3]": F(-2)}]))


def _decide_all(acc, points=None):
    from dipc_plus.decision.decide import decide
    from dipc_plus.semantics.distribution import output_distribution
    results = []
    for o in _obligations(acc, points):
        if not o.applies:
            continue
        dist = output_distribution(acc.program, o.input)
        p = acc.ball_probability(dist, o.input, o.det, o.gamma)
        results.append((o, decide(p - (1 - o.beta), ">=", acc.eps)))
    return results


def test_paper_claims_hold_at_some_inputs():
    """End to end: the shipped claims hold (the paper's Table 2 results) at a few inputs."""
    for name in ("above_threshold", "noisy_max", "laplace"):
        acc = load_claim(str(ROOT / "theories" / f"{name}.toml")).accuracy
        results = _decide_all(acc, acc.points[:6])
        assert results and all(d.holds for _, d in results), name


def test_too_strong_claim_fails(tmp_path):
    """beta / 20 is too small for AboveThreshold at q = (-1, -1, -1): the decision finds eps."""
    text = base().replace("sparse.dip", "above_threshold.dip").replace(
        'params = { m = 3, c = 1 }', 'params = { m = 3 }').replace(
        '"2*m*c*exp(-alpha*eps/(8*c))"', '"2*m*exp(-alpha*eps/8)/20"')
    acc = load_claim(write(tmp_path, text)).accuracy
    results = _decide_all(acc, [{"q[1]": F(-1), "q[2]": F(-1), "q[3]": F(-1)}])
    assert results and not results[0][1].holds


# --------------------------------------------------------------------------- balls vs simulation


def _simulated(acc, u, det_u, gamma, eps, n, seed=7):
    """How many of n simulated runs land in the ball (judged by the claim's own d')."""
    from dipc_plus.semantics.sampler import simulate
    res = simulate(acc.program, u, eps, n, seed=seed)
    names = acc.program.output_names()
    if not res.real_names():
        return sum(count for values, count in res.distribution(names).items()
                   if acc.output_distance.in_ball(u, det_u, dict(zip(names, values)), gamma))
    cols = {name: res.column(name) for name in names}
    return sum(acc.output_distance.in_ball(u, det_u, {name: _plain(cols[name][k]) for name in names}, gamma)
               for k in range(n))


def _plain(x):
    import numpy as np
    if isinstance(x, (np.floating, float)):
        return F(float(x))
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


@pytest.mark.slow
@pytest.mark.parametrize("theory,u,gamma", [
    ("noisy_max_barthe2016", {"q[1]": F(1), "q[2]": F(0), "q[3]": F(-1)}, F(1)),
    ("exponential", {"h1": 2, "h2": 1, "h3": 0}, F(1)),
    ("numeric_sparse", {"q[1]": F(-1), "q[2]": F(1), "q[3]": F(1)}, F(1)),
])
def test_ball_probability_matches_simulation(theory, u, gamma):
    from dipc_plus.semantics.distribution import output_distribution
    from dipc_plus.semantics.stats import wilson
    acc = load_claim(str(ROOT / "theories" / f"{theory}.toml")).accuracy
    det_u = acc.det_at(u)
    dist = output_distribution(acc.program, u)
    exact = acc.ball_probability(dist, u, det_u, gamma)
    eps = F(3, 2)
    n = 60_000
    hits = _simulated(acc, u, det_u, gamma, eps, n)
    interval = wilson(hits, n, 0.9999)
    assert in_interval(interval, exact.arb_value(eps))
    assert 0 < hits < n  # the event is neither sure nor impossible: the check has teeth


def test_beta_must_not_increase_with_alpha_for_dd(tmp_path):
    # (1 + alpha) exp(-alpha eps) grows with alpha when eps < 1/(1 + alpha): one check at
    # alpha = dd(u) would not cover the smaller alphas, so the claim is refused ...
    path = write(tmp_path, base().replace('"2*m*c*exp(-alpha*eps/(8*c))"', '"(1 + alpha)*exp(-alpha*eps)"'))
    with pytest.raises(UserError) as info:
        load_claim(path)
    assert "alpha = dd(u)" in info.value.message and info.value.line == 10
    # ... while the same beta with a fixed alpha is fine
    fixed = write(tmp_path, base().replace('"2*m*c*exp(-alpha*eps/(8*c))"', '"(1 + alpha)*exp(-alpha*eps)"')
                  .replace('alpha = "dd"', "alpha = 1"))
    assert load_claim(fixed).accuracy.beta_at(F(1), F(0)) == m_exp(2, -1)


def test_infinite_dd_uses_the_limit_of_beta(tmp_path):
    """Every table input answers 1: nothing disagrees, dd = inf, beta -> its limit (0 here)."""
    text = table_claim(1).replace(
        "input = { q = [0, 2] }\noutput = { out = 2 }", "input = { q = [2, 0] }\noutput = { out = 1 }")
    acc = load_claim(write(tmp_path, text)).accuracy
    obs = list(_obligations(acc))
    assert obs and all(o.applies and o.dd.value == INF and o.alpha == INF for o in obs)
    assert all(o.beta == ExpPoly.ZERO for o in obs)
