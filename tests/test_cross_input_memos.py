"""Memos that outlive one input of a grid check give what computing afresh gives, and stay bounded.

A streaming grid check (`AccuracyChecker.run(summarize=...)`) forgets each input once it is
decided, but keeps a bounded memo of what neighbouring inputs share: recent constraint sets
(`constraints.forget_constraint_sets` trims rather than clears) and decided sentences
(`AccuracyChecker.decide_sentence`).  Each memo is checked against a run that cannot use it.
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from dipc_plus.accuracy import checker as accuracy_checker
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.commands.merge import without_timing
from dipc_plus.decision.decide import decide
from dipc_plus.exact import constraints
from dipc_plus.exact.linear import LinForm, Noise, atom
from conftest import THEORIES


@pytest.mark.parametrize("dd_over", ["reals", "grid"])   # grid: refuted, with counterexamples
def test_a_grid_check_with_memos_says_what_one_without_says(dd_over, monkeypatch):
    claim = load_claim(str(THEORIES / "sparse.toml"), {"m": 4, "c": 1})
    constraints.forget_constraint_sets()
    with_memos = AccuracyChecker(claim, dd_over=dd_over).run(summarize="json").to_json()
    monkeypatch.setattr(constraints, "_RECENT_SETS", 0)    # every input starts from an empty memo
    monkeypatch.setattr(accuracy_checker, "_SENTENCES", 0)           # every sentence is decided afresh
    constraints.forget_constraint_sets()
    without = AccuracyChecker(claim, dd_over=dd_over).run(summarize="json").to_json()
    assert without_timing(with_memos) == without_timing(without)


def test_forgetting_constraint_sets_keeps_only_the_recent_ones(monkeypatch):
    monkeypatch.setattr(constraints, "_RECENT_SETS", 3)
    noises = {0: Noise("lap", F(1, 2)), 1: Noise("lap", F(1, 4))}
    sets = [frozenset({atom(LinForm.make({1: 1}, k), "<", LinForm.make({0: 1}))}) for k in range(6)]
    values = [constraints.probability(s, noises) for s in sets]
    constraints.probability(sets[0], noises)               # used again: now the most recent
    constraints.forget_constraint_sets()
    kept = list(constraints._PROBABILITY_CACHE)
    assert len(kept) == 3 and kept[-1][0] == sets[0]
    for s, v in zip(sets, values):                          # a forgotten set is computed again, equal
        assert constraints.probability(s, noises) == v == constraints._probability(s, noises)
    constraints.forget_constraint_sets()


def test_a_remembered_decision_is_the_decision_of_its_sentence():
    claim = load_claim(str(THEORIES / "sparse.toml"), {"m": 2, "c": 1})
    checker = AccuracyChecker(claim)
    u = checker.claim.points[0]
    sentence = F(1, 2) - checker.p_error(u, 0)     # P[correct] - 1/2
    first = checker.decide_sentence(sentence)
    assert checker.decide_sentence(sentence + 0) is first  # an equal sentence built anew
    fresh = decide(sentence, ">=", checker.claim.eps)
    assert (first.holds, first.witness, first.explanation) == (fresh.holds, fresh.witness, fresh.explanation)
