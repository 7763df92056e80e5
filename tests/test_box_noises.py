"""The argmax worst point for every noise the registry states is a continuous scale family
(issue 39, item 1): Report Noisy Max with one-sided exponential noise on a box, checked against
the per-point exact path at rational points of the box, and a small generator of random argmax
programs (Laplace / exponential noise, m = 2, 3) where the box and the points never disagree."""
from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from conftest import THEORIES, run_main

from dipc_plus.accuracy.argmax_box import ArgmaxBox
from dipc_plus.accuracy.box import decide_box
from dipc_plus.accuracy.box_sweep import box_sweep
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.monotone import NotReducible
from dipc_plus.accuracy.sweep import sweep
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.decision.certified import Interval
from dipc_plus.decision.decide import decide
from dipc_plus.exact import noises

F = Fraction
EXP_BOX = THEORIES / "noisy_max_exp_box.toml"

CLAIM = """\
[program]
path = "{program}"

[accuracy]
det = "noise-free"
input_distance = "linf"
output_distance = "noisy-max"
alpha = "dd"
gamma = 0
beta = "{beta}"
eps = "(0, inf)"

[accuracy.inputs]
{inputs} = {{ q = [-1, 1] }}
"""


def load(path, **sets):
    return load_claim(str(path), {k: F(v) for k, v in sets.items()}).accuracy


def write(tmp_path, samples: list[str], beta: str, name="p"):
    """A program out = argmax(noisy) with these sample lines, and its box and grid claims."""
    m = len(samples)
    program = tmp_path / f"{name}.dip"
    lines = [f"input q: real[{m}]", f"output out: 1..{m}", f"noisy: real[{m}]"]
    lines += [f"noisy[{k}] <- {s}" for k, s in enumerate(samples, start=1)] + ["out <- argmax(noisy)"]
    program.write_text("\n".join(lines) + "\n")
    paths = []
    for inputs in ("box", "grid"):
        path = tmp_path / f"{name}_{inputs}.toml"
        path.write_text(CLAIM.format(program=program, beta=beta, inputs=inputs))
        paths.append(path)
    return paths


def lattice(names, step=F(1, 2)):
    """Every point of [-1, 1]^m whose coordinates are multiples of step."""
    values = [F(-1) + k * step for k in range(int(2 / step) + 1)]
    for q in itertools.product(values, repeat=len(names)):
        yield dict(zip(names, q))


def refuted_points(claim, kappa: int, names) -> list:
    checker = AccuracyChecker(claim)
    return [u for u in lattice(names) if any(r.verdict == "refuted" for r in checker.check_input(u, kappa))]


# --------------------------------------------------------------------------- the registry's fact


def test_the_registry_states_which_noises_are_continuous_scale_families():
    assert noises.by_kind("lap").continuous_scale_family
    assert noises.by_kind("exp").continuous_scale_family
    assert not noises.by_kind("dlap").continuous_scale_family


@pytest.mark.parametrize("samples, message", [
    (["ExpNoise(eps/2, q[1])", "Lap(eps/2, q[2])", "Lap(eps/2, q[3])"],
     r"the samples draw different noises \(Laplace and one-sided exponential\)"),
    (["ExpNoise(eps, q[1])", "ExpNoise(eps/2, q[2])", "ExpNoise(eps/2, q[3])"],
     r"the samples' noises have different rates \(1/2\*eps and eps\)"),
])
def test_the_refusal_names_the_missing_precondition(tmp_path, samples, message):
    box, _ = write(tmp_path, samples, "2*exp(-alpha*eps)")
    with pytest.raises(NotReducible, match=f"check 'argmax-shape': {message}"):
        decide_box(load(box))
    code, _, err = run_main(["accuracy", str(box)])
    assert code == 2 and "not iid Laplace" not in err and "Traceback" not in err


# --------------------------------------------------------------------------- Report Noisy Max with ExpNoise


@pytest.mark.parametrize("m", [3, 8])
def test_exponential_noisy_max_verified_on_the_box_with_beta_over_2(m):
    for kappa in (1, 2):
        result = decide_box(load(EXP_BOX, m=m), kappa)
        assert result.verdict == "verified" and not result.vacuous
        assert all(r.method == "argmax worst point (homogeneous)" for r in result.regions)
    assert decide_box(load(EXP_BOX, m=m), 3).verdict == "refuted"


