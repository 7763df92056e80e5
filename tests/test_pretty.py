"""The printer and `dipc show`: printed programs parse back to the same IR.

Round trip: parse -> lower -> print -> parse -> lower must give an equal
program up to source positions, for every example program, with default
parameters and with other sizes.
"""
import dataclasses
import re
from fractions import Fraction as F
from pathlib import Path

import pytest

from dipc_plus.semantics import ir
from dipc_plus.cli import main
from dipc_plus.frontend.load import load_program, parse_program
from dipc_plus.semantics.pretty import format_lin, format_program, format_rate
from conftest import ROOT

PROGRAMS = sorted((ROOT / "programs").glob("*.dip"))


def strip_positions(obj):
    if isinstance(obj, ir.Pos):
        return ir.NOWHERE
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return type(obj)(**{f.name: strip_positions(getattr(obj, f.name)) for f in dataclasses.fields(obj)})
    if isinstance(obj, tuple):
        return tuple(strip_positions(x) for x in obj)
    if isinstance(obj, list):
        return [strip_positions(x) for x in obj]
    if isinstance(obj, dict):
        return {k: strip_positions(v) for k, v in obj.items()}
    return obj


def round_trip(program: ir.Program):
    text = format_program(program)
    again = parse_program(text, program.source)
    assert strip_positions(again) == strip_positions(program), text
    assert format_program(again) == text  # printing is stable
    return text


def overrides(path: Path) -> dict:
    params = load_program(path).params
    return {k: v for k, v in (("m", F(4)), ("c", F(2))) if k in params}


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_example_programs_round_trip(path):
    round_trip(load_program(path))
    if overrides(path):
        round_trip(load_program(path, overrides(path)))


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_show_runs_on_example_programs(path, capsys):
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# {path.stem}: checked and desugared from {path}")
    args = [x for k, v in overrides(path).items() for x in ("--set", f"{k}={v}")]
    if args:
        assert main(["show", str(path), *args]) == 0
        out = capsys.readouterr().out
        for k, v in overrides(path).items():
            assert f"{k} = {v}" in out.splitlines()[1]


def test_round_trip_of_sugar_and_corner_cases():
    program = parse_program("""
type Ans = {bot, top}
function f(a: 0..3, b: bool) -> rational = if b then -a/2 else abs(a - 3)
distribution d(x: 0..1) over 0..1 { x: exp(-2*rate) / (1 - exp(-rate)) + eps; 1 - x: 1/3 }
input q: real[3], k: 0..3, s: Ans
output o: 1..3, v: real, w: 0..1, y: int
r1 <- Lap(eps/3, q[1] - 1/2)
r2 <- Lap(2*eps/3, k*q[2] + k)
r3 <- Lap(eps, -q[3])
o <- argmin(r1, r2, r3)
v <- -k*r1 + (1/2)*r2 - 3 - k
if r1 - r2 > -1/4 and not s == top then
    w <- choose(eps/7, d(1))
elif f(k, true) <= 1 then
    w <- 0
else
    w <- 1
end
z <- DLap(3*eps, k - 1)
y <- 2*z - k
""", "corner.dip")
    text = round_trip(program)
    assert "argmin" not in text and "_b1 <-" in text


def test_format_helpers():
    assert format_rate(F(1)) == "eps" and format_rate(F(1, 2)) == "eps/2"
    assert format_rate(F(3)) == "3*eps" and format_rate(F(2, 9)) == "2*eps/9"
    lin = ir.Lin("real", ((ir.Const(-1), "r"), (ir.Const(F(1, 2)), "s"), (ir.Var("k"), "t")), ir.Const(-3))
    assert format_lin(lin) == "-r + 1/2 * s + k * t - 3"
    assert format_lin(ir.Lin("real", (), ir.Const(0))) == "0"


@pytest.mark.parametrize("expr", [
    "r + x + -2", "r - x - 3", "-x + r", "r + (x - 1)", "r - (x + 1)", "-r - -x", "2 - r + x*(1 - x)",
    "r*(x - 1)/3 - r", "x - 1/2*r", "(1 - x)*r + 0", "r + x + (-2)*r - -1",
])
def test_linear_forms_round_trip(expr):
    program = parse_program(f"input q: real\ninput x: 0..3\noutput o: real\nr <- Lap(eps, q)\no <- {expr}\n", "lin.dip")
    round_trip(program)
    # the linear form has the value of the expression (Python evaluates the same text)
    from dipc_plus.semantics.evaluate import eval_expr
    lin = program.body[1].expr
    for r, x in ((F(1, 3), 0), (F(-5, 2), 2), (F(7), 3)):
        exact = re.sub(r"\b(\d+)\b", r"F(\1)", expr)  # Python's 1/2 would be a float
        assert eval_expr(lin, {"r": r, "x": x}, program) == eval(exact, {"r": r, "x": F(x), "F": F})
