"""The required keys of [accuracy] and [privacy] are named, with their hints, at the table's line."""
from __future__ import annotations

import os

import pytest

from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError

PROGRAM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "programs", "laplace.dip")


def _error(tmp_path, table: str, load) -> UserError:
    path = tmp_path / "c.toml"
    path.write_text(f'[program]\npath = "{PROGRAM}"\n\n{table}', encoding="utf-8")
    with pytest.raises(UserError) as info:
        load(str(path))
    return info.value


@pytest.mark.parametrize("given,missing,hint", [
    ('', "input_distance", 'write input_distance = "linf" (or "zero-one", "numeric-sparse")'),
    ('input_distance = "linf"\noutput_distance = "zero-one"\nalpha = "dd"\n', "gamma",
     'write gamma = 0 (or a number, a list of numbers, or "alpha")'),
])
def test_accuracy_names_the_first_missing_key(tmp_path, given, missing, hint):
    err = _error(tmp_path, "[accuracy]\n" + given, load_claim)
    assert (err.message, err.hint, err.line) == (f"accuracy: [accuracy] has no '{missing}'", hint, 4)


def test_privacy_names_a_missing_adjacency(tmp_path):
    err = _error(tmp_path, '[privacy]\nbudget = "eps"\n', load_privacy_claim)
    assert err.message == "privacy: [privacy] has no 'adjacency'"
    assert err.hint == 'write adjacency = "hamming" (or "one-position", "linf", "l1", "pairs")'
    assert err.line == 4
