"""Hand-built IR programs for the DTMC/reachability tests (no parser involved).

They mirror programs/*.dip statement by statement, so the tests of the exact
semantics do not depend on the front end; the same tests also run on the
parsed programs when the front end is present.
"""
from __future__ import annotations

from fractions import Fraction as F

from dipc_plus.semantics import ir

R, B = ir.RealT(), ir.BoolT()


def pos(line: int = 1) -> ir.Pos:
    return ir.Pos("handmade.dip", line, 1)


def lin(*terms, const=0, kind="real") -> ir.Lin:
    return ir.Lin(kind, tuple((ir.Const(F(c)), v) for c, v in terms), ir.Const(F(const)))


def var(name: str, kind="real") -> ir.Lin:
    return lin((1, name), kind=kind)


def program(name, inputs, outputs, variables, body, functions=None, distributions=None, arrays=None):
    return ir.Program(name=name, source="handmade.dip", params={}, inputs=tuple(inputs),
                      outputs=tuple(outputs), arrays=arrays or {}, variables=dict(variables),
                      functions=functions or {}, distributions=distributions or {}, body=tuple(body))


def noisy_max(m: int, rate=F(1, 2)) -> ir.Program:
    """noisy[i] <- Lap(rate eps, q[i]); out <- argmax(noisy) (ties to the smallest index)."""
    idx = ir.DomT(tuple(range(1, m + 1)))
    q = [f"q[{i}]" for i in range(1, m + 1)]
    n = [f"noisy[{i}]" for i in range(1, m + 1)]
    body = [ir.Sample(n[i], ir.NoiseSample("lap", F(rate), var(q[i])), pos(10 + i)) for i in range(m)]
    body.append(ir.Assign("best", var(n[0]), pos(20)))
    body.append(ir.Assign("out", ir.Const(1), pos(21)))
    for i in range(1, m):
        body.append(ir.Compare("b", var(n[i]), ">", var("best"), pos(30 + i)))
        body.append(ir.If(ir.Var("b"), (ir.Assign("best", var(n[i]), pos(40 + i)),
                                         ir.Assign("out", ir.Const(i + 1), pos(40 + i))), (), pos(30 + i)))
    variables = {**{x: R for x in q}, **{x: R for x in n}, "best": R, "out": idx, "b": B}
    return program("noisy_max", [(x, R) for x in q], [("out", idx)], variables, body,
                   arrays={"q": tuple(q), "noisy": tuple(n)})


ANS = ir.DomT(("none", "bot", "top"), "Ans")
FLAG = ir.DomT(("bot", "num"), "Flag")


def sparse(m: int, c: int, *, variant: bool = False, numeric: bool = False, T=0) -> ir.Program:
    """Sparse (Fig. 2a), SparseVariant (no re-sampling) or NumericSparse (Fig. 2b)."""
    if numeric:
        rt, rq, rv = F(4, 9 * c), F(2, 9 * c), F(1, 9 * c)
    else:
        rt, rq, rv = F(1, 2 * c), F(1, 4 * c), None
    q = [f"q[{i}]" for i in range(1, m + 1)]
    out = [f"out[{i}]" for i in range(1, m + 1)]
    val = [f"val[{i}]" for i in range(1, m + 1)]
    count_t = ir.DomT(tuple(range(c + 1)))
    body = []
    for i in range(m):
        if numeric:
            body.append(ir.Assign(out[i], ir.Const("bot"), pos(2)))
            body.append(ir.Assign(val[i], lin(const=0), pos(3)))
        else:
            body.append(ir.Assign(out[i], ir.Const("none"), pos(2)))
    body.append(ir.Assign("count", ir.Const(0), pos(4)))
    body.append(ir.Sample("rT", ir.NoiseSample("lap", rt, lin(const=T)), pos(5)))
    for i in range(m):
        top = [ir.Assign(out[i], ir.Const("num" if numeric else "top"), pos(9))]
        if numeric:
            top.append(ir.Sample(val[i], ir.NoiseSample("lap", rv, var(q[i])), pos(10)))
        if not variant:
            top.append(ir.Sample("rT", ir.NoiseSample("lap", rt, lin(const=T)), pos(11)))
        top.append(ir.Assign("count", ir.Binary("+", ir.Var("count"), ir.Const(1)), pos(12)))
        top.append(ir.If(ir.Binary(">=", ir.Var("count"), ir.Const(c)), (ir.Exit(pos(14)),), (), pos(13)))
        body.append(ir.Sample("r", ir.NoiseSample("lap", rq, var(q[i])), pos(6)))
        body.append(ir.Compare("b", var("r"), ">=", var("rT"), pos(7)))
        body.append(ir.If(ir.Var("b"), tuple(top), (ir.Assign(out[i], ir.Const("bot"), pos(16)),), pos(8)))
    outs = [(o, FLAG if numeric else ANS) for o in out]
    variables = {**{x: R for x in q}, **{o: t for o, t in outs}, "count": count_t, "rT": R, "r": R, "b": B}
    arrays = {"q": tuple(q), "out": tuple(out)}
    if numeric:
        outs = outs + [(v, R) for v in val]
        variables.update({v: R for v in val})
        arrays["val"] = tuple(val)
    name = "numeric_sparse" if numeric else ("sparse_variant" if variant else "sparse")
    return program(name, [(x, R) for x in q], outs, variables, body, arrays=arrays)


