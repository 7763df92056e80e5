"""Every claim key that names an input, an output or a secret offers the closest name when it
names none (one did-you-mean for all claim readers), with the line of the key."""
from __future__ import annotations

import os
import textwrap

import pytest

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _claim(tmp_path, program: str, body: str) -> str:
    path = tmp_path / "claim.toml"
    path.write_text(f'[program]\npath = "{os.path.join(ROOT, "programs", program)}"\n' + textwrap.dedent(body))
    return str(path)


def _refusal(path: str) -> UserError:
    with pytest.raises(UserError) as err:
        load_privacy_claim(path)
    return err.value


def test_unknown_output_in_events_suggests_the_output(tmp_path):
    path = _claim(tmp_path, "laplace.dip", """\
        params = { k = 1, sens = 1 }
        [privacy]
        adjacency = "linf"
        budget = "eps"
        events = { outt = ["(-inf, 0]", "(0, inf)"] }
        [privacy.inputs]
        grid = { q = [-1, 1] }
        """)
    err = _refusal(path)
    assert "'outt' is not an output of" in err.message and err.line == 7
    assert err.hint == "did you mean 'out'? its outputs are: out"


def test_unknown_input_of_an_independent_prior_suggests_the_input(tmp_path):
    path = _claim(tmp_path, "truncated_geometric_count.dip", """\
        [privacy]
        kind = "pufferfish"
        budget = "eps"
        eps = "ln(2)"
        parameters = { p = "(0, 1)" }
        secrets = { sick = "x[1] == 1", healthy = "x[1] == 0" }
        pairs = [["sick", "healthy"]]
        [[privacy.scenarios]]
        name = "iid"
        independent = { xx = { "0" = "1 - p", "1" = "p" } }
        """)
    err = _refusal(path)
    assert "iid: 'xx' is not an input of" in err.message
    assert err.hint == "did you mean 'x'? its inputs are: x"


def test_a_case_slip_in_a_choice_is_suggested(tmp_path):
    path = _claim(tmp_path, "laplace.dip", """\
        params = { k = 1, sens = 1 }
        [privacy]
        adjacency = "LINF"
        budget = "eps"
        """)
    err = _refusal(path)
    assert "'LINF' is not allowed" in err.message and err.hint.startswith("did you mean 'linf'? choose one of")
