"""The pieces every command shares, written once: the whole-write stream writers, --limit carried
from cli.py into RunOptions, and the argument groups (commands.common)."""
from __future__ import annotations

import argparse
import os

import pytest

from dipc_plus import cli
from dipc_plus.commands.common import run_options
from dipc_plus.execution.output import OwnStdout, StdoutFailed, _StdoutWrites
from dipc_plus.execution.std_streams import WholeWrites, descriptor


def test_stderr_writer_drops_what_the_device_refuses():
    fd = os.open("/dev/full", os.O_WRONLY)
    try:
        assert WholeWrites(fd).write(b"message") == 7      # ENOSPC, dropped quietly
    finally:
        os.close(fd)


def test_stdout_writer_raises_the_first_failure_then_drops():
    fd = os.open("/dev/full", os.O_WRONLY)
    state = OwnStdout()
    writer = _StdoutWrites(fd, state)
    with pytest.raises(StdoutFailed):
        writer.write(b"report")
    assert isinstance(state.failure, StdoutFailed)
    assert writer.write(b"more") == 4                       # after the failure: dropped, not raised
    writer.close()


def test_stdout_writer_reports_a_closed_pipe_as_broken_pipe():
    r, w = os.pipe()
    os.close(r)
    state = OwnStdout()
    with pytest.raises(BrokenPipeError):
        _StdoutWrites(w, state).write(b"x")
    assert isinstance(state.failure, BrokenPipeError)
    os.close(w)


def test_descriptor_of_a_stream_without_one_is_none():
    import io
    assert descriptor(io.StringIO()) is None and descriptor(None) is None


def test_limits_checked_by_cli_reach_run_options():
    args = argparse.Namespace(limit=["power=300", " digits = 80"], timeout=0, max_memory="0")
    cli._apply_limits(args)
    try:
        assert run_options(args).limits == (("power", 300), ("digits", 80))
    finally:
        from dipc_plus.execution import limits
        limits.reset()


@pytest.mark.parametrize("command", ["show", "simulate", "prob", "dtmc"])
def test_program_commands_share_the_program_group(command):
    parser = cli.build_parser(command).command_parsers[command]
    options = {o for action in parser._actions for o in action.option_strings}
    assert {"--function", "--set"} <= options
    assert ("--input" in options) == (command != "show")


@pytest.mark.parametrize("command", ["accuracy", "sweep", "privacy", "privacy-loss", "plot"])
def test_claim_commands_share_the_execution_group(command):
    parser = cli.build_parser(command).command_parsers[command]
    options = {o for action in parser._actions for o in action.option_strings}
    assert {"--jobs", "--executor", "--no-progress", "--max-states"} <= options
    assert ("--reference" in options) == (command != "plot")
