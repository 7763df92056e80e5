"""execution.files.read_user_file refuses what is not a regular data file, each kind in its own words.

A folder opens read-only without an error (EISDIR is for writing), so it is refused by its mode after
the open: this pins that the message stays "it is a directory" with the folder's path, as a file the
user named (exit 2 through the command).
"""
from __future__ import annotations

import os

import pytest

from conftest import run_main
from dipc_plus.errors import UserError
from dipc_plus.execution.files import read_user_file


def test_a_folder_is_refused_as_a_directory(tmp_path):
    with pytest.raises(UserError) as err:
        read_user_file(tmp_path, "claim")
    message = err.value.message
    assert message.startswith("cannot read the claim '/") and message.endswith("it is a directory"), message
    assert err.value.hint == "give a file" and err.value.file == str(tmp_path)


def test_a_fifo_is_refused_as_not_a_regular_file(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    with pytest.raises(UserError) as err:
        read_user_file(fifo, "claim")
    assert "not a regular file (a device, FIFO or socket)" in err.value.message


def test_a_folder_given_as_the_program_is_exit_2(tmp_path):
    code, out, err = run_main(["show", str(tmp_path)])
    assert code == 2 and out == ""
    assert "it is a directory" in err
