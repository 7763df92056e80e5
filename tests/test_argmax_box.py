"""Box claims for NoisyMax by its worst point (accuracy/argmax_box.py, issue 28): every
precondition's refusal, the worst-point identity against the per-point engine and an
independent quadrature, box vs grid verdicts, and random inputs against the worst point."""
from __future__ import annotations

import dataclasses
import json
import math
import random
from fractions import Fraction

import pytest
from conftest import PROGRAMS, THEORIES, lap_cdf, lap_pdf, quad, run_main

from dipc_plus.accuracy.argmax_box import ArgmaxBox, selects
from dipc_plus.accuracy.box import decide_box
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.monotone import NotReducible
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.distances import LinfOutput, ZeroOneInput
from dipc_plus.claims.formula import Where, parse as parse_formula
from dipc_plus.decision.certified import Interval
from dipc_plus.decision.decide import decide
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.semantics.distribution import certified

F = Fraction
NOISY_MAX = THEORIES / "noisy_max_box.toml"

CLAIM = """\
[program]
path = "{program}"

[accuracy]
input_distance = "linf"
output_distance = "{od}"
alpha = {alpha}
gamma = {gamma}
beta = "{beta}"
{extra}
[accuracy.inputs]
box = {{ {box} }}
"""

HEAD = "input q: real[3]\noutput out: 1..3\nnoisy: real[3]\n"


def claim_file(tmp_path, body=None, od="noisy-max", alpha='"dd"', gamma="0", beta="3*exp(-alpha*eps/2)",
               box="q = [-1, 1]", extra="", head=HEAD):
    program = tmp_path / "p.dip"
    program.write_text(head + (body or "for i = 1 to 3 do\n    noisy[i] <- Lap(eps/2, q[i])\nend\n"
                                        "out <- argmax(noisy)\n"))
    path = tmp_path / "c.toml"
    path.write_text(CLAIM.format(program=program, od=od, alpha=alpha, gamma=gamma, beta=beta, box=box,
                                 extra=extra))
    return path


def load(path, **sets):
    return load_claim(str(path), {k: F(v) for k, v in sets.items()}).accuracy


# --------------------------------------------------------------------------- refusals

SAMPLES = "noisy[1] <- {a}\nnoisy[2] <- {b}\nnoisy[3] <- {c}\nout <- {f}(noisy)\n"


@pytest.mark.parametrize("body, message", [
    (SAMPLES.format(a="Lap(eps/2, q[1])", b="Lap(eps/2, q[2])", c="Lap(eps/2, q[3])", f="argmin"),
     "the program is an argmin"),
    (SAMPLES.format(a="Lap(eps, q[1])", b="Lap(eps/2, q[2])", c="Lap(eps/2, q[3])", f="argmax"),
     "the samples' noises have different rates"),
    (SAMPLES.format(a="ExpNoise(eps/2, q[1])", b="Lap(eps/2, q[2])", c="Lap(eps/2, q[3])",
                    f="argmax"), "the samples draw different noises"),
    (SAMPLES.format(a="Lap(eps/2, q[1] + 1)", b="Lap(eps/2, q[2])", c="Lap(eps/2, q[3])", f="argmax"),
     "sample 1's mean is not exactly one input"),
    (SAMPLES.format(a="Lap(eps/2, 2*q[1])", b="Lap(eps/2, q[2])", c="Lap(eps/2, q[3])", f="argmax"),
     "sample 1's mean is not exactly one input"),
    (SAMPLES.format(a="Lap(eps/2, q[1])", b="Lap(eps/2, q[1])", c="Lap(eps/2, q[3])", f="argmax"),
     "two samples read the same input"),
])
def test_argmax_shape_refusals(tmp_path, body, message):
    claim = load(claim_file(tmp_path, body, od="zero-one"))
    assert selects(claim)
    with pytest.raises(NotReducible, match=f"check 'argmax-shape': {message}"):
        decide_box(claim)


def test_argmax_shape_refused_by_the_cli_with_exit_2(tmp_path):
    body = SAMPLES.format(a="Lap(eps, q[1])", b="Lap(eps/2, q[2])", c="Lap(eps/2, q[3])", f="argmax")
    code, out, err = run_main(["accuracy", str(claim_file(tmp_path, body))])
    assert code == 2 and "check 'argmax-shape'" in err and "Traceback" not in err


