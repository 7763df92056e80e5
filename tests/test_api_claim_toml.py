"""A claim's TOML is read by the claims stage's reader (claims.written_numbers.load_toml) in the API too,
so Claim.from_text and Claim.from_file refuse what the command refuses, with its words and position."""
from __future__ import annotations

import pytest

import dipc_plus
from dipc_plus.errors import UserError


def refusal(text: str) -> UserError:
    with pytest.raises(UserError) as err:
        dipc_plus.Claim.from_text(text, name="mine")
    return err.value


def test_a_syntax_error_is_located_in_the_users_text():
    e = refusal("[program\npath = 1\n")
    assert e.message == "not valid TOML: Expected ']' at the end of a table declaration"
    assert (e.file, e.line, e.column) == ("mine", 1, 9) and "tables are [name]" in e.hint


def test_a_number_with_too_many_digits_is_located_and_names_the_limit():
    e = refusal("x = 1" + "0" * 500 + "\n")
    assert "has 501 digits" in e.message and (e.file, e.line, e.column) == ("mine", 1, 5)
    assert "limits={'digits': N}" in e.hint     # the command's --limit in Python words


def test_a_claim_file_is_read_the_same_way(tmp_path):
    path = tmp_path / "wide.toml"
    path.write_text("x = 1" + "0" * 500 + "\n")
    with pytest.raises(UserError) as err:
        dipc_plus.Claim.from_file(path)
    assert "has 501 digits" in err.value.message and (err.value.line, err.value.column) == (1, 5)
