"""The eps-DP grid check by output support (privacy/dp/support_pairs.py) against the per-pair walk
(DIPC_CLASSES=off), and the monotonicity it uses (semantics/output_monotone.py) against exact
probabilities evaluated at neighbouring inputs.

Shared and per-pair runs must agree on everything a user sees: the verdict, the counts (pairs,
obligations, decisions, output tables) and the counterexample, on shipped claims and on generated
programs of the SVT family (some private, some not, some outside the symbolic walk)."""
from __future__ import annotations

import random
from fractions import Fraction as F

import pytest
from flint import arb

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.exact.expoly import working_precision
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.frontend.load import parse_program
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.semantics import ir
from dipc_plus.semantics.distribution import bind, output_distribution
from dipc_plus.semantics.output_monotone import DOWN, UP, output_directions
from dipc_plus.semantics.symbolic_chain import NotSymbolic
from conftest import THEORIES
from online_programs import claim_text, random_spec, render

ZERO = ExpFrac.of(0)


def both_paths(path: str, overrides: dict, monkeypatch):
    """(shared, per-pair) results of one claim, each from a fresh load."""
    monkeypatch.delenv("DIPC_CLASSES", raising=False)
    shared = check_dp(load_privacy_claim(path, overrides))
    monkeypatch.setenv("DIPC_CLASSES", "off")
    walked = check_dp(load_privacy_claim(path, overrides))
    monkeypatch.delenv("DIPC_CLASSES")
    return shared, walked


def assert_same(shared, walked) -> None:
    assert shared.verdict == walked.verdict
    assert (shared.pairs, shared.obligations, shared.decisions, shared.evaluations) == \
        (walked.pairs, walked.obligations, walked.decisions, walked.evaluations)
    a, b = shared.to_json(), walked.to_json()
    for key in ("seconds", "work"):
        a.pop(key, None)
        b.pop(key, None)
    assert a == b


def test_svt_alg1_takes_the_orbit_path_and_agrees(monkeypatch):
    shared, walked = both_paths(str(THEORIES / "svt_lyu_alg1_privacy.toml"), {"m": 3}, monkeypatch)
    assert shared.work["path"] == "output orbits"
    assert shared.work["tables_computed"] < 3 ** 3   # tables at orbit representatives only
    assert shared.work["implied_by_monotonicity"] > 0 and shared.work["monotone_outputs"] == 4
    assert walked.work == {"path": "per pair", "reason": "DIPC_CLASSES=off"}
    assert shared.verified and shared.pairs == 7 ** 3 - 3 ** 3   # every ordered L-inf pair of {-1,0,1}^3
    assert_same(shared, walked)


# Which path each shipped eps-DP grid claim takes, and the JSON identical to the per-pair walk's.
SHIPPED_PATHS = [
    ("svt_lyu_alg1_privacy", "output orbits", None),
    ("svt_lyu_alg2_privacy", "output orbits", None),
    ("sparse_privacy", "output orbits", None),
    ("noisy_min_privacy", "output supports", "copies of one iteration"),    # an argmax: no online symmetry
    ("noisy_max_loop_privacy", "output supports", "copies of one iteration"),
    ("svt_lyu_alg4_privacy", "per pair", "fails"),                           # refuted: the walk finds the pair
    ("svt_lyu_alg5_privacy", "per pair", "fails"),
    ("svt_lyu_alg6_privacy", "per pair", "fails"),
    ("svt_lyu_alg3_privacy", "per pair", "not Bool or DOM"),                # a released real
]


@pytest.mark.parametrize("stem, path, words", SHIPPED_PATHS)
def test_shipped_claims_take_their_path_and_agree_with_the_walk(stem, path, words, monkeypatch):
    shared, walked = both_paths(str(THEORIES / f"{stem}.toml"), {}, monkeypatch)
    assert shared.work["path"] == path
    if words is not None:
        assert words in shared.work.get("reason", shared.work.get("symmetry", ""))
    assert_same(shared, walked)


def test_a_refuted_claim_falls_back_to_the_walk_and_finds_the_same_counterexample(monkeypatch):
    shared, walked = both_paths(str(THEORIES / "svt_lyu_alg4_privacy.toml"), {}, monkeypatch)
    assert not shared.verified
    assert shared.work["path"] == "per pair" and "fails" in shared.work["reason"]
    assert_same(shared, walked)


@pytest.mark.parametrize("stem, words", [
    ("laplace_privacy", "not Bool or DOM"),          # a real output: no supports
    ("rr_clients_privacy", "L-inf"),                 # not an L-inf grid
    ("truncated_geometric_above_threshold_privacy", "is not real"),   # integer inputs: the walk needs reals
])
def test_where_the_support_path_does_not_apply_it_says_why(stem, words, monkeypatch):
    monkeypatch.delenv("DIPC_CLASSES", raising=False)
    result = check_dp(load_privacy_claim(str(THEORIES / f"{stem}.toml")))
    assert result.work["path"] == "per pair" and words in result.work["reason"]


