"""Box privacy verdicts (privacy.dp.box) against dense exact checks, on random straight-line programs.

Why: each box method (density-ratio bound, worst neighbour, the searches at rational points) is
proved on paper; a generator finds the program where the code and the proof part ways.  Each
program (Laplace and one-sided exponential draws with affine means over the inputs and earlier
draws; comparisons, argmax and sums as outputs; real and finite outputs) is decided on the box
[0, 1]^m, m = 2, 3 (m = 2 for real outputs), then every adjacent pair of a dense set of rational points - thirds, which the
box's own lattices (steps 1, 1/2, 1/4) never meet inside the box - is checked exactly, pair by
pair (`check_dp`, or `check_real_outputs` for every value of a real output):

* a box VERIFIED never meets a refuted pair (a contradiction is a soundness bug);
* a box REFUTED names a pair of the box at the claim's adjacency that a fresh exact check of
  that pair alone refutes again.

The suite decides the first 100 programs; DIPC_LONG=1 decides 2,000 more and prints the counts.  The dense oracle on a real output asks only whether a pair is
refuted (`check_real_outputs(refute_only=True)`: before, seed 22 spent 53 s per pair bounding
intervals, which never refutes).  Seed 74 (an argmax of three draws beside a real output) took
minutes in Sturm chains of degree up to 110 until `decision.roots` isolated zeros with arb.
"""
from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from fractions import Fraction as F

import pytest

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.dp.box import REFUTED, UNDECIDED, VERIFIED, decide_box_privacy
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.privacy.dp.real_output_check import check_real_outputs

SEED = 38_2026
SUITE, CHUNK = 100, 10
DECIDED_IN_SUITE = 100         # the chunks the suite runs; DIPC_LONG=1 runs the long test too
LONG = 2000
ADJACENCIES = ("linf", "l1", "one-position")
BUDGETS = ("eps", "2*eps", "4*eps", "eps/2")


class StraightLineWriter:
    """A random straight-line program over q: real[m]: 1 to 3 draws (2 at m = 3), 1 or 2 outputs.  A program with
    a real output draws Laplace noise only (kept so since ExpNoise became symbolic, issue 38, so that the
    suite's programs stay the same; tests/test_symbolic_exp_noise.py covers ExpNoise densities)."""

    def __init__(self, rng: random.Random, m: int):
        self.rng, self.m = rng, m
        self.inputs = [f"q[{j}]" for j in range(1, m + 1)]
        self.draws: list[str] = []
        self.decls: list[str] = []
        self.lines: list[str] = []

    def affine(self, earlier: list[str]) -> str:
        terms = []
        for name in self.inputs + earlier:
            c = self.rng.choice((0, 0, 0, 1, -1, "1/2"))   # with a coefficient 2 some boxes take minutes
            if c:
                terms.append(name if c == 1 else f"{c}*{name}")
        const = self.rng.choice(("", "", " + 1/2", " + -1"))
        return (" + ".join(terms) if terms else "0") + const

    def draw(self, index: int, laplace_only: bool) -> None:
        rng = self.rng
        noise = "Lap" if laplace_only else rng.choice(("Lap", "Lap", "ExpNoise"))
        rate = rng.choice(("eps", "eps/2"))
        name = f"x{index}"
        earlier = self.draws if rng.random() < 0.35 else []
        self.lines.append(f"{name} <- {noise}({rate}, {self.affine(earlier)})")
        self.draws.append(name)

    def output(self, index: int, real: bool) -> None:
        rng, name = self.rng, f"o{index}"
        if real:
            parts = rng.sample(self.draws, rng.randint(1, min(2, len(self.draws))))
            self.decls.append(f"output {name}: real")
            self.lines.append(f"{name} <- {' + '.join(parts)}")
        elif len(self.draws) >= 2 and rng.random() < 0.4:
            array = f"a{index}"
            self.decls += [f"output {name}: 1..{len(self.draws)}", f"{array}: real[{len(self.draws)}]"]
            self.lines += [f"{array}[{j}] <- {d}" for j, d in enumerate(self.draws, 1)]
            self.lines.append(f"{name} <- argmax({array})")
        else:
            left = rng.choice(self.draws)
            right = rng.choice([d for d in self.draws if d != left] + self.inputs + ["0", "1/2"])
            self.decls.append(f"output {name}: bool")
            self.lines.append(f"{name} <- {left} >= {right}")

    def write(self, real: bool) -> str:
        rng = self.rng
        for i in range(1, rng.randint(1, 3 if self.m == 2 else 2) + 1):   # kept small: an argmax of
            # three mixed draws at m = 3 takes a minute
            self.draw(i, laplace_only=real)
        for k in range(1, rng.randint(1, 2) + 1):
            self.output(k, real and k == 1)
        return "\n".join([f"input q: real[{self.m}]", *self.decls, *self.lines]) + "\n"


