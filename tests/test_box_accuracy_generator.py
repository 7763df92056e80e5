"""Box accuracy verdicts against dense exact per-point checks, on random programs of each class
the box methods decide (issue 39, item 7).

Why: each box method (the argmax worst point, the corner reduction for monotone straight-line
Laplace programs, the facet argument for polyhedral det regions) is proved on paper; a generator
finds the program where the code and the proof part ways.  Each program is drawn from one class -

* argmax of iid Laplace or one-sided exponential reads of q[j];
* threshold: Laplace reads of q[j] (plus a constant) compared with constants, one or two outputs,
  sometimes two thresholds on one read (a three-level output) or the conjunction of two tests;
* polyhedral: two noisy reads compared with each other, a noisy read against another input, or a
  noisy difference or sum of two inputs against a constant -

with a claim beta = c*exp(-alpha*eps*s) on the box [-1, 1]^m or [0, 2]^m (m = 2 mostly, some 3),
eps in (0, inf) or a bounded interval, and a kappa of 1 to 4, so that the claim is sometimes true
and sometimes false.  The box is decided, then every point of the box's lattice of thirds is
checked with the exact per-point engine:

* a box VERIFIED never meets a refuted lattice point (a contradiction is a soundness bug);
* a box REFUTED names a point of the box that a fresh per-point check refutes again;
* the box sweep's kappa* (the lower end of its certified enclosure) is at most the lattice
  sweep's (its upper end), and the box's best kappa at most the lattice's.

Every decision runs under a small budget (SIGALRM); a program over it is counted as skipped, never
dropped silently.  The suite decides 100 programs; DIPC_LONG=1 decides 2,000 more and prints the
counts.  Mutants that the suite's 100 programs catch: the monotone directions flipped (3
programs), the argmax worst point at twice its gap (12), the polyhedral worst point maximising
the half-spaces' input parts instead of minimising them (10 of the 34 polyhedral programs).
"""
from __future__ import annotations

import contextlib
import itertools
import random
import signal
import warnings
from collections import Counter
from fractions import Fraction as F

import pytest

from dipc_plus.accuracy.box import decide_box
from dipc_plus.accuracy.box_reduction import REFUTED, UNDECIDED, VERIFIED
from dipc_plus.accuracy.box_sweep import box_sweep
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.monotone import NotReducible
from dipc_plus.accuracy.sweep import sweep
from dipc_plus.claims.claim_file import load_claim

SEED = 39_7_2026
SUITE, CHUNK = 100, 10
LONG = 2000
BUDGET_SECONDS = 20          # per decision (the box, the lattice, each sweep)
CLASSES = ("argmax", "threshold", "polyhedral")
BOXES = (("-1", "1"), ("0", "2"))
# with every eps > 0, eps*d covers (0, inf) at each d and a single-noise claim cannot tell one
# worst point from another: bounded intervals make the place of the worst point matter
EPS = ("(0, inf)", "[1/2, 2]", "[1, 3]", "(0, 1]")

CLAIM = """\
[program]
path = "{program}"

[accuracy]
det = "noise-free"
input_distance = "linf"
output_distance = "{output_distance}"
alpha = "dd"
gamma = 0
beta = "{beta}"
eps = "{eps}"

[accuracy.inputs]
box = {{ q = [{lo}, {hi}] }}
"""


class OverBudget(BaseException):
    """Raised by the alarm: a BaseException, so that no `except Exception` in the code under test
    swallows it."""


@contextlib.contextmanager
def budget(seconds: int):
    def ring(signum, frame):
        raise OverBudget

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------- the program classes


def rate(rng: random.Random) -> str:
    return rng.choice(("eps", "eps/2", "2*eps"))


def argmax_program(rng: random.Random, m: int, lo: int) -> tuple[str, str]:
    """out = argmax of iid reads (one kind, one rate): the argmax worst point."""
    kind, r = rng.choice(("Lap", "ExpNoise")), rate(rng)
    lines = [f"input q: real[{m}]", f"output out: 1..{m}", f"noisy: real[{m}]"]
    lines += [f"noisy[{k}] <- {kind}({r}, q[{k}])" for k in range(1, m + 1)] + ["out <- argmax(noisy)"]
    return "\n".join(lines) + "\n", "noisy-max"


