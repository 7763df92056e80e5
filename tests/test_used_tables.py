"""The orbit path's count of the output tables its pairs use (privacy.dp.orbit_pairs
.used_table_count) against listing their keys input by input (`used_table_keys`, the reference),
on the shipped privacy claims that take the orbit path, with and without symmetric runs."""
from __future__ import annotations

import pytest

from conftest import THEORIES
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.privacy.dp.orbit_pairs import ORBIT_PATH, orbit_tables, used_table_count, used_table_keys
from dipc_plus.privacy.dp.plan import plan
from dipc_plus.privacy.dp.support_pairs import neighbour_indices, refusal, supports_of

ORBIT_CLAIMS = [("svt_lyu_alg1_privacy", {"m": m}) for m in (2, 3, 4, 5)] + [
    ("svt_lyu_alg2_privacy", {}), ("sparse_privacy", {})]


@pytest.mark.parametrize("symmetry", [True, False])
@pytest.mark.parametrize("theory,params", ORBIT_CLAIMS)
def test_counted_tables_equal_listed_keys(theory, params, symmetry):
    claim = load_privacy_claim(str(THEORIES / f"{theory}.toml"), params)
    pl = plan(claim, symmetry=symmetry)
    assert refusal(claim, pl, None) is None
    unit = pl.units[0]
    orbits = orbit_tables(claim, unit, supports_of(claim, unit))
    assert not isinstance(orbits, str), orbits
    nb = neighbour_indices(orbits.grid[0], claim.adjacency.bound)
    counted = used_table_count(unit, orbits.grid, nb)
    assert counted is not None and counted == len(used_table_keys(unit, orbits.grid, nb))
    if symmetry:
        result = check_dp(claim)
        assert result.work["path"] == ORBIT_PATH and result.evaluations == counted


@pytest.mark.parametrize("runs,kept", [((("a", "b"),), "abcd"), ((("a", "b", "c"),), "abcd"),
                                       ((("a", "b"), ("c", "d")), "abcd"), ((("b", "c"),), "abc"), ((), "bd")])
@pytest.mark.parametrize("values,bound", [((-1, 0, 1), 1), ((0, 1, 2, 3), 1), ((0, 5, 10), 1)])
def test_counted_with_symmetric_runs_and_unread_names(runs, kept, values, bound):
    """A unit whose tables sort symmetric runs and do not read every input (built here: the shipped
    orbit claims have neither), counted as listed; (0, 5, 10) at bound 1 has no moving value."""
    from fractions import Fraction
    from types import SimpleNamespace
    from dipc_plus.privacy.dp.plan import Unit
    from dipc_plus.semantics.structure import SymmetricRun
    names = ("a", "b", "c", "d")
    grid = [[Fraction(v) for v in values]] * len(names)
    source = SimpleNamespace(names=tuple(kept), key_of=lambda env: tuple(env[n] for n in kept))
    unit = Unit("u", None, names, [], dict(zip(names, grid)), source,
                runs=[SymmetricRun(run, ()) for run in runs])
    nb = neighbour_indices(grid[0], bound)
    assert used_table_count(unit, grid, nb) == len(used_table_keys(unit, grid, nb))
