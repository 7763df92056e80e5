"""A search for a counterexample on every value of a real output skips a candidate whose sup no
enclosure certifies, instead of stopping the whole box decision with exit 2.

Why: the box privacy generator's long run met a program (seed 916: an argmax of three Laplace draws
beside their sum) where one candidate's sup L(eps)/eps could not be certified at 512 bits; the
search raised NotCertified and `dipc privacy` exited 2 with a hint about narrowing eps, although
another candidate refutes the claim (sup at least 3/2 against the budget eps/2).  A search may skip
what it cannot certify (it only ever refutes); a verification may not.
"""
from fractions import Fraction

import pytest

from dipc_plus.decision.sup_ratio import NotCertified
from dipc_plus.privacy.dp import real_output_loss
from dipc_plus.privacy.dp.real_output_loss import SupCache


class _Candidate:
    class ratio:
        num, den = "e^eps", "1"


def _uncertified(*_args, **_kwargs):
    raise NotCertified("no certified bound on L(eps)/eps was found at 128, 256 or 512 bits")


def test_a_search_skips_an_uncertified_candidate(monkeypatch):
    monkeypatch.setattr(real_output_loss, "sup_one", _uncertified)
    search = SupCache(Fraction(1, 100), Fraction(1, 2))
    assert search.first(_Candidate(), set()) is None


def test_a_verification_still_stops_on_an_uncertified_candidate(monkeypatch):
    monkeypatch.setattr(real_output_loss, "sup_one", _uncertified)
    with pytest.raises(NotCertified):
        SupCache().first(_Candidate(), set())