def threshold_program(rng: random.Random, m: int, lo: int) -> tuple[str, str]:
    """Laplace reads of single inputs (shifted by a constant) compared with constants inside the
    box: box det regions, the corner reduction."""
    constants = [F(lo) + F(k, 2) for k in range(1, 4)]       # inside the box
    decls, lines = [f"input q: real[{m}]"], []
    for k in range(1, rng.choice((1, 2)) + 1):
        j = rng.randint(1, m)
        shift = rng.choice(("", "", " + 1/2", " + -1/2"))
        lines.append(f"r{k} <- Lap({rate(rng)}, q[{j}]{shift})")
        shape = rng.random()
        if shape < 0.3:       # two thresholds on one read: a three-level output
            c1, c2 = sorted(rng.sample(constants, 2))
            decls.append(f"output o{k}: 0..2")
            lines += [f"if r{k} > {c2} then", f"    o{k} <- 2", f"else", f"    if r{k} > {c1} then",
                      f"        o{k} <- 1", f"    else", f"        o{k} <- 0", "    end", "end"]
        elif shape < 0.5 and m >= 2:      # a conjunction of two tests on two reads
            j2 = rng.choice([i for i in range(1, m + 1) if i != j])
            lines.append(f"s{k} <- Lap({rate(rng)}, q[{j2}])")
            decls.append(f"output o{k}: bool")
            lines.append(f"o{k} <- r{k} >= {rng.choice(constants)} and s{k} < {rng.choice(constants)}")
        else:
            decls.append(f"output o{k}: bool")
            lines.append(f"o{k} <- r{k} {rng.choice(('>=', '>', '<', '<='))} {rng.choice(constants)}")
    return "\n".join(decls + lines) + "\n", "zero-one"


def polyhedral_program(rng: random.Random, m: int, lo: int) -> tuple[str, str]:
    """A comparison of two noisy inputs, or a noisy sum against a constant: polyhedral regions."""
    decls, lines = [f"input q: real[{m}]", "output o: bool"], []
    i, j = rng.sample(range(1, m + 1), 2)
    shape = rng.random()
    if shape < 0.4:
        lines += [f"r1 <- Lap({rate(rng)}, q[{i}])", f"r2 <- Lap({rate(rng)}, q[{j}])",
                  f"o <- r1 {rng.choice(('>=', '>', '<'))} r2"]
    elif shape < 0.55:       # a noisy read against another input, noise-free
        lines += [f"r1 <- Lap({rate(rng)}, q[{i}])", f"o <- r1 {rng.choice(('>=', '<'))} q[{j}]"]
    elif shape < 0.75:       # a noisy difference against a constant
        c = rng.choice((F(-1, 2), F(0), F(1, 2)))
        lines += [f"r <- Lap({rate(rng)}, q[{i}] - q[{j}])", f"o <- r {rng.choice(('>=', '<'))} {c}"]
    else:
        c = F(2 * lo) + rng.choice((F(1, 2), F(1), F(3, 2), F(5, 2)))
        lines += [f"r <- Lap({rate(rng)}, q[{i}] + q[{j}])", f"o <- r >= {c}"]
    return "\n".join(decls + lines) + "\n", "zero-one"


WRITERS = {"argmax": argmax_program, "threshold": threshold_program, "polyhedral": polyhedral_program}


def write_case(seed: int, folder):
    """(class, program text, claim path, kappa) of case `seed`."""
    rng = random.Random(seed)
    cls = CLASSES[seed % len(CLASSES)]
    m = 3 if rng.random() < 0.25 else 2
    lo, hi = rng.choice(BOXES)
    text, output_distance = WRITERS[cls](rng, m, int(lo))
    beta = f"{rng.choice(('1', '1/2', '2', str(m - 1)))}*exp(-alpha*eps{rng.choice(('', '/2', '*2'))})"
    (folder / "p.dip").write_text(text)
    claim = folder / "claim.toml"
    eps = rng.choice(EPS)
    claim.write_text(CLAIM.format(program=folder / "p.dip", output_distance=output_distance, beta=beta, eps=eps,
                                  lo=lo, hi=hi))
    return cls, text, str(claim), rng.choice((1, 1, 2, 2, 3, 4))


def lattice(bounds: dict):
    """Every point of the box whose coordinates step by 1/3 from its lower corner."""
    step = F(1, 3)
    axes = []
    for lo, hi in bounds.values():
        axes.append([lo + k * step for k in range(int((hi - lo) / step) + 1)])
    return [dict(zip(bounds, q)) for q in itertools.product(*axes)]


def refuted_at(claim, u: dict, kappa: int) -> bool:
    return any(r.verdict == REFUTED for r in AccuracyChecker(claim).check_input(u, kappa))