def test_box_sweep_gives_kappa_star_2_as_the_union_bound_says():
    """P_err at the worst point <= (m-1)/2 e^(-eps*d) by the union bound, tight as eps*d -> inf."""
    res = box_sweep(load(EXP_BOX))
    assert res.best_kappa == 2
    assert res.kappa_star.exact and res.kappa_star.lo == 2 == res.kappa_star.hi
    code, out, _ = run_main(["sweep", str(EXP_BOX)])
    assert code == 0 and "kappa* (the infimum over the box of beta/P[error]) = 2 exactly" in out


@pytest.mark.parametrize("kappa", [1, 2, 3])
def test_box_verdict_agrees_with_every_rational_point(kappa):
    """The box at kappa against the exact per-point path on the 1/2-lattice of [-1, 1]^3."""
    claim = load(EXP_BOX)
    result = decide_box(claim, kappa)
    bad = refuted_points(claim, kappa, ArgmaxBox(claim).scores)
    assert (result.verdict == "verified") == (not bad)
    if result.verdict == "refuted":
        assert AccuracyChecker(claim).check_input(result.counterexample.input, kappa)[0].verdict == "refuted"


def test_random_points_never_beat_the_exponential_worst_point():
    """At random rational q of the box, P_err(q) <= P_err(w(dd(q))) for every eps > 0, decided
    exactly: the monotonicity in the gaps holds for the one-sided exponential."""
    claim = load(EXP_BOX, m=3)
    box = ArgmaxBox(claim)
    checker = AccuracyChecker(claim)
    rng = random.Random(39)
    every_eps = Interval(F(0), None, False, False)
    checked = 0
    while checked < 8:
        q = {n: F(rng.randint(-16, 16), 16) for n in box.scores}
        values = list(q.values())
        top = max(values)
        if values.count(top) > 1:
            continue
        i = values.index(top) + 1
        dd = checker.dd(q).value
        w_i = {n: box.hi if k == i else box.hi - 2 * dd for k, n in enumerate(box.scores, start=1)}   # w_i(dd)
        gap = checker.p_error(w_i, 0) - checker.p_error(q, 0)
        assert decide(gap, ">=", every_eps).holds
        if any(v != top - 2 * dd for k, v in enumerate(values, start=1) if k != i):
            assert not decide(-gap, ">=", every_eps).holds   # strictly worse somewhere: the check can fail
        checked += 1


# --------------------------------------------------------------------------- a small generator


def random_argmax(rng: random.Random, tmp_path, index: int):
    m = rng.choice([2, 3])
    kind = rng.choice(["Lap", "ExpNoise"])
    rate = rng.choice(["eps", "eps/2", "2*eps"])
    coef = rng.choice(["1", "2", str(m - 1), str(m)])
    speed = rng.choice(["", "/2", "/4"])
    samples = [f"{kind}({rate}, q[{k}])" for k in range(1, m + 1)]
    box, grid = write(tmp_path, samples, f"{coef}*exp(-alpha*eps{speed})", name=f"g{index}")
    return box, grid, rng.choice([1, 2, 3])


@pytest.mark.parametrize("seed", range(10))
def test_generated_argmax_programs_box_never_contradicts_points(tmp_path, seed):
    rng = random.Random(3900 + seed)
    box_path, grid_path, kappa = random_argmax(rng, tmp_path, seed)
    claim = load(box_path)
    names = ArgmaxBox(claim).scores
    result = decide_box(claim, kappa)
    assert result.verdict in ("verified", "refuted")
    bad = refuted_points(claim, kappa, names)
    if result.verdict == "verified":
        assert not bad
    else:
        u = result.counterexample.input
        assert all(-1 <= v <= 1 for v in u.values())
    box_star = box_sweep(claim).kappa_star
    grid_star = sweep(AccuracyChecker(load(grid_path))).kappa_star
    assert grid_star.infinite or box_star.lo <= grid_star.hi
