"""Accuracy verdicts (dipc_plus.accuracy.checker, `dipc accuracy`) against independent evidence.

* every shipped claim's error probabilities are recomputed by numerical quadrature
  (scipy, over the Laplace densities, written here from the programs' definitions)
  on a grid of eps, and must agree with the exact closed forms; a verified claim's
  bound must hold there too;
* the sampler (no symbolic reasoning) must land on the closed forms;
* refuted claims: the counterexample must re-check by quadrature and by simulation;
* the command line: exit codes 0/1/2 and the JSON shape.
"""
from __future__ import annotations

import json
import math
import tomllib
from fractions import Fraction as F

import pytest

from dipc_plus import cli
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.simulate import simulate_error
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.semantics.distribution import certified
from conftest import ROOT, THEORIES, lap_cdf, lap_pdf, quad

EPS_GRID = (0.3, 1.0, 2.7, 8.0)


# --------------------------------------------------------------------------- quadrature


def pattern_probability(q, produced, eps, rate_t, rate_q, variant, T=0.0):
    """P[each produced comparison noisy q_i >= noisy T goes the given way]; a fresh threshold
    after every 'above' unless `variant` (one threshold for all)."""
    def segment(items):
        def f(t):
            v = lap_pdf(t, T, rate_t * eps)
            for i, above in items:
                Fq = lap_cdf(t, q[i], rate_q * eps)
                v *= (1 - Fq) if above else Fq
            return v
        return quad(f, [T] + list(q))
    if variant:
        return segment(produced)
    total, seg = 1.0, []
    for item in produced:
        seg.append(item)
        if item[1]:
            total *= segment(seg)
            seg = []
    return total * (segment(seg) if seg else 1.0)


def sparse_error(program, u, det, gamma, eps):
    """1 - P[correct] for Sparse, SparseVariant, AboveThreshold and NumericSparse."""
    p = program.params
    m = int(p["m"])
    q = [float(u[f"q[{i}]"]) for i in range(1, m + 1)]
    outs = [det[f"out[{i}]"] for i in range(1, m + 1)]
    name = program.name
    c = int(p.get("c", 1))
    if name == "numeric_sparse":
        produced, nums = [], 0
        for i, o in enumerate(outs):
            if nums == c:
                break
            produced.append((i, o == "num"))
            nums += o == "num"
        prob = pattern_probability(q, produced, eps, 4 / (9 * c), 2 / (9 * c), False)
        b = eps / (9 * c)
        within = quad(lambda x: lap_pdf(x, 0, b) if abs(x) <= float(gamma) else 0.0, [-float(gamma), 0,
                                                                                       float(gamma)])
        return 1 - prob * within ** nums
    produced = [(i, o == "top") for i, o in enumerate(outs) if o in ("bot", "top")]
    if name == "above_threshold":
        return 1 - pattern_probability(q, produced, eps, 1 / 2, 1 / 4, True)
    return 1 - pattern_probability(q, produced, eps, 1 / (2 * c), 1 / (4 * c), name == "sparse_variant")


def noisy_max_error(program, u, det, gamma, eps):
    m = int(program.params["m"])
    q = [float(u[f"q[{i}]"]) for i in range(1, m + 1)]
    best = q[int(det["out"]) - 1]
    total = 0.0
    for i in range(m):
        if abs(q[i] - best) <= float(gamma):
            def f(x, i=i):
                v = lap_pdf(x, q[i], eps / 2)
                for j in range(m):
                    if j != i:
                        v *= lap_cdf(x, q[j], eps / 2)
                return v
            total += quad(f, q)
    return 1 - total


def noisy_min_error(program, u, det, gamma, eps):
    """Report Noisy Min with d' = zero-one: 1 - P[the det's index has the smallest noisy answer]."""
    m = int(program.params["m"])
    q = [float(u[f"q[{i}]"]) for i in range(1, m + 1)]
    i = int(det["out"]) - 1

    def f(x):
        v = lap_pdf(x, q[i], eps / 2)
        for j in range(m):
            if j != i:
                v *= 1 - lap_cdf(x, q[j], eps / 2)
        return v
    return 1 - quad(f, q)


def laplace_error(program, u, det, gamma, eps):
    k, sens = int(program.params["k"]), float(program.params["sens"])
    g = float(gamma)
    inside = quad(lambda x: lap_pdf(x, 0, eps / sens) if abs(x) <= g else 0.0, [-g, 0, g])
    return 1 - inside ** k


def exponential_error(program, u, det, gamma, eps):
    """Exponential mechanism: a finite sum, written out from the program's header
    (score of item v = h_v, rate eps/2, d' = |score difference|)."""
    h = [float(u[f"h{i}"]) for i in (1, 2, 3)]
    weights = [math.exp(eps / 2 * (x - max(h))) for x in h]
    best = h[int(det["out"]) - 1]
    return sum(w for w, x in zip(weights, h) if abs(best - x) > float(gamma)) / sum(weights)


