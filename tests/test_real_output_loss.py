"""Privacy on every value of a real output: the loss over w and the claim route.

Independent checks: P[outcome, released value in (a, b]] by direct numerical integration of
the Laplace densities (scipy, written from the program text, not from the engine) against
the exact per-point value; the refutation's event ratio recomputed that way; a verified
claim's event ratios at scattered (w, eps) below the budget; the sup 3/4 of BadGap m = 3
approached from below by event ratios near w = 0 at small eps; the sign tests on forms
whose sign is known by hand."""
from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
from flint import fmpq, fmpq_poly

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.exact.symbolic_terms import SymbolicForm
from dipc_plus.frontend.load import load_program
from dipc_plus.privacy.dp.real_output_check import check_real_outputs, outcome_event_probability
from dipc_plus.privacy.dp.real_output_loss import nonnegative_on
from dipc_plus.semantics.real_output_density import RealOutcome, derivative
from conftest import PROGRAMS, THEORIES, lap_cdf, lap_pdf, quad


def released_last(m: int) -> RealOutcome:
    """(bot, ..., bot, num) with val[m] released, the other vals 0."""
    return RealOutcome(tuple(["bot"] * (m - 1) + ["num"]),
                       tuple((f"val[{i}]", F(0)) for i in range(1, m)), (f"val[{m}]",))


def numeric_event(q, a, b, eps, rate_t, rate_q, gap=False) -> float:
    """P[r_1..r_{m-1} < rT <= r_m, released in (a, b]] for AboveThreshold-shaped programs
    (threshold Lap(rate_t*eps, 0), queries Lap(rate_q*eps, q_i)); released r_m, or r_m - rT."""
    m = len(q)
    rt, rq = rate_t * eps, rate_q * eps

    def inner(t):
        below = math.prod(lap_cdf(t, q[i], rq) for i in range(m - 1))
        lo, hi = (max(a + t, t), b + t) if gap else (max(a, t), b)
        return lap_pdf(t, 0, rt) * below * max(0.0, lap_cdf(hi, q[-1], rq) - lap_cdf(lo, q[-1], rq))
    kinks = [0.0, a, b] + list(q) + [x - a for x in q] + [x - b for x in q]
    return quad(inner, kinks)


@pytest.mark.parametrize("name,params,rates,gap", [
    ("bad_gap_sparse_vector", {"m": 3}, (F(1, 2), F(1, 4)), False),
    ("svt_lyu_alg3", {"m": 3, "c": 1}, (F(1, 2), F(1, 2)), False),
    ("gap_above_threshold", {"m": 3}, (F(1, 2), F(1, 4)), True)])
def test_event_probability_matches_numerical_integration(name, params, rates, gap):
    program = load_program(str(PROGRAMS / f"{name}.dip"), params)
    for q in ([0, 0, 0], [1, 0, 1]):
        u = {f"q[{i + 1}]": x for i, x in enumerate(q)}
        for a, b in [(F(-1, 2), F(1, 4)), (F(1), F(3))]:
            p = outcome_event_probability(program, u, released_last(3), a, b)
            for eps in (F(1, 2), F(3, 2)):
                want = numeric_event(q, float(a), float(b), float(eps), float(rates[0]), float(rates[1]), gap)
                assert abs(float(p.arb_value(eps, 128).mid()) - want) < 1e-10


def claim(name: str):
    return load_privacy_claim(str(THEORIES / f"{name}.toml"))


def test_lyu_alg3_c1_is_refuted_and_the_event_ratio_is_independent():
    result = check_real_outputs(claim("svt_lyu_alg3_c1_m3_privacy_values"))
    assert result.verdict == "refuted"
    c = result.counterexample
    q = [c.input[f"q[{i}]"] for i in (1, 2, 3)]
    q2 = [c.neighbour[f"q[{i}]"] for i in (1, 2, 3)]
    assert c.outcome == released_last(3) and c.event is not None
    a, b = (float(x) for x in c.event)
    eps = float(c.eps)
    p = numeric_event([float(x) for x in q], a, b, eps, 0.5, 0.5)
    p2 = numeric_event([float(x) for x in q2], a, b, eps, 0.5, 0.5)
    assert p / p2 > math.exp(eps) * (1 + 1e-6)