def test_not_an_argmax_is_left_to_the_corner_reduction(tmp_path):
    """A program that is not an argmax of two or more reads is not selected; the worst point
    refuses it by name if called anyway."""
    body = "noisy[1] <- Lap(eps/2, q[1])\nout <- 1\nb <- noisy[1] > q[2]\nif b then out <- 2 end\n"
    claim = load(claim_file(tmp_path, body, od="zero-one"))
    assert not selects(claim)
    with pytest.raises(NotReducible, match="check 'argmax-shape': the program is not recognised"):
        ArgmaxBox(claim)


def test_noisy_max_gamma_other_than_zero_refused(tmp_path):
    claim = load(claim_file(tmp_path, gamma='"1/2"'))
    with pytest.raises(NotReducible, match="check 'output-distance': noisy-max with gamma != 0"):
        decide_box(claim)


def test_noisy_max_scores_that_are_not_the_samples_refused(tmp_path):
    head = "input q: real[3]\ninput r: real[3]\noutput out: 1..3\nnoisy: real[3]\n"
    claim = load(claim_file(tmp_path, head=head, box="q = [-1, 1], r = [-1, 1]", extra='scores = "r"\n'))
    with pytest.raises(NotReducible, match="check 'output-distance': the noisy-max scores are not the inputs"):
        decide_box(claim)


def test_other_output_and_input_distances_refused(tmp_path):
    claim = load(claim_file(tmp_path))
    with pytest.raises(NotReducible, match="check 'output-distance': the output distance is linf"):
        decide_box(dataclasses.replace(claim, output_distance=LinfOutput()))
    with pytest.raises(NotReducible, match="check 'box-region': the worst point needs L-inf inputs"):
        decide_box(dataclasses.replace(claim, input_distance=ZeroOneInput()))


def test_unequal_ranges_refused(tmp_path):
    claim = load(claim_file(tmp_path, box='"q[1]" = [-1, 1], "q[2]" = [0, 1], "q[3]" = [-1, 1]'))
    with pytest.raises(NotReducible, match="check 'box-region': the box does not give every query the same"):
        decide_box(claim)


def test_inputs_no_sample_reads_refused(tmp_path):
    head = "input q: real[3]\ninput r: real\noutput out: 1..3\nnoisy: real[3]\n"
    claim = load(claim_file(tmp_path, head=head, box="q = [-1, 1], r = [-1, 1]", extra='scores = "q"\n'))
    with pytest.raises(NotReducible, match="check 'box-region': the program has inputs that no sample reads"):
        decide_box(claim)


def test_a_box_of_one_point_is_vacuous(tmp_path):
    result = decide_box(load(claim_file(tmp_path, box="q = [1, 1]")))
    assert result.vacuous and result.verdict == "verified"


def test_beta_increasing_in_alpha_refused(tmp_path):
    """The loader refuses such a beta already; the reduction checks it again on its own."""
    claim = load(claim_file(tmp_path))
    where = Where(claim.file, None, None, "accuracy.beta")
    rising = dataclasses.replace(claim, beta=parse_formula("1 - exp(-alpha*eps)", ["alpha", "gamma"], where))
    with pytest.raises(NotReducible, match="check 'beta-alpha'"):
        decide_box(rising)


def test_paper_convention_refused():
    with pytest.raises(NotReducible, match="check 'convention'"):
        decide_box(load(NOISY_MAX), boundary=True)


def test_beta_not_a_function_of_alpha_eps_is_undecided_with_the_reason(tmp_path):
    claim = load(claim_file(tmp_path, beta="3*exp(-alpha*eps/2) + exp(-eps)"))
    result = decide_box(claim)
    assert result.verdict == "undecided"
    assert all("beta is not a function of alpha*eps" in r.reason for r in result.regions)
    assert result.undecided_share() == 1


# --------------------------------------------------------------------------- the worst-point identity


def scaled(f: ExpFrac, d: Fraction) -> ExpFrac:
    """f(d*eps): each c eps^k e^(p eps) becomes c d^k eps^k e^(p d eps)."""
    def poly(p):
        out = ExpPoly.const(0)
        for c, k, q in p.monomials():
            out = out + ExpPoly.monomial(F(c) * d ** k, k, F(q) * d)
        return out
    return ExpFrac(poly(f.num), poly(f.den))


def noisy_max_p_error(q, eps, rate_per_eps=0.5):
    """1 - P[argmax = 1] by quadrature: P[x_1 > x_j for all j] = integral of pdf_1 * prod cdf_j."""
    r = rate_per_eps * eps
    f = lambda x: lap_pdf(x, q[0], r) * math.prod(lap_cdf(x, qj, r) for qj in q[1:])
    return 1 - quad(f, q)


