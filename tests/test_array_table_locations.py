"""A mistake inside the k-th table of an array of tables ([[privacy.scenarios]], [[accuracy.table]])
is located at that table's key, not at the same key of the first table."""
from __future__ import annotations

import pytest

from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from conftest import PROGRAMS, noisy_max_det_table

SCENARIOS = """\
[program]
path = "{programs}/truncated_geometric_count.dip"

[privacy]
kind = "pufferfish"
budget = "eps"
eps = "ln(2)"
parameters = {{ p = "(0, 1)" }}
secrets = {{ sick = "x[1] == 1", healthy = "x[1] == 0" }}
pairs = [["sick", "healthy"]]

[[privacy.scenarios]]
name = "one"
prior = [ {{ input = {{ x = [0, 0] }}, weight = "1 - p" }}, {{ input = {{ x = [1, 1] }}, weight = "p" }} ]

[[privacy.scenarios]]
name = "two"
prior = [ {{ input = {{ x = [0, 0] }}, weight = "{weight}" }}, {{ input = {{ x = [1, 1] }}, weight = "p" }} ]
"""



def _line_of(text: str, start: str, occurrence: int) -> int:
    return [n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start)][occurrence]


@pytest.mark.parametrize("weight, words", [("1 - q", "unknown name 'q'"), ("1 -", "cannot read '1 -'")])
def test_a_mistake_in_the_second_scenario_is_located_there(tmp_path, weight, words):
    text = SCENARIOS.format(programs=PROGRAMS.as_posix(), weight=weight)
    path = tmp_path / "claim.toml"
    path.write_text(text)
    with pytest.raises(UserError) as info:
        load_privacy_claim(str(path))
    assert words in info.value.message
    assert info.value.line == _line_of(text, "prior = ", 1)


@pytest.mark.parametrize("output", ["out = 7", "nope = 1"])
def test_a_mistake_in_the_second_table_row_is_located_there(tmp_path, output):
    """Row errors are keyed `accuracy.table`: the second row's header."""
    text = noisy_max_det_table(second_output=output)
    path = tmp_path / "claim.toml"
    path.write_text(text)
    with pytest.raises(UserError) as info:
        load_claim(str(path))
    assert "row 2" in info.value.message
    assert info.value.line == _line_of(text, "[[accuracy.table]]", 1)


def test_two_scenarios_with_one_name_are_refused_at_the_second(tmp_path):
    """A verdict and a counterexample name their scenario: two scenarios named alike are refused,
    at the second one's name."""
    text = SCENARIOS.format(programs=PROGRAMS.as_posix(), weight="1 - p").replace('name = "two"', 'name = "one"')
    path = tmp_path / "claim.toml"
    path.write_text(text)
    with pytest.raises(UserError) as info:
        load_privacy_claim(str(path))
    assert info.value.message == "privacy.scenarios.name: scenarios 1 and 2 are both named 'one'"
    assert info.value.line == _line_of(text, "name = ", 1)
