"""A zero of a closed form travels to and from worker processes (--jobs, Dask, the API's guarded
child) by pickle, and refines after the trip.  A sign function stored as a lambda made every
irrational zero unpicklable: `dipc sweep --executor dask` and `check_sweep(timeout=...)` ended with
exit 3 ("Can't pickle local object 'TranscendentalRoot.__init__.<locals>.<lambda>'")."""
import pickle
from fractions import Fraction

import pytest

import dipc_plus.execution.executor  # noqa: F401 (registers the pickling of FLINT's types)
from dipc_plus.decision.certified import Interval
from dipc_plus.decision.roots import zeros_in
from dipc_plus.exact.expoly import ExpPoly

CASES = [(ExpPoly.monomial(1, 1, 1) - 1, "TranscendentalRoot", "0.5671432904"),
         (ExpPoly.eps(2) - 2, "AlgebraicRoot", "1.414213562"),
         (ExpPoly.exp(1) - 2, "LogAlgebraicRoot", "0.6931471806"),
         (ExpPoly.exp(1) * ExpPoly.exp(1) - ExpPoly.exp(1) - 1, "LogAlgebraicRoot", "0.4812118251"),
         (ExpPoly.eps() - 1, "RationalRoot", "1.000000000")]


@pytest.mark.parametrize("form, kind, value", CASES, ids=[c[1] + str(i) for i, c in enumerate(CASES)])
def test_a_zero_survives_pickle_and_refines(form, kind, value):
    (root,) = zeros_in(form, 1, Interval())
    assert type(root).__name__ == kind
    copy = pickle.loads(pickle.dumps(root))
    copy.refine_to(Fraction(1, 10**12))
    assert copy.approx(10) == value and copy.compare(Fraction(value)) == root.compare(Fraction(value))
