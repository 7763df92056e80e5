"""The pieces of text and JSON every result type shares, said once: the verdict lines of a
verified or vacuous answer (`claims.scope.Scope`), the claim's JSON head of each kind
(`accuracy.report.claim_json`, `privacy.display.dp_claim_json`) and the small phrases
(`eps_multiple`, `eps_point_text`, `beta_over`, `kappa_clause`).  Each is checked in a
command's output, where a result type that still wrote its own copy would differ."""
from __future__ import annotations

import json
from fractions import Fraction as F

from conftest import PROGRAMS, THEORIES, run_main

from dipc_plus.accuracy.report import beta_over, kappa_clause
from dipc_plus.privacy.display import eps_multiple, eps_point_text

ACCURACY_HEAD = ["claim", "program", "params", "statement", "eps_interval"]
DP_HEAD = ["claim", "program", "program_path", "params", "statement", "budget"]


def _keys_after(out: dict, first: str, n: int) -> list:
    keys = list(out)
    return keys[keys.index(first):keys.index(first) + n]


def test_small_phrases():
    assert [eps_multiple(F(1)), eps_multiple(F(3, 2))] == ["eps", "3/2*eps"]
    assert [eps_point_text(None), eps_point_text(F(1, 2)), eps_point_text(("ln", F(2)))] == ["any", "1/2", "ln(2)"]
    assert [beta_over(1), beta_over(3)] == ["beta", "beta/3"]
    assert [kappa_clause(1), kappa_clause(3)] == ["", ", beta divided by 3"]


def test_accuracy_grid_and_box_give_their_claim_the_same_json_head():
    code, out, _ = run_main(["accuracy", str(THEORIES / "laplace.toml"), "--json", "--no-progress"])
    grid = json.loads(out)
    code_box, out_box, _ = run_main(["accuracy", str(THEORIES / "noisy_max_box.toml"), "--json", "--no-progress"])
    box = json.loads(out_box)
    assert code == 0 and code_box == 0
    assert _keys_after(grid, "claim", 5) == ACCURACY_HEAD == _keys_after(box, "claim", 5)
    for out, path in ((grid, "laplace.toml"), (box, "noisy_max_box.toml")):
        assert out["claim"].endswith(path) and out["statement"] and out["eps_interval"]
        assert all(isinstance(v, (int, str)) for v in out["params"].values())


def test_dp_grid_and_box_give_their_claim_the_same_json_head():
    code, out, _ = run_main(["privacy", str(THEORIES / "laplace_privacy.toml"), "--json", "--no-progress"])
    grid = json.loads(out)
    code_box, out_box, _ = run_main(["privacy", str(THEORIES / "laplace_privacy_box.toml"), "--json",
                                     "--no-progress"])
    box = json.loads(out_box)
    assert code == 0 and code_box == 0
    assert _keys_after(grid, "claim", 6) == DP_HEAD == _keys_after(box, "claim", 6)
    assert grid["program_path"] == box["program_path"] == str(PROGRAMS / "laplace.dip")


def _verdict_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("VERIFIED"))


def test_vacuous_lines_of_accuracy_grid_and_box_and_dp(tmp_path):
    lap = PROGRAMS / "laplace.dip"
    grid = tmp_path / "grid.toml"
    grid.write_text(f'[program]\npath = "{lap}"\nparams = {{ k = 1 }}\n[accuracy]\ninput_distance = "linf"\n'
                    'output_distance = "linf"\nalpha = 100\ngamma = 1\nbeta = "exp(-eps)"\n'
                    '[accuracy.inputs]\ngrid = { q = [0, 1] }\n')
    code, out, _ = run_main(["accuracy", str(grid), "--no-progress", "--allow-vacuous"])
    assert code == 0
    assert _verdict_line(out) == ("VERIFIED (vacuously: the claim applies to none of these inputs) "
                                  "on the grid q[1] in {0, 1}, for k = 1, sens = 1")
    program = tmp_path / "p.dip"
    program.write_text("input q: real\noutput b: bool\nr <- Lap(eps, q)\nb <- r >= 1/2\n")
    box = tmp_path / "box.toml"
    box.write_text(f'[program]\npath = "{program}"\n[accuracy]\ninput_distance = "linf"\n'
                   'output_distance = "zero-one"\nalpha = 3\ngamma = 0\nbeta = "exp(-eps)"\n'
                   '[accuracy.inputs]\nbox = { q = [-1, 1] }\n')
    code, out, _ = run_main(["accuracy", str(box), "--no-progress"])
    assert code == 5
    assert _verdict_line(out) == ("VERIFIED (vacuously: the claim applies to no input of the box, dd <= alpha "
                                  "there) on the box q in [-1, 1]")
    dp = tmp_path / "dp.toml"
    dp.write_text(f'[program]\npath = "{PROGRAMS / "randomized_response_coin.dip"}"\n[privacy]\n'
                  'adjacency = "hamming"\nbudget = "0*eps"\n[privacy.inputs]\nlist = [ { x = true } ]\n')
    code, out, _ = run_main(["privacy", str(dp), "--no-progress"])
    assert code == 0
    assert _verdict_line(out).startswith("VERIFIED (vacuously: no two of the claimed inputs are neighbours) on ")


def test_verified_lines_name_the_scope_then_what_holds():
    code, out, _ = run_main(["accuracy", str(THEORIES / "laplace.toml"), "--no-progress"])
    assert code == 0 and _verdict_line(out) == (
        "VERIFIED on the grid q[1..2] each in {-1, 0, 1}, for k = 2, sens = 1: P[error] <= beta for every eps in "
        "(0, inf) at every input where the claim applies")
    code, out, _ = run_main(["accuracy", str(THEORIES / "laplace.toml"), "--no-progress", "--kappa", "3"])
    assert code == 1 and "inputs with dd(u) > alpha (Definition 2), dd over reals, beta divided by 3" in out
    code, out, _ = run_main(["privacy", str(THEORIES / "laplace_privacy.toml"), "--no-progress"])
    line = _verdict_line(out)
    assert code == 0 and line.startswith("VERIFIED on ") and ": P[P(u)=v] <= e^(" in line
