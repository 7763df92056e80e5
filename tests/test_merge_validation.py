"""Issue 26 row 18 and issue 30 point 7, from the user's command: `dipc merge` checks what it
merges - a part against the schema of a part, its counts against its own reports, its reports
against the claim's inputs - so a cut or edited part is exit 2 naming that part, never a verdict;
`--json` errors are one JSON object on stdout; `--text` names each count once."""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess

import pytest

from dipc_plus.cli import main
from dipc_plus.commands.merge import without_timing
from conftest import PROGRAMS, ROOT, THEORIES

SPARSE = ["accuracy", "theories/sparse.toml", "--set", "m=3", "--set", "c=1", "--json", "--no-progress"]
SVT4 = ["privacy", "theories/svt_lyu_alg4_privacy.toml", "--json", "--no-progress"]   # refuted
SVT1 = ["privacy", "theories/svt_lyu_alg1_privacy.toml", "--json", "--no-progress"]   # verified


def dipc(*argv):
    """The command run in this process, from the repository root: (exit, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in argv] + ["--timeout", "0", "--max-memory", "0"])
            except SystemExit as stop:
                code = stop.code
    finally:
        os.chdir(cwd)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{name: (unsharded JSON, [part paths])} for an accuracy and two privacy runs, made once."""
    folder = tmp_path_factory.mktemp("parts")
    out = {}
    for name, argv, n in (("sparse", SPARSE, 3), ("svt4", SVT4, 3), ("svt1", SVT1, 2)):
        whole = dipc(*argv)
        assert whole.returncode in (0, 1), whole.stderr
        paths = []
        for i in range(1, n + 1):
            proc = dipc(*argv, "--shard", f"{i}/{n}")
            assert proc.returncode in (0, 1), proc.stderr
            path = folder / f"{name}{i}.json"
            path.write_text(proc.stdout)
            paths.append(path)
        out[name] = (json.loads(whole.stdout), paths)
    return out


def edited(tmp_path, path, change, name=None):
    """A copy of the part at `path` with `change(obj)` applied (or its text replaced by a str)."""
    target = tmp_path / (name or f"edited_{path.name}")
    if isinstance(change, str):
        target.write_text(change)
    else:
        obj = json.loads(path.read_text())
        change(obj)
        target.write_text(json.dumps(obj))
    return target


