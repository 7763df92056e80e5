"""support_pairs.store_forms: the one store of closed forms the support and orbit walks read.

Its refusals hand a check back to the per-pair walk, so each must fire when its premise fails
(no shipped theory reaches them)."""
from types import SimpleNamespace

from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.privacy.dp.support_pairs import store_forms

UNIT = SimpleNamespace(inputs=("a", "b"))
GRID = [[0, 1], [0, 1]]
INDICES = [(0, 0), (0, 1), (1, 0), (1, 1)]
HALF, THIRD = ExpFrac.of(1) / ExpFrac.of(2), ExpFrac.of(1) / ExpFrac.of(3)


def feed(tables):
    return lambda envs: iter([tables[(e["a"], e["b"])] for e in envs])


def by_a(o, idx):
    return (idx[0],)


def test_forms_equal_on_a_key_are_stored_once_as_one_object():
    tables = {(x, y): {("t",): ExpFrac.of(1) / ExpFrac.of(2 + x)} for x in (0, 1) for y in (0, 1)}
    seen = []
    stored = store_forms(UNIT, GRID, INDICES, [("t",)], by_a, feed(tables), "x", lambda idx, env: seen.append(idx))
    assert stored[("t",)] == {(0,): HALF, (1,): THIRD} and seen == INDICES


def test_a_form_that_differs_within_a_key_is_refused():
    tables = {(x, y): {("t",): HALF if y == 0 else THIRD} for x in (0, 1) for y in (0, 1)}
    why = store_forms(UNIT, GRID, INDICES, [("t",)], by_a, feed(tables), "inputs of one orbit")
    assert why == "output ('t',): P differs between inputs of one orbit"


def test_an_output_the_walk_did_not_name_is_refused():
    tables = {(x, y): {("t",): HALF, ("u",): HALF} for x in (0, 1) for y in (0, 1)}
    why = store_forms(UNIT, GRID, INDICES, [("t",)], by_a, feed(tables), "x")
    assert why == "output ('u',) is not among the symbolic walk's"


def test_a_positive_probability_where_no_key_is_given_is_refused():
    tables = {(x, y): {("t",): HALF} for x in (0, 1) for y in (0, 1)}
    assert store_forms(UNIT, GRID, INDICES, [("t",)], lambda o, idx: None, feed(tables), "x") == \
        "output ('t',): the symmetry proof finds no way to it, yet P > 0 at some input"
    zero = {(x, y): {} for x in (0, 1) for y in (0, 1)}
    assert store_forms(UNIT, GRID, INDICES, [("t",)], lambda o, idx: None, feed(zero), "x") == {("t",): {}}
