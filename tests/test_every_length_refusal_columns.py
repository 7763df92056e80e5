"""Every-length refusals point at a column, not only a line (issue 40 loose end): the three
refusals built from the automaton's `file:line` strings (a guard whose outcomes do not show, no
pattern reachable, a coupling game past its size limit) now carry the statement's position."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from conftest import PROGRAMS, run_main

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import load_program
from dipc_plus.privacy.online import bound as bound_module
from dipc_plus.privacy.online.bound import coupling_bound
from dipc_plus.privacy.online.every_length import classify


def _column(text: str, line: int, snippet: str) -> int:
    """The 1-based column of `snippet` on `line` of `text`."""
    return text.splitlines()[line - 1].index(snippet) + 1


def _refusal(path) -> UserError:
    with pytest.raises(UserError) as err:
        classify(load_program(path))
    return err.value


def test_a_guard_whose_outcomes_do_not_show_is_refused_at_its_comparison(tmp_path):
    text = (PROGRAMS / "above_threshold_forever.dip").read_text().replace("out[i] <- bot", "out[i] <- top")
    prog = tmp_path / "blind.dip"
    prog.write_text(text)
    err = _refusal(prog)
    assert "does not always show" in err.message
    assert (err.file, err.line) == (str(prog), 21)
    assert err.column == _column(text, 21, ">=")    # the comparison r >= rT


def test_no_reachable_pattern_is_refused_at_the_loop_body(tmp_path):
    text = (PROGRAMS / "gap_above_threshold.dip").read_text().replace("        exit\n", "")
    prog = tmp_path / "gap_forever.dip"
    prog.write_text(text)
    err = _refusal(prog)
    assert "no pattern of non-privacy" in err.message
    assert err.line == 26 and err.column == _column(text, 26, "r <- Lap")


def test_a_game_past_its_limit_is_refused_with_a_column(monkeypatch):
    path = PROGRAMS / "k_range.dip"
    auto = classify(load_program(path, {"k": F(2)}), {"k"})[0]
    monkeypatch.setattr(bound_module, "MAX_COUPLING_STATES", 20)
    with pytest.raises(UserError, match="MAX_COUPLING_STATES = 20") as err:
        coupling_bound(auto)
    text = path.read_text()
    assert err.value.line == 26
    assert err.value.column == len(text.splitlines()[25]) - len(text.splitlines()[25].lstrip()) + 1


def test_the_command_prints_file_line_and_column(tmp_path):
    text = (PROGRAMS / "above_threshold_forever.dip").read_text().replace("out[i] <- bot", "out[i] <- top")
    prog = tmp_path / "blind.dip"
    prog.write_text(text)
    claim = tmp_path / "blind.toml"
    claim.write_text(f'[program]\npath = "{prog.as_posix()}"\nparams = {{ m = 3 }}\n[privacy]\n'
                     'adjacency = "linf"\nbudget = "eps"\nlength = "every"\n[privacy.inputs]\ngrid = { q = [-1, 1] }\n')
    code, _, err = run_main(["privacy", str(claim)])
    assert code == 2 and "Traceback" not in err
    assert f"{prog}:21:{_column(text, 21, '>=')}: error: cannot decide privacy for every m" in err
