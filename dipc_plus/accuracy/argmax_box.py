"""Box accuracy claims for Report Noisy Max, by its worst point (issue 28).

The det regions of an argmax are cones, not boxes, so the corner reduction (`accuracy.box`)
cannot apply; for an argmax of iid noises of a continuous scale family the worst input at distance d is the
point w_i(d) = (q_i = hi, q_j = hi - 2d), proved here from the recognised program (each
condition a named check, `NotReducible` when one fails).  An output that relabels the index
one-to-one (`semantics.argmax`: numpy's 0-based argmax in a translated Python function) is the
same program up to the names of its outputs: region i is the output value `shape.label(i)`.
Design: docs/design/box_accuracy.md.
"""
from __future__ import annotations

import time
from fractions import Fraction

from dipc_plus.accuracy.box_reduction import (NOT_APPLICABLE, SEARCH, UNDECIDED, VERIFIED,
                                           beta_alpha_check, beta_bound, closure_verdict, gammas_of, homogeneous_sentence,
                                           refuse_paper, search, within_one, x_interval)
from dipc_plus.accuracy.result import BOX, AccuracyResult, RegionResult
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.monotone import NotReducible as MonotoneNotReducible
from dipc_plus.accuracy.report import REFUTED, env_text
from dipc_plus.claims.accuracy_claim import AccuracyClaim
from dipc_plus.claims.distances import LinfInput, NoisyMaxOutput, ZeroOneOutput
from dipc_plus.decision.decide import decide
from dipc_plus.exact import noises
from dipc_plus.exact.convert import fmt_q
from dipc_plus.semantics.argmax import ArgmaxShape, recognise

METHOD = "argmax worst point"


class NotReducible(MonotoneNotReducible):
    """A precondition of the worst point that could not be proved: `check` names it."""

    reduction = "argmax worst point"


def selects(claim: AccuracyClaim) -> bool:
    """Whether this reduction is the one for the claim: its program is an argmax of noisy reads
    (`semantics.argmax`, at least two).  Its preconditions are then checked by `ArgmaxBox`,
    which refuses by name what it does not cover."""
    shape = recognise(claim.program)
    return shape is not None and len(shape.samples) >= 2


# --------------------------------------------------------------------------- the preconditions


def score_inputs(shape: ArgmaxShape) -> tuple[list, str]:
    """([q_1, ..., q_m], the title of the noise they share): the input each sample reads as its whole
    mean, the samples iid (`iid_noise_check`, proved once here); NotReducible otherwise."""
    if shape.minimum:
        raise NotReducible("argmax-shape", "the program is an argmin; the worst point is proved for argmax",
                           hint="write the claim for argmax (negate the queries)")
    noise = iid_noise_check(shape)
    names = []
    for k, (_, _, mean) in enumerate(shape.samples, start=1):
        terms = [(Fraction(c.value), v) for c, v in mean.terms]
        if len(terms) != 1 or terms[0][0] != 1 or Fraction(mean.const.value) != 0:
            raise NotReducible("argmax-shape", f"sample {k}'s mean is not exactly one input (coefficient 1, "
                               "no constant)", hint="the worst point is proved for out = argmax_k (q_k + N_k)")
        names.append(terms[0][1])
    if len(set(names)) != len(names):
        raise NotReducible("argmax-shape", "two samples read the same input", hint="one input per sample")
    return names, noise


def iid_noise_check(shape: ArgmaxShape) -> str:
    """The title of the one noise law every sample draws from; NotReducible naming what is missing:
    a noise that is not a continuous scale family (the registry's stated fact), or two kinds or
    two rates (not identically distributed)."""
    for kind, _, _ in shape.samples:
        spec = noises.by_kind(kind)
        if not spec.continuous_scale_family:
            raise NotReducible("argmax-shape", f"the {spec.title} noise is not a continuous scale family "
                               "(NoiseSpec.continuous_scale_family): ties may have positive probability and "
                               "P[error] at the worst point is not a function of eps*d",
                               hint="the worst point is proved for noises Y/(a*eps) with Y of one law with a density")
    drawn = {kind for kind, _, _ in shape.samples}
    kinds = [spec.kind for spec in noises.all_noises() if spec.kind in drawn]   # in the registry's order
    if len(kinds) != 1:
        titles = " and ".join(noises.by_kind(k).title for k in kinds)
        raise NotReducible("argmax-shape", f"the samples draw different noises ({titles}): not identically "
                           "distributed, so P[out = i] at the worst point would depend on i",
                           hint="draw every score's noise from one distribution")
    rates = sorted({Fraction(rate) for _, rate, _ in shape.samples})
    if len(rates) != 1:
        shown = " and ".join("eps" if r == 1 else f"{fmt_q(r)}*eps" for r in rates)
        raise NotReducible("argmax-shape", f"the samples' noises have different rates ({shown}): not identically "
                           "distributed, so P[out = i] at the worst point would depend on i",
                           hint="give every score's noise one rate")
    return noises.by_kind(kinds[0]).title


