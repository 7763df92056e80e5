"""The one walk of shared obligations (privacy.dp.support_pairs.check_shared) over its two
enumerations: the support sub-grid (`support_forms`) and the orbit multisets (`orbit_pairs.Orbits`)
must give the same counts on the same claim - the orbits only stand for several sub-pairs at once -
and a failing obligation hands the check back with the same reason on both."""
from __future__ import annotations

import pytest

from conftest import THEORIES
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.dp.check import Checker
from dipc_plus.privacy.dp.orbit_pairs import ORBIT_PATH, orbit_tables
from dipc_plus.privacy.dp.plan import plan
from dipc_plus.privacy.dp.support_pairs import SUPPORT_PATH, check_shared, support_forms, supports_of

CLAIMS = [("svt_lyu_alg1_privacy", {"m": 3}), ("svt_lyu_alg2_privacy", {}), ("sparse_privacy", {})]


def both_walks(theory: str, params: dict):
    claim = load_privacy_claim(str(THEORIES / f"{theory}.toml"), params)
    unit = plan(claim, symmetry=False).units[0]
    supports = supports_of(claim, unit)
    orbits, forms = orbit_tables(claim, unit, supports), support_forms(claim, unit, supports)
    assert not isinstance(orbits, str) and not isinstance(forms, str), (orbits, forms)
    return check_shared(orbits, Checker(claim)), check_shared(forms, Checker(claim))


@pytest.mark.parametrize("theory,params", CLAIMS)
def test_orbit_and_support_enumerations_count_alike(theory, params):
    by_orbit, by_support = both_walks(theory, params)
    assert by_orbit.fallback is None and by_support.fallback is None
    assert (by_orbit.path, by_support.path) == (ORBIT_PATH, SUPPORT_PATH)
    assert (by_orbit.pairs, by_orbit.obligations, by_orbit.decisions) == \
        (by_support.pairs, by_support.obligations, by_support.decisions)
    assert by_orbit.used == len(by_support.used)
    assert by_orbit.keys < by_support.keys     # the orbits walk fewer (output, sub-pair) keys
    assert by_orbit.work()["orbit_keys"] > 0 and "orbit_keys" not in by_support.work()


def test_a_failing_obligation_is_handed_back_alike_on_both():
    by_orbit, by_support = both_walks("svt_lyu_alg5_privacy", {})   # Lyu et al.'s Alg. 5 is not private
    assert by_orbit.fallback == by_support.fallback == \
        "output ('bot', 'bot', 'top') fails at some pair: the per-pair walk finds the first"
