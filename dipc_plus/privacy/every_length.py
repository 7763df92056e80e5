"""Privacy for every number of queries: the verdict of `dipc privacy --every-length`.

Why: a verdict for every m is only given from an argument that is implemented and
tested.  `classify` recognises the online class (`online_automaton`) and bounds its
loss (`online_bound`); `decide_every_length` puts that beside the exact engine's tight
losses at m = 1..k, re-checks a counterexample at a concrete m when the claim fails,
and says "cannot decide" outside the class - never a guess (docs/every_length.md).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from dipc_plus.errors import UserError
from dipc_plus.privacy.online_automaton import Automaton, OutsideClass, array_size_param, recognise
from dipc_plus.privacy.online_bound import Bound, coupling_bound, leaks


# --------------------------------------------------------------------------- the verdict


def wants_every_length(claim_path: str) -> bool:
    """`length = "every"` in the claim's [privacy] table (read here, not by the claim reader)."""
    import tomllib
    try:
        raw = tomllib.loads(Path(claim_path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    v = raw.get("privacy", {}).get("length") if isinstance(raw.get("privacy"), dict) else None
    if v is not None and v != "every":
        raise UserError(f"privacy.length must be \"every\", not {v!r}", file=claim_path,
                        hint='write length = "every" or remove the key')
    return v == "every"


@dataclass
class EveryLengthResult:
    verdict: str                 # 'verified' | 'refuted' | 'not private for any constant'
    automaton: Automaton
    d: Fraction | None
    patterns: list
    class_seconds: float
    losses: list = field(default_factory=list)   # (m, sup L/eps text, value or None)
    counterexample: object = None                # a PrivacyResult at a concrete m
    budget_k: Fraction | None = None

    def to_json(self) -> dict:
        a = self.automaton
        return {"verdict": self.verdict, "scope": "every m >= 1", "d": None if self.d is None else str(self.d),
                "budget": None if self.budget_k is None else str(self.budget_k),
                "loop": a.loop_pos, "control_states": len(a.states()), "steps": len(a.steps),
                "class_check_ms": round(self.class_seconds * 1000, 3), "patterns": self.patterns,
                "losses": [{"m": m, "sup_loss_over_eps": t} for m, t, _ in self.losses],
                "counterexample_m": None if self.counterexample is None else self.counterexample[0]}

    def report(self) -> str:
        a = self.automaton
        lines = [f"every-length: the loop at {a.loop_pos} is an online automaton "
                 f"({len(a.states())} control state(s), {len(a.steps)} step(s)); class check {self.class_seconds*1000:.1f} ms"]
        if self.d is not None:
            lines.append(f"coupling bound: d = {self.d}  (every m: P[P(q)=w] <= e^(d*eps) P[P(q')=w], "
                         "||q-q'||_inf <= 1)")
        for p in self.patterns:
            lines.append(f"pattern: {p}")
        for m, text, _ in self.losses:
            lines.append(f"  m = {m}: exact tight sup L(eps)/eps = {text}")
        if self.verdict == "verified":
            lines.append(f"VERIFIED for every m: the claimed budget {self.budget_k}*eps >= d*eps")
        elif self.verdict == "refuted" and self.counterexample is not None:
            lines.append(f"REFUTED at m = {self.counterexample[0]} (the exact engine's counterexample below)")
        elif self.verdict == "refuted":
            lines.append(f"REFUTED for every m large enough: the claimed {self.budget_k}*eps is below d = {self.d}; "
                         "no counterexample found at the m tried")
        else:
            lines.append("REFUTED for every constant: the program is d*eps-DP for no d "
                         "(the loss grows with m, above)")
        return "\n".join(lines)


def classify(program) -> tuple[Automaton, Bound, list, float]:
    """Recognise, bound and look for leaks; raises UserError (exit 2) outside the class."""
    t0 = time.perf_counter()
    try:
        auto = recognise(program.source, dict(program.params))
    except OutsideClass as err:
        raise UserError(f"cannot decide privacy for every m: {err.why}",
                        file=err.where.rsplit(":", 1)[0] if err.where else program.source,
                        line=int(err.where.rsplit(":", 1)[1]) if err.where else None,
                        hint="the every-length decision covers online programs: one loop reading q[i] once "
                             "with Laplace noise k*eps, a noisy threshold, finite counters "
                             "(docs/every_length.md); run without --every-length for one m") from None
    bound = coupling_bound(auto)
    pats = leaks(auto) if bound.d is None else []
    return auto, bound, pats, time.perf_counter() - t0


def decide_every_length(claim, claim_path: str, overrides: dict, lengths=(1, 2, 3)) -> EveryLengthResult:
    """The every-length verdict for a DP claim whose program is online."""
    from dipc_plus.privacy.claim_reader import load_privacy_claim
    from dipc_plus.privacy.dp_check import check_dp
    from dipc_plus.privacy.loss import privacy_loss
    if claim.kind != "dp":
        raise UserError("--every-length decides differential privacy, not Pufferfish", file=claim_path)
    adj = claim.adjacency
    if adj.kind != "linf":
        raise UserError(f"cannot decide privacy for every m with adjacency \"{adj.kind}\"", file=claim_path,
                        hint='the every-length class uses adjacency = "linf" (each |q[i]-q\'[i]| <= bound)')
    auto, bound, pats, secs = classify(claim.program)
    k = claim.budget.k if claim.budget.factor == 1 and claim.delta_is_zero else None
    if k is None:
        raise UserError("cannot decide privacy for every m: the budget must be a multiple of eps",
                        file=claim_path, hint='budget = "eps" or "2*eps"')
    scale = adj.bound
    d = None if bound.d is None else bound.d * scale
    res = EveryLengthResult("", auto, d, pats, secs, budget_k=k)
    mname = array_size_param(claim.program)

    def at(m):
        ov = dict(overrides)
        ov[mname] = m
        return load_privacy_claim(claim_path, ov)

    if d is not None and d <= k:
        res.verdict = "verified"
        return res
    if d is None and not pats:
        raise UserError("cannot decide privacy for every m: the coupling bound is infinite but no pattern of "
                        "non-privacy was found", file=claim_path,
                        hint="decide one m at a time without --every-length")
    for m in lengths:
        c = at(m)
        r = check_dp(c)
        if not r.verified:
            res.counterexample = (m, r)
            break
    if d is None:
        for m in lengths:
            lr = privacy_loss(at(m))
            s = lr.sup
            res.losses.append((m, "inf" if lr.infinite is not None else (s.text() if s else lr.loss_text()),
                               None if s is None or s.value is None else s.value))
        res.verdict = "not private for any constant"
    else:
        res.verdict = "refuted"
    return res
