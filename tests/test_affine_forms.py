"""The affine forms built on `exact.linear.LinForm`: the density-ratio walk's `Form` (inputs and
draws, some coefficients unknown), `lp.Constraint.of`, and the box test of an input-only
comparison, each against an independent pointwise computation."""
from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest

from dipc_plus.exact import lp
from dipc_plus.exact.linear import LinForm, holds
from dipc_plus.privacy.dp import density_ratio
from dipc_plus.privacy.dp.density_ratio import Form

OPS = ("<", "<=", ">", ">=", "==", "!=")


def _input(name: str) -> Form:
    return Form(LinForm.symbol(("u", name)))


def _draw(d: int) -> Form:
    return Form(LinForm.symbol(("x", d)))


def test_known_draws_cancel_and_inputs_stay():
    f = _input("b").plus(_input("a").scaled(F(3))).plus(_draw(0).scaled(F(2)))
    g = f.plus(_draw(0).scaled(F(-2))).plus(Form(LinForm.constant(F(1, 2))))
    assert f.reads_draws() and not g.reads_draws()
    assert g.u == (("a", F(3)), ("b", F(1))) and g.const == F(1, 2)
    assert _input("a").plus(_input("a").scaled(F(-1))).u == ()


def test_an_unknown_coefficient_never_cancels_and_an_unknown_constant_stays_unknown():
    unknown = _draw(1).scaled(None)
    assert unknown.reads_draws() and unknown.const is None
    assert unknown.plus(_draw(1).scaled(F(-1))).reads_draws()
    assert unknown.plus(_draw(1)).scaled(F(5)).reads_draws()
    assert Form(const_known=False).plus(_input("a")).const is None
    assert unknown.scaled(F(0)) == Form() and Form().const == 0       # 0 times anything is 0


def test_constraint_of_a_form_agrees_with_the_form_at_points():
    rng = random.Random(5)
    for _ in range(50):
        form = LinForm.make({n: F(rng.randint(-3, 3), rng.randint(1, 3)) for n in "xyz"}, F(rng.randint(-4, 4), 2))
        point = {n: F(rng.randint(-6, 6), rng.randint(1, 4)) for n in "xyz"}
        for op in ("<", "<=", "==", ">=", ">"):
            assert lp.Constraint.of(form, op).holds(point) == holds(form.value(point), op)


@pytest.mark.parametrize("op", OPS)
def test_constant_on_box_matches_the_truth_at_corners_roots_and_midpoints(op):
    """f = a x + b y + c on a box: constant iff its truth is the same at the corners, at the points
    where f = 0 on the edges, and between them (f is affine, so these points meet every piece)."""
    rng = random.Random(hash(op) % 1000)
    for _ in range(60):
        a, b, c = (F(rng.randint(-3, 3)) for _ in range(3))
        box = {"x": (F(rng.randint(-2, 0)), F(rng.randint(0, 2))), "y": (F(1), F(1) + rng.randint(0, 1))}
        f = Form(LinForm.make({("u", "x"): a, ("u", "y"): b}, c))
        if not f.u:
            continue
        xs, ys = set(box["x"]), set(box["y"])
        for y in box["y"]:
            if a:
                xs.add(-(b * y + c) / a)
        for x in box["x"]:
            if b:
                ys.add(-(a * x + c) / b)
        xs = sorted(v for v in xs if box["x"][0] <= v <= box["x"][1])
        ys = sorted(v for v in ys if box["y"][0] <= v <= box["y"][1])
        xs += [(p + q) / 2 for p, q in zip(xs, xs[1:])]
        ys += [(p + q) / 2 for p, q in zip(ys, ys[1:])]
        truths = {holds(a * x + b * y + c, op) for x, y in itertools.product(xs, ys)}
        assert density_ratio._constant_on_box(f, op, box) == (len(truths) == 1), (a, b, c, box)
