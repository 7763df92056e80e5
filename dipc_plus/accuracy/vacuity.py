"""Why an accuracy answer says nothing, named by the claim field that made it so.

A claim that applies at none of its inputs is "verified" without one comparison, and a
sweep that finds no kappa that fails prints no counterexample: both are true and useless,
and a user who wrote `input_distance = "linf"` for a Laplace histogram should hear it,
not read exit 0.  `dipc accuracy` and `dipc sweep` exit with their own code for such an
answer (commands.common.EXIT_VACUOUS) and print the `Vacuity` made here: which field
of the claim (or option) made it vacuous, and what to change.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.exact.convert import fmt_q


@dataclass(frozen=True)
class Vacuity:
    """A vacuous answer: the field (or option) responsible, what happened, how to change it."""
    field: str
    reason: str
    hint: str

    def to_json(self) -> dict:
        return {"field": self.field, "reason": self.reason, "hint": self.hint}


def vacuity_basis(result, given_inputs: bool = False) -> dict:
    """The claim-level facts the vacuity of an accuracy result (accuracy.result.AccuracyResult)
    depends on, as JSON: a part of a sharded run carries them, so that `dipc merge` (which
    recounts the inputs and the largest dd from the parts' reports) names the same field as
    the whole run."""
    claim = result.claim
    return {"alpha": "dd" if claim.alpha == "dd" else fmt_q(claim.alpha), "boundary": bool(result.boundary),
            "input_distance": claim.input_distance.name, "dd_over": result.dd_over,
            "given_inputs": bool(given_inputs)}


def accuracy_vacuity(result, given_inputs: bool = False) -> Vacuity | None:
    """Why a verified accuracy result (accuracy.result.AccuracyResult) applies at no input; None when it
    applies somewhere (or is refuted).  `given_inputs`: the inputs were chosen (--input), not the claim's."""
    if not result.vacuous:
        return None
    return vacuity_from(vacuity_basis(result, given_inputs), result.tally.inputs, result.tally.dd_max)


def vacuity_from(basis: dict, inputs: int, dd_max) -> Vacuity:
    """The Vacuity of a run over `inputs` inputs, largest dd(u) `dd_max`, that applies at none of them."""
    alpha = basis["alpha"] if basis["alpha"] == "dd" else Fraction(basis["alpha"])
    dd_over = basis["dd_over"]
    if inputs == 0:
        return Vacuity("[accuracy.inputs]", "no input was checked",
                       "give inputs in [accuracy.inputs] (a grid, a list or a table) or with --input")
    relation = ">=" if basis["boundary"] else ">"
    where = "dd(u) > 0 (alpha = \"dd\")" if alpha == "dd" else f"dd(u) {relation} alpha = {fmt_q(alpha)}"
    if basis["given_inputs"]:
        what = "dd(u) = 0" if dd_max == 0 else f"dd(u) is at most {fmt_q(dd_max)}"
        return Vacuity("--input", f"{what} at the given input(s), and the claim applies only where {where}",
                       "choose an input where the claim applies (the claim's own inputs show which), or leave "
                       "out --input to check the claim's inputs")
    if dd_max == 0:
        grid = (", or take dd over the claim's grid (dd_over = \"grid\" in the claim, or --dd-over grid)"
                if dd_over == "reals" else "")
        return Vacuity(
            "input_distance",
            f"dd(u) = 0 at every one of the {inputs} input(s): under input_distance = "
            f"\"{basis['input_distance']}\" with dd over the {dd_over}, inputs arbitrarily close to each "
            f"input have another noise-free answer, so {where} holds nowhere",
            "use an input distance under which different inputs are apart, e.g. input_distance = \"zero-one\" "
            f"(as theories/laplace.toml does){grid}")
    paper = (", or --paper to include the inputs with dd(u) = alpha"
             if not basis["boundary"] and alpha != "dd" and dd_max == alpha else "")
    return Vacuity(
        "alpha",
        f"the largest dd(u) over these {inputs} input(s) is {fmt_q(dd_max)}, and the claim applies only "
        f"where {where}",
        f"lower alpha below {fmt_q(dd_max)}{paper}, or give inputs farther from a disagreement in "
        "[accuracy.inputs]")


def sweep_vacuity(res) -> Vacuity | None:
    """Why a sweep (accuracy.sweep_result.SweepResult) found no kappa that fails; None when it found one.
    A sweep over a box is about the box (no inputs to count): it says so in its own words."""
    box, star = res.base.on_a_box, res.kappa_star
    if box:
        if res.best_kappa is None or not res.capped:
            return None
        if res.base.vacuous:
            return Vacuity("alpha", "the claim applies to no input of the box (dd <= alpha on every region), "
                           "so beta/kappa holds for every kappa", "a smaller alpha, or a larger box")
    else:
        found = accuracy_vacuity(res.base, given_inputs=res.base.given_inputs)
        if found is not None or not res.capped:
            return found
    if star is not None and star.infinite:
        where = " in the box" if box else ""
        return Vacuity("gamma", f"P[error] is 0 for every eps wherever the claim applies{where}, so "
                       "beta/kappa holds for every kappa",
                       "check gamma and output_distance" if box else "the error event never happens: check gamma "
                       "and output_distance (a smaller gamma admits errors)")
    if box:
        # floor(lo), a lower bound on the best kappa also when kappa*'s enclosure straddles an integer
        at_least = "" if star is None else f" to at least {math.floor(star.lo)}"
        return Vacuity("--kappa-max", f"beta/{res.kappa_max} is verified on the box: no kappa up to "
                       "--kappa-max fails", f"raise --kappa-max{at_least} for the best kappa and a counterexample")
    return Vacuity("--kappa-max",
                   f"kappa* = {star.text} exceeds --kappa-max {res.kappa_max}: no kappa up to it fails",
                   f"raise --kappa-max to at least {math.floor(star.lo)} for the best kappa "
                   "and a counterexample")
