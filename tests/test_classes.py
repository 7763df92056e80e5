"""Classes of inputs (accuracy.classes): argmax orbits against the Markov-chain path, the ball
probabilities of output supports against the per-point distribution (generated programs), the
counts a report prints, and identical verdicts with classes on and off on the shipped claims."""
from __future__ import annotations

import random
import tomllib
from fractions import Fraction as F

import pytest

from conftest import PROGRAMS, THEORIES
from dipc_plus.accuracy.checker import AccuracyChecker
import dataclasses

from dipc_plus.execution.accelerators import CLASSES_ENV
from dipc_plus.accuracy.classes import (CLASS_PATH, POINT_PATH, RELEASED_PATH, SUPPORT_PATH,
                                        InputClasses)
from dipc_plus.claims import noise_free
from dipc_plus.claims.distances import LinfOutput, ZeroOneOutput
from dipc_plus.semantics.output_support import output_support
from dipc_plus.semantics.symbolic_chain import NotSymbolic
from online_programs import random_spec, render
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.commands.merge import without_timing
from dipc_plus.frontend.load import load_program, parse_program
from dipc_plus.semantics.distribution import bind, output_distribution

ACCURACY_CLAIMS = sorted(p.stem for p in THEORIES.glob("*.toml") if "[accuracy]" in p.read_text()
                         and "box" not in tomllib.loads(p.read_text())["accuracy"].get("inputs", {}))  # boxes: test_box.py
ARGMAX_CLAIMS = {"noisy_max", "noisy_max_barthe2016", "noisy_min", "noisy_max_eps4", "noisy_max_exp",
                 "python_noisy_max", "python_noisy_max_exp"}   # the Python twins (issue 42): 0-based labels
SUPPORT_CLAIMS = {"above_threshold", "sparse", "sparse_variant", "threshold_half", "two_thresholds"}
RELEASED_CLAIMS = {"laplace", "numeric_sparse", "numeric_sparse_cor7"}   # real outputs: det plus fresh noise
REFUSED_SUPPORT = {"exponential": "is not zero-one or L-inf", "laplace": "is not Bool or DOM",
                   "numeric_sparse": "is not Bool or DOM", "numeric_sparse_cor7": "is not Bool or DOM"}


def _mixed_rates(m: int, rng) -> str:
    """An argmax whose samples differ in kind and rate: orbits must keep them apart."""
    lines = [f"input q: real[{m}]", f"output out: 1..{m}", f"noisy: real[{m}]"]
    for i in range(1, m + 1):
        lines.append(f"noisy[{i}] <- {rng.choice(['Lap', 'ExpNoise'])}({rng.choice(['eps', 'eps/2'])}, q[{i}])")
    return "\n".join(lines + ["out <- argmax(noisy)"]) + "\n"


def _programs(m: int, rng):
    for name in ("noisy_max", "noisy_min", "noisy_max_exp", "noisy_max_loop"):
        yield name, load_program(PROGRAMS / f"{name}.dip", {"m": F(m)})
    yield "mixed", parse_program(_mixed_rates(m, rng), "<mixed>")


@pytest.mark.parametrize("m", [2, 3, 4])
def test_orbit_distribution_equals_the_chain(m):
    """At random points (ties and permutations of one another included), the distribution from
    the orbit's representative equals the one of the Markov chain (no argmax shortcut) exactly,
    and prints the same as the per-point argmax integral."""
    rng = random.Random(m)
    for name, program in _programs(m, rng):
        classes = InputClasses(program, enabled=True)
        assert classes.path == CLASS_PATH, name
        base = [rng.choice([F(-1), F(0), F(1, 2), F(rng.randint(-5, 5), 3)]) for _ in range(m)]
        points = []
        for _ in range(6):
            values = base[:]
            rng.shuffle(values)   # the same orbit, permuted
            points.append(values)
        points += [[F(rng.randint(-6, 6), rng.randint(1, 4)) for _ in range(m)] for _ in range(3)]
        for values in points:
            u = {"q": values}
            shared = classes.distribution(u, lambda v: pytest.fail("the class path computes no chain"))
            chain = output_distribution(program, u, shortcuts=False)
            direct = output_distribution(program, u)
            assert chain.method == "chain" and shared.method == "argmax-integral"
            assert shared.outcomes() == direct.outcomes(), (name, values)
            for (o, p), (o2, p2) in zip(shared.items(), direct.items()):
                assert o == o2 and p == p2 and str(p) == str(p2), (name, values)
            chain_probs = dict(chain.items())
            for o, p in shared.items():
                assert chain_probs.get(o) == p, (name, values, o)
            shared_probs = dict(shared.items())
            assert all(o in shared_probs for o, p in chain.items() if not p.is_zero()), (name, values)
        assert classes.distributions < classes.points   # the permuted points shared one


