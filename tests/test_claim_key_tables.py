"""Every claim table is checked against one declaration (`claim_file.Key` per key, read by
`ClaimReader.table`): a missing required key of a privacy or Pufferfish table is named in one
wording, "[privacy] has no 'KEY'", at the table's line with the key's hint, and a key of the wrong
type declared there keeps its own message."""
import os

import pytest

from dipc_plus.claims.privacy_fields import BUDGET_HINT
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError

PROGRAMS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "programs")
DP = f'[program]\npath = "{PROGRAMS}/laplace.dip"\nparams = {{ k = 2, sens = 1 }}\n\n[privacy]\nadjacency = "linf"\n'
PUFFERFISH = {
    "budget": 'budget = "eps"\n',
    "secrets": 'secrets = { absent = "x >= 0", present = "x >= 1" }\n',
    "pairs": 'pairs = [["present", "absent"]]\n',
    "scenarios": '[[privacy.scenarios]]\nname = "ind"\nindependent = { x = { "0" = "1 - p", "1" = "p" } }\n',
}
SCENARIO_HINT = '[[privacy.scenarios]]\n  name = "independent"\n  independent = { x = { "0" = "1 - p", "1" = "p" } }'


def _error(tmp_path, text: str) -> UserError:
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError) as info:
        load_privacy_claim(str(path))
    return info.value


def _pufferfish(missing: str) -> str:
    return (f'[program]\npath = "{PROGRAMS}/truncated_geometric.dip"\nparams = {{ k = 2 }}\n\n'
            '[privacy]\nkind = "pufferfish"\nparameters = { p = "(0, 1)" }\n' +
            "".join(text for key, text in PUFFERFISH.items() if key != missing))


def test_a_dp_claim_without_a_budget_is_refused_at_the_table(tmp_path):
    err = _error(tmp_path, DP + '[privacy.inputs]\ngrid = { q = [0, 1] }\n')
    assert (err.message, err.line, err.hint) == ("privacy: [privacy] has no 'budget'", 5, BUDGET_HINT)


@pytest.mark.parametrize("missing, hint", [
    ("budget", BUDGET_HINT),
    ("secrets", 'secrets = { sick = "x[1] == 1", healthy = "x[1] == 0" }'),
    ("pairs", 'pairs = [["sick", "healthy"]]'),
    ("scenarios", SCENARIO_HINT),
])
def test_a_pufferfish_claim_names_its_missing_key(tmp_path, missing, hint):
    err = _error(tmp_path, _pufferfish(missing))
    assert (err.message, err.line, err.hint) == (f"privacy: [privacy] has no '{missing}'", 5, hint)


def test_the_complete_pufferfish_claim_reads(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(_pufferfish(""), encoding="utf-8")
    claim = load_privacy_claim(str(path))
    assert (list(claim.secrets), claim.pairs, len(claim.scenarios)) == (["absent", "present"],
                                                                          [("present", "absent")], 1)


def test_an_unknown_key_lists_the_declared_keys_in_order(tmp_path):
    err = _error(tmp_path, DP + 'budget = "eps"\nzzzz = 1\n')
    assert (err.message, err.line) == ("privacy.zzzz: unknown key 'zzzz' in [privacy]", 8)
    assert err.hint == ("allowed keys: kind, adjacency, bound, pairs, budget, delta, eps, inputs, events, structure, "
                        "note, length")
