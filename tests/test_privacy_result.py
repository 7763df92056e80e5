"""The one privacy result type (`privacy.result.PrivacyResult`): every scope's verdict comes back
as it, its counterexample is the part's re-checked one, and its text prints that counterexample's
own lines whichever route refuted the claim."""
from pathlib import Path

import pytest

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.execution.options import RunOptions
from dipc_plus.privacy.decide import decide_privacy
from dipc_plus.privacy.result import PrivacyResult

THEORIES = Path(__file__).resolve().parent.parent / "theories"
ROUTES = ("pairs", "box", "every value", "every length", "pufferfish")   # the scopes PrivacyResult.route names


def decided(stem: str, **kw) -> PrivacyResult:
    claim = load_privacy_claim(str(THEORIES / f"{stem}.toml"), {})
    return decide_privacy(claim, RunOptions(), {}, **kw)


@pytest.mark.parametrize("stem, route, strict", [
    ("svt_lyu_alg4_privacy", "pairs", True),                  # Lyu et al.'s Algorithm 4 is not eps-DP
    ("truncated_geometric_count_pufferfish", "pufferfish", True),
    ("svt_lyu_alg4_privacy_box", "box", False),
])
def test_a_refutation_prints_its_counterexample_lines_and_json(stem, route, strict):
    result = decided(stem)
    assert isinstance(result, PrivacyResult) and result.route == route and route in ROUTES
    assert result.verdict == "refuted" and result.strict_applies is strict
    cex = result.counterexample
    assert cex is not None and cex is result.part.counterexample
    lines = cex.lines(result.claim)
    assert len(lines) >= 4 and "\n".join(lines) in result.report()
    assert result.to_json()["counterexample"] == cex.to_json()


def test_a_verified_grid_claim_has_no_counterexample_and_says_what_holds():
    result = decided("randomized_response_privacy")
    assert result.verdict == "verified" and result.counterexample is None and not result.vacuous
    text = result.report()
    assert "P[P(u)=v] <= e^(eps) P[P(u')=v] for every neighbouring pair" in text
    assert text.splitlines()[-1] == result.part.scope.coverage()


def test_every_length_reads_the_counterexample_of_the_failing_m():
    result = decided("svt_lyu_alg4_privacy", every_length=True)
    at_m = result.at_length()
    assert result.route == "every length" and at_m is not None and at_m.verdict == "refuted"
    assert result.counterexample is at_m.counterexample
    assert "\n".join(at_m.counterexample.lines(at_m.claim)) in result.report()
