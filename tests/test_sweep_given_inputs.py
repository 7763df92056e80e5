"""A sweep over inputs chosen with --input that the claim applies to nowhere says so as `dipc
accuracy` does: made vacuous by --input (it blamed the claim's input_distance and pointed at the
claim's inputs, which were not checked)."""
from __future__ import annotations

import json

from conftest import THEORIES, run_main

NOISY_MAX = str(THEORIES / "noisy_max.toml")


def test_sweep_with_given_inputs_names_them_as_the_accuracy_command_does():
    code, out, _ = run_main(["sweep", NOISY_MAX, "--input", "q=[0,0,0]"])
    assert code == 5 and "made vacuous by: --input" in out, out
    _, accuracy_out, _ = run_main(["accuracy", NOISY_MAX, "--input", "q=[0,0,0]"])
    assert "made vacuous by: --input" in accuracy_out


def test_sweep_json_with_given_inputs():
    code, out, _ = run_main(["sweep", NOISY_MAX, "--input", "q=[0,0,0]", "--json"])
    assert code == 5 and json.loads(out)["vacuity"]["field"] == "--input"