def test_badgap_m3_is_verified_and_event_ratios_stay_below_the_budget():
    result = check_real_outputs(claim("bad_gap_sparse_vector_m3_privacy_values"))
    assert result.verdict == "verified", result.report()
    for q, q2 in [([0, 0, 0], [1, 1, 1]), ([1, 1, 0], [0, 0, 1]), ([0, 1, 0], [1, 0, 1])]:
        for w in (-2.0, -0.5, 0.25, 0.75, 1.5, 4.0):
            for eps in (0.25, 1.0, 3.0):
                p = numeric_event(q, w - 0.125, w + 0.125, eps, 0.5, 0.25)
                p2 = numeric_event(q2, w - 0.125, w + 0.125, eps, 0.5, 0.25)
                assert p <= math.exp(eps) * p2 * (1 + 1e-9)


def test_badgap_m3_sup_three_quarters_is_approached_from_below():
    """sup L/eps = 3/4 (issue 28): event ratios of (bot, bot, num) next to w = 0 at small eps,
    between q = (0, 0, 0) and (1, 1, 1), give ln(ratio)/eps close to 3/4, never above."""
    values = []
    for eps in (0.5, 0.1, 0.02):
        p = numeric_event([0, 0, 0], -1e-3, 0.0, eps, 0.5, 0.25)
        p2 = numeric_event([1, 1, 1], -1e-3, 0.0, eps, 0.5, 0.25)
        values.append(math.log(p / p2) / eps)
    assert all(v <= 0.75 + 1e-9 for v in values)
    assert values[-1] > 0.74 and values == sorted(values)


def form(terms: dict) -> SymbolicForm:
    """{(mu, le, power): [coefficients of the polynomial in eps]} -> a form in one coordinate."""
    return SymbolicForm(1, {((F(mu),), F(le), (pw,)): fmpq_poly([fmpq(F(x).numerator, F(x).denominator) for x in c])
                            for (mu, le, pw), c in terms.items()})


def test_sign_tests_on_forms_known_by_hand():
    # e^(-v) - e^(-2 v) >= 0 exactly where w >= 0
    h = form({(-1, 0, 0): [1], (-2, 0, 0): [-1]})
    assert nonnegative_on(h, F(0), None)
    assert nonnegative_on(h, F(1), F(3))
    assert not nonnegative_on(h, F(-1), F(0))
    # (1 - v) e^(-v) is negative for w > 1/eps: not provable on (0, 1) for every eps
    assert not nonnegative_on(form({(-1, 0, 0): [1], (-1, 0, 1): [-1]}), F(0), F(1))
    # d/dw e^(v/2) = eps/2 e^(v/2); d/dw v = eps
    d = derivative(form({(F(1, 2), 0, 0): [1]}), 0)
    assert d == form({(F(1, 2), 0, 0): [0, F(1, 2)]})
    assert derivative(form({(0, 0, 1): [1]}), 0) == form({(0, 0, 0): [0, 1]})


def test_claim_without_events_is_routed_and_laplace_is_too_unless_delta(tmp_path):
    assert getattr(claim("bad_gap_sparse_vector_m3_privacy_values"), "every_output_value", False)
    body = ('[program]\npath = "{}"\nparams = {{ k = 1 }}\n[privacy]\nadjacency = "linf"\nbudget = "eps"\n'
            '[privacy.inputs]\ngrid = {{ q = [0, 1] }}\n').format(PROGRAMS / "laplace.dip")
    path = tmp_path / "c.toml"
    path.write_text(body)
    assert load_privacy_claim(str(path)).every_output_value      # every output real: no finite one needed
    path.write_text(body.replace('budget = "eps"', 'budget = "eps"\ndelta = "1/100"'))
    with pytest.raises(UserError) as exc:
        load_privacy_claim(str(path))
    assert "need output events" in str(exc.value)