def laplace(k: int, sens=1) -> ir.Program:
    q = [f"q[{i}]" for i in range(1, k + 1)]
    out = [f"out[{i}]" for i in range(1, k + 1)]
    body = [ir.Sample(out[i], ir.NoiseSample("lap", F(1, sens), var(q[i])), pos(3)) for i in range(k)]
    variables = {**{x: R for x in q}, **{o: R for o in out}}
    return program("laplace", [(x, R) for x in q], [(o, R) for o in out], variables, body,
                   arrays={"q": tuple(q), "out": tuple(out)})


def fig4a() -> ir.Program:
    """Fig. 4a of the paper (NumericSparse, N = 2, c = 1, T = 0), outputs o1_1, o1_2, o2_1, o2_2."""
    bit = ir.DomT((0, 1))
    body = [
        ir.Assign("o1_2", lin(const=0), pos(1)), ir.Assign("o2_2", lin(const=0), pos(1)),
        ir.Assign("T", lin(const=0), pos(1)),
        ir.Assign("o1_1", ir.Const(0), pos(2)), ir.Assign("o2_1", ir.Const(0), pos(3)),
        ir.Sample("rT", ir.NoiseSample("lap", F(4, 9), var("T")), pos(4)),
        ir.Sample("r1", ir.NoiseSample("lap", F(2, 9), var("q1")), pos(5)),
        ir.Compare("b", var("r1"), ">=", var("rT"), pos(6)),
        ir.If(ir.Var("b"),
              (ir.Assign("o1_1", ir.Const(1), pos(8)), ir.Sample("o1_2", ir.NoiseSample("lap", F(1, 9), var("q1")), pos(9))),
              (ir.Sample("r2", ir.NoiseSample("lap", F(2, 9), var("q2")), pos(10)),
               ir.Compare("b", var("r2"), ">=", var("rT"), pos(11)),
               ir.If(ir.Var("b"), (ir.Assign("o2_1", ir.Const(1), pos(13)),
                                   ir.Sample("o2_2", ir.NoiseSample("lap", F(1, 9), var("q2")), pos(14))), (), pos(12))),
              pos(7)),
        ir.Exit(pos(15)),
    ]
    variables = {"q1": R, "q2": R, "o1_1": bit, "o1_2": R, "o2_1": bit, "o2_2": R, "T": R,
                 "rT": R, "r1": R, "r2": R, "b": B}
    return program("numeric_sparse_fig4a", [("q1", R), ("q2", R)],
                   [("o1_1", bit), ("o1_2", R), ("o2_1", bit), ("o2_2", R)], variables, body)


def rr_retry(retry=F(1, 2)) -> ir.Program:
    """Randomized response retried while a coin says so (a `while` loop: a cycle in the chain)."""
    rr = ir.DistDef("rr", (("x", B),), B,
                    ((ir.Var("x"), ir.ExpOf(ir.Rate())), (ir.Unary("not", ir.Var("x")), ir.Const(F(1)))), pos(1))
    coin = ir.DistDef("coin", (("x", B),), B,
                      ((ir.Const(True), ir.Const(F(retry))), (ir.Const(False), ir.Const(1 - F(retry)))), pos(2))
    body = [
        ir.Assign("y", ir.Const(False), pos(5)),
        ir.Assign("again", ir.Const(True), pos(6)),
        ir.While(ir.Var("again"), (
            ir.Sample("y", ir.Choose(F(1), "rr", (ir.Var("x"),)), pos(8)),
            ir.Sample("again", ir.Choose(None, "coin", (ir.Var("x"),)), pos(9)),
        ), pos(7)),
    ]
    return program("randomized_response_retry", [("x", B)], [("y", B)],
                   {"x": B, "y": B, "again": B}, body, distributions={"rr": rr, "coin": coin})


