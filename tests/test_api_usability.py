"""Issue 30, points 1, 2, 4 and 12, from a library user's code: a Python API that feels like one.

Each test is what a user writes (keyword options, params={...}, claims from text, printing
results) and asserts the better behaviour the issue asks for.  The notebook itself runs in a
real kernel in tests/test_api_notebook.py.
"""
from __future__ import annotations

import inspect
import json
import os
import pydoc
import re
import subprocess
import sys
import tomllib
from fractions import Fraction

import pytest
from conftest import ROOT, THEORIES

import dipc_plus
from dipc_plus import cli

SPARSE = THEORIES / "sparse.toml"
SVT1 = THEORIES / "svt_lyu_alg1_privacy.toml"
SVT4 = THEORIES / "svt_lyu_alg4_privacy.toml"
RR_COIN = THEORIES / "randomized_response_coin_privacy.toml"
LAPLACE = THEORIES / "laplace_privacy.toml"
CHECKS = ("check_accuracy", "sweep", "check_privacy", "privacy_loss")


def _cli_json(capsys, *argv):
    code = cli.main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _comparable(obj):
    """JSON without wall-clock times and the CLI's --strict report (an option of the command)."""
    if isinstance(obj, dict):
        return {k: _comparable(v) for k, v in obj.items() if k not in ("seconds", "strict", "class_check_ms", "work")}
    if isinstance(obj, list):
        return [_comparable(v) for v in obj]
    return obj


# --------------------------------------------------------------------------- point 1


