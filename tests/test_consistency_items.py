"""Small consistency items: the command, --summary and the notebook API agree on the same claim.

A listed input written twice is one input (as in a privacy claim's list): it adds no obligation,
so every surface counts it once and the scope names it once.
"""
from __future__ import annotations

import json
from fractions import Fraction
import os

import pytest

import dipc_plus
from conftest import run_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DUPLICATE_LIST = """\
[program]
path = "{program}"
params = {{ k = 2, sens = 1 }}

[accuracy]
det = "noise-free"
input_distance = "zero-one"
output_distance = "linf"
alpha = 0
gamma = 1
beta = "k*exp(-gamma*eps/sens)"
eps = "(0, inf)"

[accuracy.inputs]
list = [ {{ q = [0, 1] }}, {{ q = [1, 1] }}, {{ q = [0, 1] }} ]
"""

TWO_INPUTS = "2 input(s): {q[1]=0, q[2]=1}; {q[1]=1, q[2]=1}"


@pytest.fixture
def duplicate_claim(tmp_path):
    path = tmp_path / "dup.toml"
    path.write_text(DUPLICATE_LIST.format(program=os.path.join(ROOT, "programs", "laplace.dip")))
    return path


def _counts(out: dict) -> tuple:
    return out["inputs_checked"], out["obligations"], out["scope"]["inputs_detail"], len(out["reports"])


def test_duplicate_listed_input_counts_once_in_the_command(duplicate_claim):
    code, out, err = run_main(["accuracy", duplicate_claim, "--json", "--no-progress"])
    assert code == 0, err
    assert _counts(json.loads(out)) == (2, 2, TWO_INPUTS, 2)


def test_duplicate_listed_input_counts_once_in_the_summary(duplicate_claim):
    code, out, err = run_main(["accuracy", duplicate_claim, "--summary", "--no-progress"])
    assert code == 0, err
    assert "2 input(s), 2 obligation(s), 2 where the claim applies, 0 refuted" in out
    assert "3 input(s)" not in out


def test_duplicate_listed_input_counts_once_in_the_api(duplicate_claim):
    report = dipc_plus.check_accuracy(duplicate_claim)
    assert _counts(report.to_json()) == (2, 2, TWO_INPUTS, 2)
    assert "2 input(s), 2 obligation(s)" in str(report)


def test_api_inputs_given_twice_count_once(duplicate_claim):
    report = dipc_plus.check_accuracy(duplicate_claim, inputs=[{"q": [0, 1]}, {"q": [0, 1]}])
    assert _counts(report.to_json()) == (1, 1, "1 input(s): {q[1]=0, q[2]=1}", 1)


def test_a_sup_ratio_has_both_ends():
    """`lower()` is the end the budget is compared with when refuting: an enclosure's lo, an exact
    value itself, nothing for an infinite sup (which refutes every budget on its own)."""
    from fractions import Fraction

    from dipc_plus.decision.sup_ratio import SupRatio
    enclosed = SupRatio(lo=Fraction(1, 3), hi=Fraction(1, 2))
    assert (enclosed.lower(), enclosed.upper()) == (Fraction(1, 3), Fraction(1, 2))
    assert SupRatio(value=Fraction(2)).lower() == SupRatio(value=Fraction(2)).upper() == 2
    assert SupRatio(infinite=True).lower() is None


HALF_BUDGET_RR = """\
[program]
path = "{program}"

[privacy]
adjacency = "hamming"
budget = "eps/2"
eps = "(0, inf)"
"""


def test_the_api_prints_booleans_as_the_reports_do(tmp_path):
    """Randomized response is eps-DP, not eps/2-DP: the counterexample's Boolean input, neighbour
    and output read `false`/`true` in the API's repr and table, as in the command's report."""
    path = tmp_path / "rr.toml"
    path.write_text(HALF_BUDGET_RR.format(program=os.path.join(ROOT, "programs", "randomized_response.dip")))
    report = dipc_plus.check_privacy(path)
    assert "input      x=false" in str(report)
    assert repr(report).endswith("refuted at x=false vs x=true, y=false, eps = 1>")
    rows = dict(report.counterexample.html_rows())
    assert (rows["input"], rows["neighbour"], rows["output"]) == ("x=false", "x=true", "y=false")
    assert "True" not in report.counterexample._repr_html_()


