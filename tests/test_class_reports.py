"""Reports made from their class's (accuracy.class_reports) print what checking each input prints.

`dipc accuracy` summarizes an input whose report class it has seen from that class; with
DIPC_CLASSES=off every input is checked on its own.  The two outputs are compared whole (JSON
minus timings; text minus the time and the work line) on shipped claims, refuted ones included.
"""
from __future__ import annotations

import json
import random
import re
from fractions import Fraction as F

import pytest

from dipc_plus.accuracy import class_reports
from dipc_plus.execution.accelerators import CLASSES_ENV
from dipc_plus.accuracy.report import env_json, env_text
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.commands.merge import without_timing
from conftest import THEORIES, run_main

CASES = [
    ("sparse", ["--set", "c=1", "--set", "m=4"]),
    ("sparse", ["--set", "c=2", "--set", "m=4"]),
    ("sparse", ["--set", "c=1", "--kappa", "7"]),        # refuted: refuting classes are never shared
    ("sparse", ["--set", "c=1", "--set", "m=4", "--paper"]),
    ("sparse_variant", []),
    ("above_threshold", []),
]
IN_PROCESS = ["--timeout", "0", "--max-memory", "0"]   # so the counter below sees the summaries


def _run(name: str, extra: list, classes: bool, monkeypatch, *, json_out: bool = True):
    if classes:
        monkeypatch.delenv(CLASSES_ENV, raising=False)
    else:
        monkeypatch.setenv(CLASSES_ENV, "off")
    shared = []
    original = class_reports.ReportClass.summary

    def counting(self, u, seconds):
        shared.append(1)
        return original(self, u, seconds)
    monkeypatch.setattr(class_reports.ReportClass, "summary", counting)
    code, out, err = run_main(["accuracy", THEORIES / f"{name}.toml", *extra, *IN_PROCESS]
                              + (["--json"] if json_out else []))
    assert code in (0, 1), err
    return code, out, len(shared)


@pytest.mark.parametrize("name, extra", CASES)
def test_json_from_classes_is_the_json_of_each_input(name, extra, monkeypatch):
    code, on, shared = _run(name, extra, True, monkeypatch)
    code_off, off, shared_off = _run(name, extra, False, monkeypatch)
    assert shared > 0 and shared_off == 0     # the class path was taken, and only with classes on
    assert code == code_off
    assert without_timing(json.loads(on)) == without_timing(json.loads(off))


def _text(out: str) -> str:
    return re.sub(r"; \d+\.\d+ s\n", "; (time)\n", re.sub(r"\nwork: [^\n]*", "", out))


@pytest.mark.parametrize("extra", [["--set", "c=1", "--set", "m=4"], ["--set", "c=1", "--set", "m=4", "-v"],
                                   ["--set", "c=1", "--kappa", "7", "-v"]])
def test_text_from_classes_is_the_text_of_each_input(extra, monkeypatch):
    code, on, shared = _run("sparse", extra + ["--no-progress"], True, monkeypatch, json_out=False)
    code_off, off, _ = _run("sparse", extra + ["--no-progress"], False, monkeypatch, json_out=False)
    assert shared > 0 and code == code_off
    assert _text(on) == _text(off)


def test_input_texts_are_env_json_and_env_text():
    """InputTexts builds each input's texts from per-value texts; compared with the functions that
    build them from the input directly, on arrays and scalars of several types."""
    program = load_claim(str(THEORIES / "sparse.toml"), {"m": 3}).accuracy.program
    texts = class_reports.InputTexts(program)
    rng = random.Random(12)
    pool = [F(-1), F(0), F(1), F(1, 2), F(-7, 3), 2, -5, True, False, "bot"]
    for _ in range(300):
        u = {f"q[{i}]": rng.choice(pool) for i in (1, 2, 3)}
        if rng.random() < 0.5:
            u["x"] = rng.choice(pool)
        if rng.random() < 0.3:
            u = dict(reversed(list(u.items())))
        assert texts.json(u) == json.dumps(env_json(program, u))
        assert texts.shown(u) == env_text(program, u)
    assert texts.json({}) == json.dumps(env_json(program, {})) and texts.shown({}) == env_text(program, {})


# --jobs 2: each worker summarizes its tasks (with its own report classes) and sends back one
# SummaryPart per task; the client writes them in input order.  The output is one process's.
JOBS_CASES = CASES + [
    ("noisy_max", []),
    ("numeric_sparse", []),
    ("sparse", ["--set", "c=1", "--kappa", "7", "--first"]),   # stopped at the first refuting input
]


def _cli(name: str, extra: list, jobs: int, monkeypatch) -> tuple:
    monkeypatch.delenv(CLASSES_ENV, raising=False)
    code, out, err = run_main(["accuracy", THEORIES / f"{name}.toml", *extra, *IN_PROCESS, "--jobs", str(jobs)])
    assert code in (0, 1), err
    return code, out


@pytest.mark.parametrize("name, extra", JOBS_CASES)
def test_json_on_two_workers_is_the_json_of_one_process(name, extra, monkeypatch):
    code, one = _cli(name, extra + ["--json"], 1, monkeypatch)
    code2, two = _cli(name, extra + ["--json"], 2, monkeypatch)
    assert code == code2
    one, two = json.loads(one), json.loads(two)
    assert one["work"] != two["work"] or "work" not in one   # the run went to the workers
    assert without_timing(one) == without_timing(two)


@pytest.mark.parametrize("extra", [["--set", "c=1", "--set", "m=4"], ["--set", "c=1", "--kappa", "7", "-v"],
                                   ["--set", "c=1", "--set", "m=4", "--summary", "--worst", "3"]])
def test_text_on_two_workers_is_the_text_of_one_process(extra, monkeypatch):
    code, one = _cli("sparse", extra + ["--no-progress"], 1, monkeypatch)
    code2, two = _cli("sparse", extra + ["--no-progress"], 2, monkeypatch)
    assert code == code2 and _text(one) == _text(two)


def test_a_refuted_run_on_two_workers_names_the_first_counterexample(monkeypatch):
    """The first refuting input in input order, as one process finds it, whichever worker finished first."""
    _, one = _cli("sparse", ["--set", "c=1", "--kappa", "7", "--json"], 1, monkeypatch)
    _, two = _cli("sparse", ["--set", "c=1", "--kappa", "7", "--json"], 2, monkeypatch)
    one, two = json.loads(one), json.loads(two)
    assert one["verdict"] == two["verdict"] == "refuted"
    assert without_timing(one["counterexample"]) == without_timing(two["counterexample"])
