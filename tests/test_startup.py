"""Start-up stays light: the command line imports sympy, numpy, networkx and matplotlib only
when a command needs them (issue 10, item 2).  The time itself is measured by
experiments/bench_engine.py, never asserted here."""
import subprocess
import sys

HEAVY = ("sympy", "numpy", "networkx", "matplotlib", "scipy", "tqdm")


def _loaded_after(code: str) -> list:
    probe = code + "\nimport sys\nprint(' '.join(m for m in %r if m in sys.modules))" % (HEAVY,)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_building_every_command_parser_imports_no_heavy_library():
    assert _loaded_after("import dipc_plus.cli as c; c.build_parser()") == []


def test_help_and_version_import_no_heavy_library():
    code = ("import contextlib, io\nimport dipc_plus.cli as c\n"
            "for argv in (['--help'], ['--version'], ['accuracy', '--help']):\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        try:\n            c.main(argv)\n        except SystemExit:\n            pass")
    assert _loaded_after(code) == []


def test_a_command_still_gets_its_library_when_it_runs():
    # the proxy imports on first use: a closed form as a sympy expression needs sympy
    assert "sympy" in _loaded_after("from dipc_plus.semantics.distribution import Exact\n"
                                    "from dipc_plus.exact.expoly import ExpPoly\n"
                                    "Exact(ExpPoly.exp(-1)).to_sympy()")


def test_latex_of_a_closed_form_needs_no_sympy():
    """exact.expoly.latex_exppoly writes LaTeX itself (sympy's printer took a minute on NoisyMax
    m = 20's closed forms)."""
    assert "sympy" not in _loaded_after("from dipc_plus.semantics.distribution import Exact\n"
                                        "from dipc_plus.exact.expoly import ExpPoly\n"
                                        "assert Exact(ExpPoly.exp(-1)).latex() == 'e^{-\\\\epsilon}'")


def test_an_accuracy_run_reads_its_formula_without_sympy():
    """The claim's beta is read by our own tree walk (claims/formula.py): a whole grid check,
    with its limit alpha -> infinity and its slope in alpha, loads no computer algebra."""
    code = ("import contextlib, io\nimport dipc_plus.cli as c\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        c.main(['accuracy', 'theories/sparse.toml', '--set', 'm=2', '--json', '--timeout', '0',"
            " '--max-memory', '0'])\n"
            "    except SystemExit:\n        pass")
    assert "sympy" not in _loaded_after(code)


def test_lazy_proxy_imports_on_first_attribute_only():
    from dipc_plus.execution.lazy import lazy_import
    proxy = lazy_import("json")
    assert "not loaded yet" in repr(proxy)
    assert proxy.dumps([1]) == "[1]"
    assert "loaded" in repr(proxy) and "not" not in repr(proxy)


def test_help_lists_every_command_without_importing_any_command_module():
    code = ("import contextlib, io\nimport dipc_plus.cli as c\nout = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n    try:\n        c.main(['--help'])\n"
            "    except SystemExit:\n        pass\n"
            "import sys\nfrom dipc_plus.commands import COMMANDS\n"
            "assert all(e.name in out.getvalue() for e in COMMANDS), out.getvalue()\n"
            "print(' '.join(m for m in sys.modules if m.startswith('dipc_plus.commands.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == []


def test_running_a_command_imports_its_module_only():
    code = ("import contextlib, io\nimport dipc_plus.cli as c\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    try:\n        c.main(['privacy_loss', '--help'])\n"
            "    except SystemExit:\n        pass\n"
            "import sys\nprint(' '.join(m for m in sys.modules if m.startswith('dipc_plus.commands.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.split()) <= {"dipc_plus.commands.privacy_loss", "dipc_plus.commands.common"}
    assert "dipc_plus.commands.privacy_loss" in out.stdout.split()


def test_every_command_parser_is_the_same_built_alone_or_with_all():
    import argparse
    from dipc_plus import cli
    from dipc_plus.commands import COMMANDS

    def command_parser(parser, name):
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return sub.choices[name]
    every = cli.build_parser(cli.ALL)
    for entry in COMMANDS:
        alone = command_parser(cli.build_parser(entry.name), entry.name).format_help()
        assert alone == command_parser(every, entry.name).format_help()
        assert "--timeout" in alone   # the shared limits were added to it


def test_an_unknown_command_is_a_usage_error_naming_the_choices(capsys):
    from dipc_plus import cli
    try:
        cli.main(["acuracy", "x.toml"])
    except SystemExit as stop:
        assert stop.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'acuracy'" in err and "accuracy" in err and "privacy-loss" in err