def refused_json(proc, part=None, says=None):
    """Exit 2, one JSON object on stdout naming the part, nothing but notes on stderr, no traceback."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stdout + proc.stderr
    obj = json.loads(proc.stdout)           # one object: json.loads refuses anything after it
    assert obj["exit"] == 2
    if part is not None:
        assert obj["error"]["file"] == str(part), obj
    if says is not None:
        assert says in obj["error"]["message"], obj
    return obj


def test_parts_made_by_dipc_still_merge_into_the_unsharded_run(runs):
    for name in ("sparse", "svt4", "svt1"):
        whole, paths = runs[name]
        proc = dipc("merge", *reversed(paths))
        assert proc.returncode == (1 if whole["verdict"] == "refuted" else 0), proc.stderr
        assert without_timing(json.loads(proc.stdout)) == without_timing(whole)
        assert proc.stderr == ""       # the claim was here: its inputs were checked, no note


# -- the schema: types, sizes, nesting, integer length ------------------------------------------------

def _set(path, value):
    def change(obj):
        *head, last = path
        for key in head:
            obj = obj[key]
        obj[last] = value
    return change


@pytest.mark.parametrize("label, change, says", [
    ("items_text", _set(["part", "items"], "x"), "part.items"),
    ("reports_null", _set(["reports"], None), "reports"),
    ("seconds_text", _set(["seconds"], "abc"), "seconds"),
    ("count_float", _set(["obligations"], 9.5), "obligations"),
    ("count_bool", _set(["inputs_checked"], True), "inputs_checked"),
    ("index_text", _set(["part", "index"], "1"), "part.index"),
    ("files_list", _set(["part", "files"], ["a"]), "part.files"),
    ("report_text", _set(["reports", 0], "verified"), "\"reports[0]\" is \"verified\", not a report"),
    ("strict_text", _set(["strict"], "yes"), "strict"),
    ("error_text", lambda o: (o.pop("verdict"), o.update(error="boom")), "ended with an error"),
    ("deep", "[" * 100_000 + "]" * 100_000, "deeper"),
    ("deep_inside", '{"part": ' + "[" * 100_000 + "]" * 100_000 + "}", "deeper"),
    ("deep_33", '{"verdict": "verified", "x": ' + "[" * 40 + "]" * 40 + ', "part": {"command": "accuracy", '
     '"index": 1, "of": 3, "files": {}, "options": {}, "items": [0, 9], "total_items": 27}}', "deeper"),
    ("digits", '{"verdict": "verified", "seconds": ' + "9" * 100_000 + "}", "100000 digits"),
    ("nan", lambda o: None, None),
])
def test_a_part_that_is_not_a_part_is_exit_2_naming_it(runs, tmp_path, label, change, says):
    first, *rest = runs["sparse"][1]
    if label == "nan":
        text, n = re.subn(r'^  "seconds": [0-9.]+', '  "seconds": NaN', first.read_text(), count=1, flags=re.M)
        assert n == 1
        bad = edited(tmp_path, first, text)
        says = "NaN"
    else:
        bad = edited(tmp_path, first, change)
    refused_json(dipc("merge", bad, *rest, "--json"), bad, says)


# -- counts recomputed, the report set complete ------------------------------------------------------

def test_reports_cut_from_9_to_1_do_not_merge(runs, tmp_path):
    first, *rest = runs["sparse"][1]
    assert len(json.loads(first.read_text())["reports"]) == 9
    cut = edited(tmp_path, first, lambda o: o.update(reports=o["reports"][:1]))
    refused_json(dipc("merge", cut, *rest, "--json"), cut, "reports make 1")

    def cut_and_count(o):   # the counts edited to match the one report left
        o["reports"] = o["reports"][:1]
        o["inputs_checked"] = o["obligations"] = o["obligations_applicable"] = 1
    cut = edited(tmp_path, first, cut_and_count, "counted.json")
    refused_json(dipc("merge", cut, *rest, "--json"), cut, "9 inputs")


def test_a_consistently_shrunk_run_is_caught_against_the_claim(runs, tmp_path):
    """Every part cut to its first input, items and totals rewritten to agree: only the claim's own
    grid (27 inputs) shows that the run is not the claim's."""
    paths = runs["sparse"][1]
    shrunk = []
    for k, path in enumerate(paths):
        def shrink(o, k=k):
            first_input = o["reports"][0]["input"]
            o["reports"] = [r for r in o["reports"] if r["input"] == first_input]
            n = len(o["reports"])
            o["inputs_checked"], o["obligations"] = 1, n
            o["obligations_applicable"] = sum(r["verdict"] != "not applicable" for r in o["reports"])
            o["obligations_refuted"] = sum(r["verdict"] == "refuted" for r in o["reports"])
            o["vacuous"] = o["obligations_applicable"] == 0 and o["verdict"] == "verified"
            o["part"]["items"], o["part"]["total_items"] = [k, k + 1], len(paths)
        shrunk.append(edited(tmp_path, path, shrink))
    refused_json(dipc("merge", *shrunk, "--json"), says="not the scope of the inputs they report")


def test_a_run_on_given_inputs_merges_with_its_own_scope(tmp_path):
    """`--input` runs are not the claim's grid: their parts merge, and the scope says which inputs."""
    argv = [*SPARSE, "--input", "q=[1,-1,-1]"]
    whole = dipc(*argv)
    part = tmp_path / "given.json"
    part.write_text(dipc(*argv, "--shard", "1/1").stdout)
    proc = dipc("merge", part)
    assert proc.returncode == whole.returncode == 0, proc.stdout
    assert without_timing(json.loads(proc.stdout)) == without_timing(json.loads(whole.stdout))
    assert json.loads(proc.stdout)["scope"]["inputs"] == "list"