def exponential(n: int = 2, rate=F(1, 2)) -> ir.Program:
    count = ir.DomT(tuple(range(n + 1)))
    item = ir.DomT((1, 2, 3))
    v = ir.Var("v")
    body_expr = ir.Cond(ir.Binary("==", v, ir.Const(1)), ir.Var("h1"),
                        ir.Cond(ir.Binary("==", v, ir.Const(2)), ir.Var("h2"), ir.Var("h3")))
    score = ir.Function("score", (("h1", count), ("h2", count), ("h3", count), ("v", item)),
                        ir.RatT(), body_expr, pos(1))
    body = [ir.Sample("out", ir.ExpMech(F(rate), "score", (ir.Var("h1"), ir.Var("h2"), ir.Var("h3"))), pos(3))]
    return program("exponential", [("h1", count), ("h2", count), ("h3", count)], [("out", item)],
                   {"h1": count, "h2": count, "h3": count, "out": item}, body, functions={"score": score})


def loop_forever_certain() -> ir.Program:
    """`while true do b <- true end`: never ends."""
    body = [ir.Assign("b", ir.Const(True), pos(1)),
            ir.While(ir.Var("b"), (ir.Assign("b", ir.Const(True), pos(3)),), pos(2)),
            ir.Assign("y", ir.Const(True), pos(4))]
    return program("forever", [], [("y", B)], {"b": B, "y": B}, body)


def loop_forever_sometimes() -> ir.Program:
    """n <- Lap(eps, 0); again <- true; while again do again <- n > 0 end: loops forever when n > 0."""
    body = [ir.Sample("n", ir.NoiseSample("lap", F(1), lin(const=0)), pos(1)),
            ir.Assign("again", ir.Const(True), pos(2)),
            ir.While(ir.Var("again"), (ir.Compare("again", var("n"), ">", lin(const=0), pos(4)),), pos(3)),
            ir.Assign("y", ir.Const(True), pos(5))]
    return program("sometimes", [], [("y", B)], {"n": R, "again": B, "y": B}, body)


def loop_retest() -> ir.Program:
    """A while loop that re-tests an old sample comparison and a coin: must terminate.

    n <- Lap(eps, q); y <- false; again <- true
    while again do  b <- n > 0;  y <- b;  again <- choose(coin) end
    """
    coin = ir.DistDef("coin", (), B, ((ir.Const(True), ir.Const(F(1, 3))), (ir.Const(False), ir.Const(F(2, 3)))),
                      pos(1))
    body = [ir.Sample("n", ir.NoiseSample("lap", F(1), var("q")), pos(1)),
            ir.Assign("y", ir.Const(False), pos(2)),
            ir.Assign("again", ir.Const(True), pos(2)),
            ir.While(ir.Var("again"), (
                ir.Compare("b", var("n"), ">", lin(const=0), pos(4)),
                ir.Assign("y", ir.Var("b"), pos(5)),
                ir.Sample("again", ir.Choose(None, "coin", ()), pos(6)),
            ), pos(3))]
    return program("retest", [("q", R)], [("y", B)], {"q": R, "n": R, "again": B, "b": B, "y": B}, body,
                   distributions={"coin": coin})


def dlap_clamp(k: int = 2) -> ir.Program:
    """z <- DLap(eps, x); y <- clamp(z, 0, k) via comparisons (the truncated geometric mechanism)."""
    Z = ir.IntT()
    rng = ir.DomT(tuple(range(k + 1)))
    body = [ir.Sample("z", ir.NoiseSample("dlap", F(1), lin((1, "x"), kind="int")), pos(1)),
            ir.Assign("y", ir.Const(0), pos(2))]
    for j in range(1, k + 1):
        body.append(ir.Compare("b", var("z", "int"), ">=", lin(const=j, kind="int"), pos(3)))
        body.append(ir.If(ir.Var("b"), (ir.Assign("y", ir.Const(j), pos(4)),), (), pos(3)))
    return program("truncated_geometric", [("x", Z)], [("y", rng)], {"x": Z, "z": Z, "y": rng, "b": B}, body)
