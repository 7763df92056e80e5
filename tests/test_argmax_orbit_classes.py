"""`dipc accuracy --summary` on an argmax grid counted by orbit (accuracy.argmax_orbit_classes)
against the per-input path (the reference): the same text and JSON (tally, worst inputs, first
counterexample, work record), verified and refuted; and the cases the permutation argument does
not cover keep the per-input path."""
from __future__ import annotations

import functools
import math
import re

import pytest

from conftest import THEORIES, run_main
from dipc_plus.accuracy.argmax_orbit_classes import multiset_permutations, orbit_classes
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.grid_classes import counted_summary
from dipc_plus.accuracy.summary import WorstInputs, input_margin
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.grid_points import GridPoints
from dipc_plus.accuracy import decide as accuracy_decide


def _cli(theory: str, m: int, extra: list, counted: bool, monkeypatch) -> tuple:
    """(exit, stdout) of `dipc accuracy --summary`, by orbit or (counted=False) per input."""
    with monkeypatch.context() as patch:
        if not counted:
            patch.setattr(accuracy_decide, "counted_summary", lambda *args: None)
        else:
            patch.setattr(accuracy_decide, "counted_summary", _must_count)
        code, out, err = run_main(["accuracy", str(THEORIES / f"{theory}.toml"), "--set", f"m={m}",
                                   "--summary", "--worst", "7", *extra])
    assert code in (0, 1), err
    return code, _without_seconds(out)


def _must_count(*args):
    result = counted_summary(*args)
    assert result is not None, "the orbit path did not apply"
    return result


def _without_seconds(out: str) -> str:
    """The report less its timings (the text's "; 0.03 s", the JSON's "seconds")."""
    out = re.sub(r"; [0-9.]+ s$", "", out, flags=re.M)
    return re.sub(r'"seconds": [0-9.eE+-]+', "", out)


@pytest.mark.parametrize("m", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("as_json", [False, True])
def test_noisy_max_summary_counted_as_per_input(m, as_json, monkeypatch):
    extra = ["--json"] if as_json else []
    assert _cli("noisy_max", m, extra, True, monkeypatch) == _cli("noisy_max", m, extra, False, monkeypatch)


@pytest.mark.parametrize("kappa", ["3", "20"])
def test_refuted_noisy_max_counted_as_per_input(kappa, monkeypatch):
    """beta/kappa fails at some orbits: the first counterexample, counts and worst inputs agree."""
    extra = ["--json", "--kappa", kappa]
    counted = _cli("noisy_max", 4, extra, True, monkeypatch)
    assert counted == _cli("noisy_max", 4, extra, False, monkeypatch)
    if kappa == "20":
        assert counted[0] == 1 and '"refuted"' in counted[1]


def test_orbits_partition_the_grid():
    """Sizes add up to the grid, first inputs are distinct, and each class's listed inputs are
    permutations of its first one, in grid order, distinct."""
    ranges = {f"q[{i}]": [-1, 0, 1] for i in range(1, 6)}
    grid = list(GridPoints(ranges))
    position = {tuple(u.values()): k for k, u in enumerate(grid)}
    classes = list(orbit_classes(ranges))
    assert sum(size for _, size, _ in classes) == 3 ** 5
    assert len(classes) == math.comb(7, 2)
    seen = set()
    for first, size, first_inputs in classes:
        listed = first_inputs(size + 3)
        assert len(listed) == size
        keys = [tuple(u.values()) for u in listed]
        assert sorted(keys[0]) == sorted(tuple(first.values())) and keys[0] == tuple(first.values())
        assert [position[k] for k in keys] == sorted(position[k] for k in keys)
        assert all(sorted(k) == sorted(keys[0]) for k in keys)
        seen.update(keys)
    assert len(seen) == 3 ** 5
    assert list(multiset_permutations([0, 0, 1], 5)) == [(0, 0, 1), (0, 1, 0), (1, 0, 0)]


def test_unequal_ranges_keep_the_per_input_path():
    """Permuting inputs with different value lists leaves the grid: no orbits."""
    checker = AccuracyChecker(load_claim(str(THEORIES / "noisy_max.toml"), {"m": 3}))
    points = GridPoints({"q[1]": [0, 1], "q[2]": [-1, 0, 1], "q[3]": [-1, 0, 1]})
    collect = functools.partial(input_margin, interval=checker.claim.eps)
    assert counted_summary(checker, points, 1, collect, WorstInputs(), False) is None


def test_reference_mode_keeps_the_per_input_path(monkeypatch):
    called = []
    monkeypatch.setattr(accuracy_decide, "counted_summary", lambda *args: called.append(1))
    code, _, err = run_main(["accuracy", str(THEORIES / "noisy_max.toml"), "--set", "m=3", "--summary",
                             "--reference"])
    assert code == 0, err
    assert called == []
