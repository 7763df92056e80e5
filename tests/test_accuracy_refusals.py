"""Usage errors of the grid/list accuracy routes that no other test reaches: each is exit 2 with
its message and hint, refused before any input is checked."""
from __future__ import annotations

import pytest

from dipc_plus import cli
from conftest import THEORIES, noisy_max_det_table



def refused(argv: list, capsys) -> str:
    """The error text of a run that must end in exit 2 (on stdout, in JSON, with --json)."""
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    return captured.err + captured.out


def test_det_table_refuses_dd_over_the_reals(tmp_path, capsys):
    claim = tmp_path / "table.toml"
    claim.write_text(noisy_max_det_table())
    err = refused(["accuracy", str(claim), "--dd-over", "reals", "--no-progress"], capsys)
    assert "with a det table, dd can only be taken over the table's inputs" in err
    assert "--dd-over grid" in err


@pytest.mark.parametrize("extra", [["--shard", "1/2", "--json"], ["--summary"]])
def test_box_accuracy_is_decided_as_a_whole(extra, capsys):
    err = refused(["accuracy", str(THEORIES / "noisy_compare_box.toml"), "--no-progress", *extra], capsys)
    assert "a box claim is decided as a whole (its det regions), not input by input" in err
    assert "leave out --shard and --summary" in err


@pytest.mark.parametrize("extra, words, hint", [
    (["--paper"], "a box claim is decided under Definition 2 (dd(u) > alpha)", "leave out --paper"),
    (["--reports"], "a box sweep has no per-input reports: it decides the box's det regions", "leave out --reports"),
])
def test_box_sweep_refusals(extra, words, hint, capsys):
    err = refused(["sweep", str(THEORIES / "noisy_compare_box.toml"), "--no-progress", *extra], capsys)
    assert words in err and hint in err


def test_plot_eps_max_below_the_interval(tmp_path, capsys):
    # threshold_half's eps interval is [1, inf): a positive --eps-max below 1 draws nothing
    err = refused(["plot", str(THEORIES / "threshold_half.toml"), "--input", "q=0", "-o", str(tmp_path / "p.png"),
                   "--eps-max", "0.5", "--no-progress"], capsys)
    assert "--eps-max 0.5 is not above the start of the eps interval [1, inf)" in err
    assert "give a larger --eps-max" in err
