"""Grid points whose per-point work is identical share it: classes of inputs.

An accuracy grid check does the same exact work at many inputs.  Two kinds of sharing, both
sound by construction, none assumed from what a program probably means:

* **Argmax orbits.**  When `semantics.argmax.recognise` proves the program is out = argmax
  (argmin) of independent continuous samples X_1..X_m, each (kind, rate, centre) fixed by the
  input, then P[out = i] = P[X_i beats every X_k, k != i] (ties have probability 0, so the
  scan's tie-break does not matter), which depends only on X_i's own triple and the multiset of
  the others'.  So the distribution at u is the distribution at its sorted representative
  (the triples in sorted order) with the indices permuted back: computed once per orbit.
  tests/test_classes.py compares it with the Markov-chain path at random points.
  The noise-free output of the same recognised form is the scan over the centres: the first
  index of the largest (argmin: smallest) centre, read off directly instead of running the
  noise-free program (the witness of each dd is still re-checked by running it).
* **Decisions by exact key.**  The certified decision "beta/kappa - P_err(eps) >= 0 for every
  eps of the claim" depends on nothing but the two exact closed forms and the interval: inputs
  with equal keys share one decision (Sparse's output k is invariant under permuting the
  queries before it, and its closed forms repeat accordingly: equal keys find that without
  assuming it).

`CLASSES_ENV` set to "off" turns both off (and the closed-form argmax dd), giving the
per-point path of before, for benchmarks (experiments/bench_scale.py) and identity checks.
"""
from __future__ import annotations

import os
from collections import OrderedDict
from typing import Callable, Mapping

from dipc_plus.exact.argmax_integral import argmax_probabilities
from dipc_plus.semantics import ir
from dipc_plus.semantics.argmax import recognise, samples_at
from dipc_plus.semantics.distribution import bind, distribution_of_argmax

CLASSES_ENV = "DIPC_CLASSES"
MAX_ORBITS = 4096      # orbit representatives remembered (least recently used dropped)
MAX_DECISIONS = 65536  # decisions remembered by exact key

CLASS_PATH = "argmax orbits"
POINT_PATH = "per point"


def classes_enabled() -> bool:
    """False when the environment turns classes off (DIPC_CLASSES=off)."""
    return os.environ.get(CLASSES_ENV, "").strip().lower() not in ("off", "0", "no", "false")


class InputClasses:
    """The shared work of one checker: orbit distributions and decisions by exact key, with the
    counts a report prints (inputs seen, distributions and decisions computed)."""

    def __init__(self, program: ir.Program, enabled: bool | None = None, noise_free_det: bool = True):
        self.program = program
        self.noise_free_det = noise_free_det
        self.enabled = classes_enabled() if enabled is None else enabled
        self.shape = recognise(program) if self.enabled else None
        self._orbits: OrderedDict = OrderedDict()
        self._decisions: dict = {}
        self.distributions = 0   # output distributions computed (one per orbit on the class path)
        self.decisions = 0       # certified decisions run
        self.points = 0          # inputs whose distribution was asked for

    @property
    def path(self) -> str:
        return CLASS_PATH if self.shape is not None else POINT_PATH

    def orbit(self, u: Mapping):
        """(key, permutation) of u's orbit: key the sorted sample triples, permutation[j] the
        index at u of the representative's j-th sample; None off the class path."""
        if self.shape is None:
            return None
        samples = samples_at(self.shape, bind(self.program, u))
        if samples is None:
            return None
        order = sorted(range(len(samples)), key=lambda j: samples[j])
        return tuple(samples[j] for j in order), order

    def det(self, u: Mapping) -> dict | None:
        """det(u) of a recognised argmax with a noise-free det: the first index of the best
        centre; None off the class path (the caller runs the noise-free program)."""
        if self.shape is None or not self.noise_free_det:
            return None
        samples = samples_at(self.shape, bind(self.program, u))
        if samples is None:
            return None
        sign = -1 if self.shape.minimum else 1
        best = 0
        for k in range(1, len(samples)):
            if sign * samples[k][2] > sign * samples[best][2]:
                best = k
        return {self.shape.output: best + 1}

    def distribution(self, u: Mapping, compute: Callable):
        """u's output distribution: from its orbit's representative when on the class path,
        else `compute(u)`."""
        self.points += 1
        found = self.orbit(u)
        if found is None:
            self.distributions += 1
            return compute(u)
        key, order = found
        probs = self._orbits.get(key)
        if probs is None:
            self.distributions += 1
            probs = self._orbits[key] = argmax_probabilities(list(key), minimum=self.shape.minimum)
            if len(self._orbits) > MAX_ORBITS:
                self._orbits.popitem(last=False)
        else:
            self._orbits.move_to_end(key)
        at_u = [None] * len(order)
        for j, i in enumerate(order):
            at_u[i] = probs[j]
        return distribution_of_argmax(self.program, bind(self.program, u), at_u)

    def decide(self, p_error, bound, run: Callable):
        """The decision of bound - p_error >= 0, shared by every input with the same exact pair
        (`run(sentence)` decides it); off the class path `run` is called each time (it keeps its
        own cache of recent sentences, as before)."""
        if not self.enabled:
            return run(bound - p_error)
        key = (p_error, bound)
        found = self._decisions.get(key)
        if found is None:
            self.decisions += 1
            found = run(bound - p_error)
            if len(self._decisions) < MAX_DECISIONS:
                self._decisions[key] = found
        return found

    def work(self, inputs: int, in_process: bool) -> dict:
        """What the report says about how the work was shared (counts only when this process did
        it: workers count their own)."""
        out = {"path": self.path if self.enabled else POINT_PATH + " (classes off)", "inputs": inputs}
        if in_process:
            out.update({"distributions": self.distributions, "decisions": self.decisions if self.enabled else None})
        return out