@pytest.mark.parametrize("case", ["given inputs", "alpha above every dd"])
def test_a_vacuous_run_merges_to_exit_5_naming_the_same_field(tmp_path, case):
    """A merged vacuous accuracy answer is as loud as the unsharded one: exit 5, the same "vacuity"
    (its field recomputed from the parts' reports: their count and largest dd), 0 with --allow-vacuous."""
    if case == "given inputs":
        run = [*SPARSE, "--input", "q=[0,0,1]"]   # one input: part 2/2 is empty
    else:   # Laplace under zero-one: dd(u) = 1 at every input, so alpha = 1 leaves no input past alpha
        text = (THEORIES / "laplace.toml").read_text().replace('"../programs/laplace.dip"',
                                                              json.dumps(str(PROGRAMS / "laplace.dip")))
        text, n = re.subn(r"(?m)^alpha = .*$", "alpha = 1", text)
        assert n == 1
        (tmp_path / "laplace_alpha1.toml").write_text(text)
        run = ["accuracy", tmp_path / "laplace_alpha1.toml", "--json", "--no-progress"]
    whole = dipc(*run)
    parts = []
    for i in (1, 2):
        parts.append(tmp_path / f"p{i}.json")
        parts[-1].write_text(dipc(*run, "--shard", f"{i}/2").stdout)
    proc = dipc("merge", *parts)
    assert proc.returncode == whole.returncode == 5, (proc.stdout, whole.stdout)
    merged, unsharded = json.loads(proc.stdout), json.loads(whole.stdout)
    assert merged["vacuity"]["field"] and without_timing(merged) == without_timing(unsharded)
    assert dipc("merge", *parts, "--allow-vacuous").returncode == 0


def test_reports_that_are_not_the_claims_inputs_do_not_merge(runs, tmp_path):
    first, *rest = runs["sparse"][1]

    def other_input(o):      # an input off the claim's grid: the stated scope is not the reports'
        for r in o["reports"]:
            r["input"]["q"][0] = 7
    bad = edited(tmp_path, first, other_input)
    refused_json(dipc("merge", bad, *rest, "--json"), bad, "scope")

    def reorder(o):          # the same inputs in another order: not the claim's inputs 0..9
        o["reports"][0]["input"], o["reports"][-1]["input"] = o["reports"][-1]["input"], o["reports"][0]["input"]
    bad = edited(tmp_path, first, reorder, "reordered.json")
    refused_json(dipc("merge", bad, *rest, "--json"), bad, "not the claim's inputs 0..9")


def test_without_the_claim_here_the_parts_are_checked_against_each_other(runs, tmp_path):
    """Merging elsewhere (the claim's files absent): a note says so, and a duplicated input is still caught."""
    first, second, third = runs["sparse"][1]
    moved = [edited(tmp_path, p, lambda o: o["part"].update(files={"/nowhere/" + k: v for k, v in
                                                                   o["part"]["files"].items()}), f"m{i}.json")
             for i, p in enumerate((first, second, third))]
    proc = dipc("merge", *moved)
    assert proc.returncode == 0 and "not against the claim" in proc.stderr

    def copy_first_reports(o):   # part 2 reports part 1's inputs (9 of them, as many as its own)
        one = json.loads(first.read_text())
        for key in ("reports", "inputs_checked", "obligations", "obligations_applicable", "obligations_refuted",
                    "verdict", "vacuous"):
            o[key] = one[key]
    dup = edited(tmp_path, moved[1], copy_first_reports, "dup.json")
    refused_json(dipc("merge", moved[0], dup, moved[2], "--json"), dup, "reports too")


def test_accuracy_parts_against_a_claim_without_an_accuracy_table_say_it_as_every_command_does(runs, tmp_path):
    """Accuracy parts whose named claim (here, with its true SHA-256) has no [accuracy] table: the one
    refusal of `accuracy.checker.accuracy_table`, naming the claim file, as `dipc accuracy` prints it."""
    from dipc_plus.execution.executor import file_digest
    claim = "theories/randomized_response_coin_privacy.toml"

    def other_claim(o):
        o["part"]["files"] = {claim: file_digest(str(ROOT / claim))}
        o["part"]["options"]["args"][0] = claim
        o["part"]["options"]["args"][1] = []
    parts = [edited(tmp_path, p, other_claim, f"c{i}.json") for i, p in enumerate(runs["sparse"][1])]
    obj = refused_json(dipc("merge", *parts, "--json"), claim, "the claim file has no [accuracy] table")
    assert obj["error"]["message"] == "the claim file has no [accuracy] table"
    assert obj["error"]["hint"] == "add an [accuracy] table (see docs/claims.md)"
    direct = dipc("accuracy", claim, "--json")
    assert direct.returncode == 2 and json.loads(direct.stdout)["error"] == obj["error"]


