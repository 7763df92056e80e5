"""Lowering to the IR: unrolling, arrays, argmax desugaring, comparison sugar, elif, inference.

Semantic tests run the lowered IR with a tiny reference interpreter in which
every sample takes a value chosen by the test, and compare against the
meaning written directly in Python (e.g. the first index of the maximum).
"""
from fractions import Fraction as F

from hypothesis import given, settings, strategies as st

from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import eval_assign, eval_expr
from dipc_plus.frontend.load import parse_program


def lower(text, params=None):
    return parse_program(text, "t.dip", params)


# --------------------------------------------------------------------------- a reference interpreter


class _Exit(Exception):
    pass


def run(program, inputs, samples):
    """Execute the IR; each Sample takes the next value of `samples`. Returns (env, compares executed)."""
    env = dict(inputs)
    samples = iter(samples)
    executed = []

    def block(stmts):
        for s in stmts:
            stmt(s)

    def stmt(s):
        if isinstance(s, ir.Assign):
            env[s.target] = eval_assign(s, env, program)
        elif isinstance(s, ir.Sample):
            env[s.target] = next(samples)
        elif isinstance(s, ir.Compare):
            a, b = eval_expr(s.lhs, env, program), eval_expr(s.rhs, env, program)
            env[s.target] = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[s.op]
            executed.append(s)
        elif isinstance(s, ir.If):
            block(s.then if eval_expr(s.cond, env, program) else s.other)
        elif isinstance(s, ir.While):
            for _ in range(10_000):
                if not eval_expr(s.cond, env, program):
                    return
                block(s.body)
            raise AssertionError("loop did not stop")
        elif isinstance(s, ir.Exit):
            raise _Exit
        else:
            raise TypeError(s)

    try:
        block(program.body)
    except _Exit:
        pass
    return env, executed


def statements(stmts):
    for s in stmts:
        yield s
        if isinstance(s, ir.If):
            yield from statements(s.then)
            yield from statements(s.other)
        elif isinstance(s, ir.While):
            yield from statements(s.body)


# --------------------------------------------------------------------------- unrolling and arrays

NESTED = """
param m = 3
param k = m - 1
input q: real[m]
output out: real[m]
output pairs: 0..10
var n: 0..10 = 0
for i = 1 to m do
    out[i] <- Lap(eps/(2*i), q[m + 1 - i])
end
for i = 1 to k do
    for j = i + 1 to m do
        n <- n + 1
    end
end
for i = 2 to 1 do
    n <- 99
end
pairs <- n
"""


def test_for_loops_unroll_with_constant_indices():
    p = lower(NESTED)
    assert p.arrays["q"] == ("q[1]", "q[2]", "q[3]") and p.arrays["out"] == ("out[1]", "out[2]", "out[3]")
    assert p.input_names() == ["q[1]", "q[2]", "q[3]"]
    assert p.output_names() == ["out[1]", "out[2]", "out[3]", "pairs"]
    samples = [s for s in p.body if isinstance(s, ir.Sample)]
    assert [(s.target, s.dist.rate, s.dist.mean.terms[0][1]) for s in samples] == [
        ("out[1]", F(1, 2), "q[3]"), ("out[2]", F(1, 4), "q[2]"), ("out[3]", F(1, 6), "q[1]")]
    # the nested loop runs m(m-1)/2 times; the empty loop not at all
    env, _ = run(p, {f"q[{i}]": F(0) for i in (1, 2, 3)}, [0.0, 0.0, 0.0])
    assert env["pairs"] == 3


def test_parameters_override_and_derive():
    p = lower(NESTED, {"m": F(5)})
    assert p.params == {"m": F(5), "k": F(4)}
    assert len(p.arrays["q"]) == 5
    env, _ = run(p, {f"q[{i}]": F(0) for i in range(1, 6)}, [0.0] * 5)
    assert env["pairs"] == 10


def test_index_arithmetic_like_smart_sum():
    p = lower("""
param m = 4
param b = 2
input x: real[m]
output out: real[m]
for blk = 1 to m/b do
    for j = 1 to b do
        out[(blk - 1)*b + j] <- x[(blk - 1)*b + j] + j
    end
end
""")
    assign = [s for s in p.body if isinstance(s, ir.Assign)]
    assert [s.target for s in assign] == ["out[1]", "out[2]", "out[3]", "out[4]"]
    assert assign[3].expr == ir.Lin("real", ((ir.Const(1), "x[4]"),), ir.Const(2))