def test_point1_bundled_examples_are_found_from_any_working_directory(tmp_path):
    """The notebook's first cell failed under Jupyter (run from docs/) because it opened programs/...
    relative to the working directory; dipc_plus.example finds the shipped files from the package."""
    code = ("import dipc_plus\n"
            "p = dipc_plus.load(dipc_plus.example('programs/noisy_max.dip'), params={'m': 2})\n"
            "print(p.distribution(input={'q': [0, 0]})[1])\n"
            "print(dipc_plus.check_privacy(dipc_plus.example('randomized_response_coin_privacy.toml')).verdict)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    # two queries with equal answers and i.i.d. noise: each index wins with probability 1/2 (symmetry)
    assert done.stdout.split() == ["1/2", "verified"]
    with pytest.raises(dipc_plus.UserError) as err:
        dipc_plus.example("theories/sparse_typo.toml")
    assert "no such bundled example" in str(err.value) and "did you mean 'sparse" in str(err.value)
    with pytest.raises(dipc_plus.UserError):
        dipc_plus.example("../pyproject.toml")   # only the bundled folders


# --------------------------------------------------------------------------- point 2


def test_point2_plots_show_themselves_inline_as_png_without_pyplot():
    """A notebook cell whose value is `.plot()` displayed `<Figure size ...>`: the Figure now has a
    PNG representation Jupyter shows, and it is still a matplotlib Figure (savefig, axes)."""
    code = ("import sys, dipc_plus\n"
            "from matplotlib.figure import Figure\n"
            f"r = dipc_plus.check_accuracy({str(SPARSE)!r}, params={{'c': 1}}, input={{'q': [-1, -1, 1]}}, kappa=7)\n"
            f"figs = [r.plot(), dipc_plus.privacy_loss({str(RR_COIN)!r}).plot()]\n"
            "for fig in figs:\n"
            "    assert isinstance(fig, Figure) and len(fig.axes) >= 1\n"
            "    png = fig._repr_png_()\n"
            "    assert png[:8] == b'\\x89PNG\\r\\n\\x1a\\n' and len(png) > 10_000, len(png)\n"
            "assert 'matplotlib.pyplot' not in sys.modules\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


# --------------------------------------------------------------------------- point 4


def _cli_options(command: str) -> set[str]:
    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    return {a.dest for a in sub.choices[command]._actions if a.dest != "help"}


# a CLI option with no keyword of the same name: what the API offers instead
API_SPELLING = {"set": "params", "no_structure": "structure", "no_progress": "progress", "claim": "claim",
                "program": "program", "kappa_max": "kappa_max", "limit": "limits"}
# options of the command line only, and why
CLI_ONLY = {
    "json": "the report's .to_json()",
    "verbose": "the report's .text(verbose=True)",
    "shard": "parts for `dipc merge` in a job array; the API runs the whole check",
    "timeout": "guards the command's process; a library call must not kill its caller",
    "max_memory": "an address-space limit on the command's process, not on a notebook kernel",
    "plot": "report.plot() returns the Figure (fig.savefig(path))",
    "allow_vacuous": "changes the exit code only; the report's .to_json()['vacuity'] says why an answer is vacuous",
    "summary": "a printed form of the command (tally and worst inputs); the report keeps every input",
    "worst": "goes with --summary",
}


@pytest.mark.parametrize("function, command", [("check_accuracy", "accuracy"), ("sweep", "sweep"),
                                               ("check_privacy", "privacy"), ("privacy_loss", "privacy-loss")])
def test_point4_every_command_option_is_a_keyword_argument(function, command):
    sig = inspect.signature(getattr(dipc_plus, function))
    params = sig.parameters
    assert not any(p.kind is p.VAR_KEYWORD for p in params.values()), "no **kwargs: a typo must be a TypeError"
    for dest in sorted(_cli_options(command)):
        if dest in CLI_ONLY:
            continue
        name = API_SPELLING.get(dest, dest)
        assert name in params, f"dipc {command} --{dest.replace('_', '-')} has no keyword in {function}"
    for name, p in params.items():
        assert p.annotation is not inspect.Parameter.empty, f"{function}({name}) has no type"
        if name != "claim":
            assert p.kind is p.KEYWORD_ONLY, f"{function}({name}) is keyword-only"


def test_point4_every_length_jobs_and_params_are_options_not_program_parameters(capsys):
    # the call: every_length=True was taken for a program parameter
    r = dipc_plus.check_privacy(SVT1, every_length=True)
    code, out = _cli_json(capsys, "privacy", str(SVT1), "--every-length")
    assert code == 0 and r.verified and r.every_length and r.verdict == "verified"
    assert _comparable(r.to_json()) == _comparable(out) and out["scope"] == "every m >= 1"
    assert "every m" in repr(r)
    # jobs: the same verdict and counterexample over two processes as in this one
    one, two = dipc_plus.check_privacy(SVT4), dipc_plus.check_privacy(SVT4, jobs=2)
    assert not two.verified and _comparable(two.to_json()) == _comparable(one.to_json())
    # a misspelt option is Python's TypeError, not a program parameter
    with pytest.raises(TypeError, match="every_lenght"):
        dipc_plus.check_privacy(SVT1, every_lenght=True)  # type: ignore[call-arg]
    # parameters go in params={...}; the error speaks Python, not --set
    with pytest.raises(dipc_plus.UserError) as err:
        dipc_plus.check_accuracy(SPARSE, params={"c": "two"})
    assert "params={'c': 4}" in err.value.hint and "--set" not in str(err.value)
    with pytest.raises(dipc_plus.UserError) as err:
        dipc_plus.check_accuracy(SPARSE, params={"cc": 2})
    text = str(err.value)
    assert "params['cc']" in text and "--set" not in text and "did you mean 'c'" in text
    with pytest.raises(dipc_plus.UserError) as err:
        dipc_plus.check_privacy(SVT4, executor="dask")
    assert "scheduler=" in str(err.value) and "--" not in str(err.value)


def test_point4_privacy_loss_verified_when_the_budget_holds():
    # randomized response telling the truth w.p. 3/4: the tight loss is ln(3/(1/4)/... ) = ln 3, and the
    # claim's budget is ln(3) (Warner 1965; Dwork & Roth 2014, section 3.2)
    holds = dipc_plus.privacy_loss(RR_COIN)
    assert holds.verified is True and holds.verdict == "verified" and holds.loss == "ln(3)"
    assert holds.to_json()["budget_holds"] is True
    # SVT as in Lyu et al. Alg. 4 is not eps-DP: its loss exceeds the budget eps somewhere
    fails = dipc_plus.privacy_loss(SVT4)
    assert fails.verified is False and fails.to_json()["budget_holds"] is False
    assert fails.verified == dipc_plus.check_privacy(SVT4).verified


def test_point4_counterexamples_group_inputs_by_array_as_the_json_does(capsys):
    r = dipc_plus.check_accuracy(SPARSE, params={"c": 1}, input={"q": [-1, -1, 1]}, kappa=7)
    cex = r.counterexample
    code, out = _cli_json(capsys, "accuracy", str(SPARSE), "--set", "c=1", "--input", "q=[-1,-1,1]", "--kappa", "7")
    assert code == 1
    assert cex.input == {"q": [-1, -1, 1]} == out["counterexample"]["input"]
    assert all(type(v) is int for v in cex.input["q"])
    assert cex.eps == Fraction(out["counterexample"]["eps"]) and cex.kappa == 7
    p = dipc_plus.check_privacy(SVT4).counterexample
    code, out = _cli_json(capsys, "privacy", str(SVT4))
    assert p.input == out["counterexample"]["input"] and p.neighbour == out["counterexample"]["neighbour"]
    assert p.output == out["counterexample"]["output"] and isinstance(p.input["q"], list)


def test_claims_on_every_output_value_go_through_the_api_as_through_the_command(capsys):
    """An eps-DP claim on a real output without events (decided on densities) and its box twin:
    check_privacy gives the command's verdict, JSON and re-checked counterexample (once a KeyError)."""
    for name in ("bad_gap_sparse_vector_m5_privacy_values", "bad_gap_sparse_vector_m5_privacy_box"):
        r = dipc_plus.check_privacy(THEORIES / f"{name}.toml")
        code, out = _cli_json(capsys, "privacy", str(THEORIES / f"{name}.toml"))
        assert code == 1 and r.verdict == "refuted" and r.verified is False
        cex = r.counterexample
        assert isinstance(cex, dipc_plus.ValueCounterexample)
        assert cex.to_json() == out["counterexample"]
        assert cex.input == {"q": [Fraction(x) for x in out["counterexample"]["input"].values()]}
        assert cex.eps == Fraction(out["counterexample"]["eps"]) and "val[5]=w" in cex.output
        assert cex.event_ratio > 1 and "refuted at" in r.summary() and "re-checked" in r.text()
    r = dipc_plus.check_privacy(THEORIES / "gap_above_threshold_m3_privacy_values.toml")
    assert r.verified and r.counterexample is None and r.to_json()["sup_loss_over_eps"] == "3/4"


def test_point4_results_print_cleanly():
    nm = dipc_plus.load(dipc_plus.example("programs/noisy_max.dip"), params={"m": 2})
    shown = {
        "Counterexample": dipc_plus.check_accuracy(SPARSE, params={"c": 1}, input={"q": [-1, -1, 1]},
                                                   kappa=7).counterexample,
        "KappaStar": dipc_plus.sweep(SPARSE, params={"c": 1}).kappa_star,
        "SampleResult": nm.simulate(1, 2000, input={"q": [0, 1]}, seed=3),
        "PrivacyCounterexample": dipc_plus.check_privacy(SVT4).counterexample,
        "Program": nm,
    }
    for name, obj in shown.items():
        text = repr(obj)
        assert text.lstrip("<").startswith(name), text
        assert "object at 0x" not in text and "Outcome(" not in text and "ir.Program" not in text, text
        assert "q[1]" not in text and len(text) < 300, text
    assert "{'q': [-1, -1, 1]}" in repr(shown["Counterexample"]) and "eps=1" in repr(shown["Counterexample"])
    assert repr(shown["KappaStar"]).startswith("KappaStar(6.3758")
    assert repr(shown["SampleResult"]) == "<SampleResult noisy_max: 2000 runs at eps=1, q=[0, 1]>"
    html = shown["SampleResult"]._repr_html_()
    assert "out=1" in html and "out=2" in html and "/ 2000" in html
    # the printed inequality is certified: the lower end of P[error] and the upper end of beta/7
    # (both read back from the repr) are ordered as the claim's failure says
    m = re.search(r"P\[error\] >= ([\d.]+) > ([\d.]+) >= beta/7", repr(shown["Counterexample"]))
    assert m and Fraction(m.group(1)) > Fraction(m.group(2))
    # reports: one readable line as repr, the command's report as str
    r = dipc_plus.check_privacy(SVT4)
    assert repr(r).startswith("<PrivacyReport privacy of svt_lyu_alg4: refuted at q=") and "\n" not in repr(r)
    assert "REFUTED (re-checked by an independent evaluation)" in str(r)


def test_point4_programs_and_claims_from_text_match_the_files(capsys):
    text = LAPLACE.read_text()
    claim = dipc_plus.Claim.from_text(text, base_dir=LAPLACE.parent, name="laplace_cell")
    from_text, from_file = dipc_plus.check_privacy(claim), dipc_plus.check_privacy(LAPLACE)
    assert from_text.verdict == from_file.verdict == "verified"
    a, b = _comparable(from_text.to_json()), _comparable(from_file.to_json())
    assert a.pop("claim") == "laplace_cell" and b.pop("claim") == str(LAPLACE)
    assert a == b
    # a program from text, a claim about it from text: the coin's tight budget is ln 3 > ln 2
    coin = dipc_plus.Program.from_text((ROOT / "programs/randomized_response_coin.dip").read_text(), name="coin")
    claim2 = dipc_plus.Claim.from_text('[privacy]\nadjacency = "hamming"\nbudget = "ln(2)"\n', program=coin)
    r = dipc_plus.check_privacy(claim2)
    assert r.verdict == "refuted" and r.counterexample.input != r.counterexample.neighbour
    assert dipc_plus.privacy_loss(claim2).loss == "ln(3)"
    # the same text's program from the file gives the same distribution
    from_file_prog = dipc_plus.load(ROOT / "programs/randomized_response_coin.dip")
    assert str(coin.distribution(input={"x": True})) == str(from_file_prog.distribution(input={"x": True})) \
        .replace("randomized_response_coin", "coin")


def test_point4_errors_carry_file_line_column_and_hint_in_python_words(tmp_path):
    # a misspelt key on line 7: the error from text names the text as the user named it, with the
    # line and column the same claim has as a file
    text = '[program]\npath = "laplace.dip"\nparams = { k = 1 }\n\n[privacy]\nadjacency = "linf"\nbudgte = "eps"\n'
    claim = dipc_plus.Claim.from_text(text, base_dir=ROOT / "programs", name="my_claim")
    with pytest.raises(dipc_plus.UserError) as err:
        dipc_plus.check_privacy(claim)
    e = err.value
    as_file = tmp_path / "claim.toml"
    as_file.write_text(text.replace("laplace.dip", str(ROOT / "programs" / "laplace.dip")))
    with pytest.raises(dipc_plus.UserError) as err_file:
        dipc_plus.check_privacy(as_file)
    assert (e.file, e.line, e.column) == ("my_claim", 7, err_file.value.column)
    assert err_file.value.line == 7 and err_file.value.file == str(as_file)
    assert "did you mean 'budget'" in e.hint and str(e).startswith(f"my_claim:7:{e.column}: error:")
    # a relative program path that is not in base_dir: located at the path's value
    with pytest.raises(dipc_plus.UserError) as err:
        dipc_plus.Claim.from_text(text, base_dir=tmp_path, name="my_claim")
    assert (err.value.file, err.value.line, err.value.column) == ("my_claim", 2, text.splitlines()[1].index('"') + 1)
    assert "base_dir" in err.value.hint
    # a program's error: the line and column of the unknown name in the text
    with pytest.raises(dipc_plus.UserError) as err:
        dipc_plus.Program.from_text("input x: real\noutput y: real\ny <- Lap(eps, z)\n", name="cell_3")
    assert (err.value.file, err.value.line, err.value.column) == ("cell_3", 3, 15)
    # a TOML syntax error in claim text is located too
    with pytest.raises(dipc_plus.UserError) as err:
        dipc_plus.Claim.from_text('[program]\npath = laplace.dip\n', name="bad_toml")
    assert (err.value.file, err.value.line) == ("bad_toml", 2)
    # strict=True: the command's exit 4 as an exception carrying the report
    with pytest.raises(dipc_plus.StrictVerdictError) as err:
        dipc_plus.check_privacy(LAPLACE, strict=True)
    assert err.value.report.verified and "named events" in err.value.reason


def test_point4_help_shows_every_parameter_with_its_type_and_meaning():
    for name in CHECKS:
        fn = getattr(dipc_plus, name)
        doc = pydoc.render_doc(fn, renderer=pydoc.plaintext)
        params = inspect.signature(fn).parameters
        section = doc.split("Parameters", 1)[1].split("Returns", 1)[0]
        documented = set(re.findall(r"^\s{4}(\w+(?:, \w+)*) :", section, re.M))
        names = {n for group in documented for n in group.split(", ")}
        assert set(params) <= names, (name, set(params) - names)
        head = doc.split("\n\n", 1)[0] + doc.split("\n\n", 1)[1][:2000]
        for p in params:
            assert re.search(rf"\b{p}: [\w.]", head), (name, p)   # the type is in the signature line
        assert ">>> " in doc   # an example (run by pytest --doctest-modules over dipc_plus)
    done = subprocess.run([sys.executable, "-c", "import dipc_plus as d; help(d.check_privacy)"],
                          env={**os.environ, "PYTHONPATH": str(ROOT), "PAGER": "cat"}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "every_length : bool" in done.stdout and "jobs : int" in done.stdout


def test_point4_every_public_name_has_a_doctest_example():
    import dipc_plus.api as api
    for name in api.__all__:
        obj = getattr(api, name)
        if inspect.isfunction(obj) or name in ("Program", "Claim"):
            assert ">>> " in (obj.__doc__ or ""), name
    for method in ("from_file", "from_text", "distribution", "simulate"):
        assert ">>> " in getattr(dipc_plus.Program, method).__doc__, method
    assert ">>> " in dipc_plus.Claim.from_text.__doc__


# --------------------------------------------------------------------------- point 12


def test_point12_license_and_project_metadata():
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License") and "the dipc-plus authors" in license_text
    assert "WITHOUT WARRANTY OF ANY KIND" in license_text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "MIT"}
    assert project["authors"] == [{"name": "the dipc-plus authors"}]
    classifiers = project["classifiers"]
    assert "License :: OSI Approved :: MIT License" in classifiers and "Typing :: Typed" in classifiers
    assert f"Programming Language :: Python :: {project['requires-python'].lstrip('>=')}" in classifiers
    # no invented addresses: a URL is given only where the project has one
    assert "urls" not in project or all(u.startswith("https://") for u in project["urls"].values())
    extras = project["optional-dependencies"]["test"]
    for needed in ("nbclient", "nbformat", "ipykernel", "mypy"):
        assert any(req.startswith(needed) for req in extras), needed


def test_point4_the_readme_python_block_runs_as_written(tmp_path, monkeypatch):
    """The README's "From Python" block (our own text, run from a folder that is not the repository)."""
    readme = (ROOT / "README.md").read_text()
    (block,) = re.findall(r"## From Python.*?```python\n(.*?)```", readme, re.S)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(block, "README.md (From Python)", "exec"), namespace)   # our README, not user input
    r = namespace["r"]
    assert r.verdict == "refuted" and r.counterexample.input == {"q": [-1, -1, 1]}


def test_point4_pufferfish_claims_and_several_inputs_through_the_api_equal_the_command(capsys):
    """Pufferfish claims (check and loss with the adversary's attack) and `inputs=[...]` run through
    the API exactly as through the command."""
    puff = THEORIES / "truncated_geometric_count_pufferfish.toml"
    r = dipc_plus.check_privacy(puff)
    code, out = _cli_json(capsys, "privacy", str(puff))
    assert _comparable(r.to_json()) == _comparable(out) and r.verified == (code == 0)
    loss = dipc_plus.privacy_loss(puff, attack=True)
    code, out = _cli_json(capsys, "privacy-loss", str(puff), "--attack")
    assert code == 0 and _comparable(loss.to_json()) == _comparable(out) and "attack" in out
    assert loss.verified is None and "Pufferfish" in repr(loss)   # a loss table decides no budget
    two = dipc_plus.check_accuracy(SPARSE, params={"c": 1}, inputs=[{"q": [-1, -1, 1]}, {"q": [0, 0, 0]}], kappa=7)
    assert two.to_json()["inputs_checked"] == 2 and two.counterexample.input == {"q": [-1, -1, 1]}
    with pytest.raises(dipc_plus.UserError, match="not both"):
        dipc_plus.check_accuracy(SPARSE, input={"q": [0, 0, 0]}, inputs=[{"q": [0, 0, 0]}])



def test_a_loss_report_answers_strict_reason_like_every_report():
    # LossResult has no `verdict` of its own: the report's (budget holds or not) decides it
    holds = dipc_plus.privacy_loss(RR_COIN)
    assert (holds.verdict, holds.strict_reason) == ("verified", None)
    events = dipc_plus.privacy_loss(LAPLACE)    # a real output, checked on its named events only
    assert (events.verdict, events.strict_reason) == ("verified", "real outputs were checked only on the named events")
    fails = dipc_plus.privacy_loss(SVT4)
    assert (fails.verdict, fails.strict_reason) == ("refuted", None)


def test_decimal_parameters_are_read_exactly_as_a_claim_file_reads_them(tmp_path):
    prog = dipc_plus.example("programs/laplace.dip")
    claim = tmp_path / "half.toml"
    claim.write_text(f'[program]\npath = "{prog.as_posix()}"\nparams = {{ sens = 0.5 }}\n[privacy]\n'
                     'adjacency = "linf"\nbudget = "eps"\nevents = { out = ["(-inf, 0]", "(0, inf)"] }\n'
                     '[privacy.inputs]\ngrid = { q = [0, 1] }\n')
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    from_claim = load_privacy_claim(str(claim)).program.params["sens"]
    for written in ("0.5", "1/2", 0.5):
        assert dipc_plus.Program.from_file(prog, params={"sens": written}).params["sens"] == from_claim == Fraction(1, 2)
        assert dipc_plus.Program.from_text(prog.read_text(), params={"sens": written}).params["sens"] == from_claim
    assert dipc_plus.Program.from_file(prog, params={"sens": "0.1"}).params["sens"] == Fraction(1, 10)  # not the double
    for bad in ("half", float("nan"), float("inf")):
        with pytest.raises(dipc_plus.UserError, match="a parameter is a number|is not a finite number"):
            dipc_plus.Program.from_file(prog, params={"sens": bad})