def test_the_attack_runs_on_faiers_overlapping_secrets():
    """FAIER's conditioning ("absent" the whole prior, "present" x >= 1) is a valid claim (the
    check verifies it); its attack is the test between the two conditioned priors, and since every
    input of "present" weighs the same under both, guessing "absent" is optimal at every eps:
    success 4/7 = the prior's own, advantage 0."""
    code, out, err = run_main(["privacy-loss", os.path.join(ROOT, "theories", "truncated_geometric_pufferfish.toml"),
                               "--attack", "--json", "--no-progress"])
    assert code == 0, err
    (attack,) = json.loads(out)["attack"]
    assert attack["baseline"] == "4/7"
    assert [(p["success"], p["advantage"]) for p in attack["pieces"]] == [("4/7", "0")]


OVERLAPPING_SECRETS = """\
[program]
path = "{program}"
params = {{ k = 2 }}

[privacy]
kind = "pufferfish"
budget = "2*eps"
eps = "(0, inf)"
secrets = {{ low = "x <= 1", high = "x >= 1" }}
pairs = [["low", "high"]]

[[privacy.scenarios]]
name = "uniform"
prior = [ {{ input = {{ x = 0 }}, weight = 1 }}, {{ input = {{ x = 1 }}, weight = 1 }}, {{ input = {{ x = 2 }}, weight = 1 }} ]
"""


def test_an_overlapping_attack_matches_the_hypothesis_test_by_hand(tmp_path):
    """Secrets meeting at x = 1, uniform prior: each hypothesis is uniform on its two inputs with
    prior 1/2, so the optimal success is (1/4) sum_y max(P[y|0] + P[y|1], P[y|1] + P[y|2])."""
    import math

    from dipc_plus.claims.privacy_reader import load_privacy_claim
    from dipc_plus.privacy.pufferfish.attack import scenario_attacks
    path = tmp_path / "overlap.toml"
    path.write_text(OVERLAPPING_SECRETS.format(program=os.path.join(ROOT, "programs", "truncated_geometric.dip")))
    (attack,) = scenario_attacks(load_privacy_claim(str(path)))
    assert attack.baseline == Fraction(1, 2)

    def by_hand(eps: float) -> float:
        a = math.exp(-eps)
        low_end = [a ** x / (1 + a) for x in (0, 1, 2)]            # P[y = 0 | x]
        high_end = [a ** (2 - x) / (1 + a) for x in (0, 1, 2)]     # P[y = 2 | x]
        table = [(low_end[x], 1 - low_end[x] - high_end[x], high_end[x]) for x in (0, 1, 2)]
        return sum(max(table[0][y] + table[1][y], table[1][y] + table[2][y]) for y in range(3)) / 4
    for eps in (0.1, 0.7, 2.0, 5.0):
        assert max(p.success(eps) for p in attack.pieces) == pytest.approx(by_hand(eps), rel=1e-12)
    assert max(p.success(5.0) for p in attack.pieces) > Fraction(1, 2)   # the output tells the two worlds apart


def test_a_gamma_written_twice_is_one_obligation(tmp_path):
    """gamma = [1, "1", 2] lists two gammas: the obligations and the reports count each once."""
    path = tmp_path / "gammas.toml"
    path.write_text(DUPLICATE_LIST.format(program=os.path.join(ROOT, "programs", "laplace.dip"))
                    .replace("gamma = 1", 'gamma = [1, "1", 2]').replace("{ q = [1, 1] }, { q = [0, 1] } ", ""))
    code, out, err = run_main(["accuracy", path, "--json", "--no-progress"])
    assert code == 0, err
    out = json.loads(out)
    assert (out["inputs_checked"], out["obligations"]) == (1, 2)
    assert "for each gamma in {1, 2} " in out["statement"]


