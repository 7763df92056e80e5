"""Claim.from_text and the [program] path its text names: read from base_dir, checked against program=,
and a wrong path reported at the path's own line and column of the user's text."""
from __future__ import annotations

import pytest

import dipc_plus
from dipc_plus.errors import UserError

LAPLACE = dipc_plus.example("programs/laplace.dip")
PRIVACY = '''
[privacy]
adjacency = "linf"
bound = 1
budget = "eps"
events = { out = ["(-inf, 0]", "(0, inf)"] }

[privacy.inputs]
grid = { q = [0, 1] }
'''


def claim_text(path: str) -> str:
    return f'[program]\npath = "{path}"\nparams = {{ k = 1 }}\n' + PRIVACY


def test_a_relative_path_is_read_from_base_dir():
    claim = dipc_plus.Claim.from_text(claim_text("laplace.dip"), base_dir=LAPLACE.parent, name="mine")
    assert claim.program_path == str(LAPLACE) and dipc_plus.check_privacy(claim).verdict == "verified"


def test_an_absolute_path_is_kept():
    claim = dipc_plus.Claim.from_text(claim_text(str(LAPLACE)), name="mine")
    assert claim.program_path == str(LAPLACE) and f'path = "{LAPLACE}"' in claim.text


def test_a_missing_relative_program_is_named_at_its_path(tmp_path):
    with pytest.raises(UserError) as err:
        dipc_plus.Claim.from_text(claim_text("nowhere.dip"), base_dir=tmp_path, name="mine")
    e = err.value
    assert e.message.startswith("program.path: no program 'nowhere.dip' in /") and "base_dir" in e.hint
    assert (e.file, e.line, e.column) == ("mine", 2, 8)


def test_program_given_must_be_the_program_the_path_names():
    same = dipc_plus.Claim.from_text(claim_text("laplace.dip"), base_dir=LAPLACE.parent,
                                     program=dipc_plus.load(LAPLACE, params={"k": 1}))
    assert same.program_path == str(LAPLACE)
    with pytest.raises(UserError) as err:
        dipc_plus.Claim.from_text(claim_text("laplace.dip"), base_dir=LAPLACE.parent, name="mine",
                                  program=dipc_plus.example("programs/noisy_max.dip"))
    e = err.value
    assert "program.path names 'laplace.dip' but program= gives another program (noisy_max.dip)" in e.message
    assert (e.file, e.line, e.column) == ("mine", 2, 8)


def test_program_given_completes_a_table_of_params_only():
    text = "[program]\nparams = { k = 1 }\n" + PRIVACY
    claim = dipc_plus.Claim.from_text(text, program=LAPLACE, name="mine")
    assert claim.program_path == str(LAPLACE) and dipc_plus.check_privacy(claim).verdict == "verified"
