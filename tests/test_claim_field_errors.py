"""A claim field of the wrong TOML type, and an input left without values, is refused at its key's
line with the field's own message and hint (every kind of claim reads its fields through
`ClaimReader.typed` and `claim_file.with_finite_domains`); a secret that is no condition is
refused at its line from the sample input `secrets.read_predicate` checks it on."""
import os

import pytest

from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError

PROGRAMS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "programs")
PROGRAM = '[program]\npath = "{programs}/{name}.dip"\n{params}\n'
ACCURACY = """[accuracy]
input_distance = "zero-one"
output_distance = "linf"
alpha = 0
gamma = [1]
beta = {beta}
eps = {eps}
{inputs}"""
DP = """[privacy]
adjacency = "linf"
budget = {budget}
eps = {eps}
delta = {delta}
structure = {structure}
events = {events}
{inputs}"""
PUFFERFISH = """[privacy]
kind = "pufferfish"
budget = "eps"
eps = "ln(2)"
parameters = {parameters}
secrets = {secrets}
pairs = {pairs}

[[privacy.scenarios]]
name = "ind"
independent = {independent}
"""
GRID = '[accuracy.inputs]\ngrid = { q = [0, 1] }\n'
LAPLACE = dict(name="laplace", params="params = { k = 2, sens = 1 }")


def accuracy(beta='"k*exp(-gamma*eps/sens)"', eps='"(0, inf)"', inputs=GRID, params=LAPLACE["params"]):
    return PROGRAM.format(programs=PROGRAMS, name="laplace", params=params) + \
        ACCURACY.format(beta=beta, eps=eps, inputs=inputs)


def dp(budget='"eps"', eps='"(0, inf)"', delta='"0"', structure="true",
       events='{ out = ["(-inf, 0]", "(0, inf)"] }', inputs='[privacy.inputs]\ngrid = { q = [0, 1] }\n'):
    return PROGRAM.format(programs=PROGRAMS, **LAPLACE) + DP.format(
        budget=budget, eps=eps, delta=delta, structure=structure, events=events, inputs=inputs)


def pufferfish(parameters='{ p = "(0, 1)" }', secrets='{ absent = "x >= 0", present = "x >= 1" }',
               pairs='[["present", "absent"]]', independent='{ x = { "0" = "1 - p", "1" = "p" } }'):
    return PROGRAM.format(programs=PROGRAMS, name="truncated_geometric", params="params = { k = 2 }") + \
        PUFFERFISH.format(parameters=parameters, secrets=secrets, pairs=pairs, independent=independent)