def claim_checks(claim: AccuracyClaim, shape: ArgmaxShape, scores: list, noise: str,
                 boundary: bool) -> tuple[list, Fraction, Fraction]:
    """(checks proved, lo, hi) for the claim-wide preconditions (`noise`: the iid noise `score_inputs`
    proved); NotReducible naming the first that fails."""
    refuse_paper(boundary, NotReducible)
    relabel = (f"; {shape.output} shows index k as its label, one-to-one ("
               + ", ".join(f"{k} -> {shape.label(k)}" for k in range(1, len(scores) + 1)) + ")"
               if shape.relabelled else "")
    checks = [("argmax-shape", f"out = argmax of q_k + N_k, k = 1..{len(scores)}, the N_k iid "
               f"{noise}, a continuous scale family (semantics.argmax, exact/noises){relabel}")]
    od = claim.output_distance
    if isinstance(od, NoisyMaxOutput):
        if list(od.scores) != scores or od.index != shape.output or \
                any(od.index_of(shape.label(i)) != i for i in range(1, len(scores) + 1)):
            raise NotReducible("output-distance", "the noisy-max scores are not the inputs the samples read, "
                               "in their order", file=claim.file, hint="scores = the queries of the argmax")
        if any(g != 0 for g in gammas_of(claim)):
            raise NotReducible("output-distance", "noisy-max with gamma != 0: an error is then not "
                               "'out != argmax q'", file=claim.file, hint="gamma = 0")
        checks.append(("output-distance", "noisy-max at gamma = 0: an error is q_out != max q"))
    elif isinstance(od, ZeroOneOutput):
        checks.append(("output-distance", "zero-one: for gamma < 1 an error is out != det(q)"))
    else:
        raise NotReducible("output-distance", f"the output distance is {od.name}", file=claim.file,
                           hint='use output_distance = "noisy-max" (gamma = 0) or "zero-one"')
    if not isinstance(claim.input_distance, LinfInput) or claim.det != "noise-free" or claim.dd_over != "reals":
        raise NotReducible("box-region", "the worst point needs L-inf inputs, det the noise-free program and "
                           "dd over the reals", file=claim.file, hint='input_distance = "linf"')
    if set(claim.points.bounds) != set(scores):
        raise NotReducible("box-region", "the program has inputs that no sample reads", file=claim.file,
                           hint="the worst point is proved for programs whose inputs are the queries")
    ranges = {claim.points.bounds[n] for n in scores}
    if len(ranges) != 1:
        raise NotReducible("box-region", "the box does not give every query the same range: w_i(d) = "
                           "(hi, hi - 2d, ...) is not proved to be in it", file=claim.file,
                           hint="give one range for the query array, e.g. box = { q = [-1, 1] }")
    (lo, hi), = ranges
    checks.append(("box-region", "L-inf, dd over the reals; every query in one range: dd = min_j (q_i - q_j)/2 "
                   "on the region of i"))
    if claim.alpha == "dd":
        checks.append(beta_alpha_check(claim, NotReducible))
    return checks, lo, hi


# --------------------------------------------------------------------------- the decider


