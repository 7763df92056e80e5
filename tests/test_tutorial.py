"""docs/tutorial.md runs: every `$ dipc ...` command of its console blocks, from the repository root,
with the exit code it states ([exit N], else 0) and every output line it shows."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from conftest import ROOT, run_main

TUTORIAL = ROOT / "docs/tutorial.md"


def _commands():
    """[(command line, expected exit code, shown output lines)] from the ```console blocks."""
    text = TUTORIAL.read_text()
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        current = None
        for line in block.splitlines():
            if line.startswith("$ "):
                current = [line[2:], 0, []]
                found.append(current)
            elif current is not None:
                m = re.fullmatch(r"\[exit (\d+)\]", line.strip())
                if m:
                    current[1] = int(m.group(1))
                elif line.strip() and line.strip() != "...":
                    current[2].append(line.rstrip())
    return found


COMMANDS = _commands()


def test_the_tutorial_has_its_commands():
    names = [shlex.split(c)[1] for c, _, _ in COMMANDS]
    for needed in ("show", "prob", "accuracy", "sweep", "plot", "privacy", "privacy-loss", "dtmc"):
        assert needed in names, needed
    assert all(c.startswith("dipc ") for c, _, _ in COMMANDS)


@pytest.mark.parametrize("command, code, shown", COMMANDS, ids=[c[:60] for c, _, _ in COMMANDS])
def test_tutorial_command(command, code, shown, monkeypatch):
    argv = shlex.split(command)
    assert argv[0] == "dipc"
    # the command's main in this process, from the repository root (an interpreter start per
    # command was most of this file's time; test_startup.py checks what a fresh process imports)
    monkeypatch.chdir(ROOT)
    exit_code, stdout, stderr = run_main(argv[1:])
    assert exit_code == code, stderr
    assert "Traceback" not in stderr
    out = stdout + stderr
    for line in shown:
        assert line.strip() in out, f"{command}: missing {line.strip()!r}"
    for written in re.findall(r"(?:-o|--plot) (\S+)", command):
        assert Path(written).exists() and Path(written).stat().st_size > 0
        if written.endswith(".pm"):
            assert Path(written).with_suffix(".props").exists()