def test_budget_with_a_constant_is_a_user_error(tmp_path):
    body = ('[program]\npath = "{}"\nparams = {{ m = 2 }}\n[privacy]\nadjacency = "linf"\n'
            'budget = "eps + ln(2)"\n[privacy.inputs]\ngrid = {{ q = [0, 1] }}\n').format(
        PROGRAMS / "bad_gap_sparse_vector.dip")
    path = tmp_path / "c.toml"
    path.write_text(body)
    with pytest.raises(UserError) as exc:
        check_real_outputs(load_privacy_claim(str(path)))
    assert exc.value.hint


def test_privacy_loss_on_every_output_value_is_a_user_error_not_a_crash():
    """`dipc privacy-loss` tabulates finite outputs: a claim whose real outputs have no events
    was an internal error (KeyError 'val[1]'); now exit 2 naming the outputs and both ways out."""
    from conftest import run_main
    code, out, err = run_main(["privacy-loss", "theories/numeric_sparse_m3_privacy_values.toml"])
    assert code == 2 and "Traceback" not in err and "internal error" not in err
    assert "val[1], val[2], val[3]" in err and "dipc privacy" in err and "events = { val" in err


def test_gap_variant_m5_event_ratios_stay_below_the_budget():
    """The m = 5 gap claim is verified by the coupling bound (d*B = 1, theories/
    gap_above_threshold_m5_privacy_values.toml); independently, numerical event ratios of
    (bot^4, num) with the gap in a small window stay below e^eps at scattered pairs of
    neighbours of {0, 1}^5, windows and eps."""
    pairs = [([0, 0, 0, 0, 0], [1, 1, 1, 1, 1]), ([1, 1, 1, 1, 0], [0, 0, 0, 0, 1]),
             ([0, 1, 0, 1, 0], [1, 0, 1, 0, 1]), ([1, 1, 1, 1, 1], [0, 0, 0, 0, 0])]
    for q, q2 in pairs:
        for w in (0.05, 0.5, 2.0, 6.0):
            for eps in (0.25, 1.0, 4.0):
                p = numeric_event(q, w - 0.05, w + 0.05, eps, 0.5, 0.25, gap=True)
                p2 = numeric_event(q2, w - 0.05, w + 0.05, eps, 0.5, 0.25, gap=True)
                assert p <= math.exp(eps) * p2 * (1 + 1e-9), (q, q2, w, eps)


def test_a_coupling_bound_below_an_exact_candidate_stops_without_a_verdict(tmp_path, monkeypatch):
    """The coupling bound is cross-checked against the exact candidates (lower bounds of the
    loss): forced to 1/8 on the gap variant at m = 2 (exact sup 1/2), the command exits 3."""
    from dipc_plus.privacy.dp import coupling
    from dipc_plus.privacy.online.bound import Bound
    from dipc_plus.privacy.online.every_length import BoundContradiction
    from conftest import run_main
    body = ('[program]\npath = "{}"\nparams = {{ m = 2 }}\n[privacy]\nadjacency = "linf"\nbudget = "eps"\n'
            '[privacy.inputs]\ngrid = {{ q = [0, 1] }}\n').format((PROGRAMS / "gap_above_threshold.dip").as_posix())
    path = tmp_path / "gap2.toml"
    path.write_text(body)
    assert check_real_outputs(load_privacy_claim(str(path))).coupling.bound == F(1, 2)
    monkeypatch.setattr(coupling, "coupling_bound", lambda auto, m: Bound(F(1, 8), m, {}))
    with pytest.raises(BoundContradiction):
        check_real_outputs(load_privacy_claim(str(path)))
    code, out, err = run_main(["privacy", str(path)])
    assert code == 3 and "VERIFIED" not in out and "REFUTED" not in out
