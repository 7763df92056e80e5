"""Values written in a claim file (grid values, det-table outputs, Pufferfish priors per position)
are read as values of the program's types by one reader (ClaimReader.value): a wrong value is
refused at its key's line, its message after the entry it belongs to."""
import os

import pytest

from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError

PROGRAMS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "programs")
ACCURACY = """[program]
path = "{programs}/laplace.dip"
params = {{ k = 2, sens = 1 }}

[accuracy]
input_distance = "zero-one"
output_distance = "linf"
alpha = 0
gamma = [1]
beta = "k*exp(-gamma*eps/sens)"
eps = "(0, inf)"
"""
PUFFERFISH = """[program]
path = "{programs}/truncated_geometric.dip"
params = {{ k = 2 }}

[privacy]
kind = "pufferfish"
budget = "eps"
eps = "ln(2)"
parameters = {{ p = "(0, 1)" }}
secrets = {{ absent = "x >= 0", present = "x >= 1" }}
pairs = [["present", "absent"]]

[[privacy.scenarios]]
name = "ind"
independent = {{ x = {{ "0" = "1 - p", "{value}" = "p" }} }}
"""
REAL_HINT = "write e.g. 1/2 or -3"


@pytest.mark.parametrize("tail, line, message", [
    ('det = "noise-free"\n[accuracy.inputs]\ngrid = { q = { values = [0, "abc", 1] } }\n', 14,
     "accuracy.inputs.grid: grid value of q is real: 'abc' is not a number"),
    ('det = "table"\n[[accuracy.table]]\ninput = { q = [0, 1] }\noutput = { out = [0, "zz"] }\n', 13,
     "accuracy.table: row 1: output out[2] is real: 'zz' is not a number"),
])
def test_a_wrong_accuracy_value_is_located(tmp_path, tail, line, message):
    path = tmp_path / "c.toml"
    path.write_text(ACCURACY.format(programs=PROGRAMS) + tail)
    with pytest.raises(UserError) as err:
        load_claim(str(path))
    assert (err.value.line, err.value.message, err.value.hint) == (line, message, REAL_HINT)


def test_a_table_output_and_grid_values_are_read(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(ACCURACY.format(programs=PROGRAMS) +
                    'det = "table"\n[[accuracy.table]]\ninput = { q = [0, 1] }\noutput = { out = [0, "1/2"] }\n')
    assert load_claim(str(path)).accuracy is not None


def test_a_wrong_prior_value_is_located(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(PUFFERFISH.format(programs=PROGRAMS, value="7"))
    with pytest.raises(UserError) as err:
        load_privacy_claim(str(path))
    assert (err.value.line, err.value.message, err.value.hint) == (
        13, "privacy.scenarios: ind: value of x has domain Val: '7' is not in it", "choose one of 0, 1, 2")
    path.write_text(PUFFERFISH.format(programs=PROGRAMS, value="1"))
    assert load_privacy_claim(str(path)).kind == "pufferfish"
