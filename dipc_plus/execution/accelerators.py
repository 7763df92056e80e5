"""The accelerators: every method that decides faster by a proved shape argument, listed once.

Why: `--reference` (RunOptions.reference) runs the general provers alone (the per-point
engine, the certified decision, the exact per-pair check) so the tool can be compared with
itself.  Each accelerator is registered here by name and every place that would use one asks
`RunOptions.allows(name)`; a new accelerator registered here is switched off by the same flag
and so covered by tests/test_reference_mode.py without more work.
"""
from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Accelerator:
    name: str
    meaning: str
    where: str      # the module that asks for it


ACCELERATORS = {a.name: a for a in (
    Accelerator("input-classes", "accuracy grids: argmax orbits, output supports, det regions, shared dd, "
                "decisions by exact key and report classes; the --summary of a grid counted by report class "
                "(or by orbit for an argmax of iid noisy reads)",
                "accuracy.checker, commands.accuracy (accuracy.grid_classes, accuracy.argmax_orbit_classes)"),
    Accelerator("argmax-integral", "the argmax/argmin integral in place of the Markov chain for a recognised "
                "argmax of independent samples (privacy output tables still use it)", "accuracy.checker"),
    Accelerator("privacy-output-classes", "DP grids: output orbits under proved query symmetry and output "
                "supports, instead of every pair", "privacy.dp.check"),
    Accelerator("privacy-structure", "independent components, kernel chains and symmetric input runs of a "
                "privacy check or tight loss", "privacy.dp.check, privacy.loss.tight"),
    Accelerator("corner-reduction", "accuracy boxes: the worst input at each dd is a corner of the shrunk "
                "region (monotone probabilities)", "accuracy.box"),
    Accelerator("polyhedral-worst-point", "accuracy boxes: on a det region that is a polyhedron, the worst "
                "input at each dd minimises the half-spaces' input parts (monotone along the facets)",
                "accuracy.box (accuracy.polyhedral)"),
    Accelerator("argmax-worst-point", "accuracy boxes of an argmax of noisy reads (Laplace, exponential or any "
                "continuous scale family): one worst point per dd", "accuracy.box (accuracy.argmax_box)"),
    Accelerator("coupling-bound", "the online class's coupling bound d*B <= k, proving box claims and "
                "bounding output-value intervals", "privacy.dp.coupling"),
)}


def accelerator(name: str) -> Accelerator:
    """The registered accelerator `name`; an unregistered name is a programming error."""
    if name not in ACCELERATORS:
        raise KeyError(f"unregistered accelerator {name!r} (register it in execution.accelerators)")
    return ACCELERATORS[name]


def switched_off(name: str) -> str:
    """The reason a reference run gives where only accelerator `name` could decide."""
    return f"reference mode: the accelerator '{name}' ({accelerator(name).meaning}) is switched off"


CLASSES_ENV = "DIPC_CLASSES"


def classes_enabled() -> bool:
    """False when the environment turns the shared work of accuracy and privacy grids off
    (DIPC_CLASSES=off: the test suites' switch, beside --reference)."""
    return os.environ.get(CLASSES_ENV, "").strip().lower() not in ("off", "0", "no", "false")
