"""det and dd of an argmax of plain noisy reads shared by the two largest values
(`accuracy.classes.InputClasses.argmax_key`, issue 39 item 6(c)): the shared dd equals the one
computed at each input (the closed form re-checked by running det, and the exact LP), the run
computes one dd per key, and the JSON is the per-point path's with classes off."""
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
from dipc_plus.accuracy.classes import InputClasses
from dipc_plus.claims import noise_free
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.disagreement import RealSpace
from dipc_plus.claims.distances import LinfInput
from dipc_plus.commands.merge import without_timing
from dipc_plus.execution.options import RunOptions
from dipc_plus.frontend.load import load_program


@pytest.mark.parametrize("name", ["noisy_max", "noisy_min"])
@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_argmax_key_gives_det_and_dd(name, m):
    """At random points with many ties, det from the key is the noise-free program's, and the dd
    of every input with the same key is the same (value and attainment) by the exact LP."""
    program = load_program(PROGRAMS / f"{name}.dip", {"m": F(m)})
    classes = InputClasses(program, enabled=True, input_distance=LinfInput(), dd_over="reals")
    assert classes.share_argmax_dd
    space = RealSpace(program, LinfInput(), argmax_formula=False)   # the LP, not the closed form
    rng = random.Random(m)
    names = program.input_names()
    by_key: dict = {}
    for _ in range(60):
        u = {n: rng.choice([F(-1), F(0), F(1, 2), F(1), F(rng.randint(-3, 3), 2)]) for n in names}
        det_u = noise_free.run(program, u)
        assert classes.det(u) == det_u
        dd = space.lp_dd(u, det_u)
        key = classes.argmax_key(u)[1:]
        seen = by_key.setdefault(key, (dd.value, dd.attained, u))
        assert (dd.value, dd.attained) == seen[:2], (u, seen[2])
    assert len(by_key) < 60   # keys were shared


def counting_dd(monkeypatch) -> list:
    """The inputs whose dd a checker computes in its space (a miss of the classes' shared dd)."""
    computed: list = []
    space_dd = AccuracyChecker._space_dd

    def counted(self, u, det_u):
        computed.append(u)
        return space_dd(self, u, det_u)
    monkeypatch.setattr(AccuracyChecker, "_space_dd", counted)
    return computed


def test_one_dd_per_key_and_off_in_reference_mode(monkeypatch):
    """A grid run computes dd once per key (not once per input); the reference mode (and
    DIPC_CLASSES=off) do not share it."""
    claim = load_claim(THEORIES / "noisy_max.toml", {"m": 4})
    checker = AccuracyChecker(claim)
    computed = counting_dd(monkeypatch)
    result = checker.run()
    assert result.work["dd"] == "shared by the two largest values"
    assert 0 < len(computed) < 81 / 4
    reference = AccuracyChecker(claim, options=RunOptions(reference=True))
    assert not reference.classes.share_argmax_dd and reference.classes.argmax is None


@pytest.mark.parametrize("theory", ["noisy_max", "noisy_min"])
def test_json_identical_with_classes_off(theory):
    """The whole JSON (timings and work removed) with classes on equals the per-point path's."""
    outputs = []
    for classes in ("on", "off"):
        env = dict(os.environ, PYTHONPATH=str(ROOT), DIPC_CLASSES=classes)
        done = subprocess.run([sys.executable, "-m", "dipc_plus", "accuracy", str(THEORIES / f"{theory}.toml"),
                               "--set", "m=4", "--json"], capture_output=True, text=True, env=env, cwd=ROOT,
                              timeout=300)
        assert done.returncode in (0, 1), done.stderr
        outputs.append(without_timing(json.loads(done.stdout)))
    assert outputs[0] == outputs[1]
