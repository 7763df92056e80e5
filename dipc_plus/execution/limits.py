"""Size limits on what a user file may ask for, checked while reading it.

Why a module of its own: a claim or program written by someone else must not be
able to hang the machine before any guard notices (``9**9**9`` is computed by
the parser itself, ``(eps+1)**100000`` by the exact kernel inside one C call).
Every reader refuses values past these limits with a located message that names
the limit; ``--limit NAME=VALUE`` on any command raises one (see `LIMITS`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.errors import UserError


@dataclass(frozen=True)
class Limit:
    name: str
    default: int
    meaning: str


LIMITS = {lim.name: lim for lim in (
    Limit("file_bytes", 1_000_000, "bytes in a program or claim file"),
    Limit("digits", 60, "digits in one number of a formula or program"),
    Limit("power", 200, "integer exponent of a power (x**n) in a formula"),
    Limit("exp_rate", 10_000, "numerator and denominator of q in exp(q*eps) in a formula"),
    Limit("depth", 200, "nesting depth of a formula, of brackets and of statements in a program"),
    Limit("nodes", 5_000, "operators, names and numbers in one formula or program expression"),
    Limit("tokens", 50_000, "tokens (words, numbers, symbols) of a program"),
    Limit("unrolled", 1_000_000, "statement and expression parts of a program once its for loops are unrolled"),
    Limit("terms", 1_000, "terms of a formula once its products and powers are expanded"),
    Limit("grid_points", 200_000, "points of a claim's input grid (privacy: values of its real inputs)"),
    Limit("runs", 1_000_000_000, "runs of simulate -n (and its --chunk and --max-iterations)"),
    Limit("comparisons", 100, "comparisons in the --events of one prob run"),
    Limit("decide_steps", 500_000, "refinement steps (boxes, bisections) of one certified decision"),
    Limit("cells", 10_000, "cells of the input box per output of prob --symbolic (and of a box privacy search)"),
    Limit("exp_degree", 20_000, "degree in t = e^(eps/L) of a closed form a decision factors"),
    Limit("region_boxes", 3_000, "sub-boxes of (input, eps) the branch-and-bound examines per det region of a box claim"),
    Limit("pair_boxes", 200, "sub-boxes of (input, offset, eps) the pair branch-and-bound of a box privacy claim examines"),
    Limit("box_scale", 1_000, "common denominator times largest size of the points of a box checked exactly"),
    Limit("length_m", 10, "largest m at which privacy --every-length looks for a counterexample"),
    # A count of work, not seconds: the same command must give the same answer on an idle machine and a
    # loaded one (--timeout is the wall-clock guard).  A unit is a (pair, output) comparison of an eps-DP
    # check, and a distinct ratio of an exact loss counts 8 (privacy.online.every_length.check_work), which
    # tracks the checks' CPU time within a factor of about 3 of its median, 0.5 ms per unit on an idle core
    # (experiments/every_length_work.md).  300 s, the earlier limit in wall-clock seconds, is thus about
    # 600,000 units; with it the shipped every-length claims stop at the same m as they did on an idle
    # machine (the two "forever" claims find their counterexample at m = 5 once the guess for it,
    # with the work done past m = 3, is about 21,000 and 93,000).
    Limit("length_work", 600_000, "units of work (a (pair, output) comparison; a loss ratio counts 8) "
          "of the exact checks privacy --every-length runs at m past the claim's lengths looking for a "
          "counterexample (a check predicted to pass it is not started)"),
)}

# Limits that no longer exist -> what replaced them and why (a clear refusal, exit 2, instead of an unknown name).
RETIRED = {
    "length_seconds": ("length_work", "the search now counts its work instead of timing it, so that its answer "
                       "does not depend on the machine's load; --timeout SECONDS bounds the wall-clock time"),
}

_current: dict[str, int] = {name: lim.default for name, lim in LIMITS.items()}


def get(name: str) -> int:
    """The current value of limit `name`."""
    return _current[name]


def set_limit(name: str, value: int) -> None:
    if name in RETIRED:
        now, why = RETIRED[name]
        raise UserError(f"limit {name} was replaced by {now}: {why}",
                        hint=f"use --limit {now}=N (default {LIMITS[now].default}; docs/limits.md)")
    if name not in LIMITS:
        raise UserError(f"unknown limit '{name[:40]}'", hint="limits: " + ", ".join(sorted(LIMITS)))
    if value <= 0:
        raise UserError(f"limit {name} must be positive", hint=f"e.g. --limit {name}={LIMITS[name].default * 10}")
    _current[name] = value


def reset() -> None:
    """Back to the defaults (the CLI calls this before applying --limit)."""
    _current.update({name: lim.default for name, lim in LIMITS.items()})


def hint(name: str) -> str:
    """How to raise limit `name`, for an error message."""
    return (f"the limit on {LIMITS[name].meaning} is {_current[name]}; "
            f"raise it with --limit {name}=N if the file is trusted")


def clip(value, width: int = 40) -> str:
    """The first `width` characters of a value, for echoing it in a message.

    >>> clip("9" * 5000, 8)
    '99999999... (5000 characters)'
    """
    try:
        text = str(value)
    except (ValueError, RecursionError, MemoryError):   # an int past Python's 4,300-digit conversion
        if isinstance(value, int):                      # limit (0xfff... in a formula); a deep list
            text = f"<a number of about {int(value.bit_length() * 0.30103)} digits>"
        else:
            text = f"<a {type(value).__name__} too large to show>"
    return text if len(text) <= width else text[:width] + f"... ({len(text)} characters)"


def too_many_digits(token: str) -> str | None:
    """None when a written number is within the `digits` limit, else how many digits it has, as
    words for a message.  A number with an exponent counts the digits of its exact value
    (`1e-66`: 67), measured without building a number far past the limit:
    `Fraction("1e999999999")` alone would compute 10^999999999."""
    digits = _written_digits(token)
    if digits is None:
        return f"far more than {get('digits')} digits"
    return f"{digits} digits, more than {get('digits')}" if digits > get("digits") else None


def _written_digits(token: str) -> int | None:
    """The digits of a written number or of its exact value; None when its exponent alone is far
    past the limit."""
    most = get("digits")
    digits = sum(ch.isdigit() for ch in token)
    m = re.fullmatch(r"\s*[+-]?(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)[eE]([+-]?[0-9][0-9_]*)\s*", token)
    if m and digits <= most:
        exponent = m.group(1).replace("_", "")
        if len(exponent.lstrip("+-")) > 6 or abs(int(exponent)) > 100 * most:
            mantissa = re.split(r"[eE]", token)[0]
            return None if mantissa.strip("+-0._ ") else 1      # 1e999999 (but 0e999999 is 0)
        try:
            value = Fraction(token.strip().replace("_", ""))
        except ValueError:          # not a number after all: the caller's own reader says so
            return digits
        digits = max(len(str(abs(value.numerator))), len(str(value.denominator)))
    return digits