# --------------------------------------------------------------------------- argmax / argmin


def argmax_program(fn, kind, m):
    sampler = "Lap(eps, q[i])" if kind == "real" else "DLap(eps, q[i])"
    qtype = "real" if kind == "real" else "0..3"
    return lower(f"""
param m = {m}
input q: {qtype}[m]
output out: 1..m
noisy: {kind}[m]
for i = 1 to m do
    noisy[i] <- {sampler}
end
out <- {fn}(noisy)
""")


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.integers(-3, 3), min_size=1, max_size=6), fn=st.sampled_from(["argmax", "argmin"]))
def test_argmax_desugaring_picks_first_extreme(values, fn):
    """Integer samples make ties likely: the smallest index of the max (min) must win."""
    m = len(values)
    p = argmax_program(fn, "int", m)
    env, executed = run(p, {f"q[{i}]": 0 for i in range(1, m + 1)}, values)
    best = max(values) if fn == "argmax" else min(values)
    assert env["out"] == values.index(best) + 1
    assert len(executed) == m - 1  # one comparison per element after the first, on every path


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=5))
def test_argmax_over_reals(values):
    p = argmax_program("argmax", "real", len(values))
    env, _ = run(p, {f"q[{i}]": F(0) for i in range(1, len(values) + 1)}, values)
    assert env["out"] == values.index(max(values)) + 1


def test_argmax_uses_strict_comparisons_and_one_fresh_boolean():
    p = argmax_program("argmax", "real", 4)
    compares = [s for s in statements(p.body) if isinstance(s, ir.Compare)]
    assert {s.op for s in compares} == {">"}
    assert {s.target for s in compares} == {"_b1"}
    assert p.variables["_b1"] == ir.BoolT()
    p = argmax_program("argmin", "real", 3)
    assert {s.op for s in statements(p.body) if isinstance(s, ir.Compare)} == {"<"}


def test_argmax_of_dom_values_stays_a_call():
    p = lower("input a: 0..3, b: 0..3\noutput o: 1..2\no <- argmax(a, b)\n")
    assert p.body == (ir.Assign("o", ir.Call("argmax", (ir.Var("a"), ir.Var("b"))), p.body[0].pos),)


# --------------------------------------------------------------------------- comparison sugar


def test_comparison_in_if_becomes_fresh_compare():
    p = lower("""
input q: real
output o: bool
r <- Lap(eps, q)
if r >= 1/2 then
    o <- true
else
    o <- false
end
""")
    sample, compare, branch = p.body
    assert isinstance(compare, ir.Compare) and compare.target == "_b1" and compare.op == ">="
    assert compare.lhs == ir.Lin("real", ((ir.Const(1), "r"),), ir.Const(0))
    assert compare.rhs == ir.Lin("real", (), ir.Const(F(1, 2)))
    assert isinstance(branch, ir.If) and branch.cond == ir.Var("_b1")
    for value, expected in ((0.7, True), (0.2, False)):
        env, _ = run(p, {"q": F(0)}, [value])
        assert env["o"] is expected


def test_comparison_in_while_is_evaluated_again_each_iteration():
    p = lower("""
input q: real
output o: 0..5
var n: 0..5 = 0
r <- Lap(eps, q)
while r > n and n < 5 do
    n <- n + 1
end
o <- n
""")
    loop = [s for s in p.body if isinstance(s, ir.While)][0]
    assert isinstance(loop.body[-1], ir.Compare)
    for value in (-1.0, 0.5, 2.5, 9.0):
        env, _ = run(p, {"q": F(0)}, [value])
        expected = 0
        while value > expected and expected < 5:
            expected += 1
        assert env["o"] == expected


def test_elif_is_nested_if_and_dom_comparisons_are_deterministic():
    p = lower("""
input a: 0..3
output o: {low, mid, high}
if a < 1 then
    o <- low
elif a = 1 or a == 2 then
    o <- mid
else
    o <- high
end
""")
    (top,) = p.body
    assert isinstance(top, ir.If) and top.cond == ir.Binary("<", ir.Var("a"), ir.Const(1))
    (inner,) = top.other
    assert isinstance(inner, ir.If)
    assert not any(isinstance(s, ir.Compare) for s in statements(p.body))
    for a, want in ((0, "low"), (1, "mid"), (2, "mid"), (3, "high")):
        env, _ = run(p, {"a": a}, [])
        assert env["o"] == want


