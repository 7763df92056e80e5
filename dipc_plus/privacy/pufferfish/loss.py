"""The tight Pufferfish loss: every conditional likelihood ratio, exactly.

Why it exists: `dipc privacy-loss` on a Pufferfish claim prints, per scenario,
discriminative pair and output, the ratio P[w | s_i] / P[w | s_j] as a rational
function of the parameters (cancelled), and its supremum over a single parameter:
exact at an end of the range (decided by certified root isolation), else an enclosure by
bisection on the bound with exact univariate decisions (printed rounded outward).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.exact.convert import json_exact
from dipc_plus.exact.decimals import decimal_down, decimal_up
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.claims.privacy_types import PufferfishClaim
from dipc_plus.exact.convert import fmt_q
from dipc_plus.exact.log_point import ln_text
from dipc_plus.privacy.loss.tight import loss_expr
from dipc_plus.decision.param_decide import decide_univariate
from dipc_plus.exact.param_poly import poly_add, poly_cancel, poly_eval, poly_mul, poly_scale, ratio_text
from dipc_plus.privacy.pufferfish.check import PufferfishSetup, pufferfish_scope


@dataclass
class PufferfishLoss:
    claim: PufferfishClaim
    rows: list          # (scenario, si, sj, output, ratio text, value text, sup info)
    worst: tuple | None
    seconds: float
    tables: object = None   # input -> output table, as computed for the ratios (the attack reads the same)
    verdict = "computed"    # the ratios themselves: a Pufferfish claim states no budget to the loss

    def to_json(self) -> dict:
        def row(r) -> dict:
            return dict(zip(("scenario", "secret", "other_secret", "output", "ratio", "loss"), r[:6]))
        return {"claim": self.claim.file, "scope": pufferfish_scope(self.claim).to_json(),
                "rows": [row(r) for r in self.rows], "worst": None if self.worst is None else row(self.worst)}

    def report(self) -> str:
        c = self.claim
        lines = [f"Pufferfish likelihood ratios of {c.program.name} ({c.eps}; {self.seconds:.2f} s)"]
        for r in self.rows:
            lines.append(f"  {r[0]}: {r[1]} vs {r[2]}, output {r[3]}: ratio {r[4]}  ->  loss {r[5]}")
        if self.worst is not None:
            lines.append(f"largest: {self.worst[5]} ({self.worst[0]}: {self.worst[1]} vs {self.worst[2]}, "
                         f"output {self.worst[3]})")
        lines.append(pufferfish_scope(c).coverage())
        return "\n".join(lines)


def pufferfish_loss(claim: PufferfishClaim, executor=None, source=None, progress: bool = False) -> PufferfishLoss:
    """Every conditional likelihood ratio P[w | s_i] / P[w | s_j] as an exact closed form (a rational
    function of the parameters, and of e^eps); its supremum over the parameters when there is at
    most one parameter and the values are rational (exact at the ends, else enclosed)."""
    t0 = time.perf_counter()
    st = PufferfishSetup(claim, executor, source, progress)   # the tables: on workers with a parallel executor
    rows = []
    for sc, si, sj, (Ai, Bi), (Aj, Bj) in st.ordered_pairs():
        if not Bi or not Bj:
            continue
        for key in Ai:
            num = poly_mul(Ai[key], Bj)
            den = poly_mul(Aj.get(key, {}), Bi)
            out = ", ".join(str(json_exact(v)) for v in key)
            summary = _ratio_summary(num, den, st, claim) if den else ("inf", "inf", None)
            rows.append((sc.name, si, sj, out, *summary))
    # the largest: the last infinite ratio, else the first largest sup, else the first row
    infinite, bounded = [r for r in rows if r[5] == "inf"], [r for r in rows if r[6] is not None]
    worst = infinite[-1] if infinite else max(bounded, key=lambda r: r[6]) if bounded else rows[0] if rows else None
    return PufferfishLoss(claim, rows, worst, time.perf_counter() - t0, st.table)


def _ratio_summary(num: dict, den: dict, st: PufferfishSetup, claim):
    names = st.params
    vals = st.values
    if vals.rational:
        if not names:
            r = poly_eval(num, ()) / poly_eval(den, ())
            return fmt_q(r), ln_text(r), r
        num, den = poly_cancel(num, den, names)
        if len(den) == 1 and len(num) == 1 and list(num)[0] == list(den)[0]:
            r = list(num.values())[0] / list(den.values())[0]
            return fmt_q(r), ln_text(r) + " (for every parameter value)", r
        text = ratio_text(num, den, names)
        if len(names) == 1:
            return text, *sup_univariate_ratio(num, den, claim.parameter_ranges[names[0]])
        return text, "(several parameters: not maximised)", None
    if not names:
        r = ExpFrac.of(poly_eval(num, ())) / ExpFrac.of(poly_eval(den, ()))
        return str(r), loss_expr(r), None
    return "(a function of the parameters and eps)", "(not maximised)", None


def sup_univariate_ratio(num: dict, den: dict, rng):
    """sup of N(p)/D(p) on the range: exact when it is the value (or limit) at an end, decided
    by certified root isolation; otherwise an enclosure by bisection on the bound.

    1 + p - p^2 peaks inside (0, 1), at 5/4; 1/p is unbounded there; (2 + 3p)/(1 + p) is largest at p = 1:

    >>> unit = (Fraction(0), Fraction(1), False, False)
    >>> sup_univariate_ratio({(0,): Fraction(1), (1,): Fraction(1), (2,): Fraction(-1)}, {(0,): Fraction(1)}, unit)[0]
    'ln(r) with r in [1.25, 1.250000001]'
    >>> sup_univariate_ratio({(0,): Fraction(1)}, {(1,): Fraction(1)}, unit)
    ('unbounded on the parameter range', None)
    >>> sup_univariate_ratio({(0,): Fraction(2), (1,): Fraction(3)}, {(0,): Fraction(1), (1,): Fraction(1)}, unit)
    ('ln(5/2) (sup at an end of the parameter range)', Fraction(5, 2))
    """
    lo, hi, _, _ = rng
    if poly_eval(den, ((lo + hi) / 2,)) < 0:
        num, den = poly_scale(num, Fraction(-1)), poly_scale(den, Fraction(-1))

    def val(x):
        d = poly_eval(den, (x,))
        return poly_eval(num, (x,)) / d if d != 0 else None

    def bounds(k) -> bool:      # k bounds the ratio: k * den - num >= 0 on the closed range, decided exactly
        G = poly_add(poly_scale(den, k), poly_scale(num, Fraction(-1)))
        return decide_univariate(G, (lo, hi, True, True)) is None

    ends = [v for v in (val(lo), val(hi)) if v is not None]
    if ends and bounds(max(ends)):
        return f"{ln_text(max(ends))} (sup at an end of the parameter range)", max(ends)
    # interior: bisection with exact univariate decisions, from a bound found by doubling
    samples = [lo + (hi - lo) * Fraction(i, 64) for i in range(1, 64)]
    lo_k = max(v for v in (val(x) for x in samples) if v is not None)
    hi_k = lo_k * 2
    for _ in range(201):
        if bounds(hi_k):
            break
        hi_k *= 2
    else:
        return "unbounded on the parameter range", None
    for _ in range(40):
        mid = (lo_k + hi_k) / 2
        if bounds(mid):
            hi_k = mid
        else:
            lo_k = mid
    return f"ln(r) with r in [{decimal_down(lo_k, 10)}, {decimal_up(hi_k, 10)}]", hi_k