def test_non_argmax_programs_take_the_support_or_per_point_path():
    program = load_program(PROGRAMS / "sparse.dip", {"m": F(3), "c": F(1), "T": F(0)})
    classes = InputClasses(program, enabled=True)
    assert classes.path == SUPPORT_PATH and classes.orbit({"q": [F(0)] * 3}) is None
    program = load_program(PROGRAMS / "numeric_sparse.dip", {"m": F(3)})
    classes = InputClasses(program, enabled=True)
    assert classes.path == POINT_PATH and "is not Bool or DOM" in classes.support_refusal


@pytest.mark.parametrize("seed", range(3))
def test_support_ball_probability_equals_the_per_point_one(seed):
    """On generated programs (tests/online_programs.py) at points of a small grid (so support keys
    repeat), for zero-one and L-inf balls of radius 0 and 1: the ball probability summed from the
    shared per-output probabilities equals the claim's ball probability of the distribution at u."""
    rng = random.Random(seed)
    claim = load_claim(str(THEORIES / "sparse.toml")).accuracy
    checked = shared = 0
    while checked < 4:
        program = parse_program(render(random_spec(rng)), "<generated>", {"m": F(3)})
        try:
            output_support(program)
        except NotSymbolic:
            continue
        checked += 1
        claims = [dataclasses.replace(claim, program=program, output_distance=d) for d in
                  (ZeroOneOutput(), LinfOutput())]
        classes = InputClasses(program, enabled=True, output_distance=claims[0].output_distance)
        assert classes.path == SUPPORT_PATH
        for _ in range(8):
            u = {"q": [rng.choice([F(-1), F(0), F(1)]) for _ in range(3)]}
            det = noise_free.run(program, bind(program, u))
            dist = output_distribution(program, u, shortcuts=False)
            for c in claims:
                for gamma in (F(0), F(1)):
                    got = classes.ball_probability(c, u, det, gamma, lambda v: output_distribution(program, v))
                    assert got == c.ball_probability(dist, u, det, gamma), (render, u, gamma)
        shared += classes.points - classes.distributions
    assert shared > 0   # some points were answered from the cache alone


def _run(name: str, monkeypatch, classes: bool):
    if classes:
        monkeypatch.delenv(CLASSES_ENV, raising=False)
    else:
        monkeypatch.setenv(CLASSES_ENV, "off")
    checker = AccuracyChecker(load_claim(str(THEORIES / f"{name}.toml")))
    return checker, checker.run()


