"""--strict on a box accuracy claim: a vacuous verified answer accepted with --allow-vacuous
fails --strict with exit 4, as on a grid (docs: --strict makes a verdict's nonzero exit strict).

The claim is Laplace thresholding at 1/2 on the box q in [-1, 1] with alpha = 3: no input of the
box is further than 3/2 from the threshold, so the claim applies nowhere (vacuous)."""
from __future__ import annotations

import json

from conftest import run_main

from dipc_plus.commands.common import EXIT_VACUOUS, STRICT_EXIT


def vacuous_box_claim(tmp_path):
    program = tmp_path / "p.dip"
    program.write_text("input q: real\noutput b: bool\nr <- Lap(eps, q)\nb <- r >= 1/2\n")
    claim = tmp_path / "p.toml"
    claim.write_text(f'[program]\npath = "{program}"\n\n[accuracy]\ninput_distance = "linf"\n'
                     'output_distance = "zero-one"\nalpha = 3\ngamma = 0\nbeta = "exp(-eps)"\n'
                     'eps = "(0, inf)"\n\n[accuracy.inputs]\nbox = { q = [-1, 1] }\n')
    return claim


def test_strict_turns_an_accepted_vacuous_box_answer_into_exit_4(tmp_path):
    claim = vacuous_box_claim(tmp_path)
    code, out, _ = run_main(["accuracy", claim, "--strict", "--allow-vacuous"])
    assert code == STRICT_EXIT
    assert "STRICT: the verdict is vacuous (nothing was compared): exit 4" in out
    code, out, _ = run_main(["accuracy", claim, "--strict", "--allow-vacuous", "--json"])
    assert code == STRICT_EXIT and json.loads(out)["vacuous"] is True


def test_without_strict_the_box_exits_as_before(tmp_path):
    claim = vacuous_box_claim(tmp_path)
    assert run_main(["accuracy", claim])[0] == EXIT_VACUOUS
    assert run_main(["accuracy", claim, "--strict"])[0] == EXIT_VACUOUS    # vacuous's exit comes first
    code, out, _ = run_main(["accuracy", claim, "--allow-vacuous"])
    assert code == 0 and "STRICT" not in out
