"""Output files are checked once, by cli.py, from what each command declares (`outputs`): before
any work, naming the output as the command does, and a wrong extension after the worse mistakes."""
from __future__ import annotations

from conftest import PROGRAMS, THEORIES, run_main


def test_a_folder_as_the_figure_is_refused_naming_the_figure(tmp_path):
    code, _, err = run_main(["plot", THEORIES / "laplace.toml", "--input", "q=[0,1]", "-o", tmp_path])
    assert code == 2 and "refusing to write the figure to" in err and "is a folder" in err


def test_a_missing_folder_is_said_before_a_wrong_extension(tmp_path):
    code, _, err = run_main(["privacy-loss", THEORIES / "laplace_privacy.toml", "--plot", tmp_path / "no" / "x.txt"])
    assert code == 2 and "cannot write the plot to" in err and "does not exist" in err


def test_dtmc_output_is_named_by_its_option(tmp_path):
    code, _, err = run_main(["dtmc", PROGRAMS / "laplace.dip", "--input", "q=[0]", "-o", tmp_path])
    assert code == 2 and "refusing to write -o to" in err