def test_direct_boolean_comparison_targets_the_variable():
    p = lower("input q: real\noutput b: bool\nr <- Lap(eps, q)\nb <- 2*r - q >= 3\n")
    compare = p.body[1]
    assert isinstance(compare, ir.Compare) and compare.target == "b"
    assert compare.lhs == ir.Lin("real", ((ir.Const(2), "r"), (ir.Const(-1), "q")), ir.Const(0))


def test_random_comparison_nested_in_boolean_expression_is_hoisted():
    p = lower("input q: real\ninput c: bool\noutput b: bool\nr <- Lap(eps, q)\nb <- c and not r < 0\n")
    hoisted, assign = p.body[1], p.body[2]
    assert isinstance(hoisted, ir.Compare) and hoisted.target == "_b1"
    assert assign.expr == ir.Binary("and", ir.Var("c"), ir.Unary("not", ir.Var("_b1")))


def test_fresh_names_avoid_user_names():
    p = lower("input q: real\noutput _b1: bool\nr <- Lap(eps, q)\nif r > 0 then\n _b1 <- true\nelse\n _b1 <- false\nend\n")
    compare = p.body[1]
    assert compare.target == "_b2"


def test_real_assignment_is_linear_with_dom_coefficients():
    p = lower("input q: real\ninput k: 0..3\noutput o: real\nr <- Lap(eps, q)\no <- k*r + q/2 - k + 1\n")
    assign = p.body[1]
    assert assign.expr == ir.Lin("real", ((ir.Var("k"), "r"), (ir.Const(F(1, 2)), "q")),
                                 ir.Binary("+", ir.Unary("-", ir.Var("k")), ir.Const(1)))
    env, _ = run(p, {"q": F(4), "k": 3}, [F(1, 3)])
    assert env["o"] == 3 * F(1, 3) + 2 - 3 + 1


def test_inference_of_undeclared_locals():
    p = lower("""
input q: real
input x: 0..3
output o: bool
r <- Lap(eps, q)
s <- r + 1
z <- DLap(eps, x)
w <- z - 2
b <- s > 0
o <- b and w < 1
""")
    t = p.variables
    assert (t["r"], t["s"], t["z"], t["w"], t["b"]) == (ir.RealT(), ir.RealT(), ir.IntT(), ir.IntT(), ir.BoolT())


def test_var_initialiser_and_constant_real():
    p = lower("input q: real\noutput o: real\nvar t: real = 1/4\no <- Lap(eps, t)\n")
    assert p.body[0] == ir.Assign("t", ir.Lin("real", (), ir.Const(F(1, 4))), p.body[0].pos)
    assert p.body[1].dist.mean == ir.Lin("real", ((ir.Const(1), "t"),), ir.Const(0))


def test_exp_mech_and_choose_lowering():
    p = lower("""
type Item = 1..3
function score(h: 0..2, v: Item) -> rational = if v == h then 1 else 0
distribution coin(x: bool) over bool { x: exp(rate); not x: 1 }
input h: 0..2
input x: bool
output out: Item
output y: bool
out <- Exp(eps/2, score(h))
y <- choose(2*eps, coin(x))
""")
    exp_mech, choose = p.body
    assert exp_mech.dist == ir.ExpMech(F(1, 2), "score", (ir.Var("h"),))
    assert choose.dist == ir.Choose(F(2), "coin", (ir.Var("x"),))
    assert p.distributions["coin"].over == ir.BoolT()
    assert p.types["Item"].values == (1, 2, 3)


def test_statement_positions_point_at_the_source():
    p = lower("input q: real\noutput o: real\n\n   o <- Lap(eps, q)\n")
    assert (p.body[0].pos.line, p.body[0].pos.column) == (4, 4)


def test_each_random_comparison_is_hoisted_once():
    p = lower("input q: real\ninput x: 0..2\noutput b: bool\nr <- Lap(eps, q)\n"
              "b <- (if r > 0 then 1 else 2) == x\n")
    compares = [s for s in statements(p.body) if isinstance(s, ir.Compare)]
    assert len(compares) == 1
    for value, x, want in ((0.5, 1, True), (-0.5, 1, False), (-0.5, 2, True)):
        env, _ = run(p, {"q": F(0), "x": x}, [value])
        assert env["b"] is want
