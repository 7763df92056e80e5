"""The inputs table (grid, list or box) is read by one reader for accuracy and privacy claims:
the same mistake gets the same message under either table, at the key's own line."""
import os

import pytest

from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError

PROGRAM = os.path.abspath("programs/above_threshold.dip")
ACCURACY = """[program]
path = "{program}"
params = {{ m = 2, T = 0 }}

[accuracy]
input_distance = "linf"
output_distance = "zero-one"
alpha = 1
gamma = 0
beta = "2*m*exp(-alpha*eps/8)"

[accuracy.inputs]
{inputs}
"""
PRIVACY = """[program]
path = "{program}"
params = {{ m = 2, T = 0 }}

[privacy]
adjacency = "linf"
budget = "eps"

[privacy.inputs]
{inputs}
"""
MISTAKES = [
    ('grid = { q = [-1, 1] }\nlist = [ { q = [0, 0] } ]', "inputs: give exactly one of 'grid', 'list' and 'box' "
                                                          "(this table has grid and list)", "inputs"),
    ('list = [ { q = [0, 0] } ]\nstep = 1', "inputs.step: step only applies to a grid", "step"),
    ('box = { q = [0, 1] }\nstep = 1', "inputs.step: step only applies to a grid (a box has every real value)",
     "step"),
    ('list = []', "inputs.list: list must be a non-empty array of inline tables", "list"),
    ('list = [ { q = [0, 0, 0] } ]', "inputs.list: entry 1: ", "list"),
    ('grid = { r = [0, 1] }', "inputs.grid: 'r' is not an input of above_threshold", "grid"),
    ('grid = { q = [0, 1] }\nstep = 0', "inputs.step: step must be positive", "step"),
]


def _load(tmp_path, template: str, inputs: str, loader):
    path = tmp_path / "claim.toml"
    text = template.format(program=PROGRAM, inputs=inputs)
    path.write_text(text)
    with pytest.raises(UserError) as info:
        loader(str(path))
    return info.value, text


@pytest.mark.parametrize("inputs, message, line_key", MISTAKES)
def test_the_same_mistake_is_said_alike_in_both_tables(tmp_path, inputs, message, line_key):
    for table, template, loader in (("accuracy", ACCURACY, load_claim), ("privacy", PRIVACY, load_privacy_claim)):
        err, text = _load(tmp_path, template, inputs, loader)
        assert err.message.startswith(f"{table}.{message}"), (table, err.message)
        lines = text.splitlines()
        expected = next(n for n, line in enumerate(lines, 1)
                        if line.startswith(line_key) or line == f"[{table}.inputs]" and line_key == "inputs")
        assert err.line == expected, (table, err.line, expected)


def _write(tmp_path, template: str, inputs: str) -> str:
    path = tmp_path / "claim.toml"
    path.write_text(template.format(program=PROGRAM, inputs=inputs))
    return str(path)


def test_a_list_drops_repeats_in_both_claims(tmp_path):
    inputs = 'list = [ { q = [0, 1] }, { q = [1, 0] }, { q = [0, 1] } ]'
    accuracy = load_claim(_write(tmp_path, ACCURACY, inputs)).accuracy
    assert [list(u.values()) for u in accuracy.points] == [[0, 1], [1, 0]]
    privacy = load_privacy_claim(_write(tmp_path, PRIVACY, inputs))
    assert privacy.inputs_kind == "list"
    assert [list(u.values()) for u in privacy.points] == [[0, 1], [1, 0]]


def test_a_grid_is_the_same_product_for_both_claims(tmp_path):
    inputs = 'grid = { q = [0, 1] }\nstep = "1/2"'
    accuracy = load_claim(_write(tmp_path, ACCURACY, inputs)).accuracy
    privacy = load_privacy_claim(_write(tmp_path, PRIVACY, inputs))
    assert privacy.grid == {"q[1]": [0, 0.5, 1], "q[2]": [0, 0.5, 1]}
    assert [dict(u) for u in accuracy.points] == [dict(u) for u in privacy.points]