def threshold_half_error(program, u, det, gamma, eps):
    """programs/threshold_half.dip: wrong when q + Lap(1/eps) lands on the other side of 1/2."""
    q = float(u["q"])
    if q >= 0.5:   # det is "above": correct when the noisy value is >= 1/2
        return 1 - quad(lambda x: lap_pdf(x, q, eps), [q], lo=0.5)
    return 1 - quad(lambda x: lap_pdf(x, q, eps), [q], hi=0.5)


def noisy_max_exp_error(program, u, det, gamma, eps):
    """Report Noisy Max with ExpNoise(eps/2): 1 - P[an index within gamma of the best is reported],
    each P[noisy_i is largest] integrated over the one-sided densities."""
    m, rate = int(program.params["m"]), eps / 2
    q = [float(u[f"q[{i}]"]) for i in range(1, m + 1)]
    best = q[int(det["out"]) - 1]

    def cdf(x, c):
        return 0.0 if x <= c else -math.expm1(-rate * (x - c))
    total = 0.0
    for i in range(m):
        if abs(q[i] - best) <= float(gamma):
            def f(x, i=i):
                v = rate * math.exp(-rate * (x - q[i]))
                for j in range(m):
                    if j != i:
                        v *= cdf(x, q[j])
                return v
            total += quad(f, q, lo=q[i])
    return 1 - total


def two_thresholds_error(program, u, det, gamma, eps):
    """programs/two_thresholds.dip: level 2 above 1, 1 in (0, 1], 0 at most 0, of q + Lap(1/eps)."""
    q = float(u["q"])
    lo, hi = {2: (1.0, math.inf), 1: (0.0, 1.0), 0: (-math.inf, 0.0)}[int(det["level"])]
    return 1 - quad(lambda x: lap_pdf(x, q, eps), [q, 0, 1], lo=lo, hi=hi)


QUADRATURE = {"noisy_max_exp": noisy_max_exp_error, "two_thresholds": two_thresholds_error,
              "threshold_half": threshold_half_error, "sparse": sparse_error, "sparse_variant": sparse_error, "above_threshold": sparse_error,
              "numeric_sparse": sparse_error, "noisy_max": noisy_max_error, "laplace": laplace_error,
              "noisy_min": noisy_min_error,
              "exponential": exponential_error}


def python_twin(error):
    """A .dip program's quadrature for its Python twin (issue 42): inputs queries[i] as q[i], and
    det's 0-based index `result` (numpy's argmax) as out = result + 1."""
    def twin_error(program, u, det, gamma, eps):
        return error(program, {k.replace("queries", "q"): v for k, v in u.items()}, {"out": int(det["result"]) + 1},
                     gamma, eps)
    return twin_error


# --------------------------------------------------------------------------- shipped claims


SHIPPED = sorted(p.name for p in THEORIES.glob("*.toml") if "accuracy" in tomllib.loads(p.read_text())
                 and "box" not in tomllib.loads(p.read_text())["accuracy"].get("inputs", {}))  # boxes: test_box.py


@pytest.fixture(scope="module")
def results():
    out = {}
    for name in SHIPPED:
        checker = AccuracyChecker(load_claim(str(THEORIES / name)))
        out[name] = (checker, checker.run())
    return out