@pytest.mark.parametrize("name", ACCURACY_CLAIMS)
def test_shipped_claims_path_counts_and_identity(name, monkeypatch):
    """Which path each shipped claim takes, its counts checked by counting the reports directly,
    and the JSON with classes off identical to the JSON with classes on."""
    checker, result = _run(name, monkeypatch, classes=True)
    work = result.work
    assert work["path"] == (CLASS_PATH if name in ARGMAX_CLAIMS else SUPPORT_PATH if name in SUPPORT_CLAIMS
                            else RELEASED_PATH if name in RELEASED_CLAIMS else POINT_PATH)
    assert REFUSED_SUPPORT.get(name, "") in (work.get("support_refused") or "")
    assert work["inputs"] == result.tally.inputs
    applying = [r for r in result.reports if r.applies]
    if name in ARGMAX_CLAIMS:   # one distribution per multiset of query answers
        assert work["distributions"] == len({tuple(sorted(r.input.values())) for r in applying})
    elif name in SUPPORT_CLAIMS:   # at most one per applying input; a miss fills every output
        assert 0 < work["distributions"] <= len({tuple(sorted(r.input.items())) for r in applying})
        assert work["dd"] == "shared by det region"
    elif name in RELEASED_CLAIMS:   # at most one per applying input (one per template and reads)
        assert 0 < work["distributions"] <= len({tuple(sorted(r.input.items())) for r in applying})
    else:
        assert work["distributions"] == len({tuple(sorted(r.input.items())) for r in applying})
    assert work["decisions"] == len({(r.p_error, r.bound) for r in applying})
    _off_checker, off = _run(name, monkeypatch, classes=False)
    assert off.work["path"].startswith(POINT_PATH) and off.work["decisions"] is None
    assert without_timing(off.to_json()) == without_timing(result.to_json())


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_argmax_det_equals_the_noise_free_program(m):
    """The class path's det (first index of the best centre) against running the noise-free
    program, on every point of a half-integer grid (ties everywhere) and random permutations."""
    import itertools
    rng = random.Random(10 + m)
    values = [F(-1), F(-1, 2), F(0), F(1, 2)]
    for name, program in _programs(m, rng):
        classes = InputClasses(program, enabled=True)
        for point in itertools.product(values, repeat=m):
            u = {"q": list(point)}
            assert classes.det(u) == noise_free.run(program, bind(program, u)), (name, point)
    assert InputClasses(program, enabled=True, noise_free_det=False).det({"q": [F(0)] * m}) is None


@pytest.mark.parametrize("seed", range(3))
def test_det_regions_and_shared_dd_equal_the_per_point_ones(seed):
    """On generated programs, at every point of a half-integer grid (ties with T = 0 included):
    det read off the noise-free paths equals running the noise-free program, and dd shared by
    (det, u on its region's support) has the value and attainment of RealSpace.dd at u."""
    import itertools
    from dipc_plus.accuracy.classes import DetRegions
    from dipc_plus.claims.disagreement import RealSpace
    from dipc_plus.claims.distances import LinfInput
    rng = random.Random(100 + seed)
    checked = shared = 0
    while checked < 3 or (shared == 0 and checked < 12):   # until sharing was exercised (12 at most)
        program = parse_program(render(random_spec(rng)), "<generated>", {"m": F(3)})
        if DetRegions.of(program) is None:
            continue
        checked += 1
        classes = InputClasses(program, enabled=True, input_distance=LinfInput(), dd_over="reals")
        assert classes.share_dd
        space = RealSpace(program, LinfInput())
        computed = []    # the inputs whose dd the classes did not share (computed on a miss)
        for point in itertools.product([F(-1), F(-1, 2), F(0), F(1, 2), F(1)], repeat=3):
            u = {f"q[{i}]": x for i, x in enumerate(point, start=1)}
            det = noise_free.run(program, u)
            assert classes.det(u) == det, (point,)
            direct = space.dd(u, det)
            got = classes.dd(u, det, lambda v, d: computed.append(v) or space.dd(v, d))
            assert (got.value, got.attained) == (direct.value, direct.attained), (point,)
        shared += 125 - len(computed)
    assert shared > 0


def test_det_regions_are_scanned_only_when_few():
    """A program with many noise-free paths (no cutoff: 2^m of them) runs its noise-free program
    for det instead of scanning the paths; its dd is still shared by region."""
    from dipc_plus.accuracy.classes import MAX_SCANNED_PATHS, DetRegions
    from dipc_plus.claims.distances import LinfInput
    text = ("input q: real[7]\noutput out: bool[7]\nfor i = 1 to 7 do\n    r <- Lap(eps, q[i])\n"
            "    out[i] <- r >= 0\nend\n")
    program = parse_program(text, "<no-cutoff>", {})
    regions = DetRegions.of(program)
    assert len(regions.paths) == 2 ** 7 > MAX_SCANNED_PATHS and not regions.scan
    classes = InputClasses(program, enabled=True, input_distance=LinfInput(), dd_over="reals")
    u = {f"q[{i}]": F(i % 3 - 1) for i in range(1, 8)}
    assert classes.det(u) is None and classes.share_dd
    assert regions.det(u)[1] == noise_free.run(program, u)
