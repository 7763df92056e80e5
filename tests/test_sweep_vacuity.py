"""accuracy.vacuity.sweep_vacuity: one function for grid and box sweeps, each kind in its own words.

The box sweep's gamma and --kappa-max answers had no test when the box copy was folded into the
grid's function; these pin every branch's field and text."""
from __future__ import annotations

from fractions import Fraction as F
from types import SimpleNamespace as NS

from dipc_plus.accuracy.vacuity import sweep_vacuity

INF = float("inf")
INFINITE = NS(infinite=True, text="inf", lo=INF, floor=INF)
FINITE = NS(infinite=False, text="3.9", lo=F(39, 10), floor=3)
STRADDLING = NS(infinite=False, text="3.9", lo=F(39, 10), floor=None)   # enclosure [3.9, 4.1]: the grid prints floor(lo)


def _box(star, best=3, capped=True, vacuous=False):
    return NS(best_kappa=best, capped=capped, base=NS(on_a_box=True, vacuous=vacuous), kappa_star=star, kappa_max=10)


def _grid(star, capped=True):
    return NS(capped=capped, base=NS(on_a_box=False, vacuous=False, given_inputs=False), kappa_star=star, kappa_max=10)


def test_box_sweep_answers():
    assert sweep_vacuity(_box(FINITE, best=None)) is None and sweep_vacuity(_box(FINITE, capped=False)) is None
    alpha = sweep_vacuity(_box(INFINITE, vacuous=True))
    assert (alpha.field, alpha.hint) == ("alpha", "a smaller alpha, or a larger box")
    gamma = sweep_vacuity(_box(INFINITE))
    assert gamma.to_json() == {"field": "gamma", "reason": "P[error] is 0 for every eps wherever the claim applies "
                               "in the box, so beta/kappa holds for every kappa",
                               "hint": "check gamma and output_distance"}
    capped = sweep_vacuity(_box(FINITE))
    assert capped.field == "--kappa-max"
    assert capped.reason == "beta/10 is verified on the box: no kappa up to --kappa-max fails"
    assert capped.hint == "raise --kappa-max to at least 3 for the best kappa and a counterexample"
    assert sweep_vacuity(_box(None)).hint == "raise --kappa-max for the best kappa and a counterexample"


def test_grid_sweep_answers():
    assert sweep_vacuity(_grid(FINITE, capped=False)) is None
    gamma = sweep_vacuity(_grid(INFINITE))
    assert gamma.reason == ("P[error] is 0 for every eps wherever the claim applies, so beta/kappa holds for "
                            "every kappa")
    assert gamma.hint == ("the error event never happens: check gamma and output_distance (a smaller gamma "
                          "admits errors)")
    capped = sweep_vacuity(_grid(STRADDLING))
    assert capped.reason == "kappa* = 3.9 exceeds --kappa-max 10: no kappa up to it fails"
    assert capped.hint == "raise --kappa-max to at least 3 for the best kappa and a counterexample"


def test_a_box_kappa_star_straddling_an_integer_still_names_a_number():
    # it said "raise --kappa-max to at least None" (the floor is not determined by the enclosure)
    assert sweep_vacuity(_box(STRADDLING)).hint == "raise --kappa-max to at least 3 for the best kappa and a counterexample"
