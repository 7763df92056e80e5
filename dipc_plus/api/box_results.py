"""The API's results for box claims: every real input of a box, decided by the corner reduction.

Why it exists: a box claim (``[accuracy.inputs] box = {...}``) is not a list of inputs, so its
verdict is not per input but per det region of the box (`accuracy.box`), and its sweep reports
kappa* per region (`accuracy.box_sweep`).  These objects give those results the faces of the
grid reports (`verdict`, `verified`, the re-checked `counterexample`, `to_json()` identical to
``dipc accuracy --json`` / ``dipc sweep --json``, a readable `repr` and the command's text as
`str`) plus what only a box has: `regions` (one `RegionVerdict` per det region and gamma) and,
for the sweep, `region_kappa_stars`.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from dipc_plus.api.results import AccuracyReport, Report, SweepReport
from dipc_plus.api.views import KappaStar, RawView, env_repr, grouped
from dipc_plus.exact.convert import fmt_q
from dipc_plus.semantics.values import plain_number
from dipc_plus.errors import UserError

class RegionView(RawView):
    """What both region views read: `region` (the inequalities that bound it), `det` grouped, and the
    region's JSON (which needs the program to group its inputs).

    >>> import dipc_plus
    >>> r = dipc_plus.check_accuracy(dipc_plus.example("theories/sparse_box.toml"))
    >>> r.regions[0].region, r.regions[0].to_json() == r.to_json()["regions"][0]
    ('q[1] >= 0 and q[2] < 0 and q[3] < 0', True)
    """

    RENAMED, GROUPED = {"region": "condition"}, ("det",)

    def to_json(self) -> dict:
        return dict(self.raw.to_json(self._program))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.region}: det {env_repr(self.det, ',')}, {self.what()})"


class RegionVerdict(RegionView):
    """The verdict on one det region of the box (and one gamma): `region` (the inequalities that
    bound it), `det` (the noise-free output there, grouped), `gamma`, `verdict` (``'verified'``,
    ``'refuted'``, ``'undecided'`` or ``'not applicable'``), `method` (how it was decided), `share`
    (its share of the box's volume, a Fraction, or None when the region is not a box), `reason`.

    >>> import dipc_plus
    >>> r = dipc_plus.check_accuracy(dipc_plus.example("theories/sparse_box.toml"))
    >>> r.regions[0]
    RegionVerdict(q[1] >= 0 and q[2] < 0 and q[3] < 0: det out=[top,bot,bot], share 1/8, verified by corner (homogeneous))
    """

    SAME = ("gamma", "verdict", "method", "share", "reason")

    def what(self) -> str:
        """What the repr says after the region's det output."""
        share = "?" if self.share is None else str(self.share)
        return f"share {share}, {self.verdict} by {self.method}" + (f": {self.reason}" if self.reason else "")


class BoxReport(AccuracyReport):
    """`check_accuracy` on a box claim: the verdict over every real input of the box, by det region.

    `verdict` is ``'verified'``, ``'refuted'`` (with a `counterexample`: a point of the box, found on
    a corner path and re-checked by the per-point path and an independent certified evaluation) or
    ``'undecided'`` (`verified` is then None: the regions marked undecided are neither proved nor
    refuted).  `regions` lists a `RegionVerdict` per det region.

    Threshold at 1/2 holds at every integer input of [-2, 2] but fails between them:

    >>> import dipc_plus
    >>> r = dipc_plus.check_accuracy(dipc_plus.example("theories/threshold_half_box.toml"))
    >>> r
    <BoxReport accuracy of threshold_half on the box q in [-2, 2]: refuted at q=5/8, eps = 1>
    >>> r.verified, r.counterexample.input, r.counterexample.eps
    (False, {'q': Fraction(5, 8)}, Fraction(1, 1))
    """

    @property
    def regions(self) -> list[RegionVerdict]:
        return [RegionVerdict(r, self.program) for r in self.result.regions]

    @property
    def undecided_share(self) -> Fraction | None:
        """The undecided regions' share of the box (0 when decided; None: a region that is not a box)."""
        return self.result.undecided_share()     # a Fraction: the regions' shares are (accuracy.result.RegionResult)

    html_scope = " on a box"

    def scope(self) -> str:
        return " on the box " + box_text(self.result.claim)

    def html_rows(self) -> list[tuple[str, object]]:
        return [*Report.html_rows(self), *((v.region, f"{v.verdict} ({v.method})") for v in self.regions)]

    def plot_input(self, input: dict | None = None) -> dict:
        """The input a plot shows: the one given, else the counterexample's."""
        if input is None and self.result.counterexample is None:
            raise UserError("a box claim has no input to plot by default (no counterexample)",
                            hint="give one: plot(input={'q': [...]})")
        return super().plot_input(input)


def box_text(claim: Any) -> str:
    """The box by array, as a report's summary says it (``q in [-1, 1]`` when every q[i] has those bounds,
    else the lists of lower and upper ends).

    >>> import dipc_plus
    >>> box_text(dipc_plus.check_accuracy(dipc_plus.example("theories/sparse_box.toml")).result.claim)
    'q in [-1, 1]'
    """
    parts = []
    for name, value in grouped(claim.program, claim.points.bounds).items():
        pairs = value if isinstance(value, list) else [value]       # (lo, hi) per element of an array
        if len(set(pairs)) == 1:
            lo, hi = fmt_q(pairs[0][0]), fmt_q(pairs[0][1])
        else:
            lo, hi = str([plain_number(lo) for lo, _ in pairs]), str([plain_number(hi) for _, hi in pairs])
        parts.append(f"{name} in [{lo}, {hi}]")
    return ", ".join(parts)


class RegionKappaStar(RegionView):
    """kappa* of one det region of a box sweep: `region`, `det` (grouped), `gamma`, `kappa_star`
    (a `KappaStar`), `box_infimum` (True: the region's infimum over the box; False: a lower bound).

    >>> import dipc_plus
    >>> s = dipc_plus.sweep(dipc_plus.example("theories/sparse_box.toml"))
    >>> least = s.region_kappa_stars[0]        # least first: the box's kappa* is the least region's
    >>> least.kappa_star.text == s.kappa_star.text, least.box_infimum
    (True, True)
    """

    SAME = ("gamma", "box_infimum")

    @property
    def kappa_star(self) -> KappaStar:
        return KappaStar(self.raw.star, self._program)

    def what(self) -> str:
        return f"kappa* = {self.kappa_star.text}" + ("" if self.box_infimum else " (a lower bound)")


class BoxSweepReport(SweepReport):
    """`sweep` on a box claim: the best kappa over every real input of the box, kappa* and per region.

    `best_kappa` is None when a region is undecided at some kappa (`undecided_regions` says which);
    `kappa_star` is None when it was not computed (`kappa_star_note` says why); `verified` is the
    verdict of the claim itself (kappa = 1); `counterexample` refutes beta/(best kappa + 1) at a point
    of the box.

    >>> import dipc_plus
    >>> s = dipc_plus.sweep(dipc_plus.example("theories/threshold_half_box.toml"))
    >>> s.best_kappa, s.kappa_star.text[:3], s.counterexample.kappa
    (0, '0.8', 1)
    """

    checked = "box sweep"

    @property
    def kappa_star_is_box_infimum(self) -> bool:
        """True when kappa* is the infimum over the box, False when a lower bound on it."""
        return bool(self.result.star_is_box_inf)

    @property
    def kappa_star_note(self) -> str:
        return str(self.result.star_note)

    @property
    def region_kappa_stars(self) -> list[RegionKappaStar]:
        """kappa* per det region, least first."""
        return [RegionKappaStar(r, self.program) for r in self.result.region_stars]

    @property
    def undecided_regions(self) -> list[RegionVerdict]:
        run = self.result.undecided
        return [] if run is None else [RegionVerdict(r, self.program) for r in run.regions
                                       if r.verdict == "undecided"]

    def plot(self, **_: Any) -> Any:
        """A box sweep draws no curve: kappa* is over the regions of the box, not at one input."""
        raise UserError("a box sweep has no plot", hint="plot one input: check_accuracy(claim, input={...}).plot()")

    def html_rows(self) -> list[tuple[str, object]]:
        return [*super().html_rows(), *((f"kappa* on {s.region}", s.kappa_star.text) for s in self.region_kappa_stars)]

    def html_detail(self) -> str:
        return self.text