LISTED_PAIRS = """\
[program]
path = "{program}"
params = {{ k = 1, sens = 1 }}

[privacy]
adjacency = "pairs"
budget = "eps"
eps = "(0, inf)"
events = {{ out = ["(-inf, 0]", "(0, inf)"] }}
pairs = [ {{ input = {{ q = [0] }}, neighbour = {{ q = [1] }} }}, {{ input = {{ q = [0] }}, neighbour = {{ q = [1] }} }},
          {{ input = {{ q = [1] }}, neighbour = {{ q = [0] }} }} ]
"""


def test_a_pair_written_twice_or_reversed_is_one_pair(tmp_path):
    """Each listed pair is used in both orders, so (0, 1), (0, 1) and (1, 0) are one pair of
    neighbours: the statement and the scope say 1 pair, as the check compares one."""
    path = tmp_path / "pairs.toml"
    path.write_text(LISTED_PAIRS.format(program=os.path.join(ROOT, "programs", "laplace.dip")))
    code, out, err = run_main(["privacy", path, "--json", "--no-progress"])
    assert code == 0, err
    out = json.loads(out)
    assert "neighbours: 1 explicit pair(s)" in out["statement"]
    assert out["scope"]["inputs_detail"] == "the inputs of 1 listed pair(s)"


def test_a_grid_value_written_twice_is_one_value(tmp_path):
    """q = { values = [0, 0, "0", 1] } is the grid {0, 1}: both claims count 2 inputs, and the
    privacy scope writes the grid as the accuracy scope does."""
    program = os.path.join(ROOT, "programs", "laplace.dip")
    grid = 'grid = { q = { values = [0, 0, "0", 1] } }'
    accuracy = tmp_path / "accuracy.toml"
    accuracy.write_text(DUPLICATE_LIST.format(program=program).replace("k = 2", "k = 1")
                        .split("list = ")[0] + grid + "\n")
    privacy = tmp_path / "privacy.toml"
    privacy.write_text(f'[program]\npath = "{program}"\nparams = {{ k = 1, sens = 1 }}\n\n[privacy]\n'
                       'adjacency = "linf"\nbound = 1\nbudget = "eps"\neps = "(0, inf)"\n'
                       'events = { out = ["(-inf, 0]", "(0, inf)"] }\n\n[privacy.inputs]\n' + grid + "\n")
    for path, command, count in ((accuracy, "accuracy", "inputs_checked"), (privacy, "privacy", "inputs")):
        code, out, err = run_main([command, path, "--json", "--no-progress"])
        assert code == 0, err
        out = json.loads(out)
        assert (out[count], out["scope"]["inputs_detail"]) == (2, "q[1] in {0, 1}"), command


def test_an_event_written_twice_is_one_event(tmp_path):
    """events = { out = ["(-inf, 0]", "(-inf,0]", "(0, inf)"] } names two events: the scope lists
    each once (the obligations already counted them once)."""
    program = os.path.join(ROOT, "programs", "laplace.dip")
    path = tmp_path / "events.toml"
    path.write_text(f'[program]\npath = "{program}"\nparams = {{ k = 1, sens = 1 }}\n\n[privacy]\n'
                    'adjacency = "linf"\nbound = 1\nbudget = "eps"\neps = "(0, inf)"\n'
                    'events = { out = ["(-inf, 0]", "(-inf,0]", "(0, inf)"] }\n\n'
                    '[privacy.inputs]\ngrid = { q = [0, 1] }\n')
    code, out, err = run_main(["privacy", path, "--json", "--no-progress"])
    assert code == 0, err
    out = json.loads(out)
    assert out["scope"]["events"] == {"out[1]": ["(-inf, 0]", "(0, inf)"]}
    assert out["obligations"] == 4


