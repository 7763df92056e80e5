"""Behaviour-unchanged check for refactorings of `dipc merge`: its exit status, stdout and stderr
on good parts and on parts that must be refused (missing, duplicate, of two claims, edited).

    python experiments/merge_identity.py --parts /tmp/mparts --make           # once: shard runs into parts
    python experiments/merge_identity.py --parts /tmp/mparts --write /tmp/base.json   # on the start point
    python experiments/merge_identity.py --parts /tmp/mparts --compare /tmp/base.json # after the change

The parts are made once and read by both checkouts, so only merge's own code differs.  Timing
fields (`commands.merge.without_timing`) are left out of a JSON stdout.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from dipc_plus.commands.merge import without_timing  # noqa: E402

RUNS = {   # name -> (argv of the sharded run, N)
    "acc": (["accuracy", "theories/sparse.toml", "--set", "m=3", "--set", "c=1"], 3),
    "accref": (["accuracy", "theories/sparse.toml", "--set", "m=3", "--set", "c=1", "--dd-over", "grid"], 2),
    "accstrict": (["accuracy", "theories/sparse.toml", "--set", "m=3", "--set", "c=1", "--strict"], 2),
    "p4": (["privacy", "theories/svt_lyu_alg4_privacy.toml"], 3),
    "p1": (["privacy", "theories/svt_lyu_alg1_privacy.toml"], 2),
}


def make(folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    for name, (argv, n) in RUNS.items():
        for i in range(1, n + 1):
            done = subprocess.run([sys.executable, "-m", "dipc_plus", *argv, "--json", "--no-progress",
                                   "--shard", f"{i}/{n}"], capture_output=True, text=True, cwd=ROOT,
                                  env=dict(os.environ, PYTHONPATH=ROOT))
            with open(os.path.join(folder, f"{name}{i}.json"), "w") as f:
                f.write(done.stdout)


def _edit(part: dict, path: list, value) -> dict:
    out = copy.deepcopy(part)
    target = out
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


def cases(folder: str) -> dict:
    """{case name: list of part files (written under folder/edits)}."""
    def load(name):
        return json.load(open(os.path.join(folder, f"{name}.json")))
    edits = os.path.join(folder, "edits")
    os.makedirs(edits, exist_ok=True)

    def write(name, data):
        path = os.path.join(edits, name + ".json")
        with open(path, "w") as f:
            f.write(data if isinstance(data, str) else json.dumps(data))
        return path
    p = {name: [os.path.join(folder, f"{name}{i}.json") for i in range(1, n + 1)] for name, (_, n) in RUNS.items()}
    acc1, ref1, p41, p11 = load("acc1"), load("accref1"), load("p41"), load("p11")
    reports = acc1["reports"]
    swapped = copy.deepcopy(acc1)
    swapped["reports"] = reports[3:] + reports[:3]
    repeated = copy.deepcopy(acc1)
    repeated["reports"] = [reports[0], reports[3], reports[0]] + reports[4:]
    changed_cex = copy.deepcopy(ref1)
    for holder in [changed_cex] + [r for r in changed_cex["reports"] if "counterexample" in r][:1]:
        holder["counterexample"]["error_probability_value"] = "0.5"
    bad_input = copy.deepcopy(acc1)
    for r in bad_input["reports"]:
        if r["input"] == reports[0]["input"]:
            r["input"] = {"q": "abc"}
    out = {f"good-{k}": v for k, v in p.items()}
    out.update({f"text-{k}": v + ["--text"] for k, v in p.items()})
    out.update({
        "missing": p["acc"][:2], "duplicate": p["acc"] + p["acc"][:1], "two-claims": [p["p1"][0], p["p4"][1]],
        "two-kinds": [p["acc"][0], p["p4"][1]],
        "other-version": [write(f"version{i}", _edit(load(f"acc{i}"), ["part", "files"], {
            name: "0" * 64 for name in acc1["part"]["files"]})) for i in (1, 2, 3)],
        "other-statement": [write("statement", {**acc1, "statement": "x"})] + p["acc"][1:],
        "other-options": [write("options", _edit(acc1, ["part", "options", "kappa"], 2))] + p["acc"][1:],
        "index0": [write("index0", _edit(acc1, ["part", "index"], 0))] + p["acc"][1:],
        "index9": [write("index9", _edit(acc1, ["part", "index"], 9))] + p["acc"][1:],
        "of-big": [write("ofbig", _edit(acc1, ["part", "of"], 10 ** 9))] + p["acc"][1:],
        "items": [write("items", _edit(acc1, ["part", "items"], [0, 8]))] + p["acc"][1:],
        "verdict": [write("verdict", _edit(acc1, ["verdict"], "refuted"))] + p["acc"][1:],
        "count": [write("count", _edit(acc1, ["obligations"], 1))] + p["acc"][1:],
        "swapped": [write("swapped", swapped)] + p["acc"][1:],
        "repeated": [write("repeated", repeated)] + p["acc"][1:],
        "fewer-reports": [write("fewer", {**acc1, "reports": reports[:3], "inputs_checked": 1, "obligations": 3,
                                          "obligations_applicable": 3})] + p["acc"][1:],
        "cex-gamma": [write("gamma", _edit(ref1, ["counterexample", "gamma"], "1/7"))] + p["accref"][1:],
        "cex-extra": [write("cexextra", _edit(ref1, ["counterexample", "extra"], 1))] + p["accref"][1:],
        "cex-input": [write("cexinput", _edit(ref1, ["counterexample", "input"], {"zz": 1}))] + p["accref"][1:],
        "cex-missing": [write("cexmissing", _edit(ref1, ["counterexample", "gamma"], KeyError))] + p["accref"][1:],
        "p-cex-prob": [write("pprob", _edit(p41, ["counterexample", "probability"], "1/3"))] + p["p4"][1:],
        "p-cex-eps": [write("peps", _edit(p41, ["counterexample", "eps"], "ln(3)"))] + p["p4"][1:],
        "p-pairs": [write("ppairs", _edit(p11, ["pairs_checked"], 3))] + p["p1"][1:],
        "p-pairs-big": [write("ppairsbig", _edit(p11, ["pairs_checked"], 10 ** 6))] + p["p1"][1:],
        "p-decisions": [write("pdec", _edit(p11, ["decisions"], 10 ** 7))] + p["p1"][1:],
        "p-nostrict": [write("pnostrict", _edit(p41, ["strict"], KeyError))] + [
            write(f"pnostrict{i}", _edit(load(f"p4{i}"), ["strict"], KeyError)) for i in (2, 3)],
        "p-no-cex": [write("pnocex", _edit(p41, ["counterexample"], None))] + p["p4"][1:],
        "p-total": [write("ptotal", _edit(p11, ["part", "total_items"], 400))] + p["p1"][1:],
        "cex-changed": [write("cexchanged", changed_cex)] + p["accref"][1:],
        "report-input": [write("reportinput", bad_input)] + p["acc"][1:],
        "p-cex-bind": [write("pbind", _edit(p41, ["counterexample", "neighbour"], {"q": "abc"}))] + p["p4"][1:],
        "p-cex-input": [write("pinput", _edit(p41, ["counterexample", "input"], {"q": [9, 9, 9]}))] + p["p4"][1:],
        "p-cex-set": [write("pset", _edit(p41, ["counterexample", "outputs"], []))] + p["p4"][1:],
        "claim-path": [write(f"claimpath{i}", _edit(load(f"acc{i}"), ["part", "options", "args", 0], "x.toml"))
                       for i in (1, 2, 3)],
        "not-json": [write("notjson", "{]")] + p["acc"][1:],
        "not-object": [write("list", "[1]")] + p["acc"][1:],
        "big-int": [write("bigint", '{"a": 1' + "0" * 40 + "}")],
        "nan": [write("nan", '{"a": NaN}')],
        "deep": [write("deep", "[" * 100 + "]" * 100)],
        "error-part": [write("error", {"error": {"message": "boom"}})],
        "no-part": [write("nopart", {"verdict": "verified"})],
        "other-command": [write("othercmd", _edit(acc1, ["part", "command"], "prob"))],
        "missing-field": [write("nofield", _edit(acc1, ["obligations"], KeyError))] + p["acc"][1:],
        "strict-exit": p["accstrict"],
        "strict-flag": p["acc"] + ["--strict"],
    })
    return out


def run(argv: list) -> dict:
    done = subprocess.run([sys.executable, "-m", "dipc_plus", "merge", *argv], capture_output=True, text=True,
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    try:
        stdout = without_timing(json.loads(done.stdout))
    except ValueError:
        stdout = done.stdout
    return {"status": done.returncode, "stdout": stdout, "stderr": done.stderr}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", required=True)
    ap.add_argument("--make", action="store_true")
    ap.add_argument("--write")
    ap.add_argument("--compare")
    args = ap.parse_args()
    if args.make:
        make(args.parts)
    results = {name: run(argv) for name, argv in cases(args.parts).items()}
    if args.write:
        json.dump(results, open(args.write, "w"), indent=1, sort_keys=True)
    if args.compare:
        base = json.load(open(args.compare))
        differ = [name for name in results if results[name] != base.get(name)]
        for name in differ:
            print(f"DIFFERS {name}:\n  before {json.dumps(base.get(name))[:600]}\n  after  "
                  f"{json.dumps(results[name])[:600]}")
        print(f"{len(results) - len(differ)} of {len(results)} merge runs identical")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
