"""Compile-time arithmetic and rates (frontend/consteval.py): every refusal keeps its position,
message and hint, and the scale a numpy-style rate is shown as; one walk serves sizes and rates."""
import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program

PROGRAMS = {
 "rate_scale": "param c = 2\ninput q: real\noutput o: real\no <- Lap(c/eps, q)\n",
 "rate_scale_frac": "input q: real\noutput o: real\no <- Lap(3/(2*eps), q)\n",
 "rate_div_eps": "input q: real\noutput o: real\no <- Lap(eps/eps, q)\n",
 "rate_eps_eps": "input q: real\noutput o: real\no <- Lap(eps*eps, q)\n",
 "rate_zero_div": "input q: real\noutput o: real\no <- Lap(eps/(1-1), q)\n",
 "rate_const": "input q: real\noutput o: real\no <- Lap(eps + 1, q)\n",
 "rate_negative": "input q: real\noutput o: real\no <- Lap(-eps/2, q)\n",
 "rate_call": "input q: real\noutput o: real\no <- Lap(abs(eps), q)\n",
 "rate_unknown": "input q: real\noutput o: real\no <- Lap(eps/zz, q)\n",
 "rate_variable": "input q: real\noutput o: real\no <- Lap(eps*q, q)\n",
 "size_eps": "input q: real[eps]\noutput o: real\no <- Lap(eps, q[1])\n",
 "size_zero_div": "input q: real[3/(2-2)]\noutput o: real\no <- Lap(eps, q[1])\n",
 "size_call": "input q: real[abs(2)]\noutput o: real\no <- Lap(eps, q[1])\n",
 "size_frac": "param m = 3\ninput q: real[m/2]\noutput o: real\no <- Lap(eps, q[1])\n",
 "size_unknown": "input q: real[mm]\noutput o: real\no <- Lap(eps, q[1])\n",
 "param_later": "param a = b + 1\nparam b = 2\ninput q: real\noutput o: real\no <- Lap(eps, q)\n",
 "loop_bound": "param m = 2\ninput q: real[m]\noutput o: real[m]\nfor i = 1 to -(-m) * 1 do o[i] <- Lap(2*eps/(4-1), q[i]) end\n",
}

REFUSALS = [
    ('rate_scale', 4, 10, 'a rate cannot divide by eps: 2/eps looks like a scale (the form of numpy, OpenDP and CheckDP); the rate is its inverse, eps/2',
     'write eps/2, e.g. Lap(eps/2, q): here Lap takes the rate 1/scale, so scale 2/eps is rate eps/2'),
    ('rate_scale_frac', 3, 10, 'a rate cannot divide by eps: 3/(2*eps) looks like a scale (the form of numpy, OpenDP and CheckDP); the rate is its inverse, 2*eps/3',
     'write 2*eps/3, e.g. Lap(2*eps/3, q): here Lap takes the rate 1/scale, so scale 3/(2*eps) is rate 2*eps/3'),
    ('rate_div_eps', 3, 10, 'a rate cannot divide by eps',
     'write a positive rational multiple of eps, e.g. eps, eps/2, 2*eps/9 or eps/(4*c)'),
    ('rate_eps_eps', 3, 10, 'a rate cannot contain eps*eps',
     'write a positive rational multiple of eps, e.g. eps, eps/2, 2*eps/9 or eps/(4*c)'),
    ('rate_zero_div', 3, 10, 'division by zero in a rate',
     'write a positive rational multiple of eps, e.g. eps, eps/2, 2*eps/9 or eps/(4*c)'),
    ('rate_const', 3, 10, 'this rate is 1*eps + 1, not a multiple of eps',
     'write a positive rational multiple of eps, e.g. eps, eps/2, 2*eps/9 or eps/(4*c)'),
    ('rate_negative', 3, 10, 'this rate is -1/2*eps: it must be a positive multiple of eps',
     'write a positive rational multiple of eps, e.g. eps, eps/2, 2*eps/9 or eps/(4*c)'),
    ('rate_call', 3, 10, 'a rate must be a rational multiple of eps',
     'write a positive rational multiple of eps, e.g. eps, eps/2, 2*eps/9 or eps/(4*c)'),
    ('rate_unknown', 3, 14, "unknown name 'zz' in a rate",
     'rates use numbers, parameters and eps'),
    ('rate_variable', 3, 14, "a rate must be a constant multiple of eps, but 'q' is a variable",
     'use numbers and parameters: eps/2, 2*eps/(9*c)'),
    ('size_eps', 1, 15, "'eps' cannot be used in an array size",
     'eps only appears in rates and distribution weights'),
    ('size_zero_div', 1, 15, 'division by zero in an array size',
     None),
    ('size_call', 1, 15, 'an array size must be a compile-time constant (numbers, parameters, for-loop indices and + - * /)',
     None),
    ('size_frac', 2, 15, 'an array size must be an integer, but it is 3/2',
     'check the parameter values (--set) that it is computed from'),
    ('size_unknown', 1, 15, "unknown parameter 'mm'",
     "declare it: 'param mm = 3'"),
    ('param_later', 1, 11, "parameter 'b' is used before its declaration (line 2)",
     'declare parameters before the ones that use them'),
]


@pytest.mark.parametrize("name, line, column, message, hint", REFUSALS)
def test_refusal_is_located_and_worded(name, line, column, message, hint):
    with pytest.raises(UserError) as err:
        parse_program(PROGRAMS[name], "p.dip")
    assert (err.value.line, err.value.column, err.value.message, err.value.hint) == (line, column, message, hint)


def test_constant_arithmetic_gives_exact_rates_and_bounds():
    program = parse_program(PROGRAMS["loop_bound"], "p.dip")
    assert [s.target for s in program.body] == ["o[1]", "o[2]"]
    assert {str(s.dist.rate) for s in program.body} == {"2/3"}


def test_every_program_is_used():
    assert set(PROGRAMS) == {r[0] for r in REFUSALS} | {"loop_bound"}