def test_a_discriminative_pair_written_twice_or_reversed_is_one_pair(tmp_path):
    """Each Pufferfish pair is checked in both directions: ["present", "absent"] written twice and
    reversed is one pair, 6 obligations (3 outputs, 2 directions) and one attack, not 18 and three."""
    text = open(os.path.join(ROOT, "theories", "truncated_geometric_pufferfish.toml"), encoding="utf-8").read()
    path = tmp_path / "pairs.toml"
    path.write_text(text.replace("../programs", os.path.join(ROOT, "programs")).replace(
        'pairs = [["present", "absent"]]',
        'pairs = [["present", "absent"], ["absent", "present"], ["present", "absent"]]'))
    code, out, err = run_main(["privacy-loss", path, "--attack", "--json", "--no-progress"])
    assert code == 0, err
    out = json.loads(out)
    assert len(out["attack"]) == 1 and len(out["rows"]) == 6
    code, out, err = run_main(["privacy", path, "--json", "--no-progress"])
    assert code == 0, err
    out = json.loads(out)
    assert (out["pairs"], out["obligations"]) == ([["present", "absent"]], 6)


def test_the_api_names_an_accuracy_counterexample_as_the_report_does():
    """The report's verdict line and the API's repr and table write the input alike (q=[-1,-1,1])."""
    sparse = os.path.join(ROOT, "theories", "sparse.toml")
    code, out, err = run_main(["accuracy", sparse, "--set", "c=1", "--input", "q=[-1,-1,1]", "--kappa", "7",
                               "--no-progress"])
    assert code == 1, err
    (verdict,) = [line for line in out.splitlines() if line.startswith("REFUTED at ")]
    where = verdict[len("REFUTED at "):verdict.index(" (re-checked")]
    report = dipc_plus.check_accuracy(sparse, params={"c": 1}, input={"q": [-1, -1, 1]}, kappa=7)
    assert where == "q=[-1,-1,1], eps = 1"
    assert repr(report).endswith(f"refuted at {where}>")
    assert dict(report.counterexample.html_rows())["input"] == "q=[-1,-1,1]"


def test_a_discriminative_pair_of_one_secret_is_refused(tmp_path):
    """["present", "present"] compares a secret with itself (always ratio 1, "verified"): refused as
    a listed DP pair of an input with itself is, at the pairs key."""
    text = open(os.path.join(ROOT, "theories", "truncated_geometric_pufferfish.toml"), encoding="utf-8").read()
    path = tmp_path / "pairs.toml"
    path.write_text(text.replace("../programs", os.path.join(ROOT, "programs")).replace(
        'pairs = [["present", "absent"]]', 'pairs = [["present", "absent"], ["present", "present"]]'))
    code, out, err = run_main(["privacy", path, "--no-progress"])
    assert code == 2
    assert "privacy.pairs: pair 2 compares 'present' with itself" in err
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("pairs = "))
    assert f"pairs.toml:{line}:" in err


def _command_json(*argv) -> dict:
    code, out, err = run_main([*argv, "--json", "--no-progress"])
    assert code in (0, 1), err
    return json.loads(out)


@pytest.mark.parametrize("theory, check, strict", [
    ("laplace.toml", "check_accuracy", False),
    ("noisy_max.toml", "check_accuracy", True),
    ("laplace.toml", "sweep", False),
    ("noisy_compare_box.toml", "sweep", False),
    ("laplace_privacy.toml", "check_privacy", False),
    ("truncated_geometric_count_pufferfish.toml", "check_privacy", False),
    ("laplace_privacy_box.toml", "check_privacy", False),
])
def test_the_api_json_is_the_commands_json(theory, check, strict):
    """to_json() is the command's --json, its "strict" record included (requested: the call's
    strict=..., reason: why a verified verdict would fail it) and a box privacy claim's "exit", in
    the command's key order."""
    from dipc_plus.commands.merge import without_timing
    path = os.path.join(ROOT, "theories", theory)
    command = {"check_accuracy": "accuracy", "sweep": "sweep", "check_privacy": "privacy"}[check]
    cli = without_timing(_command_json(command, path, *(["--strict"] if strict else [])))
    api = without_timing(json.loads(getattr(dipc_plus, check)(path, strict=strict).to_json_text()))
    assert api == cli
    assert list(api) == list(cli)
