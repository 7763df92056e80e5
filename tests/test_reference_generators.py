"""The reference mode (`reference=True`) against the default mode on the test suite's program generators.

Why: tests/test_reference_mode.py compares the two modes on the shipped theories; generated
programs reach shapes no theory has.  Three generators are drawn from: the random loop-free
programs of tests/test_monotone_generator.py (accuracy, two real inputs, grid and box), the
random argmax programs of tests/test_box_noises.py (accuracy, Laplace or exponential noise,
grid and box) and the online programs of tests/online_programs.py (privacy on a grid, and the
every-length claim).  Grid claims must give the same verdict in both modes; box claims never
opposite verdicts.  A box that one mode leaves UNDECIDED is checked per point (exact, at every
point of the box's lattice of step 1/2): a refuted point means the other mode must not say
verified.  The counts are printed (pytest -s); DIPC_LONG=1 draws four times as many programs.
"""
from __future__ import annotations

import itertools
import os
import pathlib
import random
from fractions import Fraction

import pytest
from online_programs import claim_text, random_spec, render
from test_box_noises import random_argmax
from test_monotone_generator import random_program

import dipc_plus
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.errors import UserError

F = Fraction
SCALE = 4 if os.environ.get("DIPC_LONG") == "1" else 1
MONOTONE, ARGMAX, ONLINE = 30 * SCALE, 12 * SCALE, 16 * SCALE
TALLY: dict = {"grid same": 0, "box same": 0, "box reference-undecided": 0, "box default-undecided": 0,
               "undecided with a refuted lattice point": 0, "privacy same": 0, "every-length same": 0,
               "refused both": 0}
BETAS = ("exp(-alpha*eps/2)", "2*exp(-alpha*eps/4)", "1/4*exp(-alpha*eps)", "1/10*exp(-alpha*eps/2)",
         "1/20")

ACCURACY = """\
[program]
path = "{program}"

[accuracy]
det = "noise-free"
input_distance = "linf"
output_distance = "zero-one"
alpha = "dd"
gamma = 0
beta = "{beta}"
eps = "(0, inf)"

[accuracy.inputs]
{inputs} = {{ q = {values} }}
{step}"""


def _verdict(check, path, reference: bool, **options):
    """(verdict, report); a UserError is the verdict 'refused: <message>' (both modes must refuse alike)."""
    try:
        report = check(str(path), reference=reference, **options)
    except UserError as exc:
        return f"refused: {exc.message}", None
    return report.verdict, report


def _both(check, path, **options):
    default, dreport = _verdict(check, path, False, **options)
    reference, rreport = _verdict(check, path, True, **options)
    if rreport is not None:
        assert rreport.to_json().get("mode") == "reference"
    return default, reference


def _lattice_refutes(path, kappa: int) -> bool:
    """Does an exact per-point check refute the claim at a point of the box's lattice of step 1/2?"""
    claim = load_claim(str(path), {}).accuracy
    checker = AccuracyChecker(claim)
    bounds = claim.points.bounds
    axes = [[lo + k * F(1, 2) for k in range(int((hi - lo) * 2) + 1)] for lo, hi in bounds.values()]
    for point in itertools.product(*axes):
        if any(r.verdict == "refuted" for r in checker.check_input(dict(zip(bounds, point)), kappa)):
            return True
    return False


def _compare_box(box_path, kappa: int, default: str, reference: str) -> None:
    """Never opposite verdicts; an UNDECIDED side compared with the dense per-point checks."""
    where = f"{box_path.name}: default {default!r}, reference {reference!r}"
    if default == reference:
        TALLY["refused both" if default.startswith("refused") else "box same"] += 1
        return
    assert "undecided" in (default, reference), where
    decided = reference if default == "undecided" else default
    TALLY["box default-undecided" if default == "undecided" else "box reference-undecided"] += 1
    if _lattice_refutes(box_path, kappa):
        TALLY["undecided with a refuted lattice point"] += 1
        assert decided != "verified", f"{where}, but a lattice point is refuted"


def _compare_grid(grid_path, kappa: int) -> None:
    default, reference = _both(dipc_plus.check_accuracy, grid_path, kappa=kappa)
    assert default == reference, f"{grid_path.name}: default {default!r}, reference {reference!r}"
    TALLY["refused both" if default.startswith("refused") else "grid same"] += 1


