"""The tight loss as a `PrivacyResult`: `decide_loss` returns one, and the command and the API print
its text and JSON (the loss, then the Pufferfish adversaries) through it; the loss and the attack
share `envelope.Piece`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.decision.decide import analyse
from dipc_plus.decision.envelope import Piece
from dipc_plus.exact.expoly import ExpPoly
from dipc_plus.execution.options import DEFAULT_OPTIONS
from dipc_plus.privacy.decide import decide_loss
from dipc_plus.privacy.result import PrivacyResult
from conftest import ROOT

COIN = os.path.join(ROOT, "theories", "randomized_response_coin_privacy.toml")
PUFFERFISH = os.path.join(ROOT, "theories", "truncated_geometric_count_pufferfish.toml")


def _dipc(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": ROOT}
    return subprocess.run([sys.executable, "-m", "dipc_plus", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def test_a_dp_loss_is_a_privacy_result_whose_verdict_is_the_budget_check():
    result = decide_loss(load_privacy_claim(COIN), DEFAULT_OPTIONS, {})
    assert isinstance(result, PrivacyResult) and result.route == "pairs" and result.attacks is None
    assert result.verdict == ("verified" if result.part.budget_holds() else "refuted") == "verified"
    assert result.report() == result.part.report()
    assert result.to_json({"mode": "reference"}) == {**result.part.to_json(), "mode": "reference"}


def test_a_pufferfish_loss_prints_its_attacks_after_it_in_text_and_json():
    result = decide_loss(load_privacy_claim(PUFFERFISH), DEFAULT_OPTIONS, {}, attack=True)
    assert result.verdict == "computed" and result.attacks
    assert result.report() == "\n\n".join([result.part.report()] + [a.report() for a in result.attacks])
    assert result.to_json()["attack"] == [a.to_json() for a in result.attacks]
    shown = _dipc("privacy-loss", os.path.join(ROOT, "programs", "truncated_geometric_count.dip"), PUFFERFISH,
                  "--attack", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["attack"] == json.loads(json.dumps(result.to_json()["attack"]))


def test_a_piece_contains_both_its_ends_and_nothing_beyond():
    ln2 = analyse(ExpPoly.exp(1) - 2).roots[0]
    left, right = Piece(Fraction(0), ln2), Piece(ln2, None)
    assert left.where() == "(0, ln(2))" and right.where() == "(ln(2), inf)"
    assert left.contains(Fraction(0)) and left.contains(Fraction(69, 100)) and not left.contains(Fraction(7, 10))
    assert right.contains(Fraction(7, 10)) and right.contains(Fraction(10 ** 6)) and not right.contains(Fraction(69, 100))
