"""Every program in programs/ loads and prints with `dipc show`.

Each .dip file is shown with its default parameters and, when it declares the
parameters m and/or c, again with `--set m=4` / `--set c=2` (only the flags for
parameters the program has), so the example library stays in step with the
parser and the parameters really drive the programs.
"""
from __future__ import annotations


import pytest

import dipc_plus.commands.show  # noqa: F401 (a broken module must fail here, not skip)
from dipc_plus.cli import main
from dipc_plus.frontend import load as frontend
from conftest import PROGRAMS as PROGRAM_DIR

PROGRAMS = sorted(PROGRAM_DIR.glob("*.dip"))
OVERRIDES = {"m": "4", "c": "2"}


def _ids(paths):
    return [p.name for p in paths]


def test_library_is_not_empty():
    assert len(PROGRAMS) >= 20, f"expected the example library in {PROGRAM_DIR}"


@pytest.mark.parametrize("path", PROGRAMS, ids=_ids(PROGRAMS))
def test_show_with_defaults(path, capsys):
    code = main(["show", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, f"dipc show {path.name} exited {code}:\n{err}"
    assert out.strip(), f"dipc show {path.name} printed nothing"


@pytest.mark.parametrize("path", PROGRAMS, ids=_ids(PROGRAMS))
def test_show_with_larger_parameters(path, capsys):
    program = frontend.load_program(str(path), {})
    flags = []
    for name, value in OVERRIDES.items():
        if name in program.params:
            flags += ["--set", f"{name}={value}"]
    if not flags:
        pytest.skip(f"{path.name} has no parameter m or c")
    code = main(["show", str(path), *flags])
    out, err = capsys.readouterr()
    assert code == 0, f"dipc show {path.name} {' '.join(flags)} exited {code}:\n{err}"
    assert out.strip()
    # the override must actually reach the program
    changed = frontend.load_program(str(path), {k: _frac(v) for k, v in OVERRIDES.items()
                                                 if k in program.params})
    for name, value in OVERRIDES.items():
        if name in program.params:
            assert changed.params[name] == _frac(value)


def _frac(text):
    from fractions import Fraction
    return Fraction(text)