# -- an edited verdict -------------------------------------------------------------------------------

def test_an_edited_report_verdict_is_exit_2_naming_the_part(runs, tmp_path):
    first, *rest = runs["sparse"][1]
    for k, (verdict, says) in enumerate([("refuted", "without a counterexample"),
                                         ("not applicable", "beside a bound"),
                                         ("no verdict", "verdict")]):
        bad = edited(tmp_path, first, lambda o: o["reports"][0].update(verdict=verdict), f"v{k}.json")
        refused_json(dipc("merge", bad, *rest, "--json"), bad, says)

    def refute_consistently(o):   # a report turned refuted with a counterexample, the counts left alone
        o["reports"][0]["verdict"] = "refuted"
        o["reports"][0]["counterexample"] = {"input": o["reports"][0]["input"], "eps": "1", "alpha": 1, "gamma": 0,
                                             "kappa": 1, "error_probability": "1", "bound": "0",
                                             "error_probability_value": "1", "bound_value": "0"}
    bad = edited(tmp_path, first, refute_consistently, "v3.json")
    refused_json(dipc("merge", bad, *rest, "--json"), bad, "obligations_refuted")


def test_an_edited_part_verdict_is_exit_2(runs, tmp_path):
    first, *rest = runs["svt4"][1]       # refuted: its counterexample stays behind
    bad = edited(tmp_path, first, lambda o: o.update(verdict="verified"))
    refused_json(dipc("merge", bad, *rest, "--json"), bad, "beside a counterexample")
    bad = edited(tmp_path, first, lambda o: (o.update(verdict="verified"), o.pop("counterexample")), "v2.json")
    refused_json(dipc("merge", bad, *rest, "--json"), bad, "pairs")
    first, *rest = runs["svt1"][1]       # verified: fewer pairs than it covers
    bad = edited(tmp_path, first, lambda o: o.update(pairs_checked=o["pairs_checked"] - 1), "v3.json")
    refused_json(dipc("merge", bad, *rest, "--json"), bad, "pairs")


# -- --json errors, --text counts ----------------------------------------------------------------------

def test_merge_json_errors_are_one_object_on_stdout(runs, tmp_path):
    paths = runs["sparse"][1]
    for argv, says in [(paths[:2], "missing"), ([tmp_path / "nowhere.json"], "no such file"),
                       ([*paths, paths[0]], "twice"), ([], None)]:
        proc = dipc("merge", *argv, "--json")
        assert proc.returncode == 2 and "Traceback" not in proc.stdout + proc.stderr
        obj = json.loads(proc.stdout)
        assert obj["exit"] == 2 and (says is None or says in obj["error"]["message"])
    assert dipc("merge", *paths, "--json", "--text").returncode == 2   # one form or the other


def test_merge_text_names_each_count_once(runs):
    for name in ("sparse", "svt4"):
        proc = dipc("merge", *runs[name][1], "--text")
        counts = [item.split(" = ")[0] for item in proc.stdout.splitlines()[2].split(";")[0].split(", ")]
        assert counts and len(counts) == len(set(counts)), proc.stdout
        assert "obligations" in counts


def test_a_privacy_part_with_other_items_or_fewer_pairs_does_not_merge(runs, tmp_path):
    whole, paths = runs["svt1"]              # 2 parts of the claim's pairs
    total = json.loads(paths[0].read_text())["part"]["total_items"]
    assert total == whole["pairs_checked"]

    def moved_items(o):                      # part 1 claims a shorter range, its count to match
        o["part"]["items"][1] -= 1
        o["pairs_checked"] -= 1
    bad = edited(tmp_path, paths[0], moved_items)
    refused_json(dipc("merge", bad, paths[1], "--json"), bad, "part 1/2")

    shrunk = []
    for k, path in enumerate(paths):         # both parts rewritten to a consistent run of 200 pairs
        def shrink(o, k=k):
            o["part"]["total_items"], o["part"]["items"] = 200, [100 * k, 100 * (k + 1)]
            o["pairs_checked"] = 100
        shrunk.append(edited(tmp_path, path, shrink))
    refused_json(dipc("merge", *shrunk, "--json"), says=f"the claim has {total}")
