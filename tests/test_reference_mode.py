"""The reference mode (`--reference`, `reference=True`) against the default mode on every shipped theory.

Reference mode switches off every accelerator registered in `execution.accelerators`, so
this comparison covers each of them, and any registered later, without more code: grid and
list claims must give the same verdict (and a refutation in both), box claims must never
give opposite verdicts (the reference mode's UNDECIDEDs are counted and printed).  The
every-length claims are compared with the exact checks at m = 1..4 in
tests/test_every_length*.py; here their verdict in both modes is compared.
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

import dipc_plus
from dipc_plus.errors import UserError
from dipc_plus.execution.accelerators import ACCELERATORS

ROOT = pathlib.Path(__file__).resolve().parent.parent
THEORIES = sorted((ROOT / "theories").glob("*.toml"))
# over 15 s per mode at m = 2 on the shared test machine (box privacy lattices, every-length
# games): run in the long campaign only
SLOW = {"above_threshold_forever_privacy.toml", "bad_gap_sparse_vector_m5_privacy_box.toml",
        "gap_above_threshold_privacy_box.toml", "numeric_sparse_privacy_box.toml",
        "svt_lyu_alg4_tight_privacy_box.toml", "svt_resample_forever_privacy.toml",
        "svt_lyu_alg1_privacy_box.toml", "online_noisy_max_every_length.toml", "online_sort_every_length.toml",
        "svt_assign_every_length.toml", "svt_shifted_mean_every_length.toml"}
LONG = os.environ.get("DIPC_LONG") == "1"
TALLY: dict = {"same": 0, "reference-undecided": 0, "refused both": 0}
# Reference mode sends every region of a box of two or more varying inputs to the certified
# branch-and-bound (accuracy.region_bnb).  The shipped box theories of that kind have eps up to inf
# (beta - P_err -> 0 on the tail) or a sup that is a limit, which no sub-box enclosure closes: they
# stay undecided whatever the budget (10 before and after), so the comparison uses a small budget.
LIMITS = {"region_boxes": 300}


def _privacy(path: pathlib.Path) -> bool:
    return any(w in path.name for w in ("privacy", "pufferfish", "every_length"))


def _run(path: pathlib.Path, reference: bool):
    """(verdict, report) at m = 2 when the theory has an m, else n = 3 when it has an n, else at its
    own parameters; a UserError is the verdict 'refused: <message>'."""
    check = dipc_plus.check_privacy if _privacy(path) else dipc_plus.check_accuracy
    for params in ({"m": 2}, {"n": 3}, {}):
        try:
            report = check(str(path), params=params, reference=reference, limits=LIMITS)
            return report.verdict, report
        except UserError as exc:
            if params and "is not a parameter" in exc.message:
                continue
            return f"refused: {exc.message}", None
    raise AssertionError("unreachable")


def _cases():
    for path in THEORIES:
        marks = [] if LONG or path.name not in SLOW else [pytest.mark.skip(
            reason="over 15 s per mode at m = 2: set DIPC_LONG=1 for the full campaign")]
        yield pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("path", _cases())
def test_reference_agrees_with_default(path):
    default, dreport = _run(path, False)
    reference, rreport = _run(path, True)
    claim = getattr(getattr(dreport, "result", None), "claim", None)
    box = getattr(claim, "inputs_kind", "") == "box"
    if reference == "undecided" and box:         # never an opposite verdict: undecided is no verdict
        TALLY["reference-undecided"] += 1
        assert rreport.to_json().get("mode") == "reference"
        return
    if default.startswith("refused"):
        TALLY["refused both"] += 1
    else:
        TALLY["same"] += 1
    assert reference == default, f"{path.name}: default {default!r}, reference {reference!r}"
    if rreport is not None:
        assert rreport.to_json().get("mode") == "reference"
        assert "mode" not in dreport.to_json()
        if reference == "refuted":       # a counterexample in one mode is one in the other
            assert (rreport.counterexample is None) == (dreport.counterexample is None)


def test_tally_printed(capsys):
    """Runs last in this file: the counts of the comparison (pytest -s shows them)."""
    with capsys.disabled():
        print(f"\nreference mode vs default: {TALLY}")


def test_every_accelerator_is_asked_somewhere():
    """A registered accelerator that no module asks for would be switched off by nothing."""
    sources = "\n".join(p.read_text() for p in (ROOT / "dipc_plus").rglob("*.py")
                        if p.name != "accelerators.py")
    for name in ACCELERATORS:
        assert f'"{name}"' in sources, f"accelerator {name} is registered but never asked for"


def test_reference_box_names_the_switched_off_method():
    """A box claim only the corner reduction decides: undecided (exit 6) in reference mode, with the
    accelerator named, and "mode": "reference" in the JSON."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "dipc_plus", "accuracy", "theories/sparse_box.toml", "--set", "m=2",
                          "--reference", "--json", "--limit", "region_boxes=300"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 6, out.stderr
    assert '"mode": "reference"' in out.stdout and "'corner-reduction'" in out.stdout
