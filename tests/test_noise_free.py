"""The noise-free program (det of an accuracy claim) against hand-written references.

`reference` below re-implements, in plain Python, what each program of the
paper computes without noise (Barthe et al., POPL 2021, section 3): the index
of the first largest query, the Sparse/AboveThreshold answer sequence, the
NumericSparse pairs, the exact Laplace answers, the exponential mechanism's
best item.  The concrete run and every symbolic path must agree with it.
"""
from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest

from dipc_plus.claims import noise_free as nf
from dipc_plus.errors import UserError
from dipc_plus.exact.linear import LinForm
from dipc_plus.frontend.load import load_program
from conftest import PROGRAMS



def first_argmax(xs):
    best = 0
    for i, x in enumerate(xs):
        if x > xs[best]:
            best = i
    return best + 1


def sparse_reference(q, c, T):
    out, count = ["none"] * len(q), 0
    for i, x in enumerate(q):
        if x >= T:
            out[i] = "top"
            count += 1
            if count >= c:
                break
        else:
            out[i] = "bot"
    return {f"out[{i + 1}]": v for i, v in enumerate(out)}


def numeric_sparse_reference(q, c, T):
    flags, vals, count = ["bot"] * len(q), [F(0)] * len(q), 0
    for i, x in enumerate(q):
        if x >= T:
            flags[i], vals[i] = "num", x
            count += 1
            if count >= c:
                break
    out = {f"out[{i + 1}]": v for i, v in enumerate(flags)}
    out.update({f"val[{i + 1}]": v for i, v in enumerate(vals)})
    return out


CASES = {
    "noisy_max": ({"m": 3}, lambda q, p: {"out": first_argmax(q)}),
    "above_threshold": ({"m": 3, "T": 0}, lambda q, p: sparse_reference(q, 1, p["T"])),
    "sparse": ({"m": 3, "c": 2, "T": F(1, 2)}, lambda q, p: sparse_reference(q, p["c"], p["T"])),
    "sparse_variant": ({"m": 4, "c": 2, "T": 0}, lambda q, p: sparse_reference(q, p["c"], p["T"])),
    "numeric_sparse": ({"m": 3, "c": 2, "T": 0}, lambda q, p: numeric_sparse_reference(q, p["c"], p["T"])),
    "laplace": ({"k": 3, "sens": 1}, lambda q, p: {f"out[{i + 1}]": x for i, x in enumerate(q)}),
}


def load(name, params):
    return load_program(str(PROGRAMS / f"{name}.dip"), {k: F(v) for k, v in params.items()})


def env_of(q):
    return {f"q[{i + 1}]": F(x) for i, x in enumerate(q)}


def sample_points(m, rng, count=40):
    pts = [list(p) for p in itertools.product([-1, 0, 1], repeat=m)] if m <= 3 else []
    for _ in range(count):  # random rationals, including exact boundary values
        pts.append([rng.choice([F(0), F(1, 2), F(rng.randint(-9, 9), rng.randint(1, 4))]) for _ in range(m)])
    return pts


@pytest.mark.parametrize("name", sorted(CASES))
def test_concrete_run_matches_reference(name):
    params, ref = CASES[name]
    program = load(name, params)
    m = len(nf.real_inputs(program))
    for q in sample_points(m, random.Random(name)):
        assert nf.run(program, env_of(q)) == ref([F(x) for x in q], {k: F(v) for k, v in params.items()}), q


@pytest.mark.parametrize("name", sorted(CASES))
def test_paths_partition_the_input_space(name):
    """Every input lies in exactly one path, whose symbolic output is the concrete one."""
    params, ref = CASES[name]
    program = load(name, params)
    reals = nf.real_inputs(program)
    paths = nf.paths(program, {}, reals)
    assert paths
    for q in sample_points(len(reals), random.Random(name + "p")):
        env = env_of(q)
        holding = [p for p in paths if all(c.holds(env) for c in p.condition)]
        assert len(holding) == 1, (q, [[str(c) for c in p.condition] for p in holding])
        at_env = {n: (v.value(env) if isinstance(v, LinForm) else v) for n, v in holding[0].outputs.items()}
        assert at_env == nf.run(program, env)


def test_path_count_noisy_max_and_sparse():
    # argmax of 3 values is desugared as: out=1; if q2 > q1 then out=2; then q3 is
    # compared with the current leader.  Paths: (q2<=q1, q3<=q1) -> 1, (q2<=q1, q3>q1) -> 3,
    # (q2>q1, q3<=q2) -> 2, (q2>q1, q3>q2) -> 3.
    paths = nf.paths(load("noisy_max", {"m": 3}), {}, ["q[1]", "q[2]", "q[3]"])
    outs = sorted(p.outputs["out"] for p in paths)
    assert outs == [1, 2, 3, 3]
    # Sparse with c = 1 and m = 3: answers top / bot top / bot bot top / bot bot bot.
    paths = nf.paths(load("above_threshold", {"m": 3, "T": 0}), {}, ["q[1]", "q[2]", "q[3]"])
    assert len(paths) == 4


def test_symbolic_real_output_is_the_input():
    paths = nf.paths(load("numeric_sparse", {"m": 2, "c": 1, "T": 0}), {}, ["q[1]", "q[2]"])
    top_first = [p for p in paths if p.outputs["out[1]"] == "num"]
    assert len(top_first) == 1
    assert str(top_first[0].outputs["val[1]"]) == "q[1]"
    assert top_first[0].outputs["val[2]"].is_constant()


def test_exponential_mechanism_takes_first_best_item():
    program = load("exponential", {"n": 2})
    for h in itertools.product(range(3), repeat=3):
        env = {"h1": h[0], "h2": h[1], "h3": h[2]}
        assert nf.run(program, env) == {"out": first_argmax(list(h))}


def test_partial_inputs_symbolic_and_fixed():
    program = load("noisy_max", {"m": 3})
    paths = nf.paths(program, {"q[1]": F(0), "q[2]": F(5)}, ["q[3]"])
    # q3 > 5 gives 3, otherwise 2
    assert sorted((p.outputs["out"], str(p.condition[0])) for p in paths) == \
        [(2, "1*q[3] <= 5"), (3, "1*q[3] > 5")]


def test_user_distribution_has_no_noise_free_value():
    program = load_program(str(PROGRAMS / "randomized_response.dip"), {})
    with pytest.raises(UserError) as info:
        nf.run(program, {"x": True})
    assert "no canonical noise-free value" in info.value.message and "table" in info.value.hint


def test_loop_that_never_ends_without_noise(tmp_path):
    src = tmp_path / "loop.dip"
    src.write_text("input  x: real\noutput y: bool\nr <- Lap(eps, x)\nt <- Lap(eps, 0)\n"
                   "again <- true\nwhile again do\n    again <- r >= t\nend\ny <- again\n")
    program = load_program(str(src), {})
    assert nf.run(program, {"x": F(-1)}) == {"y": False}
    with pytest.raises(UserError) as info:
        nf.run(program, {"x": F(1)})
    assert info.value.line == 6 and "never ends" in info.value.message
