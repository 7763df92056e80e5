"""The one walk of the lowered program (semantics/walk.py) as its three domains see it."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from dipc_plus.accuracy.monotone import Monotonicity, NotReducible
from dipc_plus.claims import noise_free
from dipc_plus.errors import UserError
from dipc_plus.exact.linear import LinForm
from dipc_plus.frontend.load import parse_program
from dipc_plus.semantics.symbolic_chain import symbolic_paths

TWO_TESTS = """
input  q: real[2]
output first: bool
output second: bool

r <- Lap(eps, q[1])
first <- r >= 0
s <- Lap(eps, q[2])
second <- s >= 0
"""

LOOP = """
input  q: real
output hit: bool

r <- Lap(eps, q)
hit <- r >= 0
while not hit do
    hit <- hit
end
"""


def test_linform_is_the_affine_form_of_the_noise_free_program():
    form = LinForm.make({"y": 1, "x": F(2)}, F(1, 2))
    assert str(form) == "2*x + y + 1/2" and str(LinForm.constant(0)) == "0"
    assert form.value({"x": 1, "y": F(1, 4)}) == F(11, 4)
    program = parse_program(TWO_TESTS)
    found = noise_free.paths(program, {}, noise_free.real_inputs(program))
    assert len(found) == 4      # two open comparisons, every outcome feasible
    assert all(len(p.condition) == 2 for p in found)


def test_symbolic_paths_are_listed_depth_first_true_before_false():
    program = parse_program(TWO_TESTS)
    walk = symbolic_paths(program)
    assert list(walk.paths) == [(False, False), (False, True), (True, False), (True, True)]
    # the noise ids are the sample positions of the compiled code, the inputs' ids follow them
    assert sorted(walk.noises) == [0, 2] and sorted(walk.input_ids) == [5, 6]


def test_domains_choose_what_a_loop_is():
    program = parse_program(LOOP)
    with pytest.raises(NotReducible, match="While statement"):
        Monotonicity(program)
    assert noise_free.run(program, {"q": F(1)}) == {"hit": True}
    with pytest.raises(UserError, match="never ends"):
        noise_free.run(program, {"q": F(-1)})
    with pytest.raises(UserError, match="comes back to the same state"):
        symbolic_paths(program)
