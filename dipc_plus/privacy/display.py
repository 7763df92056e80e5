"""Inputs, outputs and certified numbers of privacy reports, as users read them.

Why it exists: reports, JSON and counterexamples print environments with arrays put
back together ({'x[1]': 0, 'x[2]': 1} -> x=[0, 1]) and certified values; every
certified value goes through `exact.decimals`, whose intervals are rounded outward.
It sits at the top of `privacy/` because `dp`, `loss`, `pufferfish` and `online` all print
through it.
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb

from dipc_plus.decision.decide import working_precision
from dipc_plus.exact.decimals import ball_text, enclosure_text
from dipc_plus.exact.convert import fmt_q
from dipc_plus.semantics import ir


def num_text(x) -> str:
    """An exact rational as 'p/q', a certified ball as '[mid +/- rad]' (containing the value),
    None as 'inf'."""
    if isinstance(x, Fraction):
        return fmt_q(x)
    if x is None:
        return "inf"
    return ball_text(x, 20)


def log_text(x: Fraction, digits: int = 12) -> str:
    """ln(x) for a rational x > 0 as an outward-rounded decimal enclosure '[a, b]'."""
    if x == 1:
        return "0"
    with working_precision(4 * digits + 64):
        ball = arb(x.numerator).log() - arb(x.denominator).log()
    return enclosure_text(ball, digits=digits)


def user_value(v):
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, Fraction):
        return int(v) if v.denominator == 1 else fmt_q(v)
    return str(v)


ENV_STYLE = {"braces": False, "list_sep": ", "}   # how privacy reports print an environment (values.show_env)


def user_env(program: ir.Program | None, env: dict) -> dict:
    """{'x[1]': 0, 'x[2]': 1} -> {'x': [0, 1]} (arrays back together), JSON-ready values."""
    if program is None:
        return {k: user_value(v) for k, v in env.items()}
    out: dict = {}
    done = set()
    for name, elems in program.arrays.items():
        if all(e in env for e in elems):
            out[name] = [user_value(env[e]) for e in elems]
            done |= set(elems)
    for k, v in env.items():
        if k not in done:
            out[k] = user_value(v)
    return out


def user_outputs(program: ir.Program | None, out: dict) -> dict:
    return user_env(program, out)
