"""Issue 30, a newcomer's second trial: one test per point fixed here, each from the user's command.

3  vacuous accuracy answers exit 5 and name the field that made them so (--allow-vacuous: 0)
8  `dipc accuracy` alone says the CLAIM is missing; an unknown flag's hint names the command's help
9  the docs say what the code does (exit codes, JSON fields, dtmc --eps, small_db, CONTRIBUTING)
10 docs/storm.md's stormpy snippet runs and agrees with `dipc prob` (skips without stormpy)
13 `dipc accuracy --summary` prints the tally and the worst inputs only
14 `Lap(2/eps, q)` (the scale form) is answered with the rate `eps/2`
"""
from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from fractions import Fraction as F

import numpy as np
import pytest
from scipy import optimize

from dipc_plus import cli
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.commands.common import EXIT_UNDECIDED, EXIT_VACUOUS, STRICT_EXIT
from dipc_plus.execution import guard
from dipc_plus.frontend.load import load_program
from dipc_plus.semantics.distribution import build_chain, distribution_of_chain
from conftest import PROGRAMS, ROOT, THEORIES


def run(capsys, *argv):
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as stop:      # argparse's errors end the process, as in a shell
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def laplace_claim(tmp_path, **fields) -> str:
    """theories/laplace.toml with some [accuracy] fields replaced (and its program path absolute)."""
    text = (THEORIES / "laplace.toml").read_text().replace('"../programs/laplace.dip"',
                                                          json.dumps(str(PROGRAMS / "laplace.dip")))
    for key, value in fields.items():
        text, n = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text)
        assert n == 1, key
    path = tmp_path / "laplace_variant.toml"
    path.write_text(text)
    return str(path)


# --------------------------------------------------------------------------- point 3: vacuous answers

def test_linf_laplace_claim_is_vacuous_with_its_own_exit_code(tmp_path, capsys):
    claim = laplace_claim(tmp_path, input_distance='"linf"')
    code, out, _ = run(capsys, "accuracy", claim, "--no-progress")
    assert code == EXIT_VACUOUS == 5
    assert f"VACUOUS: exit {EXIT_VACUOUS}" in out and "made vacuous by: input_distance" in out
    assert 'input_distance = "zero-one"' in out and "--allow-vacuous" in out
    # the reports say why: dd(u) = 0 at every input (det = q changes under any perturbation of q)
    code, out, _ = run(capsys, "accuracy", claim, "--no-progress", "--json")
    data = json.loads(out)
    assert code == 5 and data["vacuous"] and data["vacuity"]["field"] == "input_distance"
    assert {r["dd"] for r in data["reports"]} == {0} and data["obligations_applicable"] == 0
    # --allow-vacuous keeps the old answer, exit 0, and still says it is vacuous
    code, out, _ = run(capsys, "accuracy", claim, "--no-progress", "--allow-vacuous")
    assert code == 0 and "VACUOUS (accepted: --allow-vacuous)" in out and "VERIFIED (vacuously" in out
    code, _, _ = run(capsys, "accuracy", claim, "--no-progress", "--allow-vacuous", "--strict")
    assert code == STRICT_EXIT
    # the sweep: no kappa fails
    code, out, _ = run(capsys, "sweep", claim, "--no-progress", "--json")
    data = json.loads(out)
    assert code == 5 and data["best_kappa_capped"] and data["counterexample"] is None
    assert data["vacuity"]["field"] == "input_distance"
    assert run(capsys, "sweep", claim, "--no-progress", "--allow-vacuous")[0] == 0


def test_the_shipped_laplace_claim_applies_and_says_why_zero_one(capsys):
    code, out, _ = run(capsys, "accuracy", THEORIES / "laplace.toml", "--no-progress")
    assert code == 0 and "VACUOUS" not in out and "0 where the claim applies" not in out
    comment = "\n".join(line for line in (THEORIES / "laplace.toml").read_text().splitlines()
                        if line.startswith("#"))
    assert "zero-one" in comment and "linf" in comment and "dd(u) = 0" in comment


def test_vacuity_names_alpha_and_kappa_max(tmp_path, capsys):
    # zero-one: dd(u) = 1 everywhere, so alpha = 1 leaves nothing with dd(u) > alpha
    claim = laplace_claim(tmp_path, alpha="1")
    code, out, _ = run(capsys, "accuracy", claim, "--no-progress", "--json")
    data = json.loads(out)
    assert code == 5 and data["vacuity"]["field"] == "alpha" and "--paper" in data["vacuity"]["hint"]
    # --paper takes dd(u) >= alpha: the claim applies again (and is then decided)
    assert run(capsys, "accuracy", claim, "--no-progress", "--paper")[0] in (0, 1)
    # a sweep whose kappa* (6.37... for Sparse c = 1) lies above --kappa-max finds no failing kappa
    code, out, _ = run(capsys, "sweep", THEORIES / "sparse.toml", "--set", "c=1", "--kappa-max", "3",
                       "--no-progress")
    assert code == 5 and "made vacuous by: --kappa-max" in out and "at least 6" in out
    assert run(capsys, "sweep", THEORIES / "sparse.toml", "--set", "c=1", "--no-progress")[0] == 0


