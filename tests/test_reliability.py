"""Reliability: hostile and malformed user files end in exit 2 with a short located message, runs
are bounded in time and memory even inside C code, signals end every worker, outputs never replace
inputs, --json always prints one JSON object.  Issue 15 and item 6 of issue 8; every test here
fails on the code before the guard (commit fd4a21c).
"""
from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from dipc_plus import cli
from dipc_plus.commands import Command
from dipc_plus.execution import guard
from dipc_plus.execution.files import atomic_path, write_text

sys.path.insert(0, str(Path(__file__).resolve().parent))
from malformed import THEORIES, cases  # noqa: E402
from conftest import ROOT, run_main

LOCATED = re.compile(r"^\S.*?:\d+(:\d+)?: error: |^/\S+: error: ", re.M)
SEED = 20261124


def _balanced(depth: int) -> str:
    return "eps" if depth == 0 else f"({_balanced(depth - 1)}+{_balanced(depth - 1)})"


BALANCED = _balanced(13)  # 8192 leaves, nested only 13 deep


run = run_main   # main(argv) in this process: (exit, stdout, stderr)


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Import lazily-imported modules and build the grammar once here, not in every guarded child."""
    run(["show", ROOT / "programs/sparse.dip", "--timeout", "0", "--max-memory", "0"])
    run(["accuracy", ROOT / "programs/sparse.dip", ROOT / "theories/sparse.toml", "--input", "q=[0,0,0]",
         "--timeout", "0", "--max-memory", "0"])
    run(["privacy", ROOT / "programs/laplace.dip", ROOT / "theories/laplace_privacy.toml",
         "--timeout", "0", "--max-memory", "0"])


def claim_with(tmp_path, theory, **replace):
    """A copy of theories/THEORY with `key = value` lines replaced and the program path made absolute."""
    text = (ROOT / "theories" / theory).read_text()
    text = re.sub(r'^(path\s*=\s*")\.\./', lambda m: m.group(1) + str(ROOT) + "/", text, flags=re.M)
    for key, value in replace.items():
        text, n = re.subn(rf"^{key}\s*=.*$", lambda m: f"{key} = {value}", text, flags=re.M)
        assert n == 1, key
    path = tmp_path / f"claim_{abs(hash(str(replace)))}.toml"
    path.write_text(text)
    return path


def assert_refused(code, err, limit_word=None):
    assert code == 2, err
    assert "Traceback" not in err
    assert LOCATED.search(err), err
    assert len(err) < 1000, f"{len(err)} characters of error message"
    if limit_word:
        assert limit_word in err, err


# -- the reliability suite: 650 seeded malformed files (1,300 with DIPC_LONG=1) ------------------------------------------

def _run_cases(tmp_path, todo_cases, extra=None):
    """Run every case (a mutated program through `show`, a mutated claim through its command) in two
    forked workers; assert none ends in exit 3, a traceback or an unlocated refusal; return the
    outcome counts.  `extra[k]` adds command-line arguments to case k."""
    program_of = {}
    for t in THEORIES:
        m = re.search(r'path\s*=\s*"([^"]+)"', t.read_text())
        program_of[t.name] = str((t.parent / m.group(1)).resolve())
    todo = []
    for k, case in enumerate(todo_cases):
        path = tmp_path / f"case{k}{'.dip' if case.kind == 'program' else '.toml'}"
        path.write_text(case.text, encoding="utf-8", errors="surrogatepass")
        if case.kind == "program":
            argv = ["show", path]
        else:
            command = "privacy" if ("privacy" in case.source or "pufferfish" in case.source) else "accuracy"
            argv = [command, program_of[case.source], path] + (["--no-progress"] if command == "accuracy" else [])
        # a mutated claim that stays valid runs until the guard stops it (about a third of them):
        # a short limit keeps the suite short, and a malformed one is refused in milliseconds
        argv += (extra[k] if extra else []) + ["--timeout", "0.5" if case.kind == "program" else "0.2"]
        todo.append((case, [str(a) for a in argv]))
    # the cases are independent: two forked workers (the warm fixture's imports and grammar
    # are inherited) take half the time of one loop on two cores
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        results = list(pool.map(run, [argv for _, argv in todo], chunksize=25))
    outcomes = {0: 0, 1: 0, 2: 0, 5: 0, 6: 0, "time limit": 0}
    for (case, argv), (code, out, err) in zip(todo, results):
        what = f"{case.kind} {case.source}: {case.mutation!r} {argv[3:-2]}\n{err[:500]}"
        # 5: a mutation that left a vacuous accuracy claim; 6: an undecided box claim
        assert code in (0, 1, 2, 5, 6), what
        assert "Traceback" not in err and "internal error" not in err, what
        assert len(err) < 1500, what
        if code == 2 and "stopped after the time limit" in err:
            outcomes["time limit"] += 1  # a mutation that left a valid claim, stopped by the guard
            continue
        if code == 2:
            # located in the file, or on the command line, or one of the two limits that are checked
            # during the work and say so (docs/limits.md: decide_steps, exp_degree)
            assert LOCATED.search(err) or re.search(r"^error: --(set|input|eps)", err, re.M) or \
                re.search(r"--limit (decide_steps|exp_degree)=", err), what
        outcomes[code] += 1
    return outcomes


def test_malformed_programs_and_claims_end_cleanly(tmp_path):
    """650 seeded malformed files per run (500 programs, 150 claims; DIPC_LONG=1 runs 1,300 of the
    same seed: the suite's time budget)."""
    scale = 1 if os.environ.get("DIPC_LONG") == "1" else 2
    todo = cases(SEED, 1000 // scale, 300 // scale)
    outcomes = _run_cases(tmp_path, todo)
    # the generator really makes malformed files, most of them refused (exit 2: 382 of 650, 800+
    # of 1,300), and some that stay valid (0: 243 of 650).  The shares are of the runs that ended
    # before the guard's short limit: on a loaded machine more runs reach it (at load 15: 175 of
    # 650, leaving 317 refused and 158 valid), which says nothing about the generator
    ended = len(todo) - outcomes["time limit"]
    assert outcomes[2] > ended // 2 and outcomes[0] > ended // 10, outcomes


# -- the size fuzz (issue 26): hostile sizes on top of the malformed files -------------------------

SIZE_NUMBERS = ["99999", "100001", "5000", "9" * 70, "9" * 5000, "0.30000000000000000000000000000001",
                "1e-400", "1e400", "0." + "9" * 5000, "1_000_000", "0x" + "f" * 5000, "2**200", "10**6"]
BOX_BOUNDS = ["[-1e-50, 1e-50]", "[-0.1, 0.30000000000000000000000000000001]", '["0", "1/' + "9" * 40 + '"]',
              "[-1e59, 1e59]", '[0, "1/10000"]', '[0, "1/100000"]', '["-1/3", "1/7"]', "[1e-30, 2e-30]"]
SIZE_FORMULAS = ["((((eps+1)**200)**200)**200)", "((exp(eps)+1)**20)**50", "(exp(eps/3)+exp(eps/7)+1)**200",
                 "(eps+1)**200*(eps+2)**200*(eps+3)**200", "(" * 150 + "eps+1" + ")**2" * 150,
                 "+".join(["exp(-eps)"] * 2000), "0.30000000000000000000000000000001*exp(-eps)",
                 "1e-400*exp(-eps)", "(eps+m)**m", "exp(-eps)**200**200"]


def size_cases(seed: int, n_programs: int, n_claims: int):
    """Mutations of the shipped files that choose a size: parameters and loop bounds past the unroll
    limit, long sums, chained nots, nested ifs, long or inexact numbers, invalid UTF-8, formulas that
    expand hugely, huge grids; and hostile --set values.  Returns (cases, extra arguments)."""
    from malformed import PROGRAMS, Case
    rng = random.Random(seed)
    out, extra = [], []
    for _ in range(n_programs):
        source = rng.choice(PROGRAMS)
        text = source.read_text()
        lines = text.split("\n")
        names = re.findall(r"^param (\w+)", text, re.M)
        how = rng.choice(["param", "loop", "sum", "not", "ifs", "utf8", "loops", "set"])
        args = []
        k = rng.randrange(len(lines))
        if how == "param" and names:
            value = rng.choice(SIZE_NUMBERS)
            text = re.sub(rf"^param {names[0]} = .*$", f"param {names[0]} = {value}", text, count=1, flags=re.M)
            how += f" {names[0]} = {value[:20]}"
        elif how in ("loop", "loops"):
            assigns = [ln for ln in lines if "<-" in ln] or ["x <- 1"]
            n = rng.choice(["1000", "999000", "10**9", "m*m*m", "99999"])
            body = rng.choice(assigns)
            loop = f"for zz = 1 to {n} do\n{body}\nend" if how == "loop" else \
                f"for z1 = 1 to {n} do\nfor z2 = 1 to {n} do\nfor z3 = 1 to {n} do\n{body}\nend\nend\nend"
            text = text + "\n" + loop + "\n"
            how += f" {n}"
        elif how in ("sum", "not"):
            tokens = [m for m in re.finditer(r"\b[a-z_]\w*\b", text) if m.start() > len(text) // 2] or \
                list(re.finditer(r"\w+", text))
            m = rng.choice(tokens)
            count = rng.choice([300, 6000, 30000, 100000])
            piece = "+".join([m.group()] * count) if how == "sum" else "not " * count + m.group()
            text = text[:m.start()] + piece + text[m.end():]
            how += f" {count}"
        elif how == "ifs":
            count = rng.choice([250, 3000, 20000])
            lines[k:k] = ["if true then"] * count + ["end"] * count
            text = "\n".join(lines)
            how += f" {count} at line {k + 1}"
        elif how == "utf8":
            at = rng.randrange(len(text))
            text = text[:at] + "\udcff" + text[at:]      # written with surrogatepass: invalid UTF-8
            how += f" at {at}"
        elif names:
            value = rng.choice(SIZE_NUMBERS[:10])
            args = ["--set", f"{names[0]}={value}"]
            how = f"--set {names[0]}={value[:20]}"
        out.append(Case("program", source.name, how, text))
        extra.append(args)
    for _ in range(n_claims):
        source = rng.choice(THEORIES)
        text = re.sub(r'^(\s*path\s*=\s*")([^"]*)(")', lambda m: m.group(1) + str((source.parent / m.group(2))
                                                                               .resolve()) + m.group(3),
                      source.read_text(), count=1, flags=re.M)
        how = rng.choice(["formula", "number", "grid"])
        if how == "formula":
            keys = list(re.finditer(r'^((?:beta|delta|budget|alpha|gamma)\s*=\s*)"[^"\n]*"', text, re.M))
            value = rng.choice(SIZE_FORMULAS)
            if keys:
                m = rng.choice(keys)
                text = text[:m.end(1)] + f'"{value}"' + text[m.end():]
            how += f" {value[:30]}"
        elif how == "number":
            numbers = [m for m in re.finditer(r"(?<![\w.\"/])-?\d+(?:\.\d+)?(?![\w.\"/])", text)
                       if not text[text.rfind("\n", 0, m.start()) + 1:m.start()].lstrip().startswith("#")]
            value = rng.choice(SIZE_NUMBERS[:11])
            if numbers:                          # a number outside the comments
                m = rng.choice(numbers)
                text = text[:m.start()] + value + text[m.end():]
            how += f" {value[:20]}"
        else:
            value = rng.choice(["[0, 99999]", "[0, 999999999]", '{ values = [' + ", ".join(["1"] * 3000) + '] }'])
            text, n = re.subn(r"^grid = \{ *(\w+) = [^\n]*\}", lambda m: f"grid = {{ {m.group(1)} = {value} }}",
                              text, count=1, flags=re.M)
            if n == 0:
                text = re.sub(r"^step = .*$", 'step = "1/1000000000"', text, flags=re.M)
            how += f" {value[:20]}"
        out.append(Case("claim", source.name, how, text))
        extra.append([])
    # box bounds (issue 36): drawn from a stream of their own, so the cases above stay what they were
    box_rng = random.Random(seed + 36)
    boxed = [t for t in THEORIES if re.search(r"^box = \{ *\w+ = \[[^]]*\] *\}", t.read_text(), re.M)]
    for bounds in BOX_BOUNDS:
        source = box_rng.choice(boxed)
        text = re.sub(r'^(\s*path\s*=\s*")([^"]*)(")', lambda m: m.group(1) + str((source.parent / m.group(2))
                                                                               .resolve()) + m.group(3),
                      source.read_text(), count=1, flags=re.M)
        text = re.sub(r"^box = \{ *(\w+) = \[[^]]*\] *\}", lambda m: f"box = {{ {m.group(1)} = {bounds} }}",
                      text, count=1, flags=re.M)
        out.append(Case("claim", source.name, f"box {bounds[:30]}", text))
        extra.append([])
    return out, extra


LONG = os.environ.get("DIPC_LONG") == "1"


@pytest.mark.slow
def test_size_fuzz_ends_cleanly(tmp_path):
    """2,000 files with DIPC_LONG=1 (800 malformed with another seed, 1,200 with hostile sizes),
    else the first 400 of the same streams (the suite stays under ten minutes on two cores).
    None ends in exit 3 or a traceback, every refusal is located; the counts are printed (pytest
    -s) for the record."""
    scale = 1 if LONG else 5
    malformed = cases(SEED + 1, 500 // scale, 300 // scale)
    sized, extra = size_cases(SEED + 2, 800 // scale, 400 // scale)
    outcomes = _run_cases(tmp_path, malformed + sized, [[]] * len(malformed) + extra)
    print(f"size fuzz over {len(malformed) + len(sized)} files: {outcomes}")
    assert sum(outcomes.values()) == len(malformed) + len(sized)
    # most files that ended before the time limit are refused (under load more runs reach the limit,
    # which says nothing of the refusals: the suite on a busy machine met 151 of 408)
    assert outcomes[2] > (len(malformed) + len(sized) - outcomes["time limit"]) // 2, outcomes


# -- hostile API values (issue 36): the notebook API's twin of the size fuzz ----------------------

def _deep_list(depth: int) -> list:
    value: list = [0]
    for _ in range(depth):
        value = [value]
    return value


# each a function, so a huge value is made only when drawn
API_VALUES = {
    "nan": lambda: float("nan"), "inf": lambda: float("inf"), "-inf": lambda: float("-inf"), "None": lambda: None,
    "''": lambda: "", "'abc'": lambda: "abc", "'1/0'": lambda: "1/0", "'nan'": lambda: "nan", "'-inf'": lambda: "-inf",
    "'9'*5000": lambda: "9" * 5000, "'\\udcff'": lambda: "\udcff", "10**100000": lambda: 10 ** 100000,
    "-10**70": lambda: -10 ** 70, "1e308": lambda: 1e308, "5e-324": lambda: 5e-324, "-0.0": lambda: -0.0,
    "[0]*10**6": lambda: [0] * 1_000_000, "b'\\xff\\xfe'": lambda: b"\xff\xfe", "b'1'": lambda: b"1",
    "[[0]]": lambda: [[0]], "[0,[0],0]": lambda: [0, [0], 0], "5000-deep list": lambda: _deep_list(5000),
    "True": lambda: True, "False": lambda: False, "Fraction(1, 10**5000)": lambda: Fraction(1, 10 ** 5000),
    "Fraction(10**400, 10**400+1)": lambda: Fraction(10 ** 400, 10 ** 400 + 1), "object()": object,
    "{'a': 1}": lambda: {"a": 1}, "1j": lambda: 1j, "{1}": lambda: {1}, "Decimal('nan')": lambda: Decimal("nan"),
    "Decimal('1e999999')": lambda: Decimal("1e999999"), "0": lambda: 0, "'1/10'": lambda: "1/10",
}


def _api_calls():
    """Where a value goes: {name: call(value)} over the API's entry points (each call small when
    the value is fine, so a value that is a number gives a result quickly)."""
    import dipc_plus
    sparse = dipc_plus.example("theories/sparse.toml")
    rr = dipc_plus.example("theories/randomized_response_privacy.toml")
    noisy_max_text = Path(dipc_plus.example("programs/noisy_max.dip")).read_text()
    noisy_max = dipc_plus.Program.from_text(noisy_max_text, params={"m": 3})
    rr_claim = Path(rr).read_text().replace("../programs/", str(ROOT / "programs") + "/")
    one = {"q": [0, 0, 0]}
    return {
        "check_accuracy params c": lambda v: dipc_plus.check_accuracy(sparse, params={"c": v}, input=one),
        "check_accuracy params": lambda v: dipc_plus.check_accuracy(sparse, params=v, input=one),
        "check_accuracy input q[1]": lambda v: dipc_plus.check_accuracy(sparse, params={"c": 1},
                                                                       input={"q": [v, 0, 0]}),
        "check_accuracy input q": lambda v: dipc_plus.check_accuracy(sparse, params={"c": 1}, input={"q": v}),
        "check_accuracy inputs": lambda v: dipc_plus.check_accuracy(sparse, params={"c": 1}, inputs=v),
        "check_accuracy kappa": lambda v: dipc_plus.check_accuracy(sparse, params={"c": 1}, input=one, kappa=v),
        "check_accuracy limits": lambda v: dipc_plus.check_accuracy(sparse, params={"c": 1}, input=one,
                                                                   limits={"digits": v}),
        "check_accuracy timeout": lambda v: dipc_plus.check_accuracy(sparse, params={"c": 1}, input=one, timeout=v),
        "check_accuracy claim": lambda v: dipc_plus.check_accuracy(v),
        "check_privacy params": lambda v: dipc_plus.check_privacy(rr, params={"x": v}),
        "check_privacy max_memory": lambda v: dipc_plus.check_privacy(rr, max_memory=v),
        "check_privacy claim": lambda v: dipc_plus.check_privacy(v),
        "distribution input q[1]": lambda v: noisy_max.distribution(input={"q": [v, 0, 0]}),
        "distribution input": lambda v: noisy_max.distribution(input=v),
        "distribution max_states": lambda v: noisy_max.distribution(input={"q": [0, 0, 1]}, max_states=v),
        "Program.from_text": lambda v: dipc_plus.Program.from_text(v),
        "Program.from_text params m": lambda v: dipc_plus.Program.from_text(noisy_max_text, params={"m": v}),
        "Claim.from_text": lambda v: dipc_plus.Claim.from_text(v),
        "Claim.from_text program": lambda v: dipc_plus.Claim.from_text(rr_claim, program=v),
    }


def api_value_cases(seed: int, n: int) -> list[tuple[str, str]]:
    """n (entry point, value) pairs drawn from a stream of their own (the file cases stay the same)."""
    rng = random.Random(seed + 3610)
    calls, values = sorted(_api_calls()), sorted(API_VALUES)
    return [(rng.choice(calls), rng.choice(values)) for _ in range(n)]


def test_size_fuzz_api_values_end_cleanly():
    """50 hostile values (400 with DIPC_LONG=1) through check_accuracy, check_privacy, distribution,
    Program.from_text and Claim.from_text: each ends in the library's documented error type
    (UserError and its subclasses) or a result, never another exception."""
    from dipc_plus.errors import UserError
    calls = _api_calls()
    outcomes = {"result": 0, "UserError": 0}
    broken = []
    for name, value in api_value_cases(SEED + 2, 400 if LONG else 50):
        try:
            calls[name](API_VALUES[value]())
            outcomes["result"] += 1
        except UserError:
            outcomes["UserError"] += 1
        except Exception as exc:   # noqa: BLE001 - the point: any other exception is a break
            broken.append(f"{name} <- {value}: {type(exc).__name__}: {str(exc)[:200]}")
    print(f"API value fuzz: {outcomes}, broken {len(broken)}")
    assert not broken, "\n".join(broken)
    assert outcomes["UserError"] > outcomes["result"] > 0, outcomes


# -- hostile sizes (issue 15's table) ------------------------------------------------------------

@pytest.mark.parametrize("beta, limit", [
    ('"(eps+1)**100000"', "power"),
    ('"9**9**9"', "power"),
    ('"2*m*c*exp(-alpha*eps*10**9)"', "exp_rate"),
    ('"' + "9" * 5000 + '"', "digits"),
    ('"' + "(" * 3000 + "eps" + ")" * 3000 + '"', "nested"),  # Python's own parser refuses at 200
    ('"' + "+".join(["eps"] * 6000) + '"', "nested"),     # a flat sum is a deep tree
    ('"' + BALANCED + '"', "nodes"),
    ('"10**70"', "digits"),
], ids=["power", "tower", "rate", "digits", "depth", "sum", "nodes", "big-power"])
def test_hostile_formula_refused_before_work(tmp_path, beta, limit):
    claim = claim_with(tmp_path, "sparse.toml", beta=beta)
    code, out, err = run(["accuracy", ROOT / "programs/sparse.dip", claim, "--timeout", "20"])
    assert_refused(code, err, limit if limit == "nested" else f"--limit {limit}=")
    assert re.search(r":19:\d+: error", err), err  # the beta line


@pytest.mark.parametrize("budget", ['"9**9**9*eps"', '"10**5000*eps"', '"' + "9" * 5000 + '*eps"',
                                    '"eps*ln(' + "(" * 500 + "2" + ")" * 500 + ')"'], ids=["tower", "power", "digits", "depth"])
def test_hostile_budget_refused(tmp_path, budget):
    claim = claim_with(tmp_path, "laplace_privacy.toml", budget=budget)
    code, out, err = run(["privacy", ROOT / "programs/laplace.dip", claim, "--timeout", "20"])
    assert_refused(code, err)


@pytest.mark.parametrize("field, value", [
    ("eps", '"(0, 1/0)"'), ("eps", '"[1/0, 2]"'), ("budget", '"eps/0"'), ("budget", '"eps*ln(1/0)"'),
    ("eps", '"ln(0)"'), ("bound", '"1/0"'), ("budget", "1"), ("eps", "[1, 2]"), ("bound", '"x"'),
])
def test_divisions_by_zero_and_wrong_types_in_claims(tmp_path, field, value):
    """Issue 8.6: ZeroDivisionError and `int + str` tracebacks from malformed claims."""
    claim = claim_with(tmp_path, "laplace_privacy.toml", **{field: value})
    code, out, err = run(["privacy", ROOT / "programs/laplace.dip", claim, "--timeout", "20"])
    assert_refused(code, err)


def test_device_as_program_path_in_claim(tmp_path):
    claim = claim_with(tmp_path, "sparse.toml", path='"/dev/zero"')
    code, out, err = run(["accuracy", ROOT / "programs/sparse.dip", claim, "--timeout", "20"])
    assert_refused(code, err, "not a regular file")


@pytest.mark.parametrize("make", ["device", "fifo", "directory", "too_big"])
def test_inputs_must_be_small_regular_files(tmp_path, make):
    extra = []
    if make == "device":
        path = "/dev/zero"
    elif make == "fifo":
        path = tmp_path / "fifo.dip"
        os.mkfifo(path)
    elif make == "directory":
        path = tmp_path
    else:
        path = tmp_path / "big.dip"
        path.write_text((ROOT / "programs/sparse.dip").read_text())
        extra = ["--limit", "file_bytes=100"]
    code, out, err = run(["show", path, "--timeout", "20"] + extra)
    assert_refused(code, err)
    if make == "too_big":
        assert "--limit file_bytes=" in err


@pytest.mark.parametrize("text, limit", [
    ("param k = " + "9" * 5000, "digits"),
    ("param k = " + "(" * 3000 + "1" + ")" * 3000, "depth"),
], ids=["digits", "depth"])
def test_hostile_program_refused(tmp_path, text, limit):
    program = tmp_path / "hostile.dip"
    program.write_text(text + "\ninput q: real[1]\noutput out: real[1]\nout[1] <- Lap(eps, q[1])\n")
    code, out, err = run(["show", program, "--timeout", "20"])
    assert_refused(code, err, f"--limit {limit}=")


# -- the guard: time and memory, even inside one C call ------------------------------------------

def test_timeout_stops_a_long_c_call():
    """One call into GMP/FLINT that runs for minutes: a Python timer could not interrupt it."""
    from flint import fmpz
    stops = []
    code = guard.run_guarded(lambda: int(fmpz(7) ** (4 * 10 ** 9) > 0), timeout=1.0, max_memory=None,
                             on_stop=lambda s: stops.append(s) or s.exit)
    assert code == 2 and "time limit" in stops[0].message


def test_memory_limit_stops_an_allocation():
    stops = []
    code = guard.run_guarded(lambda: len(bytearray(6 << 30)), timeout=30, max_memory=1 << 30,
                             on_stop=lambda s: stops.append(s) or s.exit)
    assert code == 2 and "memory limit" in stops[0].message


def test_cli_timeout_with_a_raised_limit(tmp_path):
    """--limit lets a trusted heavy formula through; --timeout then ends the run with exit 2."""
    claim = claim_with(tmp_path, "sparse.toml", beta='"(eps+1)**100000"')
    code, out, err = run(["accuracy", ROOT / "programs/sparse.dip", claim, "--limit", "power=1000000",
                          "--limit", "terms=1000000", "--timeout", "2", "--no-progress"])
    assert code == 2 and "time limit of 2 s" in err and "Traceback" not in err, err


def test_options_are_checked():
    for argv, word in ((["--timeout", "-1"], "--timeout"), (["--max-memory", "lots"], "--max-memory"),
                       (["--max-memory", "1M"], "--max-memory"), (["--limit", "power"], "--limit"),
                       (["--limit", "nope=3"], "unknown limit")):
        code, out, err = run(["show", ROOT / "programs/sparse.dip"] + argv)
        assert code == 2 and word in err, err


def test_help_shows_the_defaults():
    code, out, err = run(["accuracy", "--help"])
    assert code == 0
    assert f"default {guard.DEFAULT_TIMEOUT:g}" in out and "--max-memory" in out and "--limit" in out


# -- signals, pipes ------------------------------------------------------------------------------

def _children(pid: int) -> set[int]:
    """Every descendant of `pid`, read from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_during_jobs_run_ends_every_worker(sig, code):
    proc = subprocess.Popen(
        [sys.executable, "-m", "dipc_plus", "accuracy", "programs/noisy_max.dip", "theories/noisy_max.toml",
         "--set", "m=7", "--jobs", "2", "--no-progress", "--timeout", "300"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        seen = set()
        while time.monotonic() < deadline and len(seen) < 3:  # the guarded child and two workers
            seen = _children(proc.pid)
            time.sleep(0.1)
        assert len(seen) >= 3, "the --jobs 2 workers never started"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    time.sleep(0.2)
    assert not [p for p in seen if _alive(p)], "workers left behind"


def test_closed_pipe_ends_quietly():
    r, w = os.pipe()
    os.close(r)  # like `dipc ... | head` after head has exited
    proc = subprocess.run([sys.executable, "-m", "dipc_plus", "show", "programs/sparse.dip"], cwd=ROOT,
                          stdout=w, stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(w)
    assert proc.stderr == "" and proc.returncode == cli.EXIT_BROKEN_PIPE, proc.stderr


# -- outputs never replace inputs ----------------------------------------------------------------

def test_dtmc_output_over_the_program_is_refused(tmp_path):
    program = tmp_path / "x.dip"
    program.write_text((ROOT / "programs/sparse.dip").read_text())
    before = program.read_text()
    code, out, err = run(["dtmc", program, "--input", "q=[-1,0,1]", "-o", program])
    assert code == 2 and "input of this run" in err
    assert program.read_text() == before
    link = tmp_path / "link.dip"
    link.symlink_to(program)
    code, out, err = run(["dtmc", program, "--input", "q=[-1,0,1]", "-o", link])
    assert code == 2 and program.read_text() == before


@pytest.mark.parametrize("argv", [
    ["plot", "programs/sparse.dip", "CLAIM", "--input", "q=[-1,-1,1]", "-o", "CLAIM"],
    ["privacy-loss", "programs/laplace.dip", "CLAIM", "--plot", "programs/laplace.dip"],
])
def test_figures_never_replace_inputs(tmp_path, argv):
    theory = "sparse.toml" if "sparse" in argv[1] else "laplace_privacy.toml"
    claim = claim_with(tmp_path, theory)
    before = {p: Path(p).read_bytes() for p in (claim, ROOT / argv[1])}
    argv = [str(claim) if a == "CLAIM" else (str(ROOT / a) if a.startswith("programs/") else a) for a in argv]
    code, out, err = run(argv)
    assert code == 2 and "input of this run" in err, err
    assert {p: Path(p).read_bytes() for p in before} == before


def test_outputs_are_atomic(tmp_path):
    target = tmp_path / "out.dot"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            Path(tmp).write_text("half")
            raise RuntimeError("crash while writing")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["out.dot"]
    write_text(target, "new")
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["out.dot"]


def test_dtmc_writes_its_output(tmp_path):
    out_path = tmp_path / "chain.dot"
    code, out, err = run(["dtmc", ROOT / "programs/sparse.dip", "--input", "q=[-1,0,1]", "-o", out_path])
    assert code == 0 and out_path.read_text().startswith("digraph")


# -- --json, --jobs, internal errors, --version --------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["accuracy", "programs/sparse.dip", "theories/nothing.toml", "--json"],
    ["accuracy", "programs/sparse.dip", "theories/sparse.toml", "--json", "--kappa", "x"],
    ["privacy", "programs/laplace.dip", "BAD", "--json"],
])
def test_json_errors_are_one_object(tmp_path, argv):
    bad = claim_with(tmp_path, "laplace_privacy.toml", budget='"eps/0"')
    argv = [str(bad) if a == "BAD" else (str(ROOT / a) if "/" in a else a) for a in argv]
    code, out, err = run(argv)
    obj = json.loads(out)
    assert code == 2 and obj["exit"] == 2 and obj["error"]["message"]
    assert set(obj["error"]) == {"file", "line", "column", "message", "hint"}
    if "BAD" in str(argv) or argv[2] == str(bad):
        assert obj["error"]["line"] is not None


def test_jobs_capped_at_cores():
    code, out, err = run(["accuracy", ROOT / "programs/sparse.dip", ROOT / "theories/sparse.toml",
                          "--input", "q=[-1,-1,1]", "--jobs", "4096", "--no-progress"])
    assert code == 0 and "--jobs 4096 capped at" in err, err


def test_internal_error_is_exit_3_with_details(monkeypatch):
    from dipc_plus.decision.decide import CertificationError

    def broken(args):
        raise CertificationError("could not certify")
    for name in ("show", "accuracy"):
        parser = cli.build_parser(name)   # the parser main() uses for that command
        sub = next(a for a in parser._actions if isinstance(a, __import__("argparse")._SubParsersAction))
        monkeypatch.setattr(sub.choices[name], "_defaults", {**sub.choices[name]._defaults, "func": broken})
    code, out, err = run(["show", ROOT / "programs/sparse.dip"])
    assert code == cli.EXIT_INTERNAL and len(err.strip().splitlines()) == 1
    assert err.startswith("internal error: CertificationError") and "please report" in err
    details = re.search(r"details: (\S+)\)", err).group(1)
    assert "could not certify" in Path(details).read_text()
    os.unlink(details)
    code, out, err = run(["accuracy", ROOT / "programs/sparse.dip", ROOT / "theories/sparse.toml", "--json"])
    assert code == 3 and json.loads(out)["exit"] == 3
    os.unlink(re.search(r"details: (\S+)$", json.loads(out)["error"]["hint"]).group(1))


def test_version():
    code, out, err = run(["--version"])
    assert code == 0 and out.startswith("dipc ")


def test_a_command_module_that_fails_to_import_is_not_skipped(monkeypatch):
    monkeypatch.setattr(cli, "COMMANDS", cli.COMMANDS + [Command("gone", "no_such_command", "a module that is not there")])
    cli.build_parser.cache_clear()
    try:
        with pytest.raises(ModuleNotFoundError):
            cli.build_parser()
    finally:
        cli.build_parser.cache_clear()
