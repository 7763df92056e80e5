"""NumericSparse off the per-point path (issue 39 item 5): det regions with real outputs that
are linear forms, dd shared by det region under the numeric-sparse distance, and the ball
probability shared by (det template, the inputs its half-spaces read) when every real output is
det's value plus a fresh noise (`accuracy.released_values`).  Each shared value equals the one
computed at the input itself, and the whole JSON equals the per-point path's (classes off)."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from fractions import Fraction as F

import pytest

from conftest import PROGRAMS, ROOT, THEORIES
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.classes import RELEASED_PATH, DetRegions
from dipc_plus.accuracy.released_values import ReleasedValues
from dipc_plus.claims import noise_free
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.commands.merge import without_timing
from dipc_plus.execution.options import RunOptions
from dipc_plus.frontend.load import load_program
from dipc_plus.semantics.distribution import output_distribution

_VALUES = [F(-1), F(0), F(1), F(1, 2), F(-3, 2), F(2)]


def _points(program, count: int, seed: int) -> list:
    rng = random.Random(seed)
    names = program.input_names()
    return [{n: rng.choice(_VALUES) for n in names} for _ in range(count)]


@pytest.mark.parametrize("m,c", [(1, 1), (3, 1), (4, 2)])
def test_det_regions_evaluate_real_outputs(m, c):
    """det(u) from the regions is the noise-free program's, real outputs included."""
    program = load_program(PROGRAMS / "numeric_sparse.dip", {"m": F(m), "c": F(c)})
    regions = DetRegions.of(program)
    assert regions is not None and regions.forms
    for u in _points(program, 40, m):
        key, det_u = regions.det(u)
        assert det_u == noise_free.run(program, u)
        assert regions.key_of(det_u) == key


@pytest.mark.parametrize("m,c", [(2, 1), (3, 1), (3, 2)])
def test_shared_values_equal_per_point(m, c):
    """At random points (off the grid too), the shared dd and ball probability equal the ones the
    per-point checker computes at the input itself."""
    claim = load_claim(THEORIES / "numeric_sparse.toml", {"m": m, "c": c})
    shared = AccuracyChecker(claim)
    assert shared.classes.share_dd and shared.classes.path == RELEASED_PATH
    reference = AccuracyChecker(claim, options=RunOptions(reference=True))
    assert reference.classes.released is None and not reference.classes.share_dd
    for u in _points(claim.program, 30, 10 * m + c):
        a, b = shared.dd(u), reference.dd(u)
        assert (a.value, a.attained) == (b.value, b.attained), u
        for gamma in (F(1), F(2), F(1, 3)):
            assert shared.p_error(u, gamma) == reference.p_error(u, gamma), (u, gamma)
    assert shared.classes.distributions < 30


def test_reads_are_the_flags_queries():
    """The ball of "first numeric answer at k" reads q[1..k] (c = 1); "no answer" reads all."""
    program = load_program(PROGRAMS / "numeric_sparse.dip", {"m": F(3), "c": F(1)})
    regions = DetRegions.of(program)
    released = ReleasedValues.of(program, regions)
    reads = {tuple(v for n, v in regions.templates[key].items() if n.startswith("out")): names
             for key, names in released.reads.items()}
    assert reads[("bot", "num", "bot")] == ("q[1]", "q[2]")
    assert reads[("bot", "bot", "bot")] == ("q[1]", "q[2]", "q[3]")


_SHARED_NOISE = """
input q: real[2]
output out: bool
output val: real
r <- Lap(eps, q[1])
out <- r >= 0
val <- r
"""


def test_released_value_read_by_a_comparison_is_refused(tmp_path):
    """A real output that is a noise some comparison reads is not det's value plus a fresh noise:
    no sharing (its ball probability reads the input through the released value's position)."""
    path = tmp_path / "shared.dip"
    path.write_text(_SHARED_NOISE)
    program = load_program(path, {})
    regions = DetRegions.of(program)
    assert regions is not None
    assert ReleasedValues.of(program, regions) is None


@pytest.mark.parametrize("m,c", [(2, 1), (3, 1), (4, 1), (3, 2)])
def test_json_identical_with_classes_off(m, c):
    """The whole JSON (timings and work removed) with classes on equals the per-point path's, on
    every input of the grid."""
    outputs = []
    for classes in ("on", "off"):
        env = dict(os.environ, PYTHONPATH=str(ROOT), DIPC_CLASSES=classes)
        done = subprocess.run([sys.executable, "-m", "dipc_plus", "accuracy", str(THEORIES / "numeric_sparse.toml"),
                               "--set", f"m={m}", "--set", f"c={c}", "--json"], capture_output=True, text=True,
                              env=env, cwd=ROOT, timeout=300)
        assert done.returncode in (0, 1), done.stderr
        data = json.loads(done.stdout)
        assert data["work"]["path"] == (RELEASED_PATH if classes == "on" else "per point (classes off)")
        outputs.append(without_timing(data))
    assert outputs[0] == outputs[1]


def test_distributions_per_template_not_per_input(monkeypatch):
    """c = 1 at m = 4: about two distributions per det template, not one per applicable input."""
    claim = load_claim(THEORIES / "numeric_sparse.toml", {"m": 4, "c": 1})
    checker = AccuracyChecker(claim)
    computed = []    # the inputs whose dd the checker computed (not shared by the det regions)
    space_dd = AccuracyChecker._space_dd

    def counted(self, u, det_u):
        computed.append(u)
        return space_dd(self, u, det_u)
    monkeypatch.setattr(AccuracyChecker, "_space_dd", counted)
    result = checker.run()
    assert result.work["path"] == RELEASED_PATH and result.work["dd"] == "shared by det region"
    assert result.work["distributions"] <= 2 * 5
    assert 0 < len(computed) <= 2 * 5


def test_point_distribution_agrees_with_the_walk_support():
    """Per point, P[flags = det's, values within gamma] does not move when an input outside the
    reads moves (q[3] after the first numeric answer at q[2])."""
    program = load_program(PROGRAMS / "numeric_sparse.dip", {"m": F(3), "c": F(1)})
    claim = AccuracyChecker(load_claim(THEORIES / "numeric_sparse.toml", {"m": 3, "c": 1})).claim
    u = {"q[1]": F(-1), "q[2]": F(1, 2), "q[3]": F(-3, 2)}
    w = dict(u, **{"q[3]": F(2)})
    det_u = noise_free.run(program, u)
    assert det_u == noise_free.run(program, w)
    p_u = claim.ball_probability(output_distribution(program, u), u, det_u, F(1))
    p_w = claim.ball_probability(output_distribution(program, w), w, det_u, F(1))
    assert p_u == p_w