# --------------------------------------------------------------------------- one case


def decide_case(seed: int, folder) -> str:
    """The box verdict of case `seed` ('skipped' over budget, 'refused' if no box method applies);
    asserts that the box, its sweep and the lattice never contradict one another."""
    cls, text, path, kappa = write_case(seed, folder)
    claim = load_claim(path).accuracy
    where = f"seed {seed} ({cls}, kappa {kappa}):\n{text}{open(path).read()}"
    try:
        with budget(BUDGET_SECONDS):
            box = decide_box(claim, kappa)
        points = lattice(claim.points.bounds)
        checker = AccuracyChecker(claim)
        with budget(BUDGET_SECONDS):
            bad = [u for u in points if any(r.verdict == REFUTED for r in checker.check_input(u, kappa))]
    except NotReducible:
        return "refused"
    except OverBudget:
        return "skipped"
    assert not (box.verdict == VERIFIED and bad), f"box VERIFIED, lattice point {bad[0]} refuted: {where}"
    if box.verdict == REFUTED:
        u = box.counterexample.input
        assert all(lo <= u[n] <= hi for n, (lo, hi) in claim.points.bounds.items()), f"{u} off the box: {where}"
        assert refuted_at(claim, u, kappa), f"box REFUTED at {u}, which a fresh check verifies: {where}"
    if box.verdict == UNDECIDED:
        return UNDECIDED
    try:
        with budget(BUDGET_SECONDS):
            box_star = box_sweep(claim)
        with budget(BUDGET_SECONDS):
            grid = sweep(AccuracyChecker(claim), points=points)
    except OverBudget:
        return f"{box.verdict}, sweep skipped"
    if box_star.undecided is not None:
        return f"{box.verdict}, sweep undecided"
    if box_star.kappa_star is not None and not grid.kappa_star.infinite:
        assert box_star.kappa_star.lo <= grid.kappa_star.hi, \
            f"box kappa* {box_star.kappa_star.text} above the lattice's {grid.kappa_star.text}: {where}"
    if not grid.capped:
        assert box_star.best_kappa <= grid.best_kappa, \
            f"box best kappa {box_star.best_kappa} above the lattice's {grid.best_kappa}: {where}"
    return box.verdict


def run_cases(seeds, folder) -> Counter:
    seen = Counter()
    for seed in seeds:
        outcome = decide_case(SEED + seed, folder)
        seen[outcome.split(",")[0]] += 1
        if "," in outcome:
            seen[outcome] += 1
    return seen


@pytest.mark.parametrize("chunk", range(SUITE // CHUNK))
def test_box_verdicts_agree_with_the_lattice(chunk, tmp_path):
    seen = run_cases(range(chunk * CHUNK, (chunk + 1) * CHUNK), tmp_path)
    if seen["skipped"]:
        warnings.warn(f"{seen['skipped']} of {CHUNK} programs over the {BUDGET_SECONDS} s budget: skipped")
    assert seen[VERIFIED] + seen[REFUTED] + seen[UNDECIDED] + seen["skipped"] + seen["refused"] == CHUNK


def test_the_generator_reaches_every_class_and_shape(tmp_path):
    """The suite's programs are not all of one kind: every class and shape, both noises, m = 3,
    both boxes, bounded and unbounded eps."""
    texts, claims = [], []
    for seed in range(SUITE):
        _, text, path, _ = write_case(SEED + seed, tmp_path)
        texts.append(text)
        claims.append(open(path).read())
    joined = "\n".join(texts)
    for word in ("argmax(", "ExpNoise(", "Lap(", "0..2", " and ", "r1 >= r2", "r1 < q[", "] - q[", "] + q[",
                 "q: real[3]"):
        assert word in joined, word
    for word in ("[0, 2]", "[-1, 1]", '"(0, inf)"', '"[1/2, 2]"', '"(0, 1]"'):
        assert any(word in c for c in claims), word


@pytest.mark.long
def test_box_verdicts_agree_with_the_lattice_long(tmp_path, capsys):
    seen = run_cases(range(SUITE, SUITE + LONG), tmp_path)
    with capsys.disabled():
        print(f"\n{LONG} programs: " + ", ".join(f"{k}: {v}" for k, v in sorted(seen.items()))
              + ", contradictions: 0")
    assert sum(seen[k] for k in (VERIFIED, REFUTED, UNDECIDED, "skipped", "refused")) == LONG