def worst_at(box, d, i: int) -> dict:
    """w_i(d): q_i = hi, every other query hi - 2d (the package uses w_1 for every region)."""
    return {n: box.hi if k == i else box.hi - 2 * d for k, n in enumerate(box.scores, start=1)}


@pytest.mark.parametrize("m", [3, 4])
def test_worst_point_identity_against_the_engine(m):
    """P_err(eps, w(d)) = P_err(eps*d, w(1)) exactly, as closed forms of the per-point engine,
    at random rational d; and against an independent quadrature at random rational eps."""
    claim = load(NOISY_MAX, m=m)
    box = ArgmaxBox(claim)
    checker = AccuracyChecker(claim)
    rng = random.Random(28 + m)
    at_one = checker.p_error(box.worst(F(1)), 0)
    for _ in range(4):
        d = F(rng.randint(1, 40), 40)
        i = rng.randint(1, m)
        at_d = checker.p_error(worst_at(box, d, i), 0)
        assert at_d == scaled(at_one, d) and at_d != scaled(at_one, 2 * d)
        eps = F(rng.randint(1, 60), 10)
        q = [float(v) for v in worst_at(box, d, i).values()]
        q = [q[i - 1]] + q[:i - 1] + q[i:]         # the reported index first for the quadrature
        ball = certified(at_d, eps)
        assert abs(float(ball.mid()) - noisy_max_p_error(q, float(eps))) < 1e-9


def test_the_worst_point_is_the_same_for_every_region():
    claim = load(NOISY_MAX, m=4)
    box = ArgmaxBox(claim)
    checker = AccuracyChecker(claim)
    first = checker.p_error(worst_at(box, F(1, 3), 1), 0)
    assert all(checker.p_error(worst_at(box, F(1, 3), i), 0) == first for i in range(2, 5))


# --------------------------------------------------------------------------- random inputs


def test_random_inputs_never_beat_the_worst_point():
    """At random rational q of the box, the engine's dd is min_j (q_i - q_j)/2 and
    P_err(q) <= P_err(w(dd(q))) for every eps > 0 (decided exactly)."""
    claim = load(NOISY_MAX)
    box = ArgmaxBox(claim)
    checker = AccuracyChecker(claim)
    rng = random.Random(2028)
    checked = 0
    while checked < 6:
        q = {n: F(rng.randint(-12, 12), 12) for n in box.scores}
        values = list(q.values())
        top = max(values)
        if values.count(top) > 1:
            continue
        i = values.index(top) + 1
        dd = checker.dd(q).value
        assert dd == min((top - v) / 2 for k, v in enumerate(values, start=1) if k != i)
        assert checker.det(q) == {"out": i}
        gap = checker.p_error(worst_at(box, dd, i), 0) - checker.p_error(q, 0)
        assert decide(gap, ">=", Interval(F(0), None, False, False)).holds
        checked += 1


def test_a_random_input_above_the_worst_point_would_be_seen():
    """The comparison above can fail: the worst point at a smaller d (a larger P_err) beats q."""
    claim = load(NOISY_MAX)
    box = ArgmaxBox(claim)
    checker = AccuracyChecker(claim)
    q = {"q[1]": F(1), "q[2]": F(0), "q[3]": F(-1, 2)}
    gap = checker.p_error(box.worst(F(1, 4)), 0) - checker.p_error(q, 0)   # dd(q) = 1/2 > 1/4
    assert not decide(-gap, ">=", Interval(F(0), None, False, False)).holds
    assert decide(gap, ">=", Interval(F(0), None, False, False)).holds


# --------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize("kappa", [1, 3, 4, 5, 7])
def test_box_and_grid_never_contradict_at_grid_points(kappa):
    box = decide_box(load(NOISY_MAX), kappa)
    grid = AccuracyChecker(load(THEORIES / "noisy_max.toml")).run(kappa=kappa)
    assert box.verdict in ("verified", "refuted")
    if box.verdict == "verified":
        assert grid.verdict == "verified"
    if grid.verdict == "refuted":
        assert box.verdict == "refuted"


def test_kappa_5_refuted_on_the_box_with_a_point_of_the_box_and_on_the_grid():
    box = decide_box(load(NOISY_MAX), 5)
    assert box.verdict == "refuted"
    cex = box.counterexample
    assert all(-1 <= v <= 1 for v in cex.input.values())
    assert AccuracyChecker(load(THEORIES / "noisy_max.toml")).run(kappa=5).verdict == "refuted"
    code, out, _ = run_main(["accuracy", str(NOISY_MAX), "--kappa", "5"])
    assert code == 1 and "REFUTED at" in out


