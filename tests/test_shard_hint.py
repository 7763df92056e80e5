"""--shard without --json names the command the user ran in its example (it said `dipc privacy` for
`dipc accuracy` too)."""
import subprocess
import sys

import pytest
from conftest import ROOT


@pytest.mark.parametrize("command, claim", [("accuracy", "theories/sparse.toml"),
                                            ("privacy", "theories/sparse_privacy.toml")])
def test_the_hint_names_the_command(command, claim):
    run = subprocess.run([sys.executable, "-m", "dipc_plus", command, claim, "--shard", "1/2"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert f"e.g. dipc {command} CLAIM --shard 1/4 --json > part1.json" in run.stderr
