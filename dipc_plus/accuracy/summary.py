"""The worst inputs of an accuracy run, for `dipc accuracy --summary`.

A grid run prints one line per input (Sparse with m = 8: 6,561 lines), which hides the
few inputs a reader wants: those where the claim fails, or holds with the least room.
Each input's room is its margin, the infimum over eps of beta/P[error] over its applicable
obligations (the sweep's kappa* at that one input; the claim with beta/kappa fails there
iff the margin is below kappa).  The margin is computed where
the input is checked (`input_margin`, a run's `collect`) and only the worst few are kept
(`WorstInputs`), so the memory of a run stays flat.  The margins are for ranking and
display; the verdict stays the decision procedure's.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

from dipc_plus.accuracy.report import REFUTED, env_json, env_text, fmt_q, json_value
from dipc_plus.accuracy.sweep import kappa_star, outward

DEFAULT_WORST = 5
MARGIN_DIGITS = 6


@dataclass(frozen=True)
class InputMargin:
    """One input's room: inf over eps of beta/P[error], certified in [lo, hi] (hi None: unbounded,
    P[error] is 0 wherever the claim applies there)."""
    input: dict
    lo: object
    hi: object
    gamma: object
    where: str
    refuted: bool
    counterexample_eps: object = None

    def rank(self) -> tuple:
        return (not self.refuted, self.hi is None, self.hi if self.hi is not None else 0, self.lo or 0)

    def text(self, program) -> str:
        verdict = REFUTED + (f" at eps = {fmt_q(self.counterexample_eps)}" if self.counterexample_eps is not None
                             else "") if self.refuted else "verified"
        if self.hi is None:
            room = "P[error] = 0 for every eps: beta/P[error] unbounded"
        else:
            lo, hi = outward(self.lo, self.hi, MARGIN_DIGITS + 2)
            room = f"inf beta/P[error] in [{lo}, {hi}] ({self.where})"
        return f"{env_text(program, self.input):<28} gamma = {fmt_q(self.gamma):<5} {room}; {verdict}"

    def to_json(self, program) -> dict:
        out = {"input": env_json(program, self.input), "gamma": json_value(self.gamma),
               "verdict": REFUTED if self.refuted else "verified", "where": self.where}
        if self.hi is None:
            out["margin"] = "inf"
        else:
            out["margin_enclosure"] = list(outward(self.lo, self.hi, 12))
        if self.counterexample_eps is not None:
            out["counterexample_eps"] = fmt_q(self.counterexample_eps)
        return out


def input_margin(reports: list, interval) -> InputMargin | None:
    """The margin of one input from its reports (None where the claim does not apply); runs where
    the input is checked, and returns only small values."""
    applying = [r for r in reports if r.applies]
    if not applying:
        return None
    failing = [r for r in applying if r.verdict == REFUTED]
    cex_eps = failing[0].counterexample.eps if failing and failing[0].counterexample is not None else None
    star = kappa_star(applying, interval, MARGIN_DIGITS)    # refined until known to MARGIN_DIGITS digits
    if star.infinite:
        return InputMargin(dict(reports[0].input), None, None, applying[0].gamma, "everywhere", bool(failing),
                           cex_eps)
    where = star.at.where().split(" (a zero")[0]
    return InputMargin(dict(reports[0].input), star.lo, star.hi, star.at.report.gamma, where, bool(failing), cex_eps)


class WorstInputs:
    """The `n` inputs of smallest margin seen (refuted ones first), fed in input order; ties keep
    the earlier input."""

    def __init__(self, n: int = DEFAULT_WORST):
        self.n = n
        self._kept: list = []      # (rank, order, margin), worst first; order breaks ties (margins never compared)
        self._order = 0

    def add(self, margin: InputMargin | None) -> None:
        if margin is None:
            return
        self._order += 1
        bisect.insort(self._kept, (margin.rank(), self._order, margin))
        del self._kept[self.n:]

    def worst(self) -> list[InputMargin]:
        """The kept inputs, worst first."""
        return [m for _, _, m in self._kept]
