"""`dipc merge` re-checks a privacy part's counterexample (`privacy.dp.restate`): the refusals no other
test reached - a pair that changes no component's inputs, a set counterexample at a pair where the
claim holds for every set, an input off the claim's explicit list - and the plan's split into
independent components, which is sound only when no input is read by two components."""
from __future__ import annotations

import json

import pytest

from conftest import run_main

UNGUARDED = ["--json", "--no-progress", "--timeout", "0", "--max-memory", "0"]
FLIPS = """
type Bit = 0..1
distribution strong(x: Bit) over Bit { x: 4/5; 1 - x: 1/5 }
distribution weak(x: Bit) over Bit { x: 3/5; 1 - x: 2/5 }
"""
PROGRAMS = {
    # two components (y1 reads a, y2 reads b); c is read by no output
    "unused": FLIPS + "input a: Bit\ninput b: Bit\ninput c: Bit\noutput y1: Bit\noutput y2: Bit\n"
                      "y1 <- choose(strong(a))\ny2 <- choose(strong(b))\n",
    # x[1] leaks ln 4, x[2] only ln(3/2)
    "uneven": FLIPS + "input x: Bit[2]\noutput y: Bit[2]\ny[1] <- choose(strong(x[1]))\n"
                      "y[2] <- choose(weak(x[2]))\n",
    # both outputs read a: changing a costs 2 ln 4 = ln 16
    "shared": FLIPS + "input a: Bit\ninput b: Bit\noutput y1: Bit\noutput y2: Bit\n"
                      "y1 <- choose(strong(a))\ny2 <- choose(strong(a))\n",
}
PRIVACY = '[privacy]\nadjacency = "hamming"\nbudget = "eps"\n'
CLAIMS = {
    "unused": ("unused", PRIVACY + 'eps = "ln(2)"\n'),
    "sets": ("uneven", PRIVACY + 'eps = "ln(2)"\ndelta = "1/100"\n'),
    "list": ("uneven", PRIVACY + 'eps = "ln(2)"\n[privacy.inputs]\n'
                                 'list = [{ x = [0, 0] }, { x = [1, 0] }, { x = [0, 1] }]\n'),
}


def _claim(folder, program: str, privacy: str):
    dip = folder / f"{program}.dip"
    dip.write_text(PROGRAMS[program])
    path = folder / f"{program}-{len(list(folder.glob('*.toml')))}.toml"
    path.write_text(f'[program]\npath = "{dip}"\n{privacy}')
    return path


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """{name: [the two parts' paths]} of each claim run in two shards; the first part is refuted."""
    folder = tmp_path_factory.mktemp("restate")
    out = {}
    for name, (program, privacy) in CLAIMS.items():
        claim = _claim(folder, program, privacy)
        out[name] = []
        for i in (1, 2):
            code, printed, err = run_main(["privacy", claim, *UNGUARDED, "--shard", f"{i}/2"])
            assert code in (0, 1), err
            out[name].append(folder / f"{name}{i}.json")
            out[name][-1].write_text(printed)
        assert json.loads(out[name][0].read_text())["counterexample"] is not None
    return out


def _merge_edited(tmp_path, paths, **fields):
    data = json.loads(paths[0].read_text())
    data["counterexample"].update(fields)
    bad = tmp_path / f"edited-{paths[0].name}"
    bad.write_text(json.dumps(data))
    code, out, err = run_main(["merge", bad, paths[1]])
    return code, out, err, bad


@pytest.mark.parametrize("name", list(CLAIMS))
def test_the_honest_parts_merge_to_refuted(parts, name):
    code, out, err = run_main(["merge", *parts[name]])
    assert code == 1, err
    assert json.loads(out)["counterexample"] == json.loads(parts[name][0].read_text())["counterexample"]


@pytest.mark.parametrize("name, fields, field, says", [
    # both inputs on the grid and Hamming neighbours, but c is read by no component
    ("unused", {"input": {"a": 0, "b": 0, "c": 0}, "neighbour": {"a": 0, "b": 0, "c": 1}},
     "neighbour", "differs from the input only in inputs no output reads"),
    # (eps, delta): the pair changing x[2] loses ln(3/2) < ln 2, so no set of outputs refutes it
    ("sets", {"input": {"x": [0, 0]}, "neighbour": {"x": [0, 1]}},
     "outputs", "the claim holds at this input and neighbour for every set of outputs"),
    # an explicit list: the input [1, 1] is not on it (its neighbour [0, 1] is)
    ("list", {"input": {"x": [1, 1]}, "neighbour": {"x": [0, 1]}}, "input", "is not one of the claim's inputs"),
])
def test_an_edited_counterexample_is_refused_naming_its_field(parts, tmp_path, name, fields, field, says):
    code, out, err, bad = _merge_edited(tmp_path, parts[name], **fields)
    assert code == 2, (out, err)
    assert bad.name in err and f"\"counterexample.{field}\"" in err and says in err, err


@pytest.mark.parametrize("eps, expected", [("ln(15)", 1), ("ln(16)", 0)])
def test_components_reading_one_input_are_checked_together(tmp_path, eps, expected):
    """y1 and y2 both read a: a pair changing a changes both, and the loss is ln 16 (4 * 4), not ln 4.
    Checked per component, ln(15) was VERIFIED."""
    claim = _claim(tmp_path, "shared", PRIVACY + f'eps = "{eps}"\n')
    code, out, err = run_main(["privacy", claim, "--no-progress"])
    assert code == expected, (out, err)
    assert "independent components" not in out
    code_whole, _, err = run_main(["privacy", claim, "--no-progress", "--no-structure"])
    assert code_whole == expected, err