CASES = [
    (load_claim, PROGRAM.format(programs=PROGRAMS, name="laplace", params="params = 3") + "[accuracy]\n", 3,
     "program.params: params must be a table", "write params = { m = 3, c = 1 }"),
    (load_claim, "accuracy = 3\n" + PROGRAM.format(programs=PROGRAMS, **LAPLACE), 1,
     "accuracy: accuracy must be a table", "write [accuracy] on its own line"),
    (load_claim, accuracy(eps="3"), 10, "accuracy.eps: eps must be an interval string",
     'write eps = "(0, inf)" or "[1/10, 5]"'),
    (load_claim, accuracy(beta="[1]"), 9, "accuracy.beta: beta must be a formula in a string",
     'write beta = "2*m*exp(-alpha*eps/8)"'),
    (load_claim, accuracy(inputs="inputs = 3\n"), 11, "accuracy.inputs: inputs must be a table",
     "write [accuracy.inputs] with grid = {...} or list = [...]"),
    (load_claim, accuracy(inputs="[accuracy.inputs]\ngrid = 3\n"), 12, "accuracy.inputs.grid: grid must be a table",
     "grid = { q = [-1, 1] }"),
    (load_claim, accuracy(inputs='det = "table"\n[[accuracy.table]]\ninput = { q = [0, 1] }\noutput = 3\n'), 12,
     "accuracy.table: row 1: output must be a table", "output = { out = 3 }"),
    (load_claim, accuracy(inputs="[accuracy.inputs]\ngrid = { }\n"), 12,
     "accuracy.inputs.grid: the grid gives no values for the real input 'q[1]'", "add q = [-1, 1] to the grid"),
    (load_privacy_claim, "privacy = 3\n" + PROGRAM.format(programs=PROGRAMS, **LAPLACE), 1,
     "privacy: privacy must be a table", "write [privacy] on its own line"),
    (load_privacy_claim, dp(budget="[1]"), 6, "privacy.budget: budget must be a string",
     'write the budget as a multiple of eps plus optional logarithms of rationals: '
     '"eps", "2*eps", "eps/2", "ln(3)", "eps + ln(2)"'),
    (load_privacy_claim, dp(eps="[1]"), 7, "privacy.eps: eps must be a string",
     'write eps = "(0, inf)", "[1/10, 5]" or "ln(2)"'),
    (load_privacy_claim, dp(delta="[1]"), 8, "privacy.delta: delta must be a formula in a string",
     'delta = "0" or "exp(-eps)/100"'),
    (load_privacy_claim, dp(structure='"yes"'), 9, "privacy.structure: structure must be true or false",
     "structure = true"),
    (load_privacy_claim, dp(events="3"), 10, "privacy.events: events must be a table",
     'events = { out = ["(-inf, 0]", "(0, inf)"] }'),
    (load_privacy_claim, dp(events="{ out = [] }"), 10, "privacy.events: out: give a non-empty list of intervals",
     'out = ["(-inf, 0]", "(0, inf)"]'),
    (load_privacy_claim, dp(inputs=""), 4, "privacy: no inputs are given and 'q[1]' is real",
     "add\n  [privacy.inputs]\n  grid = { q = [0, 1] }"),
    (load_privacy_claim, pufferfish(parameters="3"), 8, "privacy.parameters: parameters must be a table",
     'parameters = { p = "(0, 1)" }'),
    (load_privacy_claim, pufferfish(parameters="{ p = 1 }"), 8, "privacy.parameters.p: the range must be a string",
     'write an interval with rational ends, e.g. "(0, 1)" or "[1/4, 3/4]"'),
    (load_privacy_claim, pufferfish(secrets="{ }"), 9, "privacy.secrets: give the secrets as a table",
     'secrets = { sick = "x[1] == 1", healthy = "x[1] == 0" }'),
    (load_privacy_claim, pufferfish(secrets='{ absent = "x + 1", present = "x >= 1" }'), 9,
     "privacy.secrets.absent: the secret 'absent' = 'x + 1' is not a true/false condition",
     'write a comparison such as "x[1] == 1"'),
    (load_privacy_claim, pufferfish(secrets='{ absent = "x and 1", present = "x >= 1" }'), 9,
     "privacy.secrets.absent: in the condition 'x and 1': and/or needs true/false conditions, not '0'",
     "use comparisons (== != < <= > >=), and/or/not, + - *, sum(x), inputs as x[1]"),
    (load_privacy_claim, pufferfish(pairs="[]"), 10, "privacy.pairs: give the discriminative pairs of secrets",
     'pairs = [["sick", "healthy"]]'),
    (load_privacy_claim, pufferfish(independent="3"), 12, "privacy.scenarios: ind: independent must be a table",
     'independent = { x = { "0" = "1 - p", "1" = "p" } }'),
    (load_privacy_claim, pufferfish(independent="{ x = { } }"), 12, "privacy.scenarios: ind: x: give { value = weight, ... }",
     'x = { "0" = "1 - p", "1" = "p" }'),
]


@pytest.mark.parametrize("load, text, line, message, hint", CASES)
def test_a_field_of_the_wrong_type_is_refused_at_its_line(tmp_path, load, text, line, message, hint):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(UserError) as err:
        load(str(path))
    assert (err.value.file, err.value.line, err.value.message, err.value.hint) == (str(path), line, message, hint)