class ArgmaxBox:
    """The worst-point reduction of a NoisyMax box claim (see the module doc)."""

    def __init__(self, claim: AccuracyClaim, kappa: int = 1, max_states: int | None = None,
                 boundary: bool = False):
        self.claim, self.kappa, self.program = claim, kappa, claim.program
        shape = recognise(self.program)
        if shape is None or len(shape.samples) < 2:
            raise NotReducible("argmax-shape", "the program is not recognised as an argmax of two or more noisy "
                               "reads (semantics/argmax.py)", file=claim.file)
        self.scores, noise = score_inputs(shape)
        self.output, self.label = shape.output, shape.label
        self.checks, self.lo, self.hi = claim_checks(claim, shape, self.scores, noise, boundary)
        self.dmax = (self.hi - self.lo) / 2
        self.checker = AccuracyChecker(claim, max_states=max_states)   # None: its default

    def worst(self, d) -> dict:
        """w_1(d): q_1 = hi, every other query hi - 2d (region 1 stands for every region: the
        noises are iid, so P_err at w_i(d) does not depend on i)."""
        return {n: self.hi if k == 1 else self.hi - 2 * d for k, n in enumerate(self.scores, start=1)}

    def det_of(self, i: int) -> dict:
        """det on region i (q_i the first largest): the output value that reports index i."""
        return {self.output: self.label(i)}

    def condition(self, i: int) -> str:
        qi = self.scores[i - 1]
        parts = [f"{qi} {'>' if j < i else '>='} {n}" for j, n in enumerate(self.scores, start=1) if j != i]
        return " and ".join(parts)

    def run(self) -> AccuracyResult:
        start = time.perf_counter()
        result = AccuracyResult(self.claim, kappa=self.kappa, inputs_kind=BOX, checks=self.checks, method=METHOD,
                                method_note=" (accuracy/argmax_box.py)", sentence="")
        m = len(self.scores)
        for g in gammas_of(self.claim):
            t = time.perf_counter()
            verdict, method, reason, cex = self.decide(Fraction(g), result)
            seconds = time.perf_counter() - t
            for i in range(1, m + 1):   # one sentence for all: G does not depend on i (iid noises)
                result.regions.append(RegionResult(self.det_of(i), self.condition(i), Fraction(1, m), Fraction(g),
                                                   verdict, method, reason, seconds if i == 1 else 0.0))
            if cex is not None:
                result.found = cex
                break
        result.seconds = time.perf_counter() - start
        return result

    def sentence(self, gamma: Fraction):
        """Every region's one sentence at this gamma (also read as a ratio by `box_sweep.argmax_ratios`):
        (alpha, worst point, its P_err, the variable's range: x = eps*d at w(1) for alpha = "dd", eps at
        the closure point w(alpha) for a numeric alpha); None when the claim applies nowhere in the box."""
        alpha = self.claim.alpha
        if self.dmax == 0 or (alpha != "dd" and self.dmax <= alpha):
            return None
        at = Fraction(1) if alpha == "dd" else Fraction(alpha)
        u = self.worst(at)
        X = x_interval(self.claim.eps, Fraction(0), self.dmax) if alpha == "dd" else self.claim.eps
        return at, u, self.checker.p_error(u, gamma), X

    def decide(self, gamma: Fraction, result: AccuracyResult):
        """(verdict, method, reason, counterexample or None) for every region at this gamma."""
        if (trivial := within_one(self.claim, gamma)) is not None:
            return trivial
        numeric = self.claim.alpha != "dd"
        if (found := self.sentence(gamma)) is None:   # "dd": lo = hi, every input a tie with dd = 0
            return NOT_APPLICABLE, "dd <= alpha in the box" if numeric else "dd = 0 in the box", "", None
        alpha, u, p_err, X = found
        if numeric:   # every q with dd(q) > alpha has P_err(q) <= P_err(w(alpha)) (steps 2 and 4)
            method = f"{METHOD} (closure point)"
            holds = decide(beta_bound(self.claim, alpha, gamma, self.kappa) - p_err, ">=", X).holds
            return closure_verdict(holds, lambda: self.search(alpha), method, method, "w")
        if not self.claim.beta_of_alpha_eps(gamma):
            cex = self.search(Fraction(0))
            if cex is not None:
                return REFUTED, f"{METHOD} (search)", "", cex
            return UNDECIDED, METHOD, ("beta is not a function of alpha*eps: a sentence in (d, eps) remains; "
                                       f"no counterexample at {len(SEARCH)} rational d"), None
        method = f"{METHOD} (homogeneous)"
        result.sentence = (f"for every x = eps*d in {X}: P_err at eps = x, {env_text(self.program, u)} "
                           f"<= beta(alpha = 1, eps = x){'' if self.kappa == 1 else f'/{self.kappa}'}")
        cex = homogeneous_sentence(self.claim, p_err, gamma, self.kappa, Fraction(0), self.dmax, self.worst,
                                   self.checker,
                                   "the argmax worst-point sentence fails but no point w(d) of the box re-checks")
        return (VERIFIED, method, "", None) if cex is None else (REFUTED, method, "", cex)

    def search(self, d0: Fraction):
        return search(self.worst, d0, self.dmax, self.checker, self.kappa)
