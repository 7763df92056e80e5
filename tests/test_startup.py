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
    # the proxy imports on first use: show needs none, a claim's formula needs sympy
    assert "sympy" in _loaded_after("from dipc_plus.claims.formula import parse, Where\n"
                                    "parse('2*exp(-eps)', ['m'], Where('t.toml', 1, 1))")


def test_lazy_proxy_imports_on_first_attribute_only():
    from dipc_plus.execution.lazy import lazy_import
    proxy = lazy_import("json")
    assert "not loaded yet" in repr(proxy)
    assert proxy.dumps([1]) == "[1]"
    assert "loaded" in repr(proxy) and "not" not in repr(proxy)
