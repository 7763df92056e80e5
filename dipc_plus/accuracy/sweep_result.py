"""The one result of a kappa sweep (`SweepResult`), over a grid or list of inputs or over a box,
with its text and JSON.

Why one type: the sweep's answer - the claim itself, best kappa, kappa*, the counterexample for
best kappa + 1, why it is vacuous - is the same on every scope; its `base` (an
`accuracy.result.AccuracyResult`, kappa = 1) says which scope it is, and a box adds only the
search it ran and kappa* per det region.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dipc_plus.accuracy.report import UNDECIDED, Counterexample, env_text, fmt_q
from dipc_plus.accuracy.result import AccuracyResult
from dipc_plus.accuracy.vacuity import Vacuity, sweep_vacuity


@dataclass
class SweepResult:
    """best kappa (the largest with beta/kappa verified), kappa* = inf beta/P[error] and the
    re-checked counterexample for best kappa + 1, over the scope of `base`.  On a box, also the
    search's runs (`searched`), kappa* per det region (`region_stars`, least first) and, when a
    run had an undecided region, that run (`undecided`; best kappa is then None)."""
    base: AccuracyResult | None                     # the claim itself (kappa = 1)
    kappa_max: int
    best_kappa: int | None = None                   # None: a box sweep undecided at some kappa
    capped: bool = False                            # best_kappa hit kappa_max (kappa_max + 1 may hold too)
    counterexample: Counterexample | None = None    # for best_kappa + 1
    kappa_star: object = None                       # accuracy.sweep.KappaStar; None: not computed (box)
    confirmed: AccuracyResult | None = None         # grid: every obligation at best_kappa decided again
    star_note: str = ""                             # box: why kappa* was not computed
    star_is_box_inf: bool = False                   # box: kappa* is the infimum over the box (not a bound)
    region_stars: list = field(default_factory=list)   # box: accuracy.box_sweep.RegionStar, least first
    searched: list = field(default_factory=list)       # box: (kappa, verdict) of each run
    undecided: AccuracyResult | None = None         # box: the run with an undecided region
    seconds: float = 0.0

    @property
    def vacuity(self) -> Vacuity | None:
        """Why no kappa fails (accuracy.vacuity.Vacuity), or None when one does."""
        return sweep_vacuity(self)

    def to_json(self, full: bool = False) -> dict:
        """The sweep's JSON: the claim's own (`full`: with every input's report; a box has none) and
        the sweep's fields."""
        out = self.base.to_json(full=full)
        if not full:
            out.pop("reports", None)
        star, box, program = self.kappa_star, self.base.on_a_box, self.base.claim.program
        out.update({"best_kappa": self.best_kappa, "best_kappa_capped": self.capped, "kappa_max": self.kappa_max,
                    "kappa_star": None if star is None else star.text, "kappa_star_detail": self.star_json()})
        if box:
            out.update({"kappa_star_note": self.star_note or None,
                        "region_kappa_star": [r.to_json(program) for r in self.region_stars]})
        out.update({"counterexample": None if self.counterexample is None else self.counterexample.to_json(),
                    "claim_counterexample": (None if self.base.counterexample is None else
                                             self.base.counterexample.to_json())})
        if box:
            undecided = self.undecided
            out.update({"search": [{"kappa": k, "verdict": v} for k, v in self.searched],
                        "undecided_kappa": None if undecided is None else undecided.kappa,
                        "undecided_regions": ([] if undecided is None else
                                              [r.to_json(program) for r in undecided.regions
                                               if r.verdict == UNDECIDED])})
        out.update({"vacuity": None if self.vacuity is None else self.vacuity.to_json(),
                    "seconds": round(self.seconds, 3)})
        return out

    def star_json(self) -> dict | None:
        """kappa* with where it is reached (on a box: the corner sentence's piece, and whether it is
        the box's infimum)."""
        star = self.kappa_star
        if star is None:
            return None
        if not self.base.on_a_box:
            return star.to_json()
        out = {**star.to_json(), "box_infimum": self.star_is_box_inf}
        if star.at is not None:
            out["at"]["piece"] = star.at.report.to_json()
        return out

    def report(self) -> str:
        """The command's text report."""
        lines = self.box_head() if self.base.on_a_box else self.grid_head()
        if self.best_kappa is None:
            return "\n".join(lines)
        lines += self.box_stars() if self.base.on_a_box else self.grid_star()
        lines += self.best_lines()
        lines.append(self.base.scope.coverage())
        lines.append(f"{self.seconds:.2f} s")
        return "\n".join(lines)

    def grid_head(self) -> list[str]:
        acc = self.base
        return [f"claim: {acc.claim.describe()}",
                f"checked {acc.tally.inputs} input(s): {acc.tally.applicable} obligation(s) apply; "
                f"the claim itself is {acc.verdict}" + (" (vacuously)" if acc.vacuous else "") + f" {acc.scope.summary()}",
                "every number below is over these inputs only"]

    def grid_star(self) -> list[str]:
        star = self.kappa_star
        if star.infinite:
            return ["kappa* is unbounded: P[error] is 0 wherever the claim applies"]
        at = star.at
        return [f"kappa* (the infimum of beta/P[error]) = {star.value_text()}",
                f"  at {env_text(at.report.program, at.report.input)}, alpha = "
                f"{fmt_q(at.report.alpha)}, gamma = {fmt_q(at.report.gamma)}: {at.where()}"
                + (f"; {star.ties} other (input, eps) reach the same value to this precision" if star.ties else "")]

    def box_head(self) -> list[str]:
        """The box sweep's first lines; the whole report when a run was undecided."""
        from dipc_plus.accuracy.argmax_box import METHOD as ARGMAX_METHOD
        from dipc_plus.accuracy.box import REFERENCE_METHOD
        base = self.base
        method = {ARGMAX_METHOD: "the argmax worst point", REFERENCE_METHOD: "no reduction (reference mode)"}.get(
            base.method, "the corner reduction")
        lines = [f"claim: {base.claim.describe()}",
                 f"every real input of the box with dd(u) > alpha (Definition 2), decided by {method}; "
                 f"the claim itself is {base.verdict.upper()}{' (vacuously)' if base.vacuous else ''} "
                 f"{base.scope.summary()}",
                 "search: " + ", ".join(f"beta/{k} {v}" for k, v in self.searched)]
        if self.best_kappa is None:
            lines.append(f"UNDECIDED: with beta/{self.undecided.kappa} these regions are neither proved nor refuted, "
                         "so the best kappa over the box is not known:")
            lines += ["  " + r.line(base.claim.program) for r in self.undecided.regions if r.verdict == UNDECIDED]
            lines.append(base.scope.coverage())
        return lines

    def box_stars(self) -> list[str]:
        """kappa* over the box, where it is reached, and per det region."""
        star, program, lines = self.kappa_star, self.base.claim.program, []
        if star is None:
            lines.append(self.star_note)
        elif star.infinite:
            lines.append("kappa* is unbounded: " + ("the claim applies to no input of the box" if self.base.vacuous else
                                                    "P[error] is 0 wherever the claim applies in the box"))
        else:
            what = ("the infimum over the box of beta/P[error]" if self.star_is_box_inf else
                    "the infimum of beta/P[error] over the corner sentences, a lower bound on the box's")
            lines.append(f"kappa* ({what}) = {star.value_text()}")
            lines.append(star.at.report.place_line(star.at.where()))
        if len(self.region_stars) > 1:
            lines.append("kappa* per det region (least first):")
            lines += ["  " + r.line(program) for r in self.region_stars]
        return lines

    def best_lines(self) -> list[str]:
        """best kappa and the counterexample for best kappa + 1."""
        best, box = self.best_kappa, self.base.on_a_box
        what = "box claim" if box else "claim"
        if self.capped:
            held = ("no kappa fails" if self.base.vacuous else f"beta/{best} is verified on the box") if box \
                else f"beta/{best} holds"
            return [f"best kappa >= {best} (--kappa-max): {held}"]
        where = " at a point of the box (re-checked by the per-point path)" if box else ""
        return [f"best kappa = {best}: the {what} holds with beta/{best}" if best >= 1 else
                f"best kappa = 0: the {what} fails even with beta itself",
                f"with beta/{best + 1} it fails{where}:",
                "  " + self.counterexample.describe().replace("\n", "\n  ")]
