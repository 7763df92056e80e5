"""Per-output input supports (semantics/output_support.py): two inputs that agree on an output's
support have the same exact P[out = o], checked against the per-point chain on generated programs
(tests/online_programs.py) and on the shipped ones; the supports are not trivially everything
(Sparse's "first top at k" reads q[1..k] and changing q[k] changes it); and the refusals name why."""
from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.frontend.load import load_program, parse_program
from dipc_plus.semantics import ir
from dipc_plus.semantics.distribution import bind, output_distribution
from dipc_plus.semantics.output_support import output_support
from dipc_plus.semantics.symbolic_chain import NotSymbolic
from conftest import PROGRAMS
from online_programs import random_spec, render

ZERO = ExpFrac.of(0)
VALUES = (F(-1), F(0), F(1), F(1, 2), F(-3, 2), F(2))   # 0 = the threshold T: ties included


def random_point(program: ir.Program, rng: random.Random) -> dict:
    return {name: rng.choice(VALUES) for name, t in program.inputs if isinstance(t, ir.RealT)}


def marginal(program: ir.Program, flat: dict) -> dict:
    """{output tuple: P} of the per-point chain (no argmax shortcut: the independent route)."""
    return output_distribution(program, bind(program, flat), shortcuts=False).marginal()


def check_shares(program: ir.Program, rng: random.Random, points: int) -> tuple[int, int]:
    """At random points u, and for each output o a point v equal to u on o's support and redrawn
    elsewhere: P_v[o] == P_u[o] exactly.  Returns (outputs compared, of which with a proper support)."""
    support = output_support(program)
    compared = proper = 0
    for _ in range(points):
        u = random_point(program, rng)
        at_u = marginal(program, u)
        assert set(at_u) <= set(support.outputs), "the per-point chain has an output the walk missed"
        for o in support.outputs:
            v = random_point(program, rng)
            v.update({name: u[name] for name in support.support[o]})
            assert support.key(o, u) == support.key(o, v)
            at_v = marginal(program, v)
            assert at_v.get(o, ZERO) == at_u.get(o, ZERO), (o, u, v, support.support[o])
            compared += 1
            proper += len(support.support[o]) < len(support.inputs)
    return compared, proper


def generated_programs(count: int, seed: int) -> list:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        spec = random_spec(rng)
        program = parse_program(render(spec), "<generated>", {"m": F(rng.choice((2, 3)))})
        try:
            output_support(program)
        except NotSymbolic:
            continue
        out.append((spec, program))
    return out


@pytest.mark.parametrize("block", range(4))
def test_generated_programs_share_exactly(block):
    rng = random.Random(1000 + block)
    compared = proper = 0
    for spec, program in generated_programs(6, seed=block):
        c, p = check_shares(program, rng, points=2)
        compared, proper = compared + c, proper + p
    assert compared > 0 and proper > 0   # the supports left something out, so sharing was tested


@pytest.mark.parametrize("name", ["sparse", "sparse_variant", "above_threshold", "noisy_max", "threshold_half",
                                  "svt_lyu_alg1", "svt_lyu_alg2", "sparse_resample_once", "noisy_max_exp"])
def test_shipped_programs_share_exactly(name):
    text = (PROGRAMS / f"{name}.dip").read_text()
    program = load_program(str(PROGRAMS / f"{name}.dip"), {"m": F(3)} if "param m" in text else {})
    check_shares(program, random.Random(name), points=3)


def test_sparse_first_top_at_k_reads_the_first_k_queries():
    """Hand-derived: with c = 1, "bot..bot top none.." at k compares q[1..k] with the threshold and
    stops; all bot reads every query.  And each support is needed: moving q[k] moves P."""
    m = 4
    program = load_program(str(PROGRAMS / "sparse.dip"), {"m": F(m), "c": F(1)})
    support = output_support(program)
    assert len(support.outputs) == m + 1
    for k in range(1, m + 1):
        o = ("bot",) * (k - 1) + ("top",) + ("none",) * (m - k)
        assert support.support[o] == tuple(f"q[{i}]" for i in range(1, k + 1))
        u = {f"q[{i}]": F(0) for i in range(1, m + 1)}
        moved = dict(u, **{f"q[{k}]": F(1)})
        assert marginal(program, u)[o] != marginal(program, moved)[o]
    assert support.support[("bot",) * m] == tuple(f"q[{i}]" for i in range(1, m + 1))
    assert max(len(s) for s in support.support.values()) == m   # the largest support


@pytest.mark.parametrize("name, words", [
    ("numeric_sparse", "is not Bool or DOM"),          # a real output
    ("laplace", "is not Bool or DOM"),
])
def test_refusals_name_the_reason(name, words):
    text = (PROGRAMS / f"{name}.dip").read_text()
    program = load_program(str(PROGRAMS / f"{name}.dip"), {"m": F(2)} if "param m" in text else {})
    with pytest.raises(NotSymbolic) as err:
        output_support(program)
    assert words in err.value.message


def test_a_dlap_draw_is_refused():
    """The discrete Laplace engine keeps no symbols: a DLap draw names itself and its line."""
    program = parse_program("input x: real\noutput b: bool\nn <- DLap(eps, 0)\nb <- n >= 0\n", "<dlap>", {})
    with pytest.raises(NotSymbolic, match="DLap sample") as err:
        output_support(program)
    assert err.value.line == 3


def test_an_integer_output_is_refused():
    """An integer output lives among the walk's real forms: it must not be summed out silently."""
    program = parse_program("input x: real\noutput k: int\nk <- 0\nr <- Lap(eps, x)\nif r >= 0 then\n"
                            "    k <- 1\nend\n", "<int-output>", {})
    with pytest.raises(NotSymbolic, match="not Bool or DOM"):
        output_support(program)