def _monotone_claims(tmp_path, index: int):
    rng = random.Random(f"reference:{index}")
    program = tmp_path / f"m{index}.dip"
    program.write_text(random_program(index))
    beta = rng.choice(BETAS)
    paths = []
    for inputs, step in (("grid", 'step = "1/2"\n'), ("box", "")):
        path = tmp_path / f"m{index}_{inputs}.toml"
        path.write_text(ACCURACY.format(program=program, beta=beta, inputs=inputs, values="[-1, 1]", step=step))
        paths.append(path)
    return paths[0], paths[1], rng.choice((1, 2))


@pytest.mark.parametrize("index", range(MONOTONE))
def test_generated_loop_free_programs_both_ways(tmp_path, index):
    grid, box, kappa = _monotone_claims(tmp_path, index)
    _compare_grid(grid, kappa)
    _compare_box(box, kappa, *_both(dipc_plus.check_accuracy, box, kappa=kappa))


@pytest.mark.parametrize("seed", range(ARGMAX))
def test_generated_argmax_programs_both_ways(tmp_path, seed):
    rng = random.Random(4100 + seed)
    box, grid, kappa = random_argmax(rng, tmp_path, seed)
    _compare_grid(grid, kappa)
    _compare_box(box, kappa, *_both(dipc_plus.check_accuracy, box, kappa=kappa))


@pytest.mark.parametrize("seed", range(ONLINE))
def test_generated_online_programs_both_ways(tmp_path, seed):
    """The privacy claim at the claim's own m, and the every-length claim, the same in both modes."""
    spec = random_spec(random.Random(5200 + seed))
    program = tmp_path / f"o{seed}.dip"
    program.write_text(render(spec))
    for every, key in ((False, "privacy same"), (True, "every-length same")):
        claim = tmp_path / f"o{seed}_{'every' if every else 'fixed'}.toml"
        claim.write_text(claim_text(spec, str(program), every))
        default, reference = _both(dipc_plus.check_privacy, claim, every_length=every)
        assert default == reference, f"{claim.name}:\n{render(spec)}\ndefault {default!r}, reference {reference!r}"
        TALLY["refused both" if default.startswith("refused") else key] += 1


# --------------------------------------------------------------------------- one varying input

ONE_INPUT = 20 * SCALE


def _one_input_program(index: int) -> str:
    """A generated loop-free program with q[2] fixed at 1/2: a box of one varying input."""
    text = random_program(index).replace("input q: real[2]", "input q: real[1]")
    return text.replace("q[2]", "(1/2)")


@pytest.mark.parametrize("index", range(ONE_INPUT))
def test_generated_one_input_boxes_both_ways(tmp_path, index):
    """Reference mode decides these by both ends of each region (`accuracy.box_two_ends`)."""
    rng = random.Random(f"reference-one:{index}")
    program = tmp_path / f"one{index}.dip"
    program.write_text(_one_input_program(index))
    box = tmp_path / f"one{index}_box.toml"
    box.write_text(ACCURACY.format(program=program, beta=rng.choice(BETAS), inputs="box", values="[-1, 1]", step=""))
    kappa = rng.choice((1, 2))
    default, reference = _both(dipc_plus.check_accuracy, box, kappa=kappa)
    _compare_box(box, kappa, default, reference)
    if reference != "undecided" and not reference.startswith("refused"):
        TALLY["one-input reference decided"] = TALLY.get("one-input reference decided", 0) + 1
    if reference == "verified":
        assert not _lattice_refutes(box, kappa)


@pytest.mark.parametrize("name, m, verdict", [("two_thresholds_box.toml", None, "verified"),
                                             ("threshold_half_box.toml", None, "refuted"),
                                             ("sparse_box.toml", 1, "verified")])
def test_one_input_theories_decided_in_reference_mode(name, m, verdict):
    """Before both ends were decided these were undecided in reference mode (only vertices searched)."""
    path = pathlib.Path(__file__).resolve().parent.parent / "theories" / name
    report = dipc_plus.check_accuracy(str(path), params={"m": m} if m else None, reference=True)
    assert report.verdict == verdict
    assert dipc_plus.check_accuracy(str(path), params={"m": m} if m else None).verdict == verdict


def test_tally_printed(capsys):
    """Runs last in this file: the counts of the comparison (pytest -s shows them)."""
    with capsys.disabled():
        print(f"\nreference mode vs default on generated programs: {TALLY}")