def test_every_section_3_claim_is_shipped_and_decided(results):
    assert {"sparse.toml", "noisy_max.toml", "laplace.toml", "numeric_sparse_cor7.toml"} <= set(results)
    for name, (_, res) in results.items():
        assert res.verdict in ("verified", "refuted"), name
        assert res.reports, name


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_claim_against_quadrature(results, name):
    """Closed forms = quadrature on a grid of eps, and a verified bound holds there."""
    checker, res = results[name]
    assert checker.program.name in QUADRATURE, f"write an independent computation for {checker.program.name}"
    qf = QUADRATURE[checker.program.name]
    if str(checker.program.source).endswith(".py"):
        qf = python_twin(qf)
    applicable = res.applicable
    assert applicable, f"{name}: the claim applies to no input"
    step = max(1, len(applicable) // 12)  # a spread of inputs, every gamma
    for rep in applicable[::step]:
        for eps in EPS_GRID:
            exact = float(certified(rep.p_error, F(eps)).mid())
            numeric = qf(checker.program, rep.input, rep.det, rep.gamma, eps)
            assert exact == pytest.approx(numeric, abs=2e-9), (name, rep.input, rep.gamma, eps)
            if res.verdict == "verified" and checker.claim.eps.contains(F(str(eps))):   # the claim's eps only
                assert numeric <= float(certified(rep.bound, F(eps)).mid()) + 1e-9, (name, rep.input, eps)


@pytest.mark.slow
@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_claim_against_the_sampler(results, name):
    checker, res = results[name]
    reps = res.applicable
    for rep in (reps[0], reps[len(reps) // 2]):
        eps = F(3, 2)
        freq = simulate_error(checker.claim, rep.input, rep.det, rep.gamma, eps, 40_000, seed=7)
        ci = freq.interval(0.999)
        exact = float(certified(rep.p_error, eps).mid())
        assert ci.low <= exact <= ci.high, (name, rep.input, exact, ci)


def test_dd_conventions_decide_which_inputs_are_checked(results):
    checker, res = results["sparse.toml"]
    for rep in res.reports:
        assert rep.applies == (rep.dd.value > 0)
    paper = AccuracyChecker(checker.claim, boundary=True)
    assert all(r.applies for r in paper.run().reports)


# --------------------------------------------------------------------------- refutations


def _sparse_c1():
    return AccuracyChecker(load_claim(str(THEORIES / "sparse.toml"), {"c": F(1)}))


@pytest.mark.slow
def test_refuted_claim_counterexample_rechecks_by_quadrature_and_simulation():
    checker = _sparse_c1()
    res = checker.run(kappa=7)
    assert res.verdict == "refuted"
    for rep in res.failing[:3]:
        cex = rep.counterexample
        assert cex.eps > 0 and cex.eps.denominator <= 100  # a simple rational
        assert cex.error_ball > cex.bound_ball            # certified, independent of decide
        numeric = sparse_error(checker.program, cex.input, rep.det, cex.gamma, float(cex.eps))
        bound = float(cex.bound_ball.mid())
        assert numeric > bound
        freq = simulate_error(checker.claim, cex.input, rep.det, cex.gamma, cex.eps, 100_000, seed=3)
        assert freq.interval(0.999).low > bound
        # Definition 2 needs alpha < dd(u): the reported alpha' is one, and fails too
        assert cex.alpha_strict is not None and cex.alpha_strict < rep.dd.value
        strict_bound = certified(checker.claim.beta_at(cex.alpha_strict, cex.gamma), cex.eps) / 7
        assert cex.error_ball > strict_bound
    # the same claim with kappa = 6 holds everywhere
    assert checker.run(kappa=6).verdict == "verified"


def test_a_refuted_claim_file(tmp_path):
    """A claim whose beta is too small (beta/7 written into the formula) is refuted."""
    text = (THEORIES / "sparse.toml").read_text().replace('path = "../programs', f'path = "{ROOT}/programs')
    text = text.replace('beta = "2*m*c*exp(-alpha*eps/(8*c))"', 'beta = "2*m*c*exp(-alpha*eps/(8*c))/7"')
    text = text.replace("c = 2", "c = 1")
    path = tmp_path / "too_strong.toml"
    path.write_text(text)
    res = AccuracyChecker(load_claim(str(path))).run()
    assert res.verdict == "refuted"
    cex = res.counterexample
    freq = simulate_error(res.claim, cex.input, res.failing[0].det, cex.gamma, cex.eps, 100_000, seed=11)
    assert freq.interval(0.999).low > float(cex.bound_ball.mid())


def test_paper_convention_checks_inputs_with_dd_equal_to_alpha():
    """SparseVariant, c = 1, q = [-1,-1,0]: dd = 0, so Definition 2 says nothing there; the
    paper's convention checks it at alpha = 0, and beta/7 = 6/7 fails (Table 4a's example)."""
    claim = load_claim(str(THEORIES / "sparse_variant.toml"), {"c": F(1)})
    u = {"q[1]": F(-1), "q[2]": F(-1), "q[3]": F(0)}
    strict = AccuracyChecker(claim).run([u], kappa=7)
    assert strict.verdict == "verified" and not strict.applicable
    paper = AccuracyChecker(claim, boundary=True).run([u], kappa=7)
    assert paper.verdict == "refuted"
    cex = paper.counterexample
    assert cex.alpha == 0 and cex.alpha_strict is None  # no alpha < dd(u) = 0 exists
    assert float(cex.bound_ball.mid()) == pytest.approx(6 / 7)


def test_jobs_give_the_same_reports():
    claim = load_claim(str(THEORIES / "noisy_max.toml"))
    serial = AccuracyChecker(claim).run()
    parallel = AccuracyChecker(claim).run(jobs=2)
    assert [(r.input, r.applies, r.verdict, r.dd.value) for r in serial.reports] == \
        [(r.input, r.applies, r.verdict, r.dd.value) for r in parallel.reports]
    assert all(a.p_error == b.p_error for a, b in zip(serial.reports, parallel.reports) if a.applies)


# --------------------------------------------------------------------------- command line


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_verified_refuted_and_json(capsys):
    prog, claim = str(ROOT / "programs/sparse.dip"), str(THEORIES / "sparse.toml")
    code, out, _ = run_cli(capsys, "accuracy", prog, claim, "--set", "c=1", "--no-progress")
    assert code == 0 and "VERIFIED" in out
    code, out, _ = run_cli(capsys, "accuracy", prog, claim, "--set", "c=1", "--input", "q=[-1,-1,1]",
                           "--kappa", "7", "--json")
    assert code == 1
    data = json.loads(out)
    assert data["verdict"] == "refuted"
    cex = data["counterexample"]
    assert cex["input"] == {"q": [-1, -1, 1]}
    eps = F(cex["eps"])
    assert eps > 0 and cex["eps"] == str(eps)  # "p/q" (or an integer)
    assert "e^" in cex["error_probability"] and "e^" in cex["bound"]
    assert float(cex["error_probability_value"].strip("[").split()[0]) > float(cex["bound_value"].strip("[").split()[0])
    assert data["reports"][0]["p_correct"]


def test_cli_usage_errors_exit_2(capsys):
    prog, claim = str(ROOT / "programs/sparse.dip"), str(THEORIES / "sparse.toml")
    cases = [
        (str(ROOT / "programs/noisy_max.dip"), claim),           # not the claim's program
        (prog, str(THEORIES / "missing.toml")),                  # no claim file
        (str(ROOT / "programs/missing.dip"), claim),              # no program
    ]
    for p, c in cases:
        code, _, err = run_cli(capsys, "accuracy", p, c)
        assert code == 2 and "error" in err and "Traceback" not in err
    for extra in (["--input", "q=[1,2]"], ["--input", "x=1"], ["--kappa", "0"], ["--set", "zz=1"]):
        code, _, err = run_cli(capsys, "accuracy", prog, claim, *extra)
        assert code == 2 and "error" in err, extra


# --------------------------------------------------------------------------- one rule for "applies"


@pytest.mark.parametrize("theory, params", [("sparse_variant.toml", {"c": F(1)}),      # alpha = "dd"
                                            ("numeric_sparse_cor7.toml", {})])         # alpha = 1
def test_checker_obligations_follow_the_rule_with_and_without_the_boundary(theory, params):
    """`AccuracyChecker.obligations` follows Definition 2 (and, with `boundary`, the paper's
    convention): alpha is the claim's or dd(u), one obligation per claimed gamma, and it applies
    where dd(u) exceeds alpha (or 0), or equals alpha under the boundary convention; the inputs
    with dd(u) = alpha are where the two differ."""
    claim = load_claim(str(THEORIES / theory), params).accuracy
    points = claim.points[::7][:12]
    differ = 0
    for boundary in (False, True):
        checker = AccuracyChecker(claim, boundary=boundary)
        for u in points:
            found = checker.obligations(u)
            dd = checker.dd(u).value
            alpha = dd if claim.alpha == "dd" else claim.alpha
            gammas = [alpha] if claim.gammas == "alpha" else list(claim.gammas)
            assert [(a, g) for a, g, _ in found] == [(alpha, g) for g in gammas], (theory, boundary, u)
            for _, _, applies in found:
                assert applies == (dd > (0 if claim.alpha == "dd" else alpha) or (boundary and dd == alpha))
                differ += boundary and dd == alpha and not (dd > (0 if claim.alpha == "dd" else alpha))
    assert differ, f"{theory}: no sampled input has dd(u) = alpha, so the test shows nothing"


@pytest.mark.parametrize("dd_over", ["reals", "grid"])
def test_a_summarized_run_says_what_the_full_run_says_and_keeps_nothing(dd_over):
    """`run(summarize=...)` (what `dipc accuracy` uses): the same verdict, counts, counterexample
    and per-input JSON as keeping every report, and no input's exact objects stay cached."""
    claim = load_claim(str(THEORIES / "sparse.toml"), {"m": 3, "c": 1})
    full = AccuracyChecker(claim, dd_over=dd_over).run()
    checker = AccuracyChecker(claim, dd_over=dd_over)
    lean = checker.run(summarize="json")
    assert lean.reports == [] and lean.tally.inputs == full.tally.inputs == 27
    strip = lambda d: {k: strip(v) for k, v in d.items() if k != "seconds"} if isinstance(d, dict) else \
        [strip(x) for x in d] if isinstance(d, list) else d
    assert strip(lean.to_json()) == strip(full.to_json())
    assert (lean.verdict, lean.tally.refuted, lean.tally.applicable) == (full.verdict, len(full.failing), len(full.applicable))
    assert (lean.counterexample is None) == (full.counterexample is None)
    if dd_over == "grid":
        assert lean.verdict == "refuted" and lean.counterexample.input == full.counterexample.input
    assert not checker._perr and not checker._decisions and not checker._dist and not checker._dd
