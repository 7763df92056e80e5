"""Issue 36, item 8: `dipc merge` re-checks a privacy counterexample exactly when the claim is here -
its input and neighbour must be a pair of the claim, and the per-pair check must refute the claim at
that pair, output (or set of outputs) and eps with this very counterexample.  A part edited into
another well-formed counterexample is exit 2 naming the part and the field, never REFUTED."""
from __future__ import annotations

import json

import pytest

from conftest import PROGRAMS, THEORIES, run_main

UNGUARDED = ["--json", "--no-progress", "--timeout", "0", "--max-memory", "0"]
RR_CLIENTS = f'[program]\npath = "{PROGRAMS / "rr_clients.dip"}"\n'
CLAIMS = {
    # whole program, eps an interval: refuted at a rational eps (one output)
    "svt4": None,
    # independent components (one unit per client), refuted at a rational eps
    "components": RR_CLIENTS + 'params = { n = 3, lam = "1/5" }\n[privacy]\nadjacency = "hamming"\nbudget = "eps/2"\n'
                               'eps = "[1, 2]"\n',
    # delta != 0: a set of outputs
    "sets": f'[program]\npath = "{PROGRAMS / "randomized_response.dip"}"\n[privacy]\nadjacency = "hamming"\n'
            'budget = "eps/2"\ndelta = "1/100"\n',
    # eps = ln(2) on a list of inputs: exact rationals
    "log point": RR_CLIENTS + 'params = { n = 2, lam = "1/5" }\n[privacy]\nadjacency = "hamming"\nbudget = "eps"\n'
                              'eps = "ln(2)"\n[privacy.inputs]\nlist = [{ x = [0, 0] }, { x = [1, 0] }, { x = [0, 1] }]\n',
}


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """{name: [part paths]}: each claim run in two refuted parts."""
    folder = tmp_path_factory.mktemp("privacy-parts")
    out = {}
    for name, text in CLAIMS.items():
        claim = THEORIES / "svt_lyu_alg4_privacy.toml"
        if text is not None:
            claim = folder / f"{name.replace(' ', '_')}.toml"
            claim.write_text(text)
        out[name] = []
        for i in (1, 2):
            code, printed, err = run_main(["privacy", claim, *UNGUARDED, "--shard", f"{i}/2"])
            assert code == 1, err
            path = folder / f"{name.replace(' ', '_')}{i}.json"
            path.write_text(printed)
            out[name].append(path)
    return out


def _edited(tmp_path, path, **fields):
    data = json.loads(path.read_text())
    data["counterexample"].update(fields)
    new = tmp_path / f"edited-{path.name}"
    new.write_text(json.dumps(data))
    return new


@pytest.mark.parametrize("name", list(CLAIMS))
def test_honest_parts_still_merge_to_refuted(parts, name):
    code, out, err = run_main(["merge", *parts[name]])
    assert code == 1, err
    merged = json.loads(out)
    assert merged["verdict"] == "refuted"
    assert merged["counterexample"] == json.loads(parts[name][0].read_text())["counterexample"]


@pytest.mark.parametrize("name, fields, field, says", [
    # another neighbour of the input at which this output does not violate the claim
    ("svt4", {"neighbour": {"q": [1, 0, 1]}}, "output", "the claim holds at this input, neighbour and output"),
    ("svt4", {"eps": "2"}, "eps", "checked again here"),
    ("svt4", {"probability": "1"}, "probability", "checked again here"),
    ("svt4", {"output": {"out": ["bot", "top", "bot"]}}, "output", "not an output of the program at this pair"),
    ("svt4", {"input": {"q": [0, 0, 2]}}, "input", "not one of the claim's inputs"),
    ("components", {"neighbour": {"x": [1, 1, 0]}}, "neighbour", "not a neighbour of the input"),
    ("components", {"eps": "3/2"}, "eps", "checked again here"),
    ("sets", {"outputs": [{"y": True}]}, "outputs", "checked again here"),
    ("log point", {"eps": "ln(3)"}, "eps", "checked again here"),
    ("log point", {"neighbour": {"x": [1, 1]}}, "neighbour", "not one of the claim's inputs"),
])
def test_an_edited_privacy_counterexample_is_exit_2_naming_the_part_and_field(parts, tmp_path, name, fields,
                                                                                field, says):
    bad = _edited(tmp_path, parts[name][0], **fields)
    code, out, err = run_main(["merge", bad, parts[name][1]])
    assert code == 2, (out, err)
    assert bad.name in err and f"\"counterexample.{field}\"" in err and says in err, err
