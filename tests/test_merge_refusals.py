"""`dipc merge` refuses every part that does not belong, naming the part and saying why in full: one
case per refusal of the reader, the schema's rules of a part, the join and the claim check (each a
user error, exit 2), so that a redesign of merge keeps every message."""
from __future__ import annotations

import copy
import json

import pytest

from conftest import THEORIES, run_main

GUARDS = ["--timeout", "0", "--max-memory", "0"]
CHANGED = "the part was changed or cut: run that part again"
CLAIM = "every part must be made from this claim, unchanged"
NOT_A_PART = "this part is not what `dipc ... --shard` writes: "


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """{run: [part JSON]}: an accuracy run in 3 parts, a refuted privacy run in 2."""
    runs = {"accuracy": (["accuracy", THEORIES / "sparse.toml", "--set", "m=3", "--set", "c=1"], 3),
            "privacy": (["privacy", THEORIES / "svt_lyu_alg4_privacy.toml"], 2)}
    out = {}
    for name, (argv, n) in runs.items():
        out[name] = []
        for i in range(1, n + 1):
            code, text, err = run_main([*argv, "--json", "--no-progress", *GUARDS, "--shard", f"{i}/{n}"])
            assert code in (0, 1), err
            out[name].append(json.loads(text))
    return out


def merged(tmp_path, parts: list, *texts: str):
    """`dipc merge` of the parts (JSON objects, or raw texts first): (exit, stderr, the paths)."""
    paths = []
    for k, part in enumerate([*texts, *parts]):
        paths.append(tmp_path / f"part{k}.json")
        paths[-1].write_text(part if isinstance(part, str) else json.dumps(part))
    code, _, err = run_main(["merge", *paths, "--text", *GUARDS])
    return code, err, paths


def refusal(err: str) -> tuple[str, str]:
    """(the error line after the file name, the hint) of a refusal's text."""
    line = next(x for x in err.splitlines() if "error: " in x)
    hint = next(x for x in err.splitlines() if x.strip().startswith("hint: "))
    return line.split("error: ", 1)[1], hint.strip()[len("hint: "):]


def edit(part: dict, path: tuple, value) -> dict:
    out = copy.deepcopy(part)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


READER = [   # (the part's text, the message, the hint)
    ("{]", "the part is not JSON: Expecting property name enclosed in double quotes",
     "save the standard output of `dipc ... --json --shard I/N` unchanged"),
    ("[1]", "the part is not a JSON object", "give the --json output of a --shard run"),
    ('{"a": ' + "[" * 40 + "]" * 40 + "}", "the part nests JSON deeper than a part does (at most 32 levels)",
     "save the standard output of `dipc ... --json --shard I/N` unchanged"),
    ('{"verdict": "verified"}', "this JSON is not a part of a sharded run (no \"part\" record)",
     "make the parts with --json --shard I/N"),
    ('{"part": {"command": "prob"}}', "parts of `prob` cannot be merged", "dipc merge joins accuracy and privacy parts"),
]


@pytest.mark.parametrize("text, message, hint", READER)
def test_a_file_that_is_no_part_is_refused_by_the_reader(tmp_path, text, message, hint):
    code, err, paths = merged(tmp_path, [], text)
    assert code == 2 and str(paths[0]) in err
    assert refusal(err) == (message, hint)


def test_a_part_index_outside_its_run_is_refused(tmp_path, parts):
    first, *rest = parts["accuracy"]
    code, err, paths = merged(tmp_path, [edit(first, ("part", "index"), 0), *rest])
    assert code == 2 and str(paths[0]) in err
    assert refusal(err) == ("part index 0/3 is outside 1..N", "give the parts of one run")


def test_an_accuracy_part_whose_reports_are_apart_or_not_the_programs_inputs_is_refused(tmp_path, parts):
    first, *rest = parts["accuracy"]
    reports = first["reports"]
    key = reports[0]["input"]
    assert reports[1]["input"] != key and reports[2]["input"] != key   # one report per input at kappa = 1
    apart = {**first, "reports": [reports[0], reports[1], reports[0], *reports[3:]]}
    code, err, _ = merged(tmp_path, [apart, *rest])
    assert code == 2 and refusal(err) == (NOT_A_PART + "an input's reports are not together (an input repeated)",
                                          CHANGED)
    foreign = edit(first, ("reports",), [{**r, "input": {"q": "abc"}} if r["input"] == key else r for r in reports])
    code, err, _ = merged(tmp_path, [foreign, *rest])
    assert code == 2 and refusal(err)[0].startswith(NOT_A_PART + "a report's input is not an input of the program: ")


def test_parts_of_two_runs_missing_or_twice_are_refused(tmp_path, parts):
    first, second, third = parts["accuracy"]
    code, err, paths = merged(tmp_path, [first, edit(second, ("statement",), "another")])
    message, hint = refusal(err)   # the CLI shortens a long path inside a message
    assert code == 2 and str(paths[1]) in err and message.startswith("this part belongs to another run than /")
    assert message.endswith(" its \"statement\" differs")
    assert hint == "merge only the parts of one run (same claim, files, options and N)"
    code, err, _ = merged(tmp_path, [first, third])
    assert code == 2 and refusal(err) == (
        "1 part(s) missing: 2/3", "every part is needed: a verdict about fewer inputs is not the claim's verdict")
    code, err, paths = merged(tmp_path, [first, second, third, first])
    message, hint = refusal(err)
    assert code == 2 and message.startswith("part 1/3 is given twice (also /") and hint == "give each part once"


def test_parts_that_do_not_name_or_cover_their_claim_are_refused(tmp_path, parts):
    renamed = [edit(part, ("part", "options", "args", 0), "other.toml") for part in parts["accuracy"]]
    code, err, _ = merged(tmp_path, renamed)
    assert code == 2 and refusal(err) == (NOT_A_PART + "\"part.options\" does not name the claim of the run", CHANGED)
    more = [edit(part, ("part", "total_items"), 57) for part in parts["privacy"]]
    more = [edit(part, ("part", "items"), items) for part, items in zip(more, ([0, 29], [29, 57]))]
    code, err, _ = merged(tmp_path, more)
    assert code == 2 and refusal(err) == (NOT_A_PART + "the parts cover 57 pairs but the claim has 56", CLAIM)


def test_a_privacy_counterexample_off_the_claim_is_refused_naming_its_field(tmp_path, parts):
    first, second = parts["privacy"]
    cex = first["counterexample"]
    code, err, _ = merged(tmp_path, [edit(first, ("counterexample", "neighbour"), {"q": "abc"}), second])
    assert code == 2 and refusal(err)[0].startswith(
        NOT_A_PART + "\"counterexample.neighbour\" is not an input of the program: ")
    two_apart = {k: [x + 1 for x in v] for k, v in cex["input"].items()}
    code, err, _ = merged(tmp_path, [edit(first, ("counterexample", "neighbour"), two_apart), second])
    assert code == 2 and refusal(err)[0].startswith(
        "this part's counterexample does not re-check: \"counterexample.neighbour\" ")
    as_a_set = {**{k: v for k, v in cex.items() if k != "output"}, "outputs": [cex["output"]], "output_set": "{x}"}
    code, err, _ = merged(tmp_path, [edit(first, ("counterexample",), as_a_set), second])
    assert code == 2 and refusal(err) == (
        "this part's counterexample does not re-check: \"counterexample.outputs\" is a set of outputs, but the "
        "claim has delta = 0 (one output is compared)", CHANGED)
