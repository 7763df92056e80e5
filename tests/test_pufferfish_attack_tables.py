"""`dipc privacy-loss --attack` on a Pufferfish claim: the attack reads the output tables the loss
computed (one computation of the tables), and says exactly what an attack computing its own says."""
from __future__ import annotations

import os

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.execution.options import DEFAULT_OPTIONS
from dipc_plus.privacy.decide import decide_loss
from dipc_plus.privacy.pufferfish.attack import scenario_attacks
from dipc_plus.privacy.pufferfish.loss import pufferfish_loss
from conftest import ROOT

CLAIM = os.path.join(ROOT, "theories", "truncated_geometric_count_pufferfish.toml")


def test_the_attack_on_the_loss_tables_equals_the_attack_on_its_own():
    claim = load_privacy_claim(CLAIM)
    loss = pufferfish_loss(claim)
    assert loss.tables is not None
    shared = [a.to_json() for a in scenario_attacks(claim, tables=loss.tables)]
    assert shared == [a.to_json() for a in scenario_attacks(claim)]
    assert shared and all(a["pieces"] for a in shared)


def test_decide_loss_hands_its_tables_to_the_attack(monkeypatch):
    from dipc_plus.privacy.pufferfish import attack
    seen = []
    original = attack.scenario_attacks
    monkeypatch.setattr(attack, "scenario_attacks", lambda claim, **kw: seen.append(kw) or original(claim, **kw))
    result = decide_loss(load_privacy_claim(CLAIM), DEFAULT_OPTIONS, {}, attack=True)
    assert result.attacks and seen and seen[0]["tables"] == result.part.tables
