"""The readings of Table 4 of Barthe et al. (POPL 2021) under which the paper's counterexamples
for SparseVariant c = 2 and NumericSparse c = 1, 2 are counterexamples (docs/paper_table4.md):
exact verdicts at the paper's single (u, eps) points, for the printed programs and the readings."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.semantics.distribution import certified
from dipc_plus.semantics.inputs import bind_inputs

HERE = Path(__file__).resolve().parent.parent / "experiments" / "table4"

# (claim file at the paper's eps, the paper's input, kappa = paper best + 1, expected verdict)
CASES = [
    ("sparse_variant_printed_at_paper_eps", [-1, -1, -1], 14, "verified"),
    ("sparse_variant_threshold_eps2_at_paper_eps", [-1, -1, -1], 14, "refuted"),
    ("numeric_sparse_printed_c1_at_paper_eps", [-1, -1, 1], 4, "verified"),
    ("numeric_sparse_rates_8c_c1_at_paper_eps", [-1, -1, 1], 4, "refuted"),
    ("numeric_sparse_printed_c2_at_paper_eps", [-1, 1, 1], 6, "verified"),
    ("numeric_sparse_rates_8c_c2_at_paper_eps", [-1, 1, 1], 6, "refuted"),
]


def _report(name: str, q: list, kappa: int):
    checker = AccuracyChecker(load_claim(str(HERE / f"{name}.toml")), boundary=True)
    u = bind_inputs(checker.program, {"q": [Fraction(x) for x in q]})
    (report,) = checker.check_input(u, kappa)
    return checker, u, report


@pytest.mark.parametrize("name,q,kappa,expected", CASES, ids=[c[0] for c in CASES])
def test_verdict_at_the_papers_point(name, q, kappa, expected):
    checker, u, report = _report(name, q, kappa)
    assert report.applies and report.dd.value == 1 and report.alpha == 1
    assert report.verdict == expected
    # the same answer by a direct certified evaluation at the point (the interval is one eps)
    eps = checker.claim.eps.lo
    error = certified(checker.p_error(u, report.gamma), eps)
    bound = certified(checker.beta(report.alpha, report.gamma), eps) / kappa
    assert (error > bound) if expected == "refuted" else (error < bound)
    if expected == "refuted":
        assert report.counterexample.eps == eps

