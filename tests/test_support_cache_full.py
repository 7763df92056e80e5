"""The output-support cache of accuracy.classes when it is full: P[in the ball] is read off the
input's own distribution, computed once per missing key (not once to fill and again to read), and
the report is the per-point path's."""
from __future__ import annotations

from conftest import THEORIES
from dipc_plus.accuracy import classes
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.commands.merge import without_timing
from dipc_plus.execution.accelerators import CLASSES_ENV


def test_a_full_support_cache_reads_each_distribution_once(monkeypatch):
    monkeypatch.delenv(CLASSES_ENV, raising=False)
    monkeypatch.setattr(classes, "MAX_SUPPORT_KEYS", 0)   # nothing is ever kept
    checker = AccuracyChecker(load_claim(str(THEORIES / "sparse.toml")))
    assert checker.classes.path == classes.SUPPORT_PATH
    computed = []
    point_path = checker._compute_distribution
    monkeypatch.setattr(checker, "_compute_distribution", lambda u: computed.append(1) or point_path(u))
    full = checker.run()
    assert computed and len(computed) == checker.classes.distributions
    monkeypatch.setenv(CLASSES_ENV, "off")
    per_point = AccuracyChecker(load_claim(str(THEORIES / "sparse.toml"))).run()
    assert without_timing(full.to_json()) == without_timing(per_point.to_json())