# --------------------------------------------------------------------------- point 8: argument errors

def test_missing_claim_and_unknown_flag_are_said_in_the_commands_words(capsys):
    code, out, err = run(capsys, "accuracy")
    assert code == 2 and "claim file is missing" in err and "required: [PROGRAM]" not in err
    for command in ("accuracy", "sweep", "privacy", "privacy-loss", "plot"):
        code, _, err = run(capsys, command)
        assert code == 2 and "claim file is missing" in err, command
    code, out, err = run(capsys, "accuracy", THEORIES / "sparse.toml", "--bogus")
    assert code == 2 and "unrecognized arguments: --bogus" in err
    assert "run 'dipc accuracy --help'" in err and "run 'dipc --help'" not in err
    code, out, err = run(capsys, "privacy-loss", THEORIES / "sparse_privacy.toml", "--bogus", "--json")
    data = json.loads(out)
    assert code == 2 and data["error"]["hint"] == "run 'dipc privacy-loss --help' for the options"
    code, out, err = run(capsys, "--bogus")       # no command: the top-level help is the right one
    assert code == 2 and "run 'dipc --help'" in err


# --------------------------------------------------------------------------- point 9: the docs say what the code does

def top_level_help(capsys) -> str:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    return capsys.readouterr().out


def test_every_exit_code_is_listed_where_users_look(capsys):
    codes = {0, 1, 2, cli.EXIT_INTERNAL, STRICT_EXIT, EXIT_VACUOUS, EXIT_UNDECIDED, cli.EXIT_BROKEN_PIPE,
             *guard.EXIT_SIGNAL.values(), guard.EXIT_LIMIT}
    assert codes == {0, 1, 2, 3, 4, 5, 6, 130, 141, 143}
    listed = {int(m) for m in re.findall(r"(?m)^\s+(\d+)\s{2,}", top_level_help(capsys))}
    assert listed == codes
    readme = (ROOT / "README.md").read_text()
    json_md = (ROOT / "docs/json.md").read_text()
    for code in codes - {0, 1, 2}:
        assert re.search(rf"\b{code}\b", readme.split("Exit codes", 1)[1][:1200]), code
        assert re.search(rf"\b{code}\b", json_md.split("## Exit codes", 1)[1][:1200]), code
    assert "--allow-vacuous" in readme and "--allow-vacuous" in json_md


