"""dd under the zero-one input distance over the reals: 1 exactly when some input disagrees
(checked against a grid search), attained by a disagreeing witness; infinite when nothing can
disagree (one-index argmax)."""
import itertools
from fractions import Fraction as F

import pytest

from dipc_plus.claims import noise_free as nf
from dipc_plus.claims.disagreement import INF, RealSpace, outputs_equal
from dipc_plus.claims.distances import ZeroOneInput
from dipc_plus.frontend.load import load_program

from conftest import PROGRAMS


def load(name, **params):
    return load_program(str(PROGRAMS / f"{name}.dip"), {k: F(v) for k, v in params.items()})


def env(q):
    return {f"q[{i + 1}]": F(x) for i, x in enumerate(q)}


@pytest.mark.parametrize("name, params, m", [("noisy_max", {"m": 3}, 3), ("above_threshold", {"m": 2, "T": 0}, 2),
                                             ("noisy_max", {"m": 1}, 1)])
def test_zero_one_dd_is_one_exactly_when_some_input_disagrees(name, params, m):
    program = load(name, **params)
    space = RealSpace(program, ZeroOneInput())
    grid = [env(q) for q in itertools.product(range(-2, 3), repeat=m)]
    for u in grid[::3]:
        det_u = nf.run(program, u)
        d = space.dd(u, det_u)
        someone = any(not outputs_equal(nf.run(program, w), det_u) for w in grid)
        if someone:
            assert d.value == 1 and d.attained
            assert not outputs_equal(nf.run(program, d.witness), det_u) and d.output == nf.run(program, d.witness)
        else:
            assert d.value == INF and not d.attained
    assert name != "noisy_max" or m > 1 or all(space.dd(u).value == INF for u in grid)
