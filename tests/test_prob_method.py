"""`dipc prob` takes the argmax integral where the program is argmax/argmin of independent
samples, prints the same closed forms as the chain, and says which path ran."""
from __future__ import annotations

import json

import pytest

from dipc_plus.cli import main as dipc
from conftest import ROOT

ARGMAX_PROGRAMS = ["noisy_max", "noisy_min", "noisy_max_loop", "noisy_max_exp"]
INPUTS = {2: ["q=[0,0]", "q=[-1,1/2]"], 3: ["q=[-1,0,0]", "q=[1,-1/3,1]"], 4: ["q=[-1,0,1,0]"]}


def prob_json(capsys, *argv) -> dict:
    code = dipc(["prob", *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def by_output(report: dict) -> dict:
    return {json.dumps(o["outputs"], sort_keys=True): o["probability"] for o in report["outcomes"]}


@pytest.mark.parametrize("name", ARGMAX_PROGRAMS)
@pytest.mark.parametrize("m", [2, 3, 4])
def test_argmax_path_gives_the_chains_closed_forms(capsys, name, m):
    path = str(ROOT / "programs" / f"{name}.dip")
    for given in INPUTS[m]:
        fast = prob_json(capsys, path, "--set", f"m={m}", "--input", given)
        slow = prob_json(capsys, path, "--set", f"m={m}", "--input", given, "--chain")
        assert fast["method"] == "argmax-integral" and fast["chain"] is None
        assert slow["method"] == "chain" and slow["chain"]["states"] > 0
        # the same outcomes with the same canonical closed forms (text identity)
        assert by_output(fast) == by_output(slow)
        assert fast["sums_to_one"] and slow["sums_to_one"]


def test_text_report_names_the_path(capsys):
    path = str(ROOT / "programs" / "noisy_max.dip")
    assert dipc(["prob", path, "--input", "q=[-1,0,0]"]) == 0
    fast = capsys.readouterr().out
    assert dipc(["prob", path, "--input", "q=[-1,0,0]", "--chain"]) == 0
    slow = capsys.readouterr().out
    assert "Method: argmax integral" in fast and "no Markov chain built" in fast
    assert "Method: Markov chain, " in slow and "argmax" not in slow
    # everything after the method line is the same report
    assert fast.split("\n", 2)[2] == slow.split("\n", 2)[2]


def test_events_report_the_path(capsys):
    path = str(ROOT / "programs" / "noisy_max.dip")
    fast = prob_json(capsys, path, "--input", "q=[-1,0,0]", "--events", "out==2")
    slow = prob_json(capsys, path, "--input", "q=[-1,0,0]", "--events", "out==2", "--chain")
    assert (fast["method"], slow["method"]) == ("argmax-integral", "chain")
    assert fast["events"] == slow["events"]


def test_other_programs_take_the_chain_and_say_so(capsys):
    report = prob_json(capsys, str(ROOT / "programs" / "sparse.dip"), "--set", "m=2", "--input", "q=[0,1]")
    assert report["method"] == "chain" and report["chain"]["exits"] > 0
