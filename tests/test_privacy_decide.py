"""The one decision entry for privacy claims (`privacy.decide`): the scope of each shipped kind of
claim picks its route, and the CLI and the API print the same outcome."""
from pathlib import Path

import pytest

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.execution.options import RunOptions
from dipc_plus.privacy.decide import decide_privacy, privacy_route

THEORIES = Path(__file__).resolve().parent.parent / "theories"


@pytest.mark.parametrize("stem, route", [
    ("svt_lyu_alg4_privacy", "pairs"),
    ("truncated_geometric_pufferfish", "pufferfish"),
    ("laplace_privacy_box", "box"),
    ("gap_above_threshold_every_length", "every length"),
    ("svt_lyu_alg3_c1_m3_privacy_values", "every value"),
])
def test_the_claims_scope_picks_the_route(stem, route):
    claim = load_privacy_claim(str(THEORIES / f"{stem}.toml"), {})
    assert privacy_route(claim, every_length=False) == route


def test_every_length_asked_for_turns_a_grid_claim_into_every_m():
    claim = load_privacy_claim(str(THEORIES / "svt_lyu_alg1_privacy.toml"), {})
    assert privacy_route(claim, every_length=True) == "every length"


def test_a_shard_of_a_pufferfish_claim_is_refused_before_any_work():
    claim = load_privacy_claim(str(THEORIES / "truncated_geometric_pufferfish.toml"), {})
    with pytest.raises(UserError, match="cannot be cut into parts"):
        decide_privacy(claim, RunOptions(shard=(1, 2)), {})


def test_the_outcome_carries_the_every_length_counterexample_in_its_text_and_json():
    claim = load_privacy_claim(str(THEORIES / "svt_lyu_alg4_privacy.toml"), {})
    outcome = decide_privacy(claim, RunOptions(), {}, every_length=True)
    at_m = outcome.at_length()     # Lyu et al.'s Algorithm 4 is not eps-DP at m = 3
    assert outcome.verdict == "refuted" and at_m is not None and at_m.verdict == "refuted"
    assert outcome.to_json()["counterexample"] == at_m.to_json()
    assert at_m.report() in outcome.report()


def test_a_shard_of_a_claim_on_every_real_value_is_refused_with_exit_2():
    # it was an internal error (exit 3: the real-output check has no pairs to deal out)
    from conftest import run_main
    code, out, err = run_main(["privacy", THEORIES / "svt_lyu_alg3_c1_m3_privacy_values.toml", "--shard", "2/3",
                               "--json"])
    assert code == 2 and "cannot be cut into parts" in out + err and "every value of a real output" in out + err