@pytest.mark.parametrize("m", [3, 4, 8])
def test_noisy_max_box_verified_for_every_shipped_m(m):
    result = decide_box(load(NOISY_MAX, m=m))
    assert result.verdict == "verified" and not result.vacuous
    assert len(result.regions) == m and all("argmax worst point" in r.method for r in result.regions)


def test_zero_one_output_distance_and_json(tmp_path):
    code, out, _ = run_main(["accuracy", str(claim_file(tmp_path, od="zero-one")), "--json"])
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "verified" and data["method"] == "argmax worst point"
    assert [c["name"] for c in data["checks"]] == ["argmax-shape", "output-distance", "box-region", "beta-alpha"]


def test_numeric_alpha_by_the_closure_point(tmp_path):
    """alpha = 1/2: verified with beta as claimed; with beta/5 refuted at a point with dd > 1/2."""
    claim = load(claim_file(tmp_path, alpha='"1/2"'))
    assert decide_box(claim).verdict == "verified"
    refuted = decide_box(claim, 5)
    assert refuted.verdict == "refuted"
    assert AccuracyChecker(claim).dd(refuted.counterexample.input).value > F(1, 2)
    vacuous = decide_box(load(claim_file(tmp_path, alpha="1")))
    assert vacuous.vacuous


def test_eps4_claim_verified_on_the_grid_and_refuted_off_it():
    """beta/5 for eps >= 4: every grid input has eps*dd >= 2, where the bound holds; the box has
    smaller dd.  The counterexample is off the grid, refuted again by the per-point path, and
    P[error] > beta there by an independent quadrature."""
    grid = AccuracyChecker(load(THEORIES / "noisy_max_eps4.toml")).run()
    box_claim = load(THEORIES / "noisy_max_eps4_box.toml")
    result = decide_box(box_claim)
    assert grid.verdict == "verified" and result.verdict == "refuted"
    cex = result.counterexample
    values = list(cex.input.values())
    assert all(-1 <= v <= 1 for v in values) and any(v.denominator != 1 for v in values)
    assert any(r.verdict == "refuted" for r in AccuracyChecker(box_claim).check_input(cex.input))
    dd = AccuracyChecker(box_claim).dd(cex.input).value
    top = max(values)
    q = [float(top)] + [float(v) for v in values if v != top]
    beta = 3 * math.exp(-float(dd) * float(cex.eps) / 2) / 5
    assert noisy_max_p_error(q, float(cex.eps)) > beta + 1e-6


def test_the_loop_form_of_noisy_max_is_decided_the_same_way(tmp_path):
    """programs/noisy_max_loop.dip (the other recognised form) gives the same sentence and verdicts."""
    text = NOISY_MAX.read_text().replace('path = "../programs/noisy_max.dip"',
                                         f'path = "{PROGRAMS / "noisy_max_loop.dip"}"')
    path = tmp_path / "loop.toml"
    path.write_text(text)
    loop, builtin = decide_box(load(path)), decide_box(load(NOISY_MAX))
    assert loop.verdict == builtin.verdict == "verified" and loop.sentence == builtin.sentence
    assert decide_box(load(path), 5).verdict == "refuted"


@pytest.mark.parametrize("box_name, grid_name, best_box, best_grid", [
    ("noisy_max_box", "noisy_max", 4, 4), ("noisy_max_eps4_box", "noisy_max_eps4", 0, 1)])
def test_sweep_on_the_box_against_the_grid_sweep(box_name, grid_name, best_box, best_grid):
    """dipc sweep: kappa* of the worst-point sentence is the box's infimum; with eps over (0, inf)
    it meets the grid sweep's kappa* (the grid's eps*dd covers (0, inf) too); with eps >= 4 it is
    below it (the box reaches eps*dd ~ 0.54, where beta/P_err is least; the grid only eps*dd >= 2)."""
    def sweep(name):
        code, out, _ = run_main(["sweep", THEORIES / f"{name}.toml", "--json", "--no-progress"])
        return code, json.loads(out)
    code, box = sweep(box_name)
    _, grid = sweep(grid_name)
    assert box["best_kappa"] == best_box and grid["best_kappa"] == best_grid
    assert box["method"] == "argmax worst point" and box["kappa_star_detail"]["box_infimum"] is True
    lo_box, hi_box = map(float, box["kappa_star_detail"]["enclosure"])
    lo_grid, hi_grid = map(float, grid["kappa_star_detail"]["enclosure"])
    if box_name == "noisy_max_box":
        assert lo_box <= hi_grid and lo_grid <= hi_box          # the same infimum by two routes
    else:
        assert hi_box < lo_grid
    assert code == (0 if best_box else 1)