def write_case(seed: int, folder) -> str:
    """The claim file of case `seed` (its program beside it)."""
    rng = random.Random(seed)
    real = rng.random() < 0.4      # every value of a real output: densities, m = 2 (at m = 3 a minute)
    program = StraightLineWriter(rng, 2 if real else rng.choice((2, 2, 2, 3))).write(real)
    (folder / "p.dip").write_text(program)
    claim = folder / "claim.toml"
    claim.write_text(f'[program]\npath = "{folder / "p.dip"}"\n\n[privacy]\n'
                     f'adjacency = "{rng.choice(ADJACENCIES)}"\nbound = "{rng.choice(("1", "1/2"))}"\n'
                     f'budget = "{rng.choice(BUDGETS)}"\neps = "(0, inf)"\n\n[privacy.inputs]\nbox = {{ q = [0, 1] }}\n')
    return str(claim)


def on_points(claim, points: list[dict]):
    return dataclasses.replace(claim, explicit_points=points, grid=None, inputs_kind="list")


def pair_refuted(claim, every_value: bool, points: list[dict]) -> bool:
    """Every adjacent pair of `points` checked exactly: is one refuted?"""
    lc = on_points(claim, points)
    if every_value:
        return check_real_outputs(lc, refute_only=True).verdict == REFUTED
    return not check_dp(lc).verified


def dense_points(m: int, every_value: bool) -> list[dict]:
    """Thirds of [0, 1]^m (fewer for m = 3 and for densities, whose pairs cost more)."""
    values = [F(0), F(1, 3), F(1)] if m == 3 or every_value else [F(0), F(1, 3), F(2, 3), F(1)]
    return [{f"q[{j}]": v for j, v in enumerate(t, 1)} for t in itertools.product(values, repeat=m)]


def decide_case(seed: int, folder) -> tuple[str, bool]:
    """(the box verdict, whether the dense check refuted a pair); asserts the two agree."""
    path = write_case(seed, folder)
    program = (folder / "p.dip").read_text()
    claim = load_privacy_claim(path)
    res = decide_box_privacy(claim)
    m = len(claim.box_bounds)
    dense = pair_refuted(claim, res.every_value, dense_points(m, res.every_value))
    assert not (res.verdict == VERIFIED and dense), \
        f"seed {seed}: box VERIFIED by {res.method}, a dense pair refuted:\n{program}"
    if res.verdict == REFUTED:
        cex = res.counterexample
        u, w = dict(cex.input), dict(cex.neighbour)
        assert all(lo <= F(u[n]) <= hi and lo <= F(w[n]) <= hi for n, (lo, hi) in claim.box_bounds.items())
        assert claim.adjacency.adjacent(u, w), f"seed {seed}: the counterexample pair is not adjacent"
        assert pair_refuted(claim, res.every_value, [u, w]), \
            f"seed {seed}: box REFUTED at {u} vs {w}, the pair alone is not refuted:\n{program}"
    return res.verdict, dense


@pytest.mark.parametrize("chunk", [pytest.param(k, marks=() if k < DECIDED_IN_SUITE // CHUNK else pytest.mark.long)
                                   for k in range(SUITE // CHUNK)])
def test_box_verdicts_agree_with_dense_pairs(chunk, tmp_path):
    seeds = range(chunk * CHUNK, (chunk + 1) * CHUNK)
    seen = Counter(decide_case(SEED + seed, tmp_path)[0] for seed in seeds)
    assert sum(seen.values()) == len(seeds)


def test_the_generator_reaches_every_verdict_and_output_kind(tmp_path):
    """The suite's programs are not all of one kind: real and finite outputs, both noises, argmax."""
    texts = []
    for seed in range(SUITE):
        write_case(SEED + seed, tmp_path)
        texts.append((tmp_path / "p.dip").read_text())
    joined = "\n".join(texts)
    for word in ("Lap(", "ExpNoise(", "argmax(", ": real\n", ": bool", " >= ", "q[3]"):
        assert word in joined


@pytest.mark.long
def test_box_verdicts_agree_with_dense_pairs_long(tmp_path, capsys):
    seen = Counter()
    for seed in range(SUITE, SUITE + LONG):
        verdict, dense = decide_case(SEED + seed, tmp_path)
        seen[verdict] += 1
        seen[f"{verdict}, dense pair refuted" if dense else f"{verdict}, no dense pair refuted"] += 1
    with capsys.disabled():
        print(f"\n{LONG} programs: " + ", ".join(f"{k}: {v}" for k, v in sorted(seen.items())) + ", contradictions: 0")
    assert seen[VERIFIED] + seen[REFUTED] + seen[UNDECIDED] == LONG