def generated_claims(tmp_path, count: int, seed: int) -> list:
    rng = random.Random(seed)
    out = []
    for k in range(count):
        spec = random_spec(rng)
        prog = tmp_path / f"g{seed}_{k}.dip"
        prog.write_text(render(spec))
        claim = tmp_path / f"g{seed}_{k}.toml"
        claim.write_text(claim_text(spec, prog.name, every=False))
        out.append(str(claim))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_generated_programs_agree_on_both_paths(seed, tmp_path, monkeypatch):
    """Random SVT-family programs at their own small m: both paths agree exactly; across the seeds
    the support path is taken and a refutation is found (so both branches are exercised)."""
    seen = {"shared": 0, "fell_back": 0}
    for path in generated_claims(tmp_path, 8, seed):
        try:
            shared, walked = both_paths(path, {}, monkeypatch)
        except Exception as err:   # a claim the loader refuses is refused on both paths alike
            monkeypatch.setenv("DIPC_CLASSES", "off")
            with pytest.raises(type(err)):
                check_dp(load_privacy_claim(path))
            monkeypatch.delenv("DIPC_CLASSES")
            continue
        assert_same(shared, walked)
        seen["shared"] += shared.work["path"] in ("output supports", "output orbits")
        seen["fell_back"] += not shared.verified and "fails" in shared.work.get("reason", "")
    SEEN[seed] = seen


SEEN: dict = {}


@pytest.mark.slow
def test_generated_programs_exercised_both_branches():
    if len(SEEN) < 3:
        pytest.skip("runs after test_generated_programs_agree_on_both_paths")
    assert sum(s["shared"] for s in SEEN.values()) > 0
    assert sum(s["fell_back"] for s in SEEN.values()) > 0   # a failing obligation found by the support path


# --------------------------------------------------------------------------- monotonicity


def probabilities(program: ir.Program, flat: dict) -> dict:
    """{output: P} from the per-point chain without shortcuts (the route independent of the walk)."""
    return output_distribution(program, bind(program, flat), shortcuts=False).marginal()


def sign_of_change(before, after, eps: F) -> int:
    """sign(after - before) at eps, from arb balls; 0 when the balls cannot tell (equal forms)."""
    with working_precision(256):
        d = ExpFrac.of(after).arb_value(eps, 256) - ExpFrac.of(before).arb_value(eps, 256)
    if d > 0:
        return 1
    if d < 0:
        return -1
    return 0


def check_directions(program: ir.Program, rng: random.Random, points: int) -> int:
    """Each proved direction agrees with the exact probabilities at u and u + h e_j (h > 0) at
    several eps; returns how many strict changes were seen (a test that compared nothing fails)."""
    directions = output_directions(program)
    names = [n for n, t in program.inputs if isinstance(t, ir.RealT)]
    strict = 0
    for _ in range(points):
        u = {n: rng.choice((F(-1), F(0), F(1, 2), F(1))) for n in names}
        at_u = probabilities(program, u)
        for name in names:
            v = dict(u, **{name: u[name] + rng.choice((F(1, 2), F(1)))})
            at_v = probabilities(program, v)
            for o, d in directions.items():
                if d is None or name not in d:
                    continue
                for eps in (F(1, 3), F(1), F(4)):
                    s = sign_of_change(at_u.get(o, ZERO), at_v.get(o, ZERO), eps)
                    assert s in (0, d[name]), (o, name, u, v, eps)
                    strict += s != 0
    return strict


@pytest.mark.parametrize("seed", range(3))
def test_proved_directions_hold_on_generated_programs(seed):
    rng = random.Random(50 + seed)
    strict = 0
    for _ in range(6):
        spec = random_spec(rng)
        program = parse_program(render(spec), "<generated>", {"m": F(rng.choice((2, 3)))})
        try:
            output_directions(program)
        except NotSymbolic:
            continue
        strict += check_directions(program, rng, points=2)
    assert strict > 0


def test_svt_alg1_directions_are_the_hand_derived_ones():
    """"bot" at query i: P falls as q[i] rises; "top" at k: P rises with q[k]."""
    program = parse_program((THEORIES.parent / "programs" / "svt_lyu_alg1.dip").read_text(), "<alg1>",
                            {"m": F(3), "c": F(1), "T": F(0)})
    d = output_directions(program)
    assert d[("bot", "bot", "bot")] == {"q[1]": DOWN, "q[2]": DOWN, "q[3]": DOWN}
    assert d[("bot", "top", "none")] == {"q[1]": DOWN, "q[2]": UP}
    assert check_directions(program, random.Random(7), points=2) > 0


def test_an_output_read_both_ways_has_no_direction():
    """out is true when q + N1 >= 0 and q + N2 < 0: P = P[N1 >= -q] P[N2 < -q] rises then falls."""
    program = parse_program("input q: real\noutput out: bool\nout <- false\nr1 <- Lap(eps, q)\n"
                            "r2 <- Lap(eps, q)\nif r1 >= 0 then\n    if r2 < 0 then\n        out <- true\n"
                            "    end\nend\n", "<both-ways>", {})
    d = output_directions(program)
    assert d[(True,)] is None
    # and it is really not monotone: P at q = 0 is above P at q = -2 and at q = 2
    p = {x: probabilities(program, {"q": F(x)})[(True,)] for x in (-2, 0, 2)}
    assert sign_of_change(p[-2], p[0], F(1)) == 1 and sign_of_change(p[0], p[2], F(1)) == -1


def test_workers_compute_the_tables_and_the_json_is_the_serial_one():
    """`--jobs 2`: the output tables come from two worker processes; everything else as with one."""
    import json
    import os
    import subprocess
    import sys
    from conftest import ROOT
    outs = {}
    for jobs in ("1", "2"):
        done = subprocess.run([sys.executable, "-m", "dipc_plus", "privacy", "theories/svt_lyu_alg1_privacy.toml",
                               "--json", "--no-progress", "--jobs", jobs], capture_output=True, text=True, cwd=ROOT,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=600)
        assert done.returncode == 0, done.stderr
        outs[jobs] = json.loads(done.stdout)
        assert outs[jobs]["work"]["path"] == "output orbits"
        outs[jobs].pop("seconds")
    assert outs["1"] == outs["2"]
