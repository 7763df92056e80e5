"""The recogniser reads a release `val[i] <- e` as the read r or the gap r - x only when every
coefficient of e is a number: a coefficient that is a finite variable (k * r - x) is refused at its
line, never a crash on comparing it with the numbers 1 and -1."""
from __future__ import annotations

import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program
from dipc_plus.privacy.online.recognise import recognise
from dipc_plus.privacy.online.shape import shape_at_length

PROGRAM = """param m = 3
type Ans = {bot, num}
input  q: real[m]
output out: Ans[m]
output val: real[m]
var k: 1..2
k <- 1
x <- Lap(eps/2, 0)
for i = 1 to m do
    r <- Lap(eps/4, q[i])
    if r >= x then
        out[i] <- num
        val[i] <- RELEASE
    else
        out[i] <- bot
        val[i] <- 0
    end
end
"""


@pytest.mark.parametrize("release", ["k * r - x", "k * r"])
def test_a_variable_coefficient_is_refused_at_its_line(release):
    program = parse_program(PROGRAM.replace("RELEASE", release), "p.dip")
    with pytest.raises(UserError) as err:
        recognise(shape_at_length(program))
    assert err.value.line == 13 and "cannot decide privacy for every m" in err.value.message


def test_the_gap_with_number_coefficients_is_accepted():
    auto = recognise(shape_at_length(parse_program(PROGRAM.replace("RELEASE", "r - x"), "p.dip")))
    assert any(st.has("gap") for st in auto.steps)
