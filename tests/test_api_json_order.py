"""The API's ``to_json_text()`` is the command's ``--json`` text, key order included, in reference
mode too: "mode" sits where the command prints it (before an every-length counterexample, before
a Pufferfish attack), not appended last (equal dicts, different text)."""
from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

import dipc_plus
from dipc_plus.commands.merge import without_timing


def command_json(*argv: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "dipc_plus", *argv, "--json", "--no-progress"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    return json.loads(done.stdout)


def test_every_length_reference_json_puts_mode_before_the_counterexample():
    claim = dipc_plus.example("theories/svt_lyu_alg4_privacy.toml")
    api = dipc_plus.check_privacy(claim, every_length=True, reference=True).to_json()
    cli = command_json("privacy", str(claim), "--every-length", "--reference")
    assert api["mode"] == "reference" and "counterexample" in api
    assert list(without_timing(api)) == list(without_timing(cli))


def test_pufferfish_loss_reference_json_puts_mode_before_the_attack():
    claim = dipc_plus.example("theories/truncated_geometric_count_pufferfish.toml")
    api = dipc_plus.privacy_loss(claim, attack=True, reference=True).to_json()
    cli = command_json("privacy-loss", str(claim), "--attack", "--reference")
    assert api["mode"] == "reference" and "attack" in api
    assert list(without_timing(api)) == list(without_timing(cli))
