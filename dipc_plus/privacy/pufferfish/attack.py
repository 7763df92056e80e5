"""Privacy read as attack success: the exact Bayes-optimal adversary.

An adversary knows a prior over inputs and the program, sees one output v and
guesses a target t(u) of the input (the whole input, or a secret attribute).
The best guess for v is the target value with the largest joint probability, so
the optimal success is

    success(eps) = sum over v of  max over t of  sum_{u : t(u) = t} prior(u) * P[P(u) = v]

and the advantage over guessing from the prior alone is
success - max_t prior(t(U) = t) (the model-inversion advantage of Fredrikson,
PhD thesis, Wisconsin 2015).  Each max is an upper envelope of exact closed forms
in eps (decision.envelope), so success is a piecewise closed form with certified
breakpoints, and the optimal guess per output is reported piece by piece.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from dipc_plus.exact.convert import json_exact
from dipc_plus.decision.decide import Interval, RealRoot
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.decision.envelope import Piece, boundary_text, distinct_points, envelope, pieces_between
from dipc_plus.exact.convert import fmt_q
from dipc_plus.privacy.loss.plot import styled_figure
from dipc_plus.privacy.output_tables import ZERO, TableSource
from dipc_plus.exact.param_poly import poly_eval
from dipc_plus.exact.sparse import accumulate


@dataclass
class AttackPiece(Piece):
    """The adversary's success on a piece of the eps interval, and its guess per output there."""
    success: ExpFrac
    guesses: dict        # output key -> guessed target


@dataclass
class AttackResult:
    name: str
    targets: list
    baseline: Fraction                # max_t prior(t)
    pieces: list                      # AttackPiece
    interval: Interval
    seconds: float = 0.0

    def advantage(self, piece: AttackPiece) -> ExpFrac:
        return piece.success - ExpFrac.of(ExpPoly.const(self.baseline))

    def to_json(self) -> dict:
        return {"name": self.name, "targets": [str(t) for t in self.targets], "baseline": fmt_q(self.baseline),
                "pieces": [{"from": boundary_text(p.lo), "to": boundary_text(p.hi), "success": str(p.success),
                            "advantage": str(self.advantage(p)),
                            "guesses": {", ".join(str(json_exact(x)) for x in k): str(v) for k, v in p.guesses.items()}}
                           for p in self.pieces]}

    def report(self) -> str:
        lines = [f"Bayes-optimal attack: {self.name}",
                 f"  guessing from the prior alone succeeds with probability {fmt_q(self.baseline)}"]
        for p in self.pieces:
            lines.append(f"  for eps in {p.where()}:")
            lines.append(f"    success   = {p.success}")
            lines.append(f"    advantage = {self.advantage(p)}")
            g = ", ".join(f"{'/'.join(str(json_exact(x)) for x in k)} -> {v}" for k, v in p.guesses.items())
            lines.append(f"    best guess per output: {g}")
        return "\n".join(lines)


def hypothesis_attack(tables: Callable, weighted: list, interval: Interval | None = None,
                      name: str = "attack") -> AttackResult:
    """The adversary who guesses a hypothesis t from the output: `weighted` lists (flat input env,
    Fraction weight, t), the weights of each t its input distribution times its prior (normalised
    here; a Bayes attack on a target t(u) lists each input once, under t(u)).  An input may appear
    under several hypotheses (overlapping secrets).  tables(env) -> {output key: exact probability}."""
    t0 = time.perf_counter()
    I = interval or Interval()
    total = sum(w for _, w, _ in weighted)
    if total <= 0:
        raise UserError("the prior has no positive weight")
    tmass: dict = {}
    joint: dict = {}          # output -> target -> ExpFrac
    for u, w, t in weighted:
        if not w:
            continue
        w = Fraction(w) / total
        accumulate(tmass, t, w)
        for key, p in tables(u).items():
            accumulate(joint.setdefault(key, {}), t, ExpFrac.of(p) * ExpFrac.of(ExpPoly.const(w)))
    targets = list(tmass)
    baseline = max(tmass.values())
    per_output = {}
    for key, row in joint.items():
        cands = [(f, t) for t, f in row.items() if not f.is_zero()]
        per_output[key] = envelope(cands, I)
    # common refinement of all envelopes: every piece end, each point once
    cuts = [lo for pieces in per_output.values() for lo, _, _, _ in pieces[1:]]
    points = distinct_points([c for c in cuts if isinstance(c, RealRoot)], I)
    out: list[AttackPiece] = []
    for left, right, x in pieces_between(points, I):
        succ = ZERO
        guesses = {}
        for key, pieces in per_output.items():
            f, guesses[key] = next((f, t) for lo, hi, f, t in pieces if Piece(lo, hi).contains(x))
            succ = succ + ExpFrac.of(f)
        if out and out[-1].success == succ:
            out[-1].hi = right
        else:
            out.append(AttackPiece(left, right, succ, guesses))
    return AttackResult(name, targets, baseline, out, I, time.perf_counter() - t0)


# --------------------------------------------------------------------------- from a Pufferfish claim


def scenario_attacks(claim, tables: Callable | None = None) -> list[AttackResult]:
    """For every scenario and discriminative pair (s, s') of a Pufferfish claim: the adversary that
    guesses from the output which of the two secrets is the more likely, with the parameters at the
    middle of their ranges (a prior is one distribution).  Its hypotheses are the scenario's prior
    conditioned on s and on s', weighted by their prior masses: its posterior odds are then
    P[s | w] / P[s' | w], which the claim bounds by e^eps times the prior odds.  Disjoint secrets
    make this the guess of which one holds (the prior restricted to the two); when they overlap
    (FAIER's conditioning: "absent" the whole prior, "present" x >= 1) an input where both hold
    counts under both.  `tables`: the output tables the claim's loss or check computed already
    (input -> table); else computed here."""
    values = {n: (claim.parameter_ranges[n][0] + claim.parameter_ranges[n][1]) / 2 for n in claim.parameters}
    point = tuple(values.values())
    src = tables or TableSource(claim.program, claim.events, use_chain=True, expected=8)
    I = claim.eps.interval if claim.eps.interval is not None else Interval()
    results = []
    for sc in claim.scenarios:
        for a, b in claim.pairs:
            sa, sb = claim.secrets[a], claim.secrets[b]
            weighted = [(u, poly_eval(w, point), name) for u, w in sc.support
                        for name, secret in ((a, sa), (b, sb)) if secret.holds(u)]
            fixed = ", ".join(f"{n} = {fmt_q(v)}" for n, v in values.items())
            results.append(hypothesis_attack(src, weighted, I,
                                             name=f"{sc.name}: {a} or {b}?" + (f" ({fixed})" if fixed else "")))
    return results


def attack_figure(results: list[AttackResult], hi: float = 5.0, program: str = ""):
    """The adversaries' advantage against eps, one curve per scenario, as a matplotlib Figure
    in the style of the other plots (`loss.plot.styled_figure`)."""
    xs = [0.01 + (hi - 0.01) * i / 300 for i in range(301)]

    def draw(ax):
        for r in results:
            ys = []
            for x in xs:
                fx = Fraction(x).limit_denominator(10 ** 6)
                piece = next((p for p in r.pieces if p.contains(fx)), None)
                ys.append(piece.success(x) - float(r.baseline) if piece is not None else float("nan"))
            ax.plot(xs, ys, lw=2, label=r.name)

    return styled_figure((f"{program}: " if program else "") + "Bayes-optimal attack per scenario (success minus the "
                         "best guess without the output)", "advantage of the Bayes-optimal adversary", draw)
