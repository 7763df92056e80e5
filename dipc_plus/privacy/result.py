"""The one result of a privacy claim, whichever scope decided it.

Why it exists: each scope is decided by its own engine (the pairs of a grid or list, a box, every
value of a real output, every length m, a Pufferfish claim), and each engine returns its own data.
The CLI, the API and the sweep read a verdict through this one type: the verdict, the scope that
decided it, the re-checked counterexample (for every length, the exact check at the first failing
m), and the text and JSON, which the part's data fill in.  A tight loss (`privacy-loss`) is a result
too: its part is the loss, with the Pufferfish adversaries (`attacks`) after it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dipc_plus.execution.executor import Source

STRICT_ROUTES = ("pairs", "pufferfish")      # the scopes whose verified verdicts --strict may qualify


@dataclass
class PrivacyResult:
    """The verdict of one privacy claim: the claim, the scope that decided it (`route`: "pairs", "box",
    "every value", "every length" or "pufferfish"), that scope's data (`part`: counts, bounds, losses
    and limits, and its own lines of text and JSON), how workers rebuilt the claim (`source`; a
    shard's part names it) and, for a Pufferfish loss with --attack, the Bayes-optimal adversaries
    (`attacks`), printed after the part."""
    claim: Any
    route: str
    part: Any
    source: Source | None = None
    attacks: list | None = None

    @property
    def verdict(self) -> str:
        return str(self.part.verdict)

    @property
    def vacuous(self) -> bool:
        return bool(getattr(self.part, "vacuous", False))

    @property
    def scope(self) -> Any:
        """The part's `Scope` (None for every length, whose scope is every m)."""
        return getattr(self.part, "scope", None)

    @property
    def strict_applies(self) -> bool:
        """True when --strict may turn a verified verdict into exit 4 (vacuous, or on named events only)."""
        return self.route in STRICT_ROUTES

    def at_length(self) -> Any:
        """Every length: the exact check of the pairs at the first m where the claim fails, or None."""
        cex = self.part.counterexample if self.route == "every length" else None
        return None if cex is None else cex[1]

    @property
    def counterexample(self) -> Any:
        """The re-checked counterexample (of the check at the failing m for every length), or None."""
        at_m = self.at_length()
        return at_m.counterexample if at_m is not None else self.part.counterexample

    def report(self) -> str:
        at_m = self.at_length()
        text = "\n".join([self.part.report()] + ([] if at_m is None else [at_m.report()]))
        return "\n\n".join([text] + [a.report() for a in self.attacks or []])

    def to_json(self, mode: dict | None = None) -> dict:
        """The part's JSON; `mode` ({"mode": "reference"} or nothing) goes before an every-length
        counterexample, where the command has always printed it."""
        out = {**self.part.to_json(), **(mode or {})}
        at_m = self.at_length()
        if at_m is not None:
            out["counterexample"] = at_m.to_json()
        if self.attacks is not None:
            out["attack"] = [a.to_json() for a in self.attacks]
        return out


class SettledPart:
    """A part whose verdict is verified or refuted, never undecided (the pairs of a grid or list, a
    Pufferfish claim): its `verified` flag says which."""
    verified: bool

    @property
    def verdict(self) -> str:
        return "verified" if self.verified else "refuted"


def claim_lines(claim) -> list[str]:
    """The opening lines of a settled part's report: the claim in words and its note."""
    return [f"claim:  {claim.describe()}"] + ([f"note:   {claim.note}"] if claim.note else [])


def settled_lines(part, vacuous_reason: str, holds: str, refuted: str) -> list[str]:
    """The closing lines of a verified-or-refuted part (the pairs of a grid or list, a Pufferfish
    claim): what holds on its scope (or why it holds vacuously), or `refuted` and the re-checked
    counterexample; then what the scope covers."""
    scope = part.scope
    if not part.verified:
        lines = [refuted] + part.counterexample.lines(part.claim)
    else:
        lines = [scope.vacuously(vacuous_reason) if part.vacuous else scope.verified(holds)]
    return lines + [scope.coverage()]