def documented_keys(section: str) -> set:
    text = (ROOT / "docs/json.md").read_text().split(section, 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`([a-z_]+)`", text))


def test_json_md_documents_prob_and_simulate_fields(capsys):
    code, out, _ = run(capsys, "prob", PROGRAMS / "noisy_max.dip", "--set", "m=3", "--input", "q=[-1,0,0]",
                       "--eps", "1/2", "--json")
    data = json.loads(out)
    keys = documented_keys("## `dipc prob --json`")
    assert code == 0 and set(data) - {"program_path"} <= keys and set(data["outcomes"][0]) <= keys
    code, out, _ = run(capsys, "prob", PROGRAMS / "noisy_max.dip", "--set", "m=3", "--input", "q=[-1,0,0]",
                       "--chain", "--json")
    data = json.loads(out)
    assert code == 0 and set(data) - {"program_path"} <= keys and set(data["chain"]) <= keys
    code, out, _ = run(capsys, "prob", PROGRAMS / "laplace.dip", "--set", "k=1", "--input", "q=[0]",
                       "--events", "out[1] > 0", "--json")
    assert code == 0 and set(json.loads(out)) <= keys | {"program_path"}
    code, out, _ = run(capsys, "simulate", PROGRAMS / "noisy_max.dip", "--set", "m=3", "--input", "q=[-1,0,0]",
                       "--eps", "1/2", "-n", "2000", "--seed", "1", "--json")
    data = json.loads(out)
    keys = documented_keys("## `dipc simulate --json`")
    assert code == 0 and set(data) <= keys and set(data["outcomes"][0]) <= keys
    code, out, _ = run(capsys, "simulate", PROGRAMS / "laplace.dip", "--set", "k=1", "--input", "q=[0]",
                       "--eps", "1", "-n", "2000", "--seed", "1", "--json")
    data = json.loads(out)
    assert code == 0 and set(data) <= keys and set(data["reals"]["out[1]"]) <= keys
    claims_md = (ROOT / "docs/claims.md").read_text()
    assert (PROGRAMS / "small_db.dip").exists() and "no `small_db.dip`" not in claims_md


def test_dtmc_eps_help_says_decimals_which_is_what_it_writes(capsys, tmp_path):
    with pytest.raises(SystemExit):
        cli.main(["dtmc", "--help"])
    helptext = " ".join(capsys.readouterr().out.split())
    at_help = helptext.split("--eps VALUE, --at VALUE", 1)[1].split(" --max-states", 1)[0]
    assert "decimals" in at_help and "certified interval" not in at_help
    pm = tmp_path / "nm.pm"
    code, _, _ = run(capsys, "dtmc", PROGRAMS / "noisy_max.dip", "--set", "m=3", "--input", "q=[-1,0,0]",
                     "--format", "prism", "--eps", "1/2", "-o", pm)
    rows = [line for line in pm.read_text().splitlines() if line.strip().startswith("[] s=")]
    probabilities = [p for row in rows for p in re.findall(r"-> (.*);", row)[0].split(" + ")]
    assert code == 0 and probabilities
    assert all(re.fullmatch(r"[01](\.\d{1,20})? : \(s'=\d+\)", p) for p in probabilities), probabilities


def test_contributing_names_the_real_layout():
    text = (ROOT / "CONTRIBUTING.md").read_text()
    assert "api.py" not in text and "register(subparsers)" not in text
    assert "`api/`" in text and "register(parser)" in text
    assert (ROOT / "dipc_plus/api/__init__.py").exists()
    for module in (ROOT / "dipc_plus/commands").glob("*.py"):
        if module.name not in ("__init__.py", "common.py"):
            assert "def register(parser)" in module.read_text(), module.name


# --------------------------------------------------------------------------- point 10: Storm

def python_block(markdown: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", markdown, re.S)
    assert len(blocks) == 1
    return blocks[0]


def test_storm_snippet_agrees_with_dipc_prob(tmp_path, capsys):
    pytest.importorskip("stormpy")
    pytest.importorskip("stormpy.numbers.developer.cln")
    doc = (ROOT / "docs/storm.md").read_text()
    for line in re.findall(r"(?m)^dipc dtmc .*$", doc):      # the doc's own export commands
        argv = line.split()[1:]
        argv = [str(ROOT / a) if a.startswith("programs/") else str(tmp_path / a) if a.endswith(".pm") else a
                for a in argv]
        assert run(capsys, *argv)[0] == 0
    script = tmp_path / "snippet.py"
    script.write_text(python_block(doc))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    printed = dict(line.split(": ", 1) for line in proc.stdout.strip().splitlines())
    assert "o0: out=1" in (tmp_path / "nm.pm").read_text()          # the label asked for is out = 1
    # dipc's side, from its own closed form: P[out = 1] = sum c e^(q eps), and t = e^(eps/2)
    program = load_program(str(PROGRAMS / "noisy_max.dip"), {"m": F(3)})
    dist = distribution_of_chain(build_chain(program, {"q[1]": F(-1), "q[2]": F(0), "q[3]": F(0)}))
    (p,) = [p for outcome, p in dist.items() if "out=1" in dist.describe(outcome).replace(" ", "")]

    def at_t(poly, t):
        terms = list(poly.monomials())
        assert all(k == 0 for _, k, _ in terms)            # eps only inside exponentials here
        return sum(c * F(t) ** int(q * 2) for c, _, q in terms)
    assert F(printed["at t = 3"]) == at_t(p.num, 3) / at_t(p.den, 3) == F(7, 54)
    # the exact engine on the decimals at eps = 1/2 against dipc's certified ball there
    code, out, _ = run(capsys, "prob", PROGRAMS / "noisy_max.dip", "--set", "m=3", "--input", "q=[-1,0,0]",
                       "--eps", "1/2", "--json")
    ball = next(o for o in json.loads(out)["outcomes"] if o["outputs"] == {"out": 1})["at"]["1/2"]
    mid, rad = re.fullmatch(r"\[(\S+) \+/- (\S+)\]", ball).groups()
    assert abs(F(printed["at eps = 1/2"]) - F(mid)) <= F(rad) + F(1, 10 ** 19)


# --------------------------------------------------------------------------- point 13: --summary

def float_margin(report) -> float:
    """min over eps of beta/P_err at one report, on a grid polished by a bounded minimiser (floats)."""
    xs = np.geomspace(1e-3, 300.0, 1500)
    ratio = lambda e: float(report.beta(e)) / float(report.p_error(e))  # noqa: E731
    ys = np.array([ratio(x) for x in xs])
    k = int(np.nanargmin(ys))
    res = optimize.minimize_scalar(ratio, bounds=(xs[max(k - 1, 0)], xs[min(k + 1, len(xs) - 1)]),
                                   method="bounded", options={"xatol": 1e-10})
    return min(ys[k], res.fun)


def test_summary_prints_the_tally_and_the_worst_inputs_only(capsys):
    claim = THEORIES / "sparse.toml"
    code, full, _ = run(capsys, "accuracy", claim, "--set", "c=1", "--no-progress")
    code_s, summary, _ = run(capsys, "accuracy", claim, "--set", "c=1", "--no-progress", "--summary", "--worst", "3")
    assert code == code_s == 0
    per_input = [line for line in full.splitlines() if line.startswith("q=[")]
    assert len(per_input) == 27
    listed = [line.strip() for line in summary.splitlines() if line.startswith("  q=[")]
    assert len(listed) == 3 and not any(line.startswith("q=[") for line in summary.splitlines())
    tally = "27 input(s), 27 obligation(s), 14 where the claim applies, 0 refuted"
    assert tally in full and tally in summary and "VERIFIED on the grid" in summary
    # the worst inputs are those of smallest min beta/P[error], by an independent float scan
    checker = AccuracyChecker(load_claim(str(claim), {"c": F(1)}))
    margins = {tuple(r.input.values()): float_margin(r) for r in checker.run().reports if r.applies}
    ranked = sorted(margins.values())
    for rank, line in enumerate(listed):
        q = tuple(F(x) for x in re.match(r"q=\[([^\]]*)\]", line).group(1).split(","))
        lo, hi = (float(x) for x in re.search(r"in \[(\S+), (\S+)\]", line).groups())
        assert lo <= margins[q] * (1 + 1e-9) and margins[q] <= hi * (1 + 1e-6) + 1e-9, line
        assert margins[q] <= ranked[rank] * (1 + 1e-6), line
    # with beta/7 the refuted inputs come first, and they are the ones the full run refutes
    code, full, _ = run(capsys, "accuracy", claim, "--set", "c=1", "--kappa", "7", "--no-progress")
    refuted = {line.split()[0] for line in full.splitlines() if line.startswith("q=[") and "refuted" in line}
    code_s, summary, _ = run(capsys, "accuracy", claim, "--set", "c=1", "--kappa", "7", "--no-progress",
                             "--summary", "--worst", str(len(refuted) + 1))
    listed = [line.split()[0] for line in summary.splitlines() if line.startswith("  q=[")]
    assert code == code_s == 1 and refuted and set(listed[:len(refuted)]) == refuted
    assert "refuted" not in [line for line in summary.splitlines() if line.startswith("  q=[")][-1]
    # JSON: unchanged without --summary; with it "worst_inputs" replaces "reports"
    _, out, _ = run(capsys, "accuracy", claim, "--set", "c=1", "--no-progress", "--json")
    assert "reports" in json.loads(out) and "worst_inputs" not in json.loads(out)
    _, out, _ = run(capsys, "accuracy", claim, "--set", "c=1", "--no-progress", "--json", "--summary")
    data = json.loads(out)
    assert "reports" not in data and len(data["worst_inputs"]) == 5
    assert data["worst_inputs"][0]["input"] == {"q": [-1, -1, 1]}
    # the margins are computed where each input is checked: two processes give the same object
    _, out, _ = run(capsys, "accuracy", claim, "--set", "c=1", "--no-progress", "--json", "--summary", "--jobs", "2")
    two = json.loads(out)
    assert ({k: v for k, v in two.items() if k not in ("seconds", "work")} ==   # work: how the processes shared
            {k: v for k, v in data.items() if k not in ("seconds", "work")})
    code, out, _ = run(capsys, "accuracy", claim, "--json", "--summary", "--shard", "1/2")
    assert code == 2 and "--summary" in json.loads(out)["error"]["message"]


# --------------------------------------------------------------------------- point 14: the scale form of Lap

@pytest.mark.parametrize("written, rate", [("2/eps", "eps/2"), ("3/(2*eps)", "2*eps/3"), ("1/eps", "eps"),
                                           ("1/(4*eps)", "4*eps")])   # rate = 1/scale, by hand
def test_scale_form_of_lap_is_answered_with_the_rate(tmp_path, capsys, written, rate):
    path = tmp_path / "scale.dip"
    path.write_text(f"input q: real\noutput out: real\nout <- Lap({written}, q)\n")
    code, _, err = run(capsys, "show", path)
    assert code == 2 and "Traceback" not in err
    assert f"{path}:3:12" in err and "scale" in err and f"Lap({rate}, q)" in err
    # the rate it names is accepted
    path.write_text(f"input q: real\noutput out: real\nout <- Lap({rate}, q)\n")
    assert run(capsys, "show", path)[0] == 0
