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

from dipc_plus.exact.expoly import working_precision
from dipc_plus.exact.decimals import ball_text, enclosure_text
from dipc_plus.exact.convert import fmt_q, json_exact
from dipc_plus.exact.log_point import ln_text
from dipc_plus.semantics import ir
from dipc_plus.semantics.values import group_arrays


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


def eps_multiple(k: Fraction) -> str:
    """k*eps as the reports write a loss or a budget: 'eps', '3/2*eps'."""
    return "eps" if k == 1 else f"{fmt_q(k)}*eps"


def eps_point_text(eps) -> str:
    """The eps of a counterexample: a rational, ('ln', r) written ln(r), or None (nothing depends on eps)."""
    if eps is None:
        return "any"
    return ln_text(eps[1]) if isinstance(eps, tuple) else fmt_q(eps)


def every_value_scope_json(scope, kind: str | None = None) -> dict:
    """A scope's JSON for a verdict on every value of the real outputs (densities), not on named events."""
    out = scope.to_json()
    if kind is not None:
        out["kind"] = kind
    out["outputs"] = "every value"
    out["summary"] += "; every value of the real outputs (densities)"
    return out


def every_value_coverage(scope, label: str) -> str:
    """The closing scope line of a verdict on every value of the real outputs (`label` names the scope)."""
    return (f"scope: {label}; covered: {scope.summary()[3:]}, every value of the real outputs; "
            f"not covered: {', '.join(scope.not_covered()) or 'nothing else'}")


def eps_phrase(claim) -> str:
    """The eps a verdict holds for: the claim's point, or 'every eps in' its interval."""
    return str(claim.eps) if claim.eps.is_log_point else "every eps in " + str(claim.eps)


def dp_claim_json(claim) -> dict:
    """The fields every eps-DP result's JSON gives its claim, after the verdict and scope."""
    return {"claim": claim.file, "program": claim.program.name, "program_path": claim.program.source,
            "params": json_exact(dict(claim.program.params)), "statement": claim.describe(),
            "budget": str(claim.budget)}


ENV_STYLE = {"braces": False, "list_sep": ", "}   # how privacy reports print an environment (values.show_env)


def user_env(program: ir.Program | None, env: dict) -> dict:
    """{'x[1]': 0, 'x[2]': 1} -> {'x': [0, 1]} (arrays back together), JSON-ready values."""
    return group_arrays(program, env, json_exact)

