"""Issue 36, items 2, 4 and 9: closed and full standard streams, signals before main(), and an
unknown MPLBACKEND.

The rule: a failed write to stdout (closed descriptor, full device) ends with exit 2 and one
line on stderr; a broken pipe stays 141; a failing stderr changes neither stdout nor the exit
code; the verdict codes are used only when the whole report was written.  Each run is a
subprocess whose streams are set up by the shell (`exec` keeps the exit code the command's).
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest
from conftest import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
DIPC = [sys.executable, "-m", "dipc_plus"]
UNGUARDED = ["--timeout", "0", "--max-memory", "0"]
VERIFIED_JSON = ["accuracy", "theories/laplace.toml", "--input", "q=[0,1]", "--json"]   # exit 0 when written
SHOW = ["show", "programs/sparse.dip"]
BIG_SHOW = ["show", "programs/sparse.dip", "--set", "m=4000"]                          # about 800 kB


def _shell(argv, redirect: str, *, env=None):
    """`exec dipc ARGV REDIRECT` under bash: (exit, stdout, stderr) of the command itself."""
    cmd = "exec " + " ".join(shlex.quote(str(a)) for a in [*DIPC, *argv]) + " " + redirect
    proc = subprocess.run(["bash", "-c", cmd], cwd=ROOT, env=env or ENV, capture_output=True, text=True,
                          timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def _untimed(out: str) -> str:
    """The report without its timings (`"seconds": ...`), which differ from run to run."""
    return re.sub(r'"seconds": [0-9.e+-]+', '"seconds": _', out)


def _one_line_failure(code, err, why):
    assert code == 2, (code, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    assert err.splitlines() == [err.strip()] and "could not write the report to stdout" in err and why in err, err


# -- item 4: stdout closed or full ---------------------------------------------------------------

@pytest.mark.parametrize("argv", [SHOW, SHOW + UNGUARDED, VERIFIED_JSON, VERIFIED_JSON + UNGUARDED, ["--help"],
                                  ["--version"]])
def test_closed_stdout_is_exit_2_with_one_line(argv):
    code, out, err = _shell(argv, ">&-")
    _one_line_failure(code, err, "Bad file descriptor")


@pytest.mark.parametrize("argv", [BIG_SHOW, SHOW, VERIFIED_JSON, VERIFIED_JSON + UNGUARDED, ["--help"]])
def test_full_stdout_is_exit_2_with_one_line(argv):
    code, out, err = _shell(argv, ">/dev/full")
    _one_line_failure(code, err, "No space left on device")


def test_a_usage_error_as_json_into_a_full_stdout_is_still_exit_2():
    code, out, err = _shell(["accuracy", "--no-such-option", "--json"], ">/dev/full")
    _one_line_failure(code, err, "No space left on device")


def test_a_broken_pipe_stays_141():
    proc = subprocess.run(["bash", "-c", " ".join(map(shlex.quote, [*DIPC, *BIG_SHOW])) +
                           " | head -c 10 >/dev/null; echo ${PIPESTATUS[0]} >&2"], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=120)
    assert proc.stderr.splitlines() == ["141"], proc.stderr


# -- item 4: stderr closed or full ---------------------------------------------------------------

@pytest.mark.parametrize("redirect", ["2>&-", "2>/dev/full"])
@pytest.mark.parametrize("argv", [SHOW, VERIFIED_JSON, VERIFIED_JSON + UNGUARDED])
def test_a_failing_stderr_changes_neither_stdout_nor_the_code(argv, redirect):
    want_code, want_out, _ = _shell(argv, "")
    code, out, err = _shell(argv, redirect)
    assert (code, _untimed(out)) == (want_code, _untimed(want_out)) and code == 0 and out


@pytest.mark.parametrize("redirect", ["2>&-", "2>/dev/full"])
@pytest.mark.parametrize("argv", [["show", "no_such_program.dip"], ["show", "programs/sparse.dip", "--set", "m=x"],
                                  ["accuracy", "--no-such-option"]])
def test_bad_input_with_a_failing_stderr_is_exit_2(argv, redirect):
    code, out, err = _shell(argv, redirect)
    assert code == 2 and out == "", (code, out)


def test_json_error_with_a_closed_stderr_is_the_json_object():
    code, out, err = _shell(["show", "no_such_program.dip", "--json"], "2>&-")
    want_code, want_out, _ = _shell(["show", "no_such_program.dip", "--json"], "2>/dev/null")
    assert (code, out) == (want_code, want_out)


# -- item 2: a signal before main() --------------------------------------------------------------

EARLY_SIGNAL_SCRIPT = """\
import os, signal, sys
import dipc_plus                      # what the console script imports first
os.kill(os.getpid(), signal.SIGINT)   # then, before the heavy imports and main(): INT and TERM
os.kill(os.getpid(), signal.SIGTERM)
from dipc_plus.cli import main
sys.exit(main())
"""


@pytest.mark.parametrize("argv, as_json", [(SHOW, False), (VERIFIED_JSON, True), (SHOW + UNGUARDED, False)])
def test_signals_between_the_package_import_and_main_are_exit_130(tmp_path, argv, as_json):
    script = tmp_path / "dipc"          # named like the console script, which is how the package knows
    script.write_text(EARLY_SIGNAL_SCRIPT)
    proc = subprocess.run([sys.executable, script, *argv], cwd=ROOT, env=ENV, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 130, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    assert "interrupted" in (proc.stdout if as_json else proc.stderr)


@pytest.mark.parametrize("orig_argv, latched", [
    (["python", "-m", "dipc_plus", "show"], True), (["python", "-X", "importtime", "-m", "dipc_plus"], True),
    (["python", "-mdipc_plus"], True), (["python", "-m", "pytest", "-m", "dipc_plus"], False),
    (["python", "-c", "import dipc_plus", "-m", "dipc_plus"], False), (["python", "notebook.py"], False)])
def test_only_the_dipc_process_latches_signals_at_import(orig_argv, latched):
    code = (f"import signal, sys\nsys.orig_argv = {orig_argv!r}\nsys.argv = ['x']\nimport dipc_plus\n"
            f"print(signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL)")
    proc = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == [str(latched)], proc.stderr


# -- item 9: an MPLBACKEND matplotlib does not know ----------------------------------------------

def test_plot_with_an_unknown_mplbackend_draws_its_file(tmp_path):
    fig = tmp_path / "laplace.png"
    proc = subprocess.run([*DIPC, "plot", "programs/laplace.dip", "theories/laplace.toml", "--input", "q=[0,1]",
                           "--log", "-o", fig], cwd=ROOT, env={**ENV, "MPLBACKEND": "bogus"}, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert fig.read_bytes().startswith(b"\x89PNG") and "Traceback" not in proc.stderr


def test_a_keyboard_interrupt_inside_the_package_import_is_recorded_as_the_first_signal():
    """SIGINT before the latch is entered is Python's KeyboardInterrupt, raised inside the import
    of dipc_plus: caught there and recorded, so main() ends with 130, not a traceback."""
    code = ("import builtins, sys\nsys.orig_argv = [sys.executable, '-m', 'dipc_plus']\n"
            "real, fired = builtins.__import__, []\n"
            "def hook(name, *a, **k):\n"
            "    if name == 'dipc_plus.execution.std_streams' and not fired:\n"
            "        fired.append(1)\n        raise KeyboardInterrupt\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = hook\nimport dipc_plus\nbuiltins.__import__ = real\n"
            "from dipc_plus.cli import main\nsys.exit(main(None))\n")
    proc = subprocess.run([sys.executable, "-c", code, *SHOW], cwd=ROOT, env=ENV, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 130 and "Traceback" not in proc.stderr, (proc.returncode, proc.stderr[-2000:])
